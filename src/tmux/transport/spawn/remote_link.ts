/**
 * The seam between this server and a tmux on another machine: how a tmux client is started
 * there, and the state of the connection that carries it. ssh is the one transport today
 * (ssh.ts); `docker exec -i` or `kubectl exec -i` fit the same shape. Everything above it (control
 * clients, watchers, `source-file -` for the rest) is the same whatever the transport.
 *
 * @module
 */

import { TmuxError } from "../../errors.ts";

/** A declared host's connection. */
export interface RemoteLink {
  /** The name calls give as `host`. */
  readonly name: string;
  /** The remote tmux's `-L` socket name calls use by default; null: its own default. */
  readonly socketName: string | null;
  /** Connects (once, however many ask at once); throws a `TmuxError` saying why it cannot. */
  connect(): Promise<void>;
  /** Whether the connection is up (connected, and not seen going since). */
  readonly connected: boolean;
  /**
   * Whether the connection dropped (or never came up): asked after a channel failed, it gives a
   * connection that is going a moment to be gone.
   */
  dropped(): Promise<boolean>;
  /** The command that runs `tmux <args>` on the host over the connection (once connected). */
  command(
    args: readonly string[],
    stdio: Pick<Deno.CommandOptions, "stdin" | "stdout" | "stderr">,
  ): Deno.Command;
  /**
   * Runs `work`, which opens a short-lived channel (one command's client), once fewer than a few
   * such are open: with the command client and the watchers they stay under the server's cap on
   * channels a connection (sshd's MaxSessions is 10), past which ssh opens a connection of its own.
   */
  channel<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The error for a client that exited with `code` having said `stderr`, when the transport
   * failed (not tmux); null when the failure is tmux's own.
   */
  failure(code: number, stderr: string): TmuxError | null;
  /** Ends the connection (and so every channel over it). */
  close(): Promise<void>;
}

/**
 * The error for a call whose time ran out waiting on a host: `error` as it is, unless tmux there
 * was never reached because the connection is not up (an sshd that accepts and says nothing, a
 * host that stalls): then the host is unreachable, not its tmux.
 */
export function unreachableWhenDown(link: RemoteLink | null | undefined, error: unknown): unknown {
  if (!(error instanceof TmuxError) || error.code !== "tmux_unavailable") return error;
  if (link == null || link.connected) return error;
  return new TmuxError(
    "host_unreachable",
    `${link.name} did not answer ssh within the call's time (the host, its sshd or the network ` +
      "stalled)",
  );
}
