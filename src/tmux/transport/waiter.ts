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
import { spawnTmux, type TmuxChild } from "./exec.ts";
import { terminate } from "./lines.ts";

function forget(pool: ControlPool, key: string, control: Control): void {
  pool.waiting.delete(control);
  const idle = pool.idleWaiters.get(key);
  const at = idle?.indexOf(control) ?? -1;
  if (idle && at >= 0) idle.splice(at, 1);
}

/** Waits until `channel` is signalled; the handle's `kill` gives the wait up. */
export function waitChannel(socket: ControlledSocket, channel: string): TmuxChild {
  const pool = socket.controls;
  if (pool === null) return spawnTmux(socket, ["wait-for", channel]);
  const key = keyOf(socket);
  let control: Control | null = null;
  let fallback: TmuxChild | null = null;
  let killed = false;
  const spawnInstead = (): Promise<{ success: boolean; stderr: string }> => {
    fallback = spawnTmux(socket, ["wait-for", channel]);
    return fallback.done;
  };
  const done = (async (): Promise<{ success: boolean; stderr: string }> => {
    const waiter = pool.idleWaiters.get(key)?.pop() ??
      await connectControl(socket, { pool, onExit: (gone) => forget(pool, key, gone) });
    if (waiter === null) return killed ? { success: false, stderr: "" } : await spawnInstead();
    if (killed) {
      pool.idleWaiters.set(key, [...pool.idleWaiters.get(key) ?? [], waiter]);
      return { success: false, stderr: "" };
    }
    control = waiter;
    pool.waiting.add(waiter);
    try {
      await sendControl(waiter, ["wait-for", channel]);
      return { success: true, stderr: "" };
    } catch (error) {
      if (killed) return { success: false, stderr: "" };
      if (waiter.alive) return { success: false, stderr: String((error as Error).message) };
      return await spawnInstead();
    } finally {
      pool.waiting.delete(waiter);
      control = null;
      if (waiter.alive && !killed) {
        pool.idleWaiters.set(key, [...pool.idleWaiters.get(key) ?? [], waiter]);
      }
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
