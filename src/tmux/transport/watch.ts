/**
 * Pane output as it happens: a read-only control client attached to a pane's session reports
 * `%output` for every pane there. Waits use it to look at a pane as soon as it writes, and
 * run_command to read a command's output from the byte stream itself, and to tell a shell reading
 * a command line from a program that took the terminal. One watcher per socket and session,
 * shared; it stays a minute after its last user leaves, so calls do not start a new one each and
 * the panes are followed between them, and {@linkcode closeWatchers} ends them all.
 *
 * @module
 */

import { type SocketAddress, tmuxArgs } from "./exec.ts";
import { closeControlChild, readLines } from "./lines.ts";
import { privateName } from "../names.ts";
import { abortable, ABORTED } from "../../async.ts";

/** Receives a pane's output bytes, as the pane wrote them. */
export type OutputListener = (bytes: Uint8Array) => void;

/** One read-only control client attached to a session. */
export interface Watcher {
  /** Its key in the pool: socket name and session id. */
  key: string;
  /** The `tmux -C` process. */
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  listeners: Map<string, Set<OutputListener>>;
  users: number;
  /** Lines the watcher's own commands are waiting for (see {@linkcode ready}). */
  awaited: Map<string, () => void>;
  alive: boolean;
  /** Whether it answered a command: from then on it reports every byte. */
  ready: Promise<boolean> | null;
  idle: ReturnType<typeof setTimeout> | undefined;
  /**
   * Per pane, whether a line editor was reading a command line when its output was last seen
   * (bracketed paste switched on, `ESC [ ? 2004 h`) or had handed the terminal on (`... l`).
   * Known only for what this watcher saw since it attached.
   */
  lineEditor: Map<string, boolean>;
}

/** The watchers of one owner (see `TmuxClient`), one per socket and session. */
export type WatcherPool = Map<string, Watcher>;

/** A socket whose panes can be watched through its owner's watchers. */
export interface WatchedSocket extends SocketAddress {
  /** The owner's watchers. */
  readonly watchers: WatcherPool;
}

/** An empty pool. */
export function createWatcherPool(): WatcherPool {
  return new Map();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BACKSLASH = 0x5c;
const OUTPUT_PREFIX = encoder.encode("%output %");

/**
 * How long a watcher nobody uses stays attached: long enough to follow a pane between an agent's
 * calls (see {@linkcode lineEditorState}).
 */
const LINGER_MS = 60_000;

/** Bracketed paste switched on or off, as `%output` escapes it. */
const BRACKET_ON = encoder.encode("\\033[?2004h");
const BRACKET_OFF = encoder.encode("\\033[?2004l");

function lastIndexOf(line: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = line.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (line[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** How long a new watcher may take to answer its first command. */
const READY_MS = 2000;

function isOctal(data: Uint8Array, at: number): boolean {
  for (let i = at; i < at + 3; i++) if (data[i] < 48 || data[i] > 55) return false;
  return true;
}

/**
 * The bytes of a `%output` line's data: tmux writes bytes below 0x20 and the backslash as
 * three-digit octal escapes, everything else (UTF-8 included) as it is.
 */
export function unescapeOutput(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] === BACKSLASH && i + 3 < data.length && isOctal(data, i + 1)) {
      out[n++] = (data[i + 1] - 48) * 64 + (data[i + 2] - 48) * 8 + (data[i + 3] - 48);
      i += 3;
      continue;
    }
    out[n++] = data[i];
  }
  return out.subarray(0, n);
}

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

function handleLine(watcher: Watcher, line: Uint8Array): void {
  if (startsWith(line, OUTPUT_PREFIX)) {
    const space = line.indexOf(0x20, OUTPUT_PREFIX.length);
    if (space < 0) return;
    const pane = decoder.decode(line.subarray(OUTPUT_PREFIX.length - 1, space));
    const on = lastIndexOf(line, BRACKET_ON);
    const off = lastIndexOf(line, BRACKET_OFF);
    if (on !== off) watcher.lineEditor.set(pane, on > off);
    const listeners = watcher.listeners.get(pane);
    if (!listeners || listeners.size === 0) return;
    const bytes = unescapeOutput(line.subarray(space + 1));
    for (const listener of listeners) listener(bytes);
    return;
  }
  if (watcher.awaited.size > 0) watcher.awaited.get(decoder.decode(line))?.();
}

function start(socket: WatchedSocket, sessionId: string, key: string): Watcher | null {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("tmux", {
      args: tmuxArgs(socket, [
        "-C",
        "attach-session",
        "-f",
        "ignore-size,read-only",
        "-t",
        sessionId,
      ]),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch {
    return null;
  }
  const watcher: Watcher = {
    key,
    child,
    writer: child.stdin.getWriter(),
    listeners: new Map(),
    users: 0,
    awaited: new Map(),
    alive: true,
    ready: null,
    idle: undefined,
    lineEditor: new Map(),
  };
  (async () => {
    try {
      for await (const line of readLines(child.stdout)) handleLine(watcher, line);
    } catch {
      // The watcher went away; waits fall back to their timer, runs to the screen.
    }
    watcher.alive = false;
    clearTimeout(watcher.idle);
    for (const wake of watcher.awaited.values()) wake();
    if (socket.watchers.get(key) === watcher) socket.watchers.delete(key);
  })();
  return watcher;
}

/**
 * Resolves true once the watcher answers a command. tmux queues a control client's command replies
 * behind the output it already queued for it, so the answer also means every byte tmux had read
 * from the session's panes when the command was sent has been reported (and, for a new watcher,
 * that from then on it reports every byte).
 */
async function roundTrip(watcher: Watcher): Promise<boolean> {
  const nonce = privateName("ready");
  const answered = new Promise<void>((resolve) => watcher.awaited.set(nonce, resolve));
  try {
    await watcher.writer.write(encoder.encode(`display-message -p ${nonce}\n`));
    const outcome = await abortable(answered, AbortSignal.timeout(READY_MS));
    return outcome !== ABORTED && watcher.alive;
  } catch {
    return false;
  } finally {
    watcher.awaited.delete(nonce);
  }
}

/**
 * Waits until the session's watcher has reported what tmux has read from its panes so far (see
 * {@linkcode roundTrip}); false when no live watcher follows the session or it did not answer.
 */
export async function watcherCaughtUp(
  socket: WatchedSocket,
  target: { sessionId: string },
): Promise<boolean> {
  const watcher = socket.watchers.get(keyOf(socket, target.sessionId));
  return watcher?.alive === true && await roundTrip(watcher);
}

async function stop(pool: WatcherPool, watcher: Watcher): Promise<void> {
  clearTimeout(watcher.idle);
  if (pool.get(watcher.key) === watcher) pool.delete(watcher.key);
  await closeControlChild(watcher);
}

function keyOf(socket: SocketAddress, sessionId: string): string {
  return `${socket.socketName ?? ""}\x00${sessionId}`;
}

function join(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  listener: OutputListener,
): { watcher: Watcher; leave: () => void } | null {
  const key = keyOf(socket, target.sessionId);
  let watcher = socket.watchers.get(key);
  if (!watcher || !watcher.alive) {
    const started = start(socket, target.sessionId, key);
    if (started === null) return null;
    watcher = started;
    socket.watchers.set(key, watcher);
  }
  const own = watcher;
  clearTimeout(own.idle);
  own.users++;
  const set = own.listeners.get(target.paneId) ?? new Set();
  set.add(listener);
  own.listeners.set(target.paneId, set);
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    set.delete(listener);
    if (--own.users > 0) return;
    own.idle = setTimeout(() => stop(socket.watchers, own), LINGER_MS);
  };
  return { watcher: own, leave };
}

/**
 * Calls `onOutput` whenever the pane writes output, until the returned function is called. Best
 * effort: when no watcher can be started the caller's own timer is all there is.
 */
export function watchOutput(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  onOutput: () => void,
): () => void {
  return join(socket, target, () => onOutput())?.leave ?? (() => {});
}

/** A subscription to one pane's output bytes. */
export interface OutputTap {
  /** False once the watcher went away: bytes may have been missed since. */
  readonly alive: boolean;
  /** Ends the subscription. */
  close(): void;
}

/**
 * Subscribes to a pane's output bytes and resolves once every byte the pane writes from now on
 * will be delivered; null when no watcher could be had (the caller reads the screen instead).
 */
export async function tapOutput(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  onBytes: OutputListener,
): Promise<OutputTap | null> {
  const joined = join(socket, target, onBytes);
  if (joined === null) return null;
  const { watcher, leave } = joined;
  watcher.ready ??= roundTrip(watcher);
  if (!await watcher.ready) {
    leave();
    return null;
  }
  return {
    get alive(): boolean {
      return watcher.alive;
    },
    close: leave,
  };
}

/**
 * Whether a line editor (bash's readline, zsh's zle: any that switches bracketed paste on while it
 * reads) is reading a command line in the pane, as far as a watcher attached to its session has
 * seen: "reading", "not_reading" (it accepted a line and a program has the terminal since), or
 * "unknown" (no watcher has followed the pane, or its shell never switches bracketed paste).
 */
export function lineEditorState(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
): "reading" | "not_reading" | "unknown" {
  const watcher = socket.watchers.get(keyOf(socket, target.sessionId));
  const reading = watcher?.alive ? watcher.lineEditor.get(target.paneId) : undefined;
  return reading === undefined ? "unknown" : reading ? "reading" : "not_reading";
}

/** Closes every watcher of a pool (at shutdown). */
export async function closeWatcherPool(pool: WatcherPool): Promise<void> {
  await Promise.all([...pool.values()].map((watcher) => stop(pool, watcher)));
}
