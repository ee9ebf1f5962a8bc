/**
 * The deadline of the call that work is done for, carried with the work itself
 * (`AsyncLocalStorage`), so that every wait on tmux below a call honours it without each layer
 * passing it down: a command over a control client, a spawned tmux, a turn at the gate. A call
 * that tmux stops answering (a stopped or swamped server) answers by its deadline; work outside
 * any call (a watcher ending when idle, shutdown) has none.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { abortable, ABORTED } from "../util/mod.ts";
import { TmuxError } from "./errors.ts";

const current = new AsyncLocalStorage<AbortSignal | undefined>();

/** Runs `work` with `signal` as the deadline of every tmux exchange it awaits. */
export function withCallDeadline<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return current.run(signal, work);
}

/** How long clearing up after a call that was cancelled (or ran out of time) may take. */
const CLEANUP_MS = 5000;

/**
 * Runs `work`, the clearing up after a call that was cancelled or ran out of time, under a
 * deadline of its own: the call's has passed, and would stop it before it starts.
 */
export function afterCall<T>(work: () => Promise<T>): Promise<T> {
  return current.run(AbortSignal.timeout(CLEANUP_MS), work);
}

/**
 * Runs `work` outside any call: background work that outlives the call that started it. (Not
 * `exit`: in Deno 2.9 what `work` awaits comes back under the call's deadline.)
 */
export function outsideCall<T>(work: () => T): T {
  return current.run(undefined, work);
}

/** The deadline of the call this runs for; undefined outside any call. */
export function callDeadline(): AbortSignal | undefined {
  return current.getStore();
}

/** The error for work the call's deadline (or its cancellation) cut short. */
export function deadlineError(signal: AbortSignal, what: string): TmuxError {
  return signal.reason instanceof DOMException && signal.reason.name === "TimeoutError"
    ? new TmuxError(
      "tmux_unavailable",
      `tmux did not answer ${what} within the call's time (is the tmux server stopped or swamped?)`,
    )
    : new TmuxError("cancelled", "the call was cancelled");
}

/** Throws {@linkcode deadlineError} when the call's deadline has passed: nothing more is sent. */
export function checkCallDeadline(what: string): void {
  const signal = current.getStore();
  if (signal?.aborted) throw deadlineError(signal, what);
}

/** `promise`'s value, or {@linkcode deadlineError} once the call's deadline passes first. */
export async function withinCall<T>(promise: Promise<T>, what: string): Promise<T> {
  const signal = current.getStore();
  if (signal === undefined) return await promise;
  const result = await abortable(promise, signal);
  if (result === ABORTED) throw deadlineError(signal, what);
  return result;
}
