/**
 * Toolsets: a lean default that covers what agents do, and named sets for the rest, so a
 * conversation pays only for the tools it is likely to use. Every tool is in exactly one set; the
 * safety tier still decides which of a set's tools are offered.
 *
 * @module
 */

/** The sets and their tools. */
export const TOOLSETS = {
  core: [
    "run_command",
    "wait_for_command",
    "read_command_output",
    "send_keys",
    "capture_pane",
    "snapshot_pane",
    "wait_for_text",
    "list_sessions",
    "list_windows",
    "list_panes",
    "create_session",
    "create_window",
    "split_window",
    "kill_session",
    "kill_window",
    "kill_pane",
  ],
  fanout: ["run_command_many"],
  read: ["capture_since", "search_panes"],
  input: ["paste_text"],
  info: [
    "get_server_info",
    "get_session_info",
    "get_window_info",
    "get_pane_info",
    "display_message",
  ],
  layout: [
    "rename_session",
    "rename_window",
    "select_window",
    "select_pane",
    "select_layout",
    "resize_pane",
    "resize_window",
    "swap_pane",
    "set_pane_title",
  ],
  options: ["show_option", "show_environment", "set_option"],
  channels: ["wait_for_channel", "signal_channel"],
  recovery: ["clear_pane", "respawn_pane"],
  screen: ["screenshot_pane"],
  agents: ["wait_for_panes", "hand_off"],
  background: ["list_runs", "watch_pane"],
  compat: ["run_shell_command"],
} as const satisfies Record<string, readonly string[]>;

/** A toolset's name. */
export type Toolset = keyof typeof TOOLSETS;

/** What each set is for, as the tool reference (docs/tools.md) says. */
export const TOOLSET_PURPOSES: Readonly<Record<Toolset, string>> = {
  core: "Run and collect commands, read and wait, type, list and create; kill at the top tier.",
  fanout: "One command in many panes.",
  read: "Reading by cursor, searching across panes.",
  input: "Bracketed paste.",
  info: "Details of the server, a session, a window or a pane, and tmux formats.",
  layout: "Names, selection, sizes, layouts and titles.",
  options: "tmux options and the environment.",
  channels: "tmux wait-for channels.",
  recovery: "Clearing a pane's history, restarting its program.",
  screen: "The screen as a person sees it: an image, and its styles in words.",
  agents: "Many agents in many panes: a wait for any to need its caller, a prompt handed to one.",
  background:
    "What goes on without a call: the server's runs listed, and watches that tell their end.",
  compat: "run_command with the libtmux generation's camelCase contract.",
};

/** The sets offered when none are named. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ["core"];

/** The names of every set. */
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

/** The set a tool belongs to (undefined for a name no set holds). */
export function toolsetOf(tool: string): Toolset | undefined {
  return TOOLSET_NAMES.find((set) => (TOOLSETS[set] as readonly string[]).includes(tool));
}

/** Every tool's name, set by set. */
export const TOOL_NAMES: readonly string[] = Object.values(TOOLSETS).flat();

/**
 * Checks names given to `--tools`, `--exclude-tools` or `--with-tools` (`flag`): an unknown one is
 * an error naming the tools there are (a typo would otherwise hide or keep tools without a word).
 */
export function checkToolNames(names: readonly string[], flag: string): string[] {
  const unknown = names.find((name) => !TOOL_NAMES.includes(name));
  if (unknown !== undefined) {
    throw new Error(
      `${flag}: unknown tool ${JSON.stringify(unknown)}; the tools are ` +
        TOOLSET_NAMES.map((set) => `${TOOLSETS[set].join(", ")} (${set})`).join("; "),
    );
  }
  return [...names];
}

/**
 * Reads a `--toolsets` list: names of sets, or `all`. An unknown name is an error naming the
 * sets there are (a typo would otherwise hide tools without a word).
 */
export function parseToolsets(text: string): Toolset[] {
  const names = text.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (names.includes("all")) return [...TOOLSET_NAMES];
  const unknown = names.filter((name) => !(TOOLSET_NAMES as string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown toolset ${JSON.stringify(unknown[0])}: use ${TOOLSET_NAMES.join(", ")} or all`,
    );
  }
  return names as Toolset[];
}
