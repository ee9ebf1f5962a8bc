/**
 * Pane output as it happens, for calls: waits look at a pane as soon as it writes, and run_command
 * reads a command's output, and its end, from the byte stream itself, and tells a shell reading a
 * command line from a program that took the terminal. The watchers behind it are watcher.ts's and
 * watcher_pool.ts's.
 *
 * @module
 */

import { watcherFor } from "./watcher_pool.ts";
import {
  keyOf,
  LINGER_MS,
  type OutputListener,
  pausePane,
  roundTrip,
  startGrace,
  stop,
  stopFollowing,
  type WatchedSocket,
  type Watcher,
} from "./watcher.ts";

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

/** How a call leaves a pane it followed. */
export interface LeaveOptions {
  /**
   * Stop following the pane now, when nobody else does (no grace for a prompt after it): what it
   * writes from here on is not queued for us.
   */
  letGo?: boolean;
}

async function join(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  listener: OutputListener,
): Promise<{ watcher: Watcher; leave: (options?: LeaveOptions) => void } | null> {
  if (socket.watchers === null) return null;
  const pool = socket.watchers;
  const own = await watcherFor({ ...socket, watchers: pool }, target.sessionId);
  if (own === null) return null;
  // Not while the pane is held (being respawned): it is to stay paused until then.
  const held = keyOf(socket, target.paneId);
  while (pool.held.has(held)) await pool.held.get(held);
  clearTimeout(own.idle);
  own.users++;
  // Listened to before it is followed: output of a followed pane nobody listens to pauses it.
  const set = own.listeners.get(target.paneId) ?? new Set();
  set.add(listener);
  own.listeners.set(target.paneId, set);
  own.grace.delete(target.paneId);
  own.followed.add(target.paneId);
  let left = false;
  const leave = (options: LeaveOptions = {}) => {
    if (left) return;
    left = true;
    set.delete(listener);
    if (set.size === 0 && options.letGo) stopFollowing(own, target.paneId);
    else if (set.size === 0) startGrace(own, target.paneId);
    if (--own.users > 0) return;
    own.lastUsed = Date.now();
    own.idle = setTimeout(() => stop(socket, pool, own), LINGER_MS);
  };
  // Its output is sent from here on once the watcher has answered.
  if (own.paused.has(target.paneId)) {
    pausePane(own, target.paneId, false);
    if (!await roundTrip(own)) {
      leave();
      return null;
    }
  }
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
  /** False once the watcher went away, or tmux paused the pane for it: bytes may be missed. */
  readonly alive: boolean;
  /** Resolves when the watcher goes away, is moved to another session, or the pane is paused. */
  readonly lost: Promise<void>;
  /**
   * Calls `listener` once, if tmux says it held output for this tap's watcher for seconds (a
   * flood): tmux may go on to pause the pane for it, dropping what it held.
   */
  onBehind(listener: () => void): void;
  /** Ends the subscription. */
  close(options?: LeaveOptions): void;
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
  let paused = false;
  let behind: (() => void) | null = null;
  const lost = new Promise<void>((resolve) => markLost = resolve);
  const markPaused = () => {
    paused = true;
    markLost();
  };
  watcher.onGone.add(markLost);
  const onPaused = watcher.onPanePaused.get(target.paneId) ?? new Set();
  onPaused.add(markPaused);
  watcher.onPanePaused.set(target.paneId, onPaused);
  if (!watcher.alive) markLost();
  return {
    get alive(): boolean {
      return watcher.alive && !paused;
    },
    lost,
    onBehind(listener: () => void): void {
      behind = listener;
      watcher.onBehind.add(listener);
    },
    close(options?: LeaveOptions): void {
      watcher.onGone.delete(markLost);
      onPaused.delete(markPaused);
      if (behind !== null) watcher.onBehind.delete(behind);
      leave(options);
    },
  };
}

/**
 * Resolves once the pane's watcher sees its line editor switch again (either way), its watcher
 * goes, or `signal` aborts: what a wait for the editor to read again waits on, instead of looking
 * again and again.
 */
export function lineEditorReported(
  socket: WatchedSocket,
  target: { sessionId: string; paneId: string },
  signal: AbortSignal,
): Promise<void> {
  const watcher = socket.watchers?.live.get(keyOf(socket, target.sessionId));
  if (watcher?.alive !== true || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      watcher.editorReported.delete(reported);
      watcher.onGone.delete(done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const reported = (paneId: string): void => {
      if (paneId === target.paneId) done();
    };
    watcher.editorReported.add(reported);
    watcher.onGone.add(done);
    signal.addEventListener("abort", done, { once: true });
  });
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
