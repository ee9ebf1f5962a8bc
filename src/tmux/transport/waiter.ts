/**
 * Blocking waits on tmux `wait-for` channels, over control clients kept for the purpose: a wait
 * costs a line on a pipe instead of a tmux process (measured: one spawn less per run_command,
 * about 0.5 ms of the server's thread and 1 to 2 ms of machine CPU). A control client runs its
 * commands in order, so each waits on one channel at a time; idle ones are kept per socket and
 * reused. Without control clients (`--no-control`, or none can be had), and when a waiting client
 * goes away (its session was killed), a `tmux wait-for` process waits instead: a signal that came
 * meanwhile was kept by tmux for the next waiter.
 *
 * @module
 */

import {
  connectControl,
  type Control,
  type ControlledSocket,
  type ControlPool,
  keyOf,
  sendControl,
} from "./control.ts";
import { spawnTmux, THEN, type TmuxChild } from "./exec.ts";
import { closeControlChild, terminate } from "./lines.ts";

function forget(pool: ControlPool, key: string, control: Control): void {
  pool.waiting.delete(control);
  const idle = pool.idleWaiters.get(key);
  const at = idle?.indexOf(control) ?? -1;
  if (idle && at >= 0) idle.splice(at, 1);
}

/** How a wait ended; `output` is that of the `then` commands, when they ran. */
export interface WaitResult {
  /** The channel was signalled (false: tmux went away, or the wait was given up). */
  success: boolean;
  /** What tmux said when it failed. */
  stderr: string;
  /** The output of {@linkcode WaitOptions.then}; null when they were not run or failed. */
  output: string | null;
}

/** A wait in progress. */
export interface ChannelWait {
  /** Resolves when the wait ends. */
  readonly done: Promise<WaitResult>;
  /** Gives the wait up and resolves once nothing waits any more. */
  kill(): Promise<void>;
}

/** Options for {@linkcode waitChannel}. */
export interface WaitOptions {
  /**
   * Commands (THEN-chained) run by the same client right after the wait returns, saving the
   * caller a round trip. Best effort: where a process waits, or they fail, the caller asks again.
   */
  then?: readonly string[];
}

/** Idle waiting clients kept per socket; more (after a burst of parallel calls) are closed. */
const IDLE_WAITERS_MAX = 8;

function keep(pool: ControlPool, key: string, waiter: Control): void {
  const idle = pool.idleWaiters.get(key) ?? [];
  if (idle.length >= IDLE_WAITERS_MAX) {
    closeControlChild(waiter);
    return;
  }
  idle.push(waiter);
  pool.idleWaiters.set(key, idle);
}

function spawned(child: TmuxChild): ChannelWait {
  return { done: child.done.then((r) => ({ ...r, output: null })), kill: () => child.kill() };
}

/** Waits until `channel` is signalled; the handle's `kill` gives the wait up. */
export function waitChannel(
  socket: ControlledSocket,
  channel: string,
  options: WaitOptions = {},
): ChannelWait {
  const pool = socket.controls;
  if (pool === null) return spawned(spawnTmux(socket, ["wait-for", channel]));
  const key = keyOf(socket);
  let control: Control | null = null;
  let fallback: TmuxChild | null = null;
  let killed = false;
  const spawnInstead = (): Promise<WaitResult> => {
    const child = spawnTmux(socket, ["wait-for", channel]);
    fallback = child;
    return spawned(child).done;
  };
  const given = options.then ?? [];
  const done = (async (): Promise<WaitResult> => {
    const waiter = pool.idleWaiters.get(key)?.pop() ??
      await connectControl(socket, { pool, onExit: (gone) => forget(pool, key, gone) });
    const gaveUp = { success: false, stderr: "", output: null };
    if (waiter === null) return killed ? gaveUp : await spawnInstead();
    if (killed) {
      keep(pool, key, waiter);
      return gaveUp;
    }
    control = waiter;
    pool.waiting.add(waiter);
    try {
      const line = given.length === 0
        ? ["wait-for", channel]
        : ["wait-for", channel, THEN, ...given];
      const output = await sendControl(waiter, line);
      return { success: true, stderr: "", output: given.length === 0 ? null : output };
    } catch (error) {
      if (killed) return gaveUp;
      if (!waiter.alive) return await spawnInstead();
      // wait-for itself does not fail on a live client: the commands after it did.
      if (given.length > 0) return { success: true, stderr: "", output: null };
      return { success: false, stderr: String((error as Error).message), output: null };
    } finally {
      pool.waiting.delete(waiter);
      control = null;
      if (waiter.alive && !killed) keep(pool, key, waiter);
    }
  })();
  return {
    done,
    async kill(): Promise<void> {
      killed = true;
      const waiting: Control | null = control;
      if (waiting !== null) await terminate(waiting.child);
      await (fallback as TmuxChild | null)?.kill();
      await done;
    },
  };
}
