/**
 * State shared by every call of one server: per-pane queues, calls given up on, and where the
 * last call's output ended.
 *
 * @module
 */

import { abortable, ABORTED } from "../../async.ts";
import { waitChannel } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { createKeyedLock, type KeyedLock } from "../lock.ts";
import { queryPane } from "../target.ts";
import { type CallNames, markOutlivedShell, type RunFunction, RUNNING_OPTION } from "./shell.ts";
import type { Position } from "./types.ts";

/** A call whose wait was given up while its command may still finish and run its trailer. */
interface Orphan {
  names: CallNames;
}

/** State shared by all calls of one server: per-pane queues and leftovers of timed-out calls. */
export interface Runner {
  locks: KeyedLock;
  orphans: Map<string, Orphan[]>;
  /** Per pane, where the last finished call's output ended: until the cursor leaves that spot, the
   * shell has not drawn its prompt yet. */
  lastEnds: Map<string, Position>;
  /** Per pane, the run function its shell was given (`name:pane_pid`), so it is sent once. */
  functions: Map<string, string>;
  /** Per socket path, the run function (its digest is computed once). */
  definitions: Map<string, Promise<RunFunction>>;
  /** Aborted by {@linkcode stopRunner}: every wait ends as if cancelled. */
  stop: AbortController;
  inFlight: Set<Promise<unknown>>;
}

/** Makes the state shared by the calls of one server. */
export function createRunner(): Runner {
  return {
    locks: createKeyedLock(),
    orphans: new Map(),
    lastEnds: new Map(),
    functions: new Map(),
    definitions: new Map(),
    stop: new AbortController(),
    inFlight: new Set(),
  };
}

/**
 * Ends every call in flight the way a cancellation does (wait-for children killed, trailers
 * released) and waits for them, so a stopping server leaves nothing behind in tmux.
 */
export async function stopRunner(runner: Runner): Promise<void> {
  runner.stop.abort();
  await Promise.allSettled([...runner.inFlight]);
}

/** The key of a pane in a runner's maps: its socket and id. */
export function lockKey(socket: TmuxSocket, paneId: string): string {
  return `${socket.socketName ?? ""}\x00${paneId}`;
}

/** How long a drain of a call's done channel may wait: it returns at once when signalled. */
const DRAIN_MS = 100;

/** Consumes a signal left on a channel whose waiter is gone; gives up after {@linkcode DRAIN_MS}. */
export async function drain(socket: TmuxSocket, channel: string): Promise<void> {
  const waiter = waitChannel(socket, channel);
  if (await abortable(waiter.done, AbortSignal.timeout(DRAIN_MS)) === ABORTED) await waiter.kill();
}

/** Panes remembered by each of {@linkcode rememberEnd} and {@linkcode rememberFunction}. */
const PANES_REMEMBERED_MAX = 1024;

/** Remembers that a pane's shell was given a run function (a bounded map, oldest out first). */
export function rememberFunction(runner: Runner, key: string, value: string): void {
  runner.functions.delete(key);
  runner.functions.set(key, value);
  if (runner.functions.size > PANES_REMEMBERED_MAX) {
    runner.functions.delete(runner.functions.keys().next().value!);
  }
}

/** Remembers where a pane's last output ended, for the next call's wait for the prompt. */
export function rememberEnd(runner: Runner, key: string, end: Position): void {
  runner.lastEnds.set(key, { history: end.history, y: end.y, x: end.x });
  if (runner.lastEnds.size > PANES_REMEMBERED_MAX) {
    runner.lastEnds.delete(runner.lastEnds.keys().next().value!);
  }
}

/** A call in a pane, named by its nonce. */
export interface PaneCall {
  socket: TmuxSocket;
  paneId: string;
  names: CallNames;
}

function storeOrphans(runner: Runner, key: string, list: Orphan[]): void {
  if (list.length > 0) runner.orphans.set(key, list);
  else runner.orphans.delete(key);
}

/** Remembers a call given up on, whose trailer may still run and signal its channel. */
export function addOrphan(runner: Runner, call: PaneCall): void {
  const key = lockKey(call.socket, call.paneId);
  storeOrphans(runner, key, [...(runner.orphans.get(key) ?? []), { names: call.names }]);
}

/** Forgets a call given up on (its signal is drained by whoever collects it). */
export function forgetOrphan(runner: Runner, call: PaneCall): void {
  const key = lockKey(call.socket, call.paneId);
  const list = runner.orphans.get(key) ?? [];
  storeOrphans(runner, key, list.filter((o) => o.names.channel !== call.names.channel));
}

/**
 * Settles calls given up on in this pane (timed out, cancelled): one whose command still runs is
 * kept; one whose trailer has run left a signal on its done channel, drained here (the trailer,
 * released ahead, removes its own option); one whose shell is gone is forgotten.
 */
export async function sweepOrphans(
  runner: Runner,
  socket: TmuxSocket,
  paneId: string,
): Promise<void> {
  const key = lockKey(socket, paneId);
  const list = runner.orphans.get(key);
  if (!list) return;
  let state: Record<"pane_pid" | "pane_dead" | typeof RUNNING_OPTION, string>;
  try {
    state = await queryPane(socket, paneId, ["pane_pid", "pane_dead", RUNNING_OPTION]);
  } catch {
    runner.orphans.delete(key);
    return;
  }
  const mark = state[RUNNING_OPTION];
  const keep: Orphan[] = [];
  for (const orphan of list) {
    if (!mark.startsWith(`${orphan.names.channel}:`)) {
      await drain(socket, orphan.names.channel);
    } else if (state.pane_dead !== "1" && !markOutlivedShell(mark, state.pane_pid)) {
      keep.push(orphan);
    }
  }
  storeOrphans(runner, key, keep);
}
