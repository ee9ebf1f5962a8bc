/**
 * tmux's wait-for channels as a caller sees them: wait for one to be signalled, or signal it.
 * This server's own channels (see names.ts) are not for callers.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import { waitChannel } from "../transport/spawn/waiter.ts";
import { socketKey, type TmuxChild } from "../transport/spawn/exec.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { abortable, ABORTED, deadline } from "../../util/mod.ts";

/** Options for {@linkcode waitForChannel}. */
export interface WaitForChannelOptions {
  /** Seconds to wait. */
  timeout: number;
  /** Cancels the wait (it then throws `cancelled`). */
  signal?: AbortSignal;
}

/**
 * Channels waited on at once per tmux server, each by one `tmux wait-for` process that every call
 * waiting on it shares: 200 calls started 200 processes. A call past them waits for one to end,
 * within its own timeout; a signal sent meanwhile is kept by tmux for the next waiter.
 */
const CHANNELS_WAITED_MAX = 16;

/** One channel's `tmux wait-for` and the calls waiting on it. */
interface SharedWait {
  child: TmuxChild;
  users: number;
}

/** The channels being waited on, by socket and channel. */
const waits = new Map<string, SharedWait>();

/** Resolved (and replaced) each time a wait ends: a call queued for room looks again. */
let waitEnded = Promise.withResolvers<void>();

function wakeQueued(): void {
  waitEnded.resolve();
  waitEnded = Promise.withResolvers<void>();
}

/** The channel's shared wait, joined or started once there is room; null: `signal` came first. */
async function joinWait(
  socket: TmuxSocket,
  channel: string,
  signal: AbortSignal,
): Promise<{ wait: SharedWait; key: string } | null> {
  const prefix = `${socketKey(socket)}\0`;
  const key = prefix + channel;
  for (;;) {
    const shared = waits.get(key);
    if (shared !== undefined) {
      shared.users++;
      return { wait: shared, key };
    }
    const mine = [...waits.keys()].filter((name) => name.startsWith(prefix)).length;
    if (mine < CHANNELS_WAITED_MAX) {
      const wait = { child: waitChannel(socket, channel), users: 1 };
      waits.set(key, wait);
      // Once signalled, a new call starts a wait of its own.
      const ended = () => {
        if (waits.get(key) === wait) waits.delete(key);
        wakeQueued();
      };
      wait.child.done.then(ended, ended);
      return { wait, key };
    }
    if (await abortable(waitEnded.promise, signal) === ABORTED) return null;
  }
}

/** A call leaves its channel's wait; the last one ends the process. */
async function leaveWait(joined: { wait: SharedWait; key: string }): Promise<void> {
  if (--joined.wait.users > 0) return;
  if (waits.get(joined.key) === joined.wait) waits.delete(joined.key);
  await joined.wait.child.kill();
  wakeQueued();
}

/** `wait-for CHANNEL` until it is signalled or the timeout passes; the waiter never outlives it. */
export async function waitForChannel(
  socket: TmuxSocket,
  channel: string,
  options: WaitForChannelOptions,
): Promise<"signalled" | "timeout"> {
  using limit = deadline(options.timeout * 1000, options.signal);
  const joined = await joinWait(socket, channel, limit.signal);
  try {
    const outcome = joined === null
      ? ABORTED
      : await abortable(joined.wait.child.done, limit.signal);
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
    if (joined !== null) await leaveWait(joined);
  }
}

/** `wait-for -S CHANNEL`: wakes its waiters. */
export async function signalChannel(socket: TmuxSocket, channel: string): Promise<void> {
  await runTmux(socket, ["wait-for", "-S", channel]);
}
