/**
 * Blocking waits on tmux `wait-for` channels, each in a `tmux wait-for` process of its own. Not
 * over control clients: a wait holds its client for as long as it lasts, so parallel waits would
 * need a client each, connected and ended per call, and control clients that come and go crash
 * tmux 3.2 to 3.6b (see gate.ts). A plain `tmux` process is never attached to a session and
 * has no control state, so its coming and going is harmless. run_command waits this way only when
 * it cannot follow the pane's byte stream.
 *
 * @module
 */

import { abortable, ABORTED } from "../../async.ts";
import { type SocketAddress, spawnTmux, type TmuxChild } from "./exec.ts";
import { THEN } from "./command_line.ts";

/** Waits until `channel` is signalled; the child's `kill` gives the wait up. */
export function waitChannel(socket: SocketAddress, channel: string): TmuxChild {
  return spawnTmux(socket, ["wait-for", channel]);
}

/** How long draining channels may take: it returns at once unless someone else waits on one. */
const DRAIN_MS = 500;

/**
 * Leaves no signal pending on channels whose waiters are gone: each is signalled and waited for
 * in one tmux command, so one kept for a waiter that never came is consumed and a fresh one is
 * consumed at once. In one process, which is given up after {@linkcode DRAIN_MS} (should another
 * client wait on a channel, the rest are left for another time).
 */
export async function drainChannels(
  socket: SocketAddress,
  channels: readonly string[],
): Promise<void> {
  if (channels.length === 0) return;
  const args = channels.flatMap((channel, i) => [
    ...(i === 0 ? [] : [THEN]),
    ...["wait-for", "-S", channel, THEN, "wait-for", channel],
  ]);
  const child = spawnTmux(socket, args);
  if (await abortable(child.done, AbortSignal.timeout(DRAIN_MS)) === ABORTED) await child.kill();
}
