/**
 * Destructive tools. They take exact ids only, and refuse to end the tmux server (its last
 * session) or the pane, window or session that hosts this MCP server.
 *
 * @module
 */

import { z } from "../deps.ts";
import {
  checkId,
  getPane,
  listPanes,
  literal,
  type Pane,
  runTmux,
  THEN,
  TmuxError,
  type TmuxSocket,
} from "../tmux/mod.ts";
import { socketFor, type ToolContext } from "./context.ts";
import { type AnyToolSpec, defineTool } from "./define.ts";
import {
  paneIdOutput,
  paneIdSchema,
  sessionIdSchema,
  socketNameSchema,
  windowIdSchema,
} from "./schemas.ts";

const killed = { killed: z.string().describe("the id of what was killed") };

/** Refuses when the panes about to go (among `panes`) include the one this server runs in. */
function refuseOwn(context: ToolContext, panes: Pane[], doomed: (pane: Pane) => boolean): void {
  const own = context.config.ownPane;
  if (own === null) return;
  const pane = panes.find((p) => p.pane_id === own);
  if (pane && doomed(pane)) {
    throw new TmuxError(
      "invalid_argument",
      `refused: ${own} hosts this MCP server; killing it would end the server`,
    );
  }
}

const DOOMED = {
  session_id: { noun: "session", end: "killing it would end the tmux server" },
  window_id: { noun: "window", end: "the server would end" },
  pane_id: { noun: "pane", end: "the server would end" },
} as const;

/**
 * Checks that the session, window or pane with this id exists, is not the last one (the tmux
 * server would end) and does not host this MCP server.
 */
async function checkKill(
  socket: TmuxSocket,
  context: ToolContext,
  target: { kind: keyof typeof DOOMED; id: string },
): Promise<void> {
  const { kind, id } = target;
  const { noun, end } = DOOMED[kind];
  const panes = await listPanes(socket);
  if (!panes.some((p) => p[kind] === id)) {
    throw new TmuxError("not_found", `can't find ${noun}: ${id}`);
  }
  if (new Set(panes.map((p) => p[kind])).size === 1) {
    throw new TmuxError("invalid_argument", `refused: ${id} is the last ${noun}; ${end}`);
  }
  refuseOwn(context, panes, (p) => p[kind] === id);
}

/** Tools of the destroy group. */
export const DESTROY_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "kill_session",
    tier: "destructive",
    title: "Kill a session",
    description: "Kills a session by exact id ($N). The last session (the server) is refused.",
    input: { session_id: sessionIdSchema, socket_name: socketNameSchema },
    output: killed,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const id = checkId("session_id", args.session_id);
      await checkKill(socket, context, { kind: "session_id", id });
      await runTmux(socket, ["kill-session", "-t", id]);
      return { killed: id };
    },
  }),
  defineTool({
    name: "kill_window",
    tier: "destructive",
    title: "Kill a window",
    description: "Kills a window by exact id (@N).",
    input: { window_id: windowIdSchema, socket_name: socketNameSchema },
    output: killed,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const id = checkId("window_id", args.window_id);
      await checkKill(socket, context, { kind: "window_id", id });
      await runTmux(socket, ["kill-window", "-t", id]);
      return { killed: id };
    },
  }),
  defineTool({
    name: "kill_pane",
    tier: "destructive",
    title: "Kill a pane",
    description: "Kills a pane by exact id (%N).",
    input: { pane_id: paneIdSchema, socket_name: socketNameSchema },
    output: killed,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const id = checkId("pane_id", args.pane_id);
      await checkKill(socket, context, { kind: "pane_id", id });
      await runTmux(socket, ["kill-pane", "-t", id]);
      return { killed: id };
    },
  }),
  defineTool({
    name: "clear_pane",
    tier: "destructive",
    title: "Clear a pane",
    description: "Resets a pane's screen and, unless history: false, deletes its scrollback.",
    input: {
      pane_id: paneIdSchema,
      history: z.boolean().default(true).describe("delete the scrollback too"),
      socket_name: socketNameSchema,
    },
    output: { pane_id: paneIdOutput },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const pane = await getPane(socket, checkId("pane_id", args.pane_id));
      const argv = ["send-keys", "-R", "-t", pane.pane_id];
      if (args.history) argv.push(THEN, "clear-history", "-t", pane.pane_id);
      await runTmux(socket, argv);
      return { pane_id: pane.pane_id };
    },
  }),
  defineTool({
    name: "respawn_pane",
    tier: "destructive",
    title: "Restart a pane's program",
    description: "Starts a pane's program (or `command`) again. A live pane needs kill: true, " +
      "which ends what runs in it.",
    input: {
      pane_id: paneIdSchema,
      command: z.string().min(1).max(10000).nullable().optional().describe(
        "program to start (default: the pane's own start command)",
      ),
      start_directory: z.string().min(1).max(4096).nullable().optional().describe(
        "working directory (default: the pane's)",
      ),
      kill: z.boolean().default(false).describe("restart a live pane, ending what runs in it"),
      socket_name: socketNameSchema,
    },
    output: {
      pane_id: paneIdOutput,
      pane_pid: z.number().int().describe("the new program's process id"),
    },
    openWorld: true,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const pane = await getPane(socket, checkId("pane_id", args.pane_id));
      if (!pane.pane_dead && !args.kill) {
        throw new TmuxError(
          "invalid_argument",
          `pane ${pane.pane_id} is alive; pass kill: true to restart it`,
        );
      }
      refuseOwn(context, [pane], () => true);
      const argv = ["respawn-pane", "-t", pane.pane_id];
      if (args.kill) argv.push("-k");
      if (args.start_directory != null) argv.push("-c", literal(args.start_directory));
      if (args.command != null) argv.push(args.command);
      await runTmux(socket, argv);
      return { pane_id: pane.pane_id, pane_pid: (await getPane(socket, pane.pane_id)).pane_pid };
    },
  }),
];
