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

import { abortable, ABORTED } from "../../../util/mod.ts";
import { type SocketAddress, spawnRun, spawnTmux, type TmuxChild } from "./exec.ts";
import { afterCall } from "../../call_deadline.ts";
import { THEN } from "./command_line.ts";

/**
 * Waits until `channel` is signalled; the child's `kill` gives the wait up. A remote wait still
 * waiting is given up by signalling its channel: its ssh process hands its output to the link's
 * master, which keeps it open for as long as the remote `tmux wait-for` runs, and that would run
 * on (holding a channel of the link) until the run ends.
 */
export function waitChannel(socket: SocketAddress, channel: string): TmuxChild {
  const child = spawnTmux(socket, ["wait-for", channel]);
  if (!socket.remote) return child;
  let waiting = true;
  child.done.then(() => waiting = false);
  return {
    done: child.done,
    async kill(): Promise<void> {
      if (waiting) await afterCall(() => signalChannels(socket, [channel])).catch(() => {});
      await child.kill();
    },
  };
}

/** How long draining channels may take: it returns at once unless someone else waits on one. */
const DRAIN_MS = 500;

/**
 * Leaves no signal pending on channels whose waiters are gone: each is signalled and waited for
 * in one tmux command, so one kept for a waiter that never came is consumed and a fresh one is
 * consumed at once. In one process, given up after {@linkcode DRAIN_MS}: a channel whose signal
 * was kept already loses it to the second signal (tmux's cmd-wait-for.c drops both), and the wait
 * then blocks. On a remote host that process cannot be ended from here (see
 * {@linkcode waitChannel}), so there each channel is only signalled once, never waited on: at
 * most one kept signal stays, on a channel nobody waits on again (each run has its own).
 */
export async function drainChannels(
  socket: SocketAddress,
  channels: readonly string[],
): Promise<void> {
  if (channels.length === 0) return;
  if (socket.remote) return await signalChannels(socket, channels);
  const args = channels.flatMap((channel, i) => [
    ...(i === 0 ? [] : [THEN]),
    ...["wait-for", "-S", channel, THEN, "wait-for", channel],
  ]);
  const child = spawnTmux(socket, args);
  if (await abortable(child.done, AbortSignal.timeout(DRAIN_MS)) === ABORTED) await child.kill();
}

async function signalChannels(socket: SocketAddress, channels: readonly string[]): Promise<void> {
  if (channels.length === 0) return;
  await spawnRun(
    socket,
    channels.flatMap((channel, i) => [...(i === 0 ? [] : [THEN]), "wait-for", "-S", channel]),
  );
}
