/**
 * Pane output as it happens: a control client attached to a pane's session reports
 * `%output` for every pane there. Waits use it to look at a pane as soon as it writes, and
 * run_command to read a command's output, and its end, from the byte stream itself, and to tell a
 * shell reading a command line from a program that took the terminal. One watcher per socket and
 * session, shared. Control clients that come and go crash tmux 3.2 to 3.6b (see gate.ts), so
 * watchers start and end through the socket's gate, stay ten minutes after their last use (the
 * panes are followed between calls, and watchers are started rarely), and at most
 * {@linkcode WATCHERS_MAX} are kept per socket; {@linkcode closeWatcherPool} ends them all.
 *
 * @module
 */

import { lineEditorSeen } from "./line_editor.ts";
import { type SocketAddress, socketKey } from "./exec.ts";
import type { RemoteLink } from "./remote_link.ts";
import {
  allLines,
  type ClientGates,
  endClient,
  startClient,
  whileNoClientConnects,
} from "./gate.ts";
import { privateName } from "../names.ts";
import { abortable, ABORTED } from "../../async.ts";

/** Receives a pane's output bytes, as the pane wrote them (valid only during the call). */
export type OutputListener = (bytes: Uint8Array) => void;

/** One control client attached to a session, that only reads. */
export interface Watcher {
  /** Its key in the pool: socket and session id. */
  key: string;
  /** The tmux server it is a client of. */
  socket: SocketAddress;
  /** The `tmux -C` process. */
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  listeners: Map<string, Set<OutputListener>>;
  users: number;
  /** When it was last left by its last user (ms since the epoch). */
  lastUsed: number;
  /** Lines the watcher's own commands are waiting for (see {@linkcode roundTrip}). */
  awaited: Map<string, () => void>;
  alive: boolean;
  /** Called when it has gone away or moved to another session (each tap's loss). */
  onGone: Set<() => void>;
  /** Whether it answered a command: from then on it reports every byte. */
  ready: Promise<boolean> | null;
  idle: ReturnType<typeof setTimeout> | undefined;
  /** Reused for unescaped output bytes (listeners read them at once). */
  scratch: Uint8Array;
  /**
   * Per pane, whether a line editor was reading a command line when its output was last seen
   * (bracketed paste switched on, `ESC [ ? 2004 h`) or had handed the terminal on (`... l`).
   * Known only for what this watcher saw since it attached.
   */
  lineEditor: Map<string, boolean>;
  /** Per followed pane, the end of its last `%output` line (see `lineEditorSeen`). */
  editorTails: Map<string, Uint8Array>;
  /** Panes a call has followed through this watcher: their output keeps coming. */
  followed: Set<string>;
  /**
   * Panes this watcher paused (`refresh-client -A %N:pause`, tmux 3.2 on): nobody follows them,
   * and tmux sends a control client every byte of every pane of its session, holding all of them
   * back while it cannot keep up: eight panes printing as fast as they can made a run in a ninth
   * twelve times slower. (Not switched `off`: on a pane with output queued, that crashes tmux
   * before 3.7; `pause` discards what is queued.)
   */
  paused: Set<string>;
}

/** The watchers of one owner (see `TmuxClient`), one per socket and session. */
export interface WatcherPool {
  /** The live watchers, by socket and session. */
  readonly live: Map<string, Watcher>;
  /** Watchers being started, by socket and session. */
  readonly starting: Map<string, Promise<Watcher | null>>;
  /** The queues control clients start and end through (shared with the command clients). */
  readonly gates: ClientGates;
  /** Panes nothing of ours may follow for now, by socket and pane (see `whilePaneHeld`). */
  readonly held: Map<string, Promise<void>>;
}

/** A socket whose panes can be watched through its owner's watchers (null: none are started). */
export interface WatchedSocket extends SocketAddress {
  /** The owner's watchers. */
  readonly watchers: WatcherPool | null;
}

/** An empty pool whose watchers start and end through `gates`. */
export function createWatcherPool(gates: ClientGates): WatcherPool {
  return { live: new Map(), starting: new Map(), gates, held: new Map() };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BACKSLASH = 0x5c;
const OUTPUT_PREFIX = encoder.encode("%output %");

/**
 * How long a watcher nobody uses stays attached: long enough to follow a pane between an agent's
 * calls (see {@linkcode lineEditorState}), and to start watchers rarely.
 */
const LINGER_MS = 10 * 60_000;

/** Watchers kept per socket: a new one ends the least recently used idle one, if it must. */
const WATCHERS_MAX = 16;

/**
 * Watchers kept per remote socket: each is a channel of the host's ssh connection, which sshd
 * caps at 10 (MaxSessions) with the master's own session and the command client among them.
 */
const REMOTE_WATCHERS_MAX = 6;

/** How long a new watcher may take to answer its first command. */
const READY_MS = 2000;

function isOctal(data: Uint8Array, at: number): boolean {
  for (let i = at; i < at + 3; i++) if (data[i] < 48 || data[i] > 55) return false;
  return true;
}

/**
 * The bytes of a `%output` line's data: tmux writes bytes below 0x20 and the backslash as
 * three-digit octal escapes, everything else (UTF-8 included) as it is. Written into `into` when
 * it is large enough.
 */
export function unescapeOutput(
  data: Uint8Array,
  into: Uint8Array = new Uint8Array(data.length),
): Uint8Array {
  const out = into.length >= data.length ? into : new Uint8Array(data.length);
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

/** Asks tmux to pause (or continue) sending this watcher a pane's output. */
function pausePane(watcher: Watcher, paneId: string, pause: boolean): void {
  if (pause) watcher.paused.add(paneId);
  else watcher.paused.delete(paneId);
  // Pane ids are %N: nothing to quote. The reply is a block nobody waits for.
  const state = pause ? "pause" : "continue";
  watcher.writer.write(encoder.encode(`refresh-client -A '${paneId}:${state}'\n`))
    .catch(() => {});
}

function handleLine(watcher: Watcher, line: Uint8Array): void {
  if (startsWith(line, OUTPUT_PREFIX)) {
    const space = line.indexOf(0x20, OUTPUT_PREFIX.length);
    if (space < 0) return;
    const pane = decoder.decode(line.subarray(OUTPUT_PREFIX.length - 1, space));
    if (!watcher.followed.has(pane)) {
      if (!watcher.paused.has(pane)) pausePane(watcher, pane, true);
      return;
    }
    const data = line.subarray(space + 1);
    const seen = lineEditorSeen(watcher.editorTails.get(pane), data);
    watcher.editorTails.set(pane, seen.tail);
    if (seen.reading !== null) watcher.lineEditor.set(pane, seen.reading);
    const listeners = watcher.listeners.get(pane);
    if (!listeners || listeners.size === 0) return;
    if (watcher.scratch.length < data.length) watcher.scratch = new Uint8Array(data.length);
    const bytes = unescapeOutput(data, watcher.scratch);
    for (const listener of listeners) listener(bytes);
    return;
  }
  if (watcher.awaited.size > 0) watcher.awaited.get(decoder.decode(line))?.();
}

async function start(
  socket: SocketAddress,
  pool: WatcherPool,
  target: { sessionId: string; key: string },
): Promise<Watcher | null> {
  const started = await startClient(pool.gates, socket, [
    // Not read-only: from tmux 3.7 send-keys refuses to run when the client it picks for a
    // command that names none is read-only, and a watcher can be that client for anyone's
    // `tmux send-keys`. A watcher never sends keys itself.
    // -E: the session's environment stays as it is (update-environment would take our process's).
    ...["attach-session", "-E", "-f", "ignore-size", "-t", target.sessionId],
  ]);
  if (started === null) return null;
  const watcher: Watcher = {
    key: target.key,
    socket,
    child: started.child,
    writer: started.writer,
    listeners: new Map(),
    users: 0,
    lastUsed: Date.now(),
    awaited: new Map(),
    alive: true,
    onGone: new Set(),
    scratch: new Uint8Array(4096),
    ready: null,
    idle: undefined,
    lineEditor: new Map(),
    editorTails: new Map(),
    followed: new Set(),
    paused: new Set(),
  };
  (async () => {
    try {
      for await (const line of allLines(started)) handleLine(watcher, line);
    } catch {
      // The watcher went away; waits fall back to their timer, runs to the screen.
    }
    watcher.alive = false;
    clearTimeout(watcher.idle);
    for (const wake of watcher.awaited.values()) wake();
    if (pool.live.get(target.key) === watcher) pool.live.delete(target.key);
    for (const gone of watcher.onGone) gone();
  })();
  return watcher;
}

/**
 * Resolves true once the watcher answers a command. tmux queues a control client's command replies
 * behind the output it already queued for it, so the answer also means every byte tmux had read
 * from the session's panes when the command was sent has been reported (and, for a new watcher,
 * that from then on it reports every byte). With `session`, only an answer that shows the watcher
 * in the expected session counts.
 */
async function roundTrip(
  watcher: Watcher,
  session: { format: string; expect: string } = { format: "", expect: "" },
): Promise<boolean> {
  const nonce = privateName("ready");
  const answer = `${nonce}${session.expect}`;
  const answered = new Promise<void>((resolve) => watcher.awaited.set(answer, resolve));
  try {
    await watcher.writer.write(encoder.encode(`display-message -p '${nonce}${session.format}'\n`));
    const outcome = await abortable(answered, AbortSignal.timeout(READY_MS));
    return outcome !== ABORTED && watcher.alive;
  } catch {
    return false;
  } finally {
    watcher.awaited.delete(answer);
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
  const watcher = socket.watchers?.live.get(keyOf(socket, target.sessionId));
  return watcher?.alive === true && await roundTrip(watcher);
}

async function stop(
  socket: SocketAddress,
  pool: WatcherPool,
  watcher: Watcher,
  options: { last?: boolean } = {},
): Promise<void> {
  clearTimeout(watcher.idle);
  watcher.alive = false;
  if (pool.live.get(watcher.key) === watcher) pool.live.delete(watcher.key);
  await endClient(pool.gates, socket, watcher, options);
}

/** Makes room for one more watcher of the socket: false when all kept ones are in use. */
async function makeRoom(socket: SocketAddress, pool: WatcherPool): Promise<boolean> {
  const prefix = `${socketKey(socket)}\x00`;
  const mine = [...pool.live.values()].filter((watcher) => watcher.key.startsWith(prefix));
  if (mine.length < (socket.remote ? REMOTE_WATCHERS_MAX : WATCHERS_MAX)) return true;
  const idle = mine.filter((watcher) => watcher.users === 0)
    .sort((a, b) => a.lastUsed - b.lastUsed)[0];
  if (idle === undefined) return false;
  await stop(socket, pool, idle);
  return true;
}

/**
 * The session's live watcher (once, however many ask at once, when there is none): an idle one of
 * the socket switched to the session, else a new one. Connecting is what can crash tmux before
 * 3.7 (see gate.ts), so an agent at work in one fresh session after another connects once.
 */
function watcherFor(
  socket: WatchedSocket & { watchers: WatcherPool },
  sessionId: string,
): Promise<Watcher | null> {
  const pool = socket.watchers;
  const key = keyOf(socket, sessionId);
  const live = pool.live.get(key);
  if (live?.alive) return Promise.resolve(live);
  let starting = pool.starting.get(key);
  if (starting === undefined) {
    starting = (async () => {
      const idle = leastRecentlyUsed(socket, pool);
      if (idle !== undefined && await repoint(socket, pool, idle, { sessionId, key })) return idle;
      if (!await makeRoom(socket, pool)) return null;
      const watcher = await start(socket, pool, { sessionId, key });
      if (watcher !== null) pool.live.set(key, watcher);
      return watcher;
    })().finally(() => pool.starting.delete(key));
    pool.starting.set(key, starting);
  }
  return starting;
}

/**
 * Switches this process's watchers of the sessions `from` to the session `to` before those
 * sessions are killed, so they stay connected for later calls. A watcher in use follows a pane that
 * is going away: its taps are lost. One that `to` has already is kept as a spare, under a key no
 * session has, for {@linkcode watcherFor} to switch where it is needed next.
 */
export async function moveWatchers(
  socket: WatchedSocket,
  sessions: { from: ReadonlySet<string>; to: string },
): Promise<void> {
  const pool = socket.watchers;
  if (pool === null) return;
  for (const session of sessions.from) {
    const watcher = pool.live.get(keyOf(socket, session));
    if (!watcher?.alive) continue;
    const own = keyOf(socket, sessions.to);
    const taken = pool.live.get(own)?.alive || pool.starting.has(own);
    const key = taken ? keyOf(socket, privateName("spare")) : own;
    await repoint(socket, pool, watcher, { sessionId: sessions.to, key });
  }
}

/**
 * Runs `work` with a pane paused in each of this process's watchers of the socket (tmux drops what
 * it had queued for them: see {@linkcode Watcher.paused}) once tmux has done so; nothing of ours
 * follows the pane again until `work` is done. Whoever follows it later continues it.
 */
export async function whilePaneHeld<T>(
  socket: WatchedSocket,
  paneId: string,
  work: () => Promise<T>,
): Promise<T> {
  const pool = socket.watchers;
  if (pool === null) return await work();
  const key = keyOf(socket, paneId);
  const previous = pool.held.get(key);
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  pool.held.set(key, held);
  try {
    await previous;
    const prefix = `${socketKey(socket)}\x00`;
    const mine = [...pool.live.values()].filter((w) => w.key.startsWith(prefix) && w.alive);
    await Promise.all(mine.map((watcher) => {
      watcher.followed.delete(paneId);
      pausePane(watcher, paneId, true);
      return roundTrip(watcher);
    }));
    return await work();
  } finally {
    release();
    if (pool.held.get(key) === held) pool.held.delete(key);
  }
}

/** The socket's live watcher that nobody uses and has waited longest; undefined: none. */
function leastRecentlyUsed(socket: SocketAddress, pool: WatcherPool): Watcher | undefined {
  const prefix = `${socketKey(socket)}\x00`;
  return [...pool.live.values()]
    .filter((watcher) => watcher.key.startsWith(prefix) && watcher.alive && watcher.users === 0)
    .sort((a, b) => a.lastUsed - b.lastUsed)[0];
}

/**
 * Switches an idle watcher to another session (`switch-client` on its own input, which makes tmux
 * notify control clients, so through the gate); true once it has answered from there. What it knew
 * of the old session's line editors is dropped: it no longer sees them.
 */
async function repoint(
  socket: SocketAddress,
  pool: WatcherPool,
  watcher: Watcher,
  target: { sessionId: string; key: string },
): Promise<boolean> {
  clearTimeout(watcher.idle);
  watcher.users++;
  // Known by its new session at once, so nothing moves it again meanwhile. What it knew and
  // followed (a pane of a session being killed, say) is out of its sight from here on.
  if (pool.live.get(watcher.key) === watcher) pool.live.delete(watcher.key);
  watcher.key = target.key;
  pool.live.set(target.key, watcher);
  watcher.lineEditor.clear();
  watcher.editorTails.clear();
  watcher.followed.clear();
  for (const gone of watcher.onGone) gone();
  watcher.onGone.clear();
  try {
    const answered = await whileNoClientConnects(pool.gates, socket, async () => {
      // Session ids are $N: nothing to quote.
      await watcher.writer.write(encoder.encode(`switch-client -E -t '${target.sessionId}'\n`));
      // Answered from the new session only: a switch that failed never matches.
      return await roundTrip(watcher, { format: "#{session_id}", expect: target.sessionId });
    }).catch(() => false);
    if (!answered) await stop(socket, pool, watcher);
    return answered;
  } finally {
    watcher.lastUsed = Date.now();
    if (--watcher.users === 0 && watcher.alive) {
      watcher.idle = setTimeout(() => stop(socket, pool, watcher), LINGER_MS);
    }
  }
}

function keyOf(socket: SocketAddress, sessionId: string): string {
  return `${socketKey(socket)}\x00${sessionId}`;
}

async function join(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  listener: OutputListener,
): Promise<{ watcher: Watcher; leave: () => void } | null> {
  if (socket.watchers === null) return null;
  const pool = socket.watchers;
  await pool.held.get(keyOf(socket, target.paneId));
  const own = await watcherFor({ ...socket, watchers: pool }, target.sessionId);
  if (own === null) return null;
  own.followed.add(target.paneId);
  if (own.paused.has(target.paneId)) {
    // Its output is sent from here on once the watcher has answered.
    pausePane(own, target.paneId, false);
    if (!await roundTrip(own)) return null;
  }
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
    own.lastUsed = Date.now();
    own.idle = setTimeout(() => stop(socket, pool, own), LINGER_MS);
  };
  return { watcher: own, leave };
}

/**
 * Calls `onOutput` whenever the pane writes output, until the returned function is called. Best
 * effort: when no watcher can be had the caller's own timer is all there is.
 */
export async function watchOutput(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  onOutput: () => void,
): Promise<() => void> {
  return (await join(socket, target, () => onOutput()))?.leave ?? (() => {});
}

/** A subscription to one pane's output bytes. */
export interface OutputTap {
  /** False once the watcher went away: bytes may have been missed since. */
  readonly alive: boolean;
  /** Resolves when the watcher goes away, or is moved to another session. */
  readonly lost: Promise<void>;
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
  const joined = await join(socket, target, onBytes);
  if (joined === null) return null;
  const { watcher, leave } = joined;
  watcher.ready ??= roundTrip(watcher);
  if (!await watcher.ready) {
    leave();
    return null;
  }
  // Each tap its own promise: one on the watcher would hold every tap's listener for as long as
  // the watcher lives.
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => markLost = resolve);
  watcher.onGone.add(markLost);
  if (!watcher.alive) markLost();
  return {
    get alive(): boolean {
      return watcher.alive;
    },
    lost,
    close(): void {
      watcher.onGone.delete(markLost);
      leave();
    },
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
  const watcher = socket.watchers?.live.get(keyOf(socket, target.sessionId));
  const reading = watcher?.alive ? watcher.lineEditor.get(target.paneId) : undefined;
  return reading === undefined ? "unknown" : reading ? "reading" : "not_reading";
}

/**
 * Ends the watchers over one remote host's link, which is to close (it sat idle); false, and
 * nothing ended, while a call still follows a pane through one.
 */
export async function closeWatchersOf(pool: WatcherPool, remote: RemoteLink): Promise<boolean> {
  const mine = [...pool.live.values()].filter((watcher) => watcher.socket.remote === remote);
  if (mine.some((watcher) => watcher.users > 0)) return false;
  await Promise.all(mine.map((watcher) => stop(watcher.socket, pool, watcher)));
  return true;
}

/** Ends every watcher of a pool (at shutdown). */
export async function closeWatcherPool(pool: WatcherPool): Promise<void> {
  await Promise.all([...pool.starting.values()]);
  await Promise.all(
    [...pool.live.values()].map((watcher) => stop(watcher.socket, pool, watcher, { last: true })),
  );
}
