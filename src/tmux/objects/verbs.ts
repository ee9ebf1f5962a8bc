/**
 * One typed function per tmux command that creates, arranges or ends sessions, windows and
 * panes, after tmux's own `cmd-*.c`: the target is an exact id the caller resolved, names and
 * paths go through {@linkcode literal}, and nothing here reads caller text as a tmux target.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import { chained, THEN } from "../transport/spawn/command_line.ts";
import { markOwnCommand } from "./scope.ts";
import { type GrantReach, markMade } from "./grants.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { formatOf, parseRecords } from "../format.ts";
import { getPane, literal, type Pane } from "./objects.ts";
import { whilePaneHeld } from "../transport/watch/watcher_pool.ts";
import { refuseOwn } from "./kill.ts";

/** The ids of what a create command made (or, for its window and session, where). */
export interface Created {
  /** The session, like `$1`. */
  session_id: string;
  /** The session's name. */
  session_name: string;
  /** The new (or containing) window, like `@2`. */
  window_id: string;
  /** The new pane, like `%3`. */
  pane_id: string;
}

const CREATED_FIELDS = ["session_id", "session_name", "window_id", "pane_id"] as const;

/**
 * Runs a create command, then, in one more tmux command, marks what it made as the agent's own
 * (see `MADE_OPTION`: a new session, or the new pane) and runs `more` of it.
 */
async function created(
  socket: TmuxSocket,
  argv: string[],
  options: { reach: GrantReach; more?: (made: Created) => string[][] },
): Promise<Created> {
  const output = await runTmux(socket, argv);
  const [record] = parseRecords(output, CREATED_FIELDS);
  const made = record ?? { session_id: "", session_name: "", window_id: "", pane_id: "" };
  if (made.pane_id === "") return made;
  const { reach } = options;
  const after = [
    ...await markMade(socket, { reach, id: reach === "pane" ? made.pane_id : made.session_id }),
    ...options.more?.(made) ?? [],
  ];
  try {
    if (after.length > 0) await runTmux(socket, chained(after));
  } catch (error) {
    // What was made is gone already (its program ended at once): nothing is left to mark.
    if (!(error instanceof TmuxError && error.code === "not_found")) throw error;
  }
  return made;
}

/** What a new pane runs and where; shared by the create commands. */
export interface SpawnOptions {
  /** Working directory (default: the target pane's, for a new window or pane; tmux's for a new
   * session). */
  directory?: string | null;
  /** Program to run instead of the default shell. */
  command?: string | null;
}

/** Where a new window or pane starts unless told: where its target pane's program is. */
const TARGET_DIRECTORY = "#{pane_current_path}";

function spawnArgs(argv: string[], options: SpawnOptions, inherit: boolean): string[] {
  // tmux expands formats in -c: a caller's path goes through literal, the default is one.
  if (options.directory != null) argv.push("-c", literal(options.directory));
  else if (inherit) argv.push("-c", TARGET_DIRECTORY);
  if (options.command != null) argv.push(options.command);
  return argv;
}

/** Options for {@linkcode newSession}. */
export interface NewSessionOptions extends SpawnOptions {
  /** Columns (default: tmux's). */
  width?: number | null;
  /** Rows (default: tmux's). */
  height?: number | null;
  /** The first window's name (default: its program's). */
  windowName?: string | null;
  /** Mark it as made by this server (see scope.ts). */
  own?: boolean;
}

/**
 * `new-session -d`: a detached session (the tmux server starts if none runs). A size asked for is
 * also given to its window: tmux 3.2a keeps it as the session's default-size but makes the first
 * window 80x23 all the same. resize-window pins the size (window-size manual) and unsetting that
 * option again leaves it to tmux's usual rules from the next client on, as 3.3 and later do.
 */
export async function newSession(
  socket: TmuxSocket,
  name: string,
  options: NewSessionOptions = {},
): Promise<Created> {
  const argv = ["new-session", "-d", "-P", "-F", formatOf(CREATED_FIELDS), "-s", literal(name)];
  const size: string[] = [];
  if (options.width != null) size.push("-x", String(options.width));
  if (options.height != null) size.push("-y", String(options.height));
  argv.push(...size);
  if (options.windowName != null) argv.push("-n", literal(options.windowName));
  return await created(socket, spawnArgs(argv, options, false), {
    reach: "session",
    more: (session) => [
      ...options.own ? [markOwnCommand(session.session_id)] : [],
      ...size.length > 0
        ? [
          ["resize-window", "-t", session.window_id, ...size],
          ["set-option", "-w", "-u", "-t", session.window_id, "window-size"],
        ]
        : [],
    ],
  });
}

/** Options for {@linkcode newWindow}. */
export interface NewWindowOptions extends SpawnOptions {
  /** The window's name (default: its program's). */
  name?: string | null;
  /** Make it the session's current window. */
  select?: boolean;
}

/** `new-window` in a session (null: the current one), where its active pane is. */
export function newWindow(
  socket: TmuxSocket,
  sessionId: string | null,
  options: NewWindowOptions = {},
): Promise<Created> {
  const argv = ["new-window", "-P", "-F", formatOf(CREATED_FIELDS)];
  if (!options.select) argv.push("-d");
  if (sessionId !== null) argv.push("-t", `${sessionId}:`);
  if (options.name != null) argv.push("-n", literal(options.name));
  return created(socket, spawnArgs(argv, options, true), { reach: "pane" });
}

/** Options for {@linkcode splitWindow}. */
export interface SplitWindowOptions extends SpawnOptions {
  /** Where the new pane goes. */
  direction: "right" | "left" | "down" | "up";
  /** Its size: cells, or a percentage like `30%` (default: half). */
  size?: number | string | null;
  /** Make the new pane the active one. */
  select?: boolean;
}

/** `split-window`: a new pane beside `paneId`. */
export function splitWindow(
  socket: TmuxSocket,
  paneId: string,
  options: SplitWindowOptions,
): Promise<Created> {
  const argv = ["split-window", "-P", "-F", formatOf(CREATED_FIELDS), "-t", paneId];
  argv.push(options.direction === "right" || options.direction === "left" ? "-h" : "-v");
  if (options.direction === "left" || options.direction === "up") argv.push("-b");
  if (!options.select) argv.push("-d");
  if (options.size != null) argv.push("-l", String(options.size));
  return created(socket, spawnArgs(argv, options, true), { reach: "pane" });
}

/** `rename-session`. */
export async function renameSession(
  socket: TmuxSocket,
  sessionId: string,
  name: string,
): Promise<void> {
  await runTmux(socket, ["rename-session", "-t", sessionId, literal(name)]);
}

/** `rename-window` (automatic renaming stops for it, as in tmux). */
export async function renameWindow(
  socket: TmuxSocket,
  windowId: string,
  name: string,
): Promise<void> {
  await runTmux(socket, ["rename-window", "-t", windowId, literal(name)]);
}

/** `select-window`: the session's current window. */
export async function selectWindow(socket: TmuxSocket, windowId: string): Promise<void> {
  await runTmux(socket, ["select-window", "-t", windowId]);
}

/** tmux's preset layouts. */
export const LAYOUTS = [
  "even-horizontal",
  "even-vertical",
  "main-horizontal",
  "main-vertical",
  "tiled",
] as const;

/** `select-layout` with one of the {@linkcode LAYOUTS}. */
export async function selectLayout(
  socket: TmuxSocket,
  windowId: string,
  layout: typeof LAYOUTS[number],
): Promise<void> {
  await runTmux(socket, ["select-layout", "-t", windowId, layout]);
}

/** `resize-window` to a size in cells (window-size becomes manual for it). */
export async function resizeWindow(
  socket: TmuxSocket,
  windowId: string,
  size: { width: number; height: number },
): Promise<void> {
  await runTmux(socket, [
    "resize-window",
    "-t",
    windowId,
    "-x",
    String(size.width),
    "-y",
    String(size.height),
  ]);
}

/** `select-pane`: its window's active pane. Checks that the pane exists first. */
export async function selectPane(socket: TmuxSocket, paneId: string): Promise<void> {
  const pane = await getPane(socket, paneId);
  await runTmux(socket, ["select-pane", "-t", pane.pane_id]);
}

/** How to resize a pane: cells, or toggling zoom. */
export interface PaneSize {
  /** Columns. */
  width?: number | null;
  /** Rows. */
  height?: number | null;
  /** Toggle zoom instead of resizing. */
  zoom?: boolean;
}

/** `resize-pane`, then the pane as it is now. */
export async function resizePane(
  socket: TmuxSocket,
  paneId: string,
  size: PaneSize,
): Promise<Pane> {
  const id = (await getPane(socket, paneId)).pane_id;
  const argv = ["resize-pane", "-t", id];
  if (size.zoom) argv.push("-Z");
  else if (size.width == null && size.height == null) {
    throw new TmuxError("invalid_argument", "give width, height or zoom: true");
  }
  if (!size.zoom && size.width != null) argv.push("-x", String(size.width));
  if (!size.zoom && size.height != null) argv.push("-y", String(size.height));
  await runTmux(socket, argv);
  return await getPane(socket, id);
}

/** `swap-pane -d`: two panes trade places (both must exist). */
export async function swapPanes(
  socket: TmuxSocket,
  panes: { source: string; target: string },
): Promise<void> {
  const source = (await getPane(socket, panes.source)).pane_id;
  const target = (await getPane(socket, panes.target)).pane_id;
  await runTmux(socket, ["swap-pane", "-d", "-s", source, "-t", target]);
}

/** `select-pane -T`: sets a pane's title, and returns it as stored. */
export async function setPaneTitle(
  socket: TmuxSocket,
  paneId: string,
  title: string,
): Promise<string> {
  const id = (await getPane(socket, paneId)).pane_id;
  await runTmux(socket, ["select-pane", "-t", id, "-T", literal(title)]);
  return (await getPane(socket, id)).pane_title;
}

/** `send-keys -R`, and with `history`, `clear-history`: a pane's screen reset. */
export async function clearPane(
  socket: TmuxSocket,
  paneId: string,
  options: { history: boolean },
): Promise<void> {
  const id = (await getPane(socket, paneId)).pane_id;
  const argv = ["send-keys", "-R", "-t", id];
  if (options.history) argv.push(THEN, "clear-history", "-t", id);
  await runTmux(socket, argv);
}

/** Options for {@linkcode respawnPane}. */
export interface RespawnOptions extends SpawnOptions {
  /** Restart a live pane, ending what runs in it (without it, only a dead pane restarts). */
  kill?: boolean;
  /** A pane that must not be restarted (the one this process runs in). */
  protect?: string | null;
}

/** `respawn-pane`; returns the new program's process id. */
export async function respawnPane(
  socket: TmuxSocket,
  paneId: string,
  options: RespawnOptions = {},
): Promise<number> {
  const pane = await getPane(socket, paneId);
  if (!pane.pane_dead && !options.kill) {
    throw new TmuxError(
      "invalid_argument",
      `pane ${pane.pane_id} is alive; pass kill: true to restart it`,
    );
  }
  refuseOwn(pane.pane_id, options.protect ?? null);
  const argv = ["respawn-pane", "-t", pane.pane_id];
  if (options.kill) argv.push("-k");
  // Every release up to 3.7c crashes when a control client still has the pane's output queued
  // (fixed on tmux's master, #5498): our watchers drop it first, and follow it again only after.
  await whilePaneHeld(socket, pane.pane_id, () => runTmux(socket, spawnArgs(argv, options, false)));
  return (await getPane(socket, pane.pane_id)).pane_pid;
}

/** The tmux server's own facts. */
export interface ServerInfo {
  /** The server's process id. */
  pid: number;
  /** tmux's version, like 3.3a. */
  version: string;
  /** The server's socket file. */
  socket_path: string;
  /** When it started, in Unix seconds. */
  start_time: number;
}

const SERVER_FIELDS = ["pid", "version", "socket_path", "start_time"] as const;

/** `display-message -p` of the server's pid, version, socket path and start time. */
export async function serverInfo(socket: TmuxSocket): Promise<ServerInfo> {
  const output = await runTmux(socket, ["display-message", "-p", formatOf(SERVER_FIELDS)]);
  const info = parseRecords(output, SERVER_FIELDS)[0];
  return {
    pid: Number(info?.pid),
    version: info?.version ?? "",
    socket_path: info?.socket_path ?? "",
    start_time: Number(info?.start_time),
  };
}
