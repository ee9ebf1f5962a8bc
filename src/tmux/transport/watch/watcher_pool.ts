/**
 * The watchers of one owner: one per session in use, started rarely. Control clients that come and
 * go crash tmux 3.2 to 3.6b (see gate.ts), so watchers start and end through the socket's gate, stay
 * ten minutes after their last use (a pane only while a call needs it, and the prompt after), an idle one is switched
 * to the session a call needs rather than a new one started, a kill moves them off the sessions it
 * ends, and at most {@linkcode WATCHERS_MAX} are kept per socket; {@linkcode closeWatcherPool}
 * ends them all.
 *
 * @module
 */

import type { RemoteLink, SocketAddress } from "../spawn/mod.ts";
import { whileNoClientConnects } from "../control/mod.ts";
import { privateName } from "../../names.ts";
import {
  keyOf,
  LINGER_MS,
  pausePane,
  roundTrip,
  start,
  stop,
  type WatchedSocket,
  type Watcher,
  type WatcherPool,
} from "./watcher.ts";

const encoder = new TextEncoder();

/** Watchers kept per socket: a new one ends the least recently used idle one, if it must. */
const WATCHERS_MAX = 16;

/**
 * Watchers kept per remote socket: each is a channel of the host's ssh connection, which sshd
 * caps at 10 (MaxSessions) with the master's own session and the command client among them.
 */
const REMOTE_WATCHERS_MAX = 6;

/** The pool's live watchers of one socket. */
function watchersOf(socket: SocketAddress, pool: WatcherPool): Watcher[] {
  // Keys begin with the socket's part (see keyOf).
  const prefix = keyOf(socket, "");
  return [...pool.live.values()].filter((watcher) => watcher.key.startsWith(prefix));
}

/** Makes room for one more watcher of the socket: false when all kept ones are in use. */
async function makeRoom(socket: SocketAddress, pool: WatcherPool): Promise<boolean> {
  const mine = watchersOf(socket, pool);
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
export function watcherFor(
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
    // A watcher starting now would follow the pane as it comes: it is paused once started.
    await Promise.allSettled([...pool.starting.values()]);
    const mine = watchersOf(socket, pool).filter((watcher) => watcher.alive);
    await Promise.all(mine.map((watcher) => {
      watcher.followed.delete(paneId);
      watcher.grace.delete(paneId);
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
  return watchersOf(socket, pool).filter((watcher) => watcher.alive && watcher.users === 0)
    .sort((a, b) => a.lastUsed - b.lastUsed)[0];
}

/**
 * Switches a watcher to another session (`switch-client` on its own input, which makes tmux
 * notify control clients, so through the gate); true once it has answered from there, else it is
 * ended. What it knew and followed of the old session is dropped, and its taps are lost.
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
  watcher.grace.clear();
  for (const gone of watcher.onGone) gone();
  watcher.onGone.clear();
  watcher.onPanePaused.clear();
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
