/**
 * tmux's wait-for channels as a caller sees them: wait for one to be signalled, or signal it.
 * This server's own channels (see names.ts) are not for callers.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/command.ts";
import { waitChannel } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { abortable, ABORTED, deadline } from "../../util/mod.ts";

/** Options for {@linkcode waitForChannel}. */
export interface WaitForChannelOptions {
  /** Seconds to wait. */
  timeout: number;
  /** Cancels the wait (it then throws `cancelled`). */
  signal?: AbortSignal;
}

/** `wait-for CHANNEL` until it is signalled or the timeout passes; the waiter never outlives it. */
export async function waitForChannel(
  socket: TmuxSocket,
  channel: string,
  options: WaitForChannelOptions,
): Promise<"signalled" | "timeout"> {
  const child = waitChannel(socket, channel);
  try {
    using limit = deadline(options.timeout * 1000, options.signal);
    const outcome = await abortable(child.done, limit.signal);
    if (outcome === ABORTED) {
      if (options.signal?.aborted) {
        throw new TmuxError("cancelled", "wait_for_channel was cancelled");
      }
      return "timeout";
    }
    if (!outcome.success) {
      throw new TmuxError("tmux_unavailable", outcome.stderr.trim() || "wait-for failed");
    }
    return "signalled";
  } finally {
    await child.kill();
  }
}

/** `wait-for -S CHANNEL`: wakes its waiters. */
export async function signalChannel(socket: TmuxSocket, channel: string): Promise<void> {
  await runTmux(socket, ["wait-for", "-S", channel]);
}
