/**
 * Typed views of tmux sessions, windows and panes, read with fixed format fields; lists hold only
 * what is in the socket's scope (see scope.ts).
 *
 * @module
 */

import { isNoServer, TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import { THEN } from "../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { formatOf, intField, parseRecords, recordOf, splitRecords } from "../format.ts";
import { checkId, queryPane } from "./target.ts";
import { sessionsInScope } from "./scope.ts";
import { GRANT_OPTION, MADE_OPTION } from "./grants.ts";
import { isMark } from "./taken_back.ts";
import { RUNNING_OPTION } from "../names.ts";

/** How a tmux format field is read: as text, an integer or a flag. */
export type FieldKind = "string" | "int" | "bool";
type Spec = Record<string, FieldKind>;
/** The value type of a field of one kind. */
export type FieldValue<K extends FieldKind> = K extends "string" ? string
  : K extends "int" ? number
  : boolean;
/** A record with a typed value for each field of a field list. */
export type Typed<S extends Record<string, FieldKind>> = { [F in keyof S]: FieldValue<S[F]> };

/** Fields of a session. */
export const SESSION_FIELDS = {
  session_id: "string",
  session_name: "string",
  session_windows: "int",
  session_attached: "int",
  session_created: "int",
} as const satisfies Spec;

/** Fields of a window. */
export const WINDOW_FIELDS = {
  window_id: "string",
  window_index: "int",
  window_name: "string",
  window_active: "bool",
  window_panes: "int",
  window_width: "int",
  window_height: "int",
  window_layout: "string",
  window_zoomed_flag: "bool",
  session_id: "string",
  session_name: "string",
} as const satisfies Spec;

/** Fields of a pane. */
export const PANE_FIELDS = {
  pane_id: "string",
  pane_index: "int",
  pane_active: "bool",
  pane_title: "string",
  pane_current_command: "string",
  pane_current_path: "string",
  pane_pid: "int",
  pane_width: "int",
  pane_height: "int",
  pane_in_mode: "bool",
  pane_mode: "string",
  pane_dead: "bool",
  alternate_on: "bool",
  cursor_x: "int",
  cursor_y: "int",
  history_size: "int",
  history_limit: "int",
  window_id: "string",
  session_id: "string",
  session_name: "string",
} as const satisfies Spec;

/** A session as tmux reports it. */
export type Session = Typed<typeof SESSION_FIELDS>;
/** A window as tmux reports it. */
export type Window = Typed<typeof WINDOW_FIELDS>;
/** A pane as tmux reports it, and what an agent has of it. */
export type Pane = Typed<typeof PANE_FIELDS> & {
  /** A person granted it to the agent, or the agent made it (see grants.ts). */
  agent_granted: boolean;
  /** A tmux-mcp server that still runs made it (see grants.ts). */
  agent_owned: boolean;
  /** A run_command of a tmux-mcp server runs there now. */
  agent_running: boolean;
};

/** The user options a pane's agent fields are read from. */
const AGENT_FIELDS = {
  [GRANT_OPTION]: "string",
  [MADE_OPTION]: "string",
  [RUNNING_OPTION]: "string",
} as const;

/** A pane's fields as listed, its agent fields named. */
function paneOf(record: Typed<typeof PANE_FIELDS & typeof AGENT_FIELDS>): Pane {
  const { [GRANT_OPTION]: granted, [MADE_OPTION]: made, [RUNNING_OPTION]: running, ...pane } =
    record;
  const owned = isMark(made);
  return {
    ...pane,
    agent_granted: granted === "1" || owned,
    agent_owned: owned,
    agent_running: running !== "",
  };
}

function convert<S extends Spec>(spec: S, record: Record<string, string>): Typed<S> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(spec)) {
    const raw = record[field];
    out[field] = kind === "int" ? intField(raw, field) : kind === "bool" ? raw === "1" : raw;
  }
  return out as Typed<S>;
}

/** What of a listing is in the socket's scope (see scope.ts): all of it when it has none. */
async function inScopeOnly<T extends { session_id: string }>(
  socket: TmuxSocket,
  listed: T[],
): Promise<T[]> {
  if (socket.scope === null) return listed;
  const sessions = await sessionsInScope(socket, socket.scope);
  return listed.filter((item) => sessions.has(item.session_id));
}

async function list<S extends Spec>(
  socket: TmuxSocket,
  args: string[],
  spec: S,
): Promise<Array<Typed<S>>> {
  const fields = Object.keys(spec);
  const output = await runTmux(socket, [...args, "-F", formatOf(fields)]);
  return parseRecords(output, fields).map((record) => convert(spec, record));
}

const CLIENT_FIELDS = ["session_id", "client_flags"] as const;

/**
 * Whether a client is one of the control clients this server (or another tmux-mcp process)
 * attaches for itself: control mode, ignoring size (people's clients take their part in sizes).
 */
function isOwnClient(flags: string): boolean {
  const set = new Set(flags.split(","));
  return set.has("control-mode") && set.has("ignore-size");
}

/** A control client of a tmux-mcp process (see `isOwnClient`). */
export interface OwnClient {
  /** The client's name (its tty). */
  client_name: string;
  /** The session it is attached to. */
  session_id: string;
  /** A command client (no output), not an output watcher. */
  command: boolean;
}

/** The control clients of tmux-mcp processes, this one's and others'. */
export async function listOwnClients(socket: TmuxSocket): Promise<OwnClient[]> {
  const fields = ["client_name", ...CLIENT_FIELDS] as const;
  const output = await runTmux(socket, ["list-clients", "-F", formatOf(fields)]);
  return parseRecords(output, fields).filter((client) => isOwnClient(client.client_flags))
    .map((client) => ({
      client_name: client.client_name,
      session_id: client.session_id,
      command: client.client_flags.split(",").includes("no-output"),
    }));
}

/**
 * Every session in scope (none when no tmux server runs); `session_attached` counts people's
 * clients, not this server's own.
 */
export async function listSessions(socket: TmuxSocket): Promise<Session[]> {
  const fields = Object.keys(SESSION_FIELDS);
  // Client records start with a field no session record can hold (session ids start with '$').
  let output: string;
  try {
    output = await runTmux(socket, [
      ...["list-sessions", "-F", formatOf(fields), THEN],
      ...["list-clients", "-F", `client|${formatOf(CLIENT_FIELDS)}`],
    ]);
  } catch (error) {
    // No server, no sessions.
    if (isNoServer(error)) return [];
    throw error;
  }
  const { records } = splitRecords(output);
  const clients = records.filter((values) => values[0] === "client")
    .map((values) => recordOf(values, ["client", ...CLIENT_FIELDS]));
  const sessions = records.filter((values) => values[0] !== "client")
    .map((values) => convert(SESSION_FIELDS, recordOf(values, fields)));
  return await inScopeOnly(
    socket,
    sessions.map((session) => ({
      ...session,
      session_attached:
        clients.filter((c) => c.session_id === session.session_id && !isOwnClient(c.client_flags))
          .length,
    })),
  );
}

/** Every window of every session in scope. */
export async function listWindows(socket: TmuxSocket): Promise<Window[]> {
  return await inScopeOnly(socket, await list(socket, ["list-windows", "-a"], WINDOW_FIELDS));
}

/** Which panes {@linkcode listPanes} keeps: null fields keep all. */
export interface PaneFilter {
  /** Only this session's panes. */
  sessionId?: string | null;
  /** Only this window's panes (an `@N` id, syntax-checked). */
  windowId?: string | null;
}

/**
 * Every pane of every window in scope, or those of one session and/or window; with `everyPane`,
 * also those out of scope (what tmux itself would do matters, not what a caller may see).
 */
export async function listPanes(
  socket: TmuxSocket,
  filter: PaneFilter & { everyPane?: boolean } = {},
): Promise<Pane[]> {
  const windowId = filter.windowId == null ? null : checkId("window_id", filter.windowId);
  const sessionId = filter.sessionId ?? null;
  const listed = (await list(socket, ["list-panes", "-a"], { ...PANE_FIELDS, ...AGENT_FIELDS }))
    .map(paneOf);
  const panes = filter.everyPane ? listed : await inScopeOnly(socket, listed);
  return panes.filter((p) =>
    (windowId === null || p.window_id === windowId) &&
    (sessionId === null || p.session_id === sessionId)
  );
}

/** A client as {@linkcode listPanesAndClients} lists it. */
export interface ListedClient {
  /** The client's session. */
  session_id: string;
  /** Its active pane. */
  pane_id: string;
  /** Its last key press, in seconds since the epoch. */
  activity: number;
  /** A person's: not read-only, not in control mode (a program's, this server's own among them). */
  person: boolean;
}

const LISTED_CLIENT_FIELDS = [
  "session_id",
  "pane_id",
  "client_activity",
  "client_readonly",
  "client_control_mode",
] as const;

/**
 * The panes {@linkcode listPanes} lists, each with the raw values of `extra` fields, and every
 * client of the tmux server: one tmux command.
 */
export async function listPanesAndClients<E extends string>(
  socket: TmuxSocket,
  filter: PaneFilter,
  extra: readonly E[],
): Promise<{ panes: Array<{ pane: Pane; extra: Record<E, string> }>; clients: ListedClient[] }> {
  const windowId = filter.windowId == null ? null : checkId("window_id", filter.windowId);
  const sessionId = filter.sessionId ?? null;
  const spec = { ...PANE_FIELDS, ...AGENT_FIELDS };
  const fields = [...Object.keys(spec), ...extra];
  const { records } = splitRecords(
    await runTmux(socket, [
      ...["list-panes", "-a", "-F", formatOf(fields), THEN],
      ...["list-clients", "-F", `client|${formatOf(LISTED_CLIENT_FIELDS)}`],
    ]),
  );
  const clients = records.filter((values) => values[0] === "client")
    .map((values) => recordOf(values.slice(1), LISTED_CLIENT_FIELDS))
    .map((client) => ({
      session_id: client.session_id,
      pane_id: client.pane_id,
      activity: /^\d{1,12}$/.test(client.client_activity) ? Number(client.client_activity) : 0,
      person: client.client_readonly !== "1" && client.client_control_mode !== "1",
    }));
  const listed = records.filter((values) => values[0] !== "client").map((values) => {
    const record = recordOf(values, fields);
    const extraValues = {} as Record<E, string>;
    for (const field of extra) extraValues[field] = record[field];
    return { ...paneOf(convert(spec, record)), extra: extraValues };
  });
  const panes = (await inScopeOnly(socket, listed)).filter((p) =>
    (windowId === null || p.window_id === windowId) &&
    (sessionId === null || p.session_id === sessionId)
  );
  return { panes: panes.map(({ extra, ...pane }) => ({ pane, extra })), clients };
}

/** One pane by id (asked of that pane alone, not found among all of them). */
export async function getPane(socket: TmuxSocket, paneId: string): Promise<Pane> {
  const spec = { ...PANE_FIELDS, ...AGENT_FIELDS };
  const fields = Object.keys(spec).filter((field) => field !== "pane_id");
  return paneOf(convert(spec, await queryPane(socket, paneId, fields)));
}

/** One window by id. */
export async function getWindow(socket: TmuxSocket, windowId: string): Promise<Window> {
  const window = (await listWindows(socket)).find((w) => w.window_id === windowId);
  if (!window) throw new TmuxError("not_found", `can't find window: ${windowId}`);
  return window;
}

/** One session by id. */
export async function getSession(socket: TmuxSocket, sessionId: string): Promise<Session> {
  const session = (await listSessions(socket)).find((s) => s.session_id === sessionId);
  if (!session) throw new TmuxError("not_found", `can't find session: ${sessionId}`);
  return session;
}

/**
 * Escapes text that tmux expands as a format (session, window and pane names, titles, start
 * directories), so `#{...}` and `#(...)` stay literal and never run anything. tmux keeps an
 * escaped `#[` (a style) as `##[`, so text holding one would be stored changed: it is refused.
 */
export function literal(text: string): string {
  if (text.includes("#[")) {
    throw new TmuxError(
      "invalid_argument",
      "text may not contain '#[' (tmux would store it changed)",
    );
  }
  return text.replaceAll("#", "##");
}
