/**
 * Tools that act on panes as objects: list, describe, split, select, resize, swap, title,
 * clear, restart, kill. Reading and typing are in read.ts and input.ts.
 *
 * @module
 */

import { z } from "../../deps.ts";
import {
  clearPane,
  getPane,
  kill,
  listPanes,
  PANE_FIELDS,
  paneStates,
  type PaneWithState,
  resizePane,
  respawnPane,
  selectPane,
  setPaneTitle,
  splitWindow,
  swapPanes,
  waitForAnyPane,
} from "../../tmux/mod.ts";
import {
  agentReportSchema,
  type AnyToolSpec,
  clampTimeout,
  columnsSchema,
  commandSchema,
  createdOutput,
  defineTool,
  directorySchema,
  killedOutput,
  objectSchema,
  okOutput,
  paneIdOutput,
  paneIdSchema,
  paneSpecShape,
  rowsSchema,
  sessionSpecShape,
  socketNameSchema,
  timeoutSchema,
  waitReadySchema,
} from "../define/mod.ts";
import { startedIn } from "./started.ts";

const paneSchema = objectSchema(PANE_FIELDS).extend({
  agent_granted: z.boolean().describe(
    "a person granted it to the agent, or the agent made it (what --granted-panes acts on)",
  ),
  agent_owned: z.boolean().describe(
    "a running tmux-mcp server made it (create_session, create_window, split_window)",
  ),
  agent_running: z.boolean().describe("a run_command's command runs there now"),
});
const stateSchema = z.object({
  program: z.string().describe("the program in front"),
  waits_for_input: z.boolean().nullable().describe(
    "it waits for terminal input, as the kernel tells it (null: cannot be told)",
  ),
  full_screen: z.boolean().describe("a full-screen program (alternate screen)"),
  person: z.enum(["typing", "attached"]).nullable().describe(
    "a person's client typing here (a key in the last 2 s) or attached to the session",
  ),
  agent: agentReportSchema.describe(
    "the agent in the pane (null: a shell at its prompt, or untold)",
  ),
  needs_you: z.boolean().describe("an agent waiting or done, or a program waiting for input"),
});
const paneShape = { pane_id: paneIdSchema, socket_name: socketNameSchema };

/** One line a pane: where the panes needing their caller come first. */
function statesText(panes: readonly PaneWithState[]): string {
  const needing = panes.filter((pane) => pane.state.needs_you);
  const line = (pane: PaneWithState): string => {
    const { agent, person } = pane.state;
    const what = agent === null
      ? pane.state.program
      : `${pane.state.program} ${agent.state}${agent.reason ? ` (${agent.reason})` : ""}` +
        (agent.source === "inferred" ? " [inferred]" : ` ${agent.age_seconds}s ago`) +
        (agent.message ? `: ${agent.message}` : "");
    return `${pane.pane_id} ${what}${person ? ` [person ${person}]` : ""}`;
  };
  return [
    `${needing.length} of ${panes.length} panes need you` +
    (needing.length > 0 ? `: ${needing.map((pane) => pane.pane_id).join(" ")}` : ""),
    ...[...needing, ...panes.filter((pane) => !pane.state.needs_you)].map(line),
  ].join("\n");
}

/** The pane tools. */
export const PANE_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "list_panes",
    target: "session",
    lists: true,
    tier: "readonly",
    title: "List panes",
    description: "Lists panes, of a window, a session, or all.",
    input: {
      ...sessionSpecShape,
      window_id: z.string().nullable().optional().describe("like @2"),
      state: z.boolean().default(false).describe("with each pane's state: which need you, and why"),
    },
    output: {
      panes: z.array(paneSchema.extend({ state: stateSchema.optional() })).describe(
        "the panes, with their fields (pane_id for other tools)",
      ),
    },
    async run(args, { socket, target }) {
      const filter = { sessionId: target, windowId: args.window_id };
      return {
        panes: args.state ? await paneStates(socket, filter) : await listPanes(socket, filter),
      };
    },
    // Listed with their states (each pane then has one): summary first, a line a pane.
    text: (r) =>
      r.panes.length > 0 && r.panes.every((pane) => pane.state !== undefined)
        ? statesText(r.panes as PaneWithState[])
        : JSON.stringify(r),
  }),
  defineTool({
    name: "wait_for_panes",
    target: "session",
    lists: true,
    tier: "readonly",
    title: "Wait for any pane to need you",
    description: "Waits until any of the panes (listed, a session's, or all) needs its caller: " +
      "an agent in it reported waiting or done (its hook lines, docs/agents.md: woken at once), " +
      "a program there waits for input or ended, or its screen shows a pattern (looked at every " +
      "2 s). Answers which pane, why, and what it wrote since the last answer naming it.",
    input: {
      ...sessionSpecShape,
      pane_ids: z.array(paneIdSchema).min(1).max(200).optional().describe("only these panes"),
      only_new: z.boolean().default(false).describe(
        "only a pane whose state changed during the wait (else one already waiting answers)",
      ),
      patterns: z.array(z.string().min(1).max(1000)).max(20).default([]).describe(
        "text on a pane's screen that counts too (literal)",
      ),
      timeout: timeoutSchema,
    },
    output: {
      outcome: z.enum(["needs_you", "timeout"]).describe("a pane needs you, or none did in time"),
      pane: paneSchema.extend({ state: stateSchema }).nullable().describe(
        "the pane that needs you, with its state (null at a timeout)",
      ),
      why: z.enum(["agent", "input", "ended", "pattern"]).nullable().describe(
        "its agent reported, its program waits for input, the program ended, a pattern shows",
      ),
      pattern: z.string().nullable().describe("the pattern its screen shows (why pattern)"),
      text: z.array(z.string()).describe(
        "what it wrote since the last answer naming it (its screen's end the first time; 40 lines)",
      ),
      panes: z.number().int().describe("panes waited on"),
    },
    async run(args, { socket, target, context, extra }) {
      return await waitForAnyPane(socket, {
        sessionId: target,
        paneIds: args.pane_ids,
        onlyNew: args.only_new,
        patterns: args.patterns,
        timeoutMs: clampTimeout(context, args.timeout) * 1000,
        signal: extra.signal,
      });
    },
    text: (r) =>
      r.pane === null
        ? `timeout: none of ${r.panes} panes needed you`
        : `${r.pane.pane_id} needs you (${r.why}${r.pattern === null ? "" : `: ${r.pattern}`})\n` +
          statesText([r.pane as PaneWithState]).split("\n").slice(1).join("\n") +
          (r.text.length === 0
            ? ""
            : `\n--- its text since the last answer:\n${r.text.join("\n")}`),
  }),
  defineTool({
    name: "get_pane_info",
    target: "pane",
    tier: "readonly",
    title: "Describe a pane",
    description: "One pane: command, path, size, cursor, mode, history.",
    input: paneSpecShape,
    output: { pane: paneSchema.describe("the pane's fields") },
    async run(_args, { socket, target }) {
      return { pane: await getPane(socket, target) };
    },
  }),
  defineTool({
    name: "split_window",
    target: "pane",
    tier: "mutating",
    title: "Split a pane",
    description: "Splits a pane: a new pane beside it, running a shell or command.",
    input: {
      ...paneSpecShape,
      direction: z.enum(["right", "left", "down", "up"]).default("down").describe(
        "of the new pane",
      ),
      size: z.union([columnsSchema, z.string().regex(/^\d{1,2}%$/)]).nullable().optional()
        .describe("cells or '30%' (default: half)"),
      start_directory: directorySchema,
      command: commandSchema,
      select: z.boolean().default(false).describe("make it active"),
      wait_ready: waitReadySchema,
    },
    output: createdOutput,
    openWorld: true,
    destructive: true,
    async run(args, { socket, target, context, extra }) {
      const made = await splitWindow(socket, target, {
        direction: args.direction,
        size: args.size,
        directory: args.start_directory,
        command: args.command,
        select: args.select,
      });
      const pane = { socket, paneId: made.pane_id, signal: extra.signal };
      return { ...made, ...await startedIn(context, pane, args) };
    },
  }),
  defineTool({
    name: "select_pane",
    target: "pane_id",
    tier: "mutating",
    title: "Select a pane",
    description: "Makes a pane its window's active pane.",
    input: paneShape,
    output: okOutput,
    async run(_args, { socket, target }) {
      await selectPane(socket, target);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "resize_pane",
    target: "pane_id",
    tier: "mutating",
    title: "Resize a pane",
    description: "Sets a pane's width and/or height in cells, or toggles zoom.",
    input: {
      ...paneShape,
      width: columnsSchema.nullable().optional().describe("columns"),
      height: rowsSchema.nullable().optional().describe("rows"),
      zoom: z.boolean().default(false).describe("toggle zoom instead of resizing"),
    },
    output: {
      pane_id: paneIdOutput,
      width: z.number().int().describe("columns now"),
      height: z.number().int().describe("rows now"),
    },
    async run(args, { socket, target }) {
      const pane = await resizePane(socket, target, args);
      return { pane_id: pane.pane_id, width: pane.pane_width, height: pane.pane_height };
    },
  }),
  defineTool({
    name: "swap_pane",
    target: "none",
    tier: "mutating",
    title: "Swap two panes",
    description: "Swaps the positions of two panes in the layout; their programs go on.",
    input: {
      source_pane_id: paneIdSchema,
      target_pane_id: paneIdSchema,
      socket_name: socketNameSchema,
    },
    output: okOutput,
    async run(args, { socket }) {
      await swapPanes(socket, { source: args.source_pane_id, target: args.target_pane_id });
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "set_pane_title",
    target: "pane_id",
    tier: "mutating",
    title: "Set a pane's title",
    description: "Sets a pane's title (shown by pane-border-status).",
    input: {
      ...paneShape,
      title: z.string().max(200).refine((s) => !/\p{Cc}/u.test(s), {
        message: "titles may not contain control characters",
      }).describe("the title, stored exactly as given (no control characters, no '#[')"),
    },
    output: { pane_id: paneIdOutput, title: z.string().describe("the title as stored") },
    async run(args, { socket, target }) {
      return { pane_id: target, title: await setPaneTitle(socket, target, args.title) };
    },
  }),
  defineTool({
    name: "clear_pane",
    target: "pane_id",
    tier: "destructive",
    title: "Clear a pane",
    description: "Resets a pane's screen and, unless history: false, deletes its scrollback.",
    input: {
      ...paneShape,
      history: z.boolean().default(true).describe("delete the scrollback too"),
    },
    output: { pane_id: paneIdOutput },
    async run(args, { socket, target }) {
      await clearPane(socket, target, { history: args.history });
      return { pane_id: target };
    },
  }),
  defineTool({
    name: "respawn_pane",
    target: "pane_id",
    tier: "destructive",
    title: "Restart a pane's program",
    description: "Starts a pane's program (or `command`) again. A live pane needs kill: true, " +
      "which ends what runs in it.",
    input: {
      ...paneShape,
      command: z.string().min(1).max(10000).nullable().optional().describe(
        "program to start (default: the pane's own start command)",
      ),
      start_directory: z.string().min(1).max(4096).nullable().optional().describe(
        "working directory (default: the pane's)",
      ),
      kill: z.boolean().default(false).describe("restart a live pane, ending what runs in it"),
      wait_ready: waitReadySchema,
    },
    output: {
      pane_id: paneIdOutput,
      pane_pid: z.number().int().describe("the new program's process id"),
      ready: createdOutput.ready,
    },
    openWorld: true,
    async run(args, { socket, target, context, extra }) {
      const pid = await respawnPane(socket, target, {
        kill: args.kill,
        directory: args.start_directory,
        command: args.command,
        protect: context.config.ownPane,
      });
      // Without a command tmux starts the pane's own again: most often a shell.
      const pane = { socket, paneId: target, signal: extra.signal };
      return { pane_id: target, pane_pid: pid, ...await startedIn(context, pane, args) };
    },
  }),
  defineTool({
    name: "kill_pane",
    target: "pane_id",
    tier: "destructive",
    title: "Kill a pane",
    description: "Kills a pane and its program, by exact id (%N) only; the server's last " +
      "pane (which would end tmux) and the pane this server runs in are refused.",
    input: paneShape,
    output: killedOutput,
    async run(_args, { socket, target, context }) {
      await kill(socket, { kind: "pane_id", id: target }, { protect: context.config.ownPane });
      return { killed: target };
    },
  }),
];
