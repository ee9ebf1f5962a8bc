/**
 * What the pane's shell is, and the one line typed into it to run a command with its bookkeeping.
 * Pure: no tmux here, so it is unit-tested directly.
 *
 * @module
 */

import { toHex } from "../../hex.ts";

/** How a pane's foreground process can be driven. */
export type ProcessKind = "posix_shell" | "unsupported_shell" | "other";

const POSIX_SHELLS = new Set([
  "sh",
  "bash",
  "rbash",
  "dash",
  "zsh",
  "ksh",
  "ksh93",
  "mksh",
  "lksh",
  "oksh",
  "pdksh",
  "ash",
  "busybox",
  "yash",
  "posh",
]);

const UNSUPPORTED_SHELLS = new Set([
  "fish",
  "nu",
  "nushell",
  "pwsh",
  "powershell",
  "csh",
  "tcsh",
  "elvish",
  "xonsh",
  "rc",
  "es",
  "ion",
]);

/** Classifies a pane's foreground command name (`#{pane_current_command}`). */
export function classifyProcess(name: string): ProcessKind {
  const base = name.trim().replace(/^-/, "").split("/").at(-1) ?? "";
  if (POSIX_SHELLS.has(base)) return "posix_shell";
  if (UNSUPPORTED_SHELLS.has(base)) return "unsupported_shell";
  return "other";
}

/** Quotes text as one POSIX shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Per-call names; all carry the call's random nonce. */
export interface CallNames {
  /** Pane user option that receives `status:history_size:cursor_y:cursor_x:pane_path`. */
  option: string;
  /** `wait-for` channel signalled when the command has finished; also the OSC 7 end marker. */
  channel: string;
  /** The OSC 7 start marker: `#{pane_path}` shows it while the command runs. */
  startMarker: string;
  /** Pane user option keeping a timed-out run's record, for collecting it later. */
  record: string;
  /** `wait-for` channel the trailer holds on until the output has been captured. */
  release: string;
  /** Buffer holding the command text when it is not typed inline. */
  commandBuffer: string;
  /** Buffer holding the typed line while it is pasted. */
  pasteBuffer: string;
  /** Buffer holding the run function's definition, for a shell that lacks it. */
  functionBuffer: string;
}

/** What every name this server gives things in tmux starts with. */
export const NAME_PREFIX = "tmux_mcp_";

/** Random bytes in a call's nonce (16 hex digits). */
export const NONCE_BYTES = 8;

/** Derives the per-call names from a nonce. */
export function callNames(nonce: string): CallNames {
  const base = `${NAME_PREFIX}${nonce}`;
  return {
    option: `@${base}`,
    channel: base,
    startMarker: `${base}_s`,
    record: `@${NAME_PREFIX}run_${nonce}`,
    release: `${base}_r`,
    commandBuffer: `${base}_c`,
    pasteBuffer: `${base}_p`,
    functionBuffer: `${base}_f`,
  };
}

/** The nonce of a call's status option (`@tmux_mcp_<nonce>`), or null for any other name. */
export function statusOptionNonce(name: string): string | null {
  const match = name.match(new RegExp(`^@${NAME_PREFIX}([0-9a-f]{${2 * NONCE_BYTES}})$`));
  return match ? match[1] : null;
}

/**
 * Pane user option set while one of our commands runs in the pane, to `<channel>:<pane_pid>`; the
 * trailer unsets it. The pid tells any server process that a mark outlived its shell (the pane
 * was respawned, or its process died).
 */
export const RUNNING_OPTION = `@${NAME_PREFIX}running`;

/** The value of {@linkcode RUNNING_OPTION} for a call in a pane whose process is `panePid`. */
export function runningMark(names: CallNames, panePid: number): string {
  return `${names.channel}:${panePid}`;
}

/** Whether a running mark was set for another pane process than `panePid` (or is not ours). */
export function markOutlivedShell(mark: string, panePid: string): boolean {
  return mark.slice(mark.lastIndexOf(":") + 1) !== panePid;
}

/** Commands up to this length made only of printable ASCII are typed inline, readable in the pane. */
export const INLINE_MAX = 2000;

/** True when a command can be typed as-is inside single quotes without the line editor reacting. */
export function isInlineSafe(command: string): boolean {
  return command.length <= INLINE_MAX && /^[\x20-\x7e]*$/.test(command);
}

/** The shell function every call runs through, and its definition. */
export interface RunFunction {
  /** `__tmux_mcp_` and a digest of the definition: a changed definition gets a new name. */
  name: string;
  /** POSIX shell text defining it. */
  definition: string;
}

/**
 * The function that runs one call in a pane's shell, defined there once (fetched from a buffer)
 * so the typed line stays short and shows neither the wrapper nor the socket path. Arguments:
 * the call's channel, the pane id, the `#{pane_path}` to put back, and the command (when absent,
 * it is fetched from the call's command buffer). Its body is a subshell that:
 * - writes the start marker as an OSC 7 path (so `#{pane_path}`, and the output stream, tell a
 *   started command from a line the shell never ran) and turns Ctrl-C into an exit status;
 * - runs the command in a subshell of its own;
 * - writes the channel name as an OSC 7 path, behind all of the command's output, so a matching
 *   `#{pane_path}` proves tmux has parsed every byte before it;
 * - stores `$?`, the cursor position and `#{pane_path}` (expanded by tmux) in a pane option,
 *   clears the running mark and signals the channel;
 * - holds until the server releases it, so no prompt is drawn before the output is captured;
 * - unsets its option unless the run has a record (already gone when the server collected it;
 *   a call given up on and not recorded for later never collects it);
 * - puts the pane path back and exits with the command's status.
 */
export async function runFunction(socketPath: string): Promise<RunFunction> {
  const tmux = `tmux -u -S ${shellQuote(socketPath)}`;
  const osc7 = (word: string) => `printf '\\033]7;%s\\033\\\\' ${word}`;
  const body = [
    "trap : INT",
    osc7('"$1_s"'),
    `if [ "$#" -gt 3 ]; then (eval "$4"); else ` +
    `(eval "$(${tmux} show-buffer -b "$1_c" \\; delete-buffer -b "$1_c")"); fi`,
    "s=$?",
    osc7('"$1"'),
    `${tmux} set-option -p -F -t "$2" "@$1" ` +
    `"$s:#{history_size}:#{cursor_y}:#{cursor_x}:#{pane_path}" \\; ` +
    `set-option -p -u -t "$2" ${RUNNING_OPTION} \\; wait-for -S "$1" \\; wait-for "$1_r" \\; ` +
    `if-shell -F -t "$2" "#{?@${NAME_PREFIX}run_\${1#${NAME_PREFIX}},0,1}" "set-option -p -u -t $2 @$1"`,
    osc7('"$3"'),
    "exit $s",
  ];
  const text = `(\n${body.map((line) => `  ${line}\n`).join("")})`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const name = `__${NAME_PREFIX}${toHex(new Uint8Array(digest).slice(0, 4))}`;
  return { name, definition: `${name}() ${text}\n` };
}

/** Options for {@linkcode buildTypedLine}. */
export interface TypedLineOptions {
  names: CallNames;
  paneId: string;
  /** The function the line calls. */
  run: RunFunction;
  /** Fetch and define the function first (from `names.functionBuffer`): the shell lacks it. */
  define: boolean;
  /** The pane's `#{pane_path}` (OSC 7) before the call, put back when the command has ended. */
  panePath: string;
  /** Prefix a space so shells with ignorespace keep the line out of history. */
  suppressHistory: boolean;
  /** False: the command waits in `names.commandBuffer` and the shell fetches it. */
  inline: boolean;
}

/**
 * The single line typed into the pane: a call of the run function (see {@linkcode runFunction}),
 * preceded, in a shell that lacks the function, by fetching its definition from a buffer.
 */
export function buildTypedLine(command: string, options: TypedLineOptions): string {
  const { names } = options;
  const define = options.define
    ? `eval "$(tmux show-buffer -b ${names.functionBuffer} \\; ` +
      `delete-buffer -b ${names.functionBuffer})"; `
    : "";
  const args = [names.channel, options.paneId, shellQuote(options.panePath)];
  if (options.inline) args.push(shellQuote(command));
  const prefix = options.suppressHistory ? " " : "";
  return `${prefix}${define}${options.run.name} ${args.join(" ")}`;
}
