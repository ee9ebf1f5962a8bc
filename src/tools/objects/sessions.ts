/**
 * Tools that act on the tmux server and its sessions: list, describe, create, rename, kill.
 *
 * @module
 */

import { z } from "../../deps.ts";
import {
  getSession,
  kill,
  listSessions,
  listWindows,
  newSession,
  renameSession,
  serverInfo,
  SESSION_FIELDS,
  WINDOW_FIELDS,
} from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  columnsSchema,
  commandSchema,
  createdOutput,
  defineTool,
  directorySchema,
  killedOutput,
  nameSchema,
  objectSchema,
  rowsSchema,
  sessionIdSchema,
  sessionSpecShape,
  socketNameSchema,
  waitReadySchema,
} from "../define/mod.ts";
import { startedIn } from "./started.ts";
import { checkCreatable } from "../guards/mod.ts";

const sessionSchema = objectSchema(SESSION_FIELDS);
const windowSchema = objectSchema(WINDOW_FIELDS);

/** The session tools. */
export const SESSION_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "list_sessions",
    target: "none",
    tier: "readonly",
    title: "List sessions",
    description: "Lists sessions (none when no tmux server runs).",
    input: { socket_name: socketNameSchema },
    output: { sessions: z.array(sessionSchema).describe("every session, with its fields") },
    async run(_args, { socket }) {
      return { sessions: await listSessions(socket) };
    },
  }),
  defineTool({
    name: "get_server_info",
    target: "none",
    tier: "readonly",
    title: "Describe the tmux server",
    description: "The tmux server's pid, version, socket path, start time and session count.",
    input: { socket_name: socketNameSchema },
    output: {
      pid: z.number().int().describe("the tmux server's process id"),
      version: z.string().describe("tmux's version, like 3.3a"),
      socket_path: z.string().describe("the server's socket file"),
      start_time: z.number().int().describe("when the server started, in Unix seconds"),
      sessions: z.number().int().describe("how many sessions it has"),
    },
    async run(_args, { socket }) {
      const sessions = await listSessions(socket);
      return { ...await serverInfo(socket), sessions: sessions.length };
    },
  }),
  defineTool({
    name: "get_session_info",
    target: "one_session",
    tier: "readonly",
    title: "Describe a session",
    description: "One session (by session_id or session_name) with its windows.",
    input: sessionSpecShape,
    output: {
      session: sessionSchema.describe("the session's fields"),
      windows: z.array(windowSchema).describe("its windows"),
    },
    async run(_args, { socket, target }) {
      const session = await getSession(socket, target);
      const windows = (await listWindows(socket)).filter((w) => w.session_id === target);
      return { session, windows };
    },
  }),
  defineTool({
    name: "create_session",
    target: "none",
    tier: "mutating",
    title: "Create a session",
    description: "Creates a detached session (and the tmux server if none runs).",
    input: {
      name: nameSchema,
      width: columnsSchema.nullable().optional().describe("columns (default 80)"),
      height: rowsSchema.nullable().optional().describe("rows (default 24)"),
      start_directory: directorySchema,
      window_name: nameSchema.nullable().optional().describe(
        "the first window's name",
      ),
      command: commandSchema,
      socket_name: socketNameSchema,
      wait_ready: waitReadySchema,
    },
    output: createdOutput,
    openWorld: true,
    destructive: true,
    async run(args, { socket, context, extra }) {
      checkCreatable(args.name, socket.scope);
      const made = await newSession(socket, args.name, {
        own: socket.scope?.own ?? false,
        width: args.width,
        height: args.height,
        windowName: args.window_name,
        directory: args.start_directory,
        command: args.command,
      });
      const pane = { socket, paneId: made.pane_id, signal: extra.signal };
      return { ...made, ...await startedIn(context, pane, args) };
    },
  }),
  defineTool({
    name: "rename_session",
    target: "one_session",
    tier: "mutating",
    title: "Rename a session",
    description: "Renames a session (by session_id or session_name).",
    input: { ...sessionSpecShape, new_name: nameSchema },
    output: {
      session_id: z.string().describe("the session renamed"),
      session_name: z.string().describe("its new name, as stored"),
    },
    async run(args, { socket, target }) {
      await renameSession(socket, target, args.new_name);
      return { session_id: target, session_name: args.new_name };
    },
  }),
  defineTool({
    name: "kill_session",
    target: "session_id",
    tier: "destructive",
    title: "Kill a session",
    description: "Kills a session by exact id ($N). The last session (the server) is refused.",
    input: { session_id: sessionIdSchema, socket_name: socketNameSchema },
    output: killedOutput,
    async run(_args, { socket, target, context }) {
      await kill(socket, { kind: "session_id", id: target }, { protect: context.config.ownPane });
      return { killed: target };
    },
  }),
];
