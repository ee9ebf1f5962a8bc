/**
 * The ready gate of the calls that type into a pane (send_keys, paste_text) and of the verbs that
 * start a shell when asked to wait: a shell this server started (see `shellStarting`) is waited
 * for while it reads its startup files, until its line editor reads. Keys typed before that were
 * echoed above its prompt by the terminal, and pasted text ran as typed commands (the shell had
 * not asked for bracketed paste yet).
 *
 * @module
 */

import { programWaitsNow } from "../../read/wait/program_turn.ts";
import { lockKey } from "../../transport/spawn/exec.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { delay } from "../../../util/mod.ts";
import type { Runner } from "./state.ts";

/** Options for {@linkcode shellReady}. */
export interface ShellReadyOptions {
  /** When to stop waiting (milliseconds since the epoch). */
  deadline: number;
  /** Ends the wait early. */
  signal?: AbortSignal;
}

/** How often a starting shell is looked at again. */
const STARTING_LOOK_MS = 200;

/**
 * Whether the pane's shell, one this server started (see `shellStarting`), may still be reading
 * its startup files, the call's time not yet up: then, a moment later, it is looked at again (a
 * zsh whose .zshrc runs a program was refused as running it, run_command's look). False once the
 * call cannot wait.
 */
export async function shellStartingFor(
  runner: Runner,
  call: { key: string; deadline: number; signal?: AbortSignal },
): Promise<boolean> {
  const until = Math.min(runner.starting.get(call.key) ?? 0, call.deadline - STARTING_LOOK_MS);
  if (Date.now() >= until) return false;
  await delay(STARTING_LOOK_MS, { signal: call.signal });
  return call.signal?.aborted !== true;
}

/**
 * Whether the pane's shell reads, waiting for it until the deadline when this server started it
 * and it may still be starting: true at once for any other pane, and where the kernel cannot
 * tell (a shell waits for input when its line editor reads, or when its startup file asks).
 * False when the deadline came first.
 */
export async function shellReady(
  runner: Runner,
  target: { socket: TmuxSocket; paneId: string },
  options: ShellReadyOptions,
): Promise<boolean> {
  const key = lockKey(target.socket, target.paneId);
  for (;;) {
    const starting = runner.starting.get(key);
    if (starting === undefined || Date.now() >= starting) break;
    if (await programWaitsNow(target.socket, target.paneId) !== "busy") break;
    if (Date.now() + STARTING_LOOK_MS > options.deadline) return false;
    await delay(STARTING_LOOK_MS, { signal: options.signal });
    if (options.signal?.aborted) return false;
  }
  runner.starting.delete(key);
  return true;
}
