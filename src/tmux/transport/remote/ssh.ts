/**
 * tmux on another machine, reached over ssh. Hosts are declared by the operator (see
 * `remote_spec.ts`); ssh's argv is built from that declaration and fixed tokens only, and every
 * command of ours travels as tmux-language text on a tmux client's standard input (a
 * control client's, or `source-file -`'s), so no caller's text reaches ssh or the remote login
 * shell. One master connection per host, owned by this process under a private ControlPath,
 * carries every channel; it ends when the process closes the link (or exits: its session reads
 * our pipe).
 *
 * @module
 */

import { abortable, ABORTED } from "../../../util/mod.ts";
import { TmuxError } from "../../errors.ts";
import {
  MAX_STDERR_BYTES,
  readCapped,
  readLines,
  type RemoteLink,
  terminate,
} from "../spawn/mod.ts";
import type { RemoteHost } from "./remote_spec.ts";
import { withinCall } from "../../call_deadline.ts";

/** ssh settings shared by every host. */
export interface SshOptions {
  /** An ssh config file (`ssh -F`); null: ssh's own (`~/.ssh/config`). */
  readonly configFile: string | null;
  /** Accept and record the key of a host never seen before (else `host_key_unknown`). */
  readonly acceptNewHostKeys: boolean;
}

/** Words that may go into the remote command line (each single-quoted there as well). */
const REMOTE_WORD = /^[A-Za-z0-9_.,:;%$@/=+-]+$/;

/** Why ssh failed, from what it printed (ssh exits 255 on its own failures). */
export function sshFailure(host: RemoteHost, stderr: string): TmuxError {
  const said = stderr.trim().split("\n").filter((line) => !line.startsWith("Warning:")).join(
    "; ",
  ).slice(0, 500);
  const on = `host ${host.name} (${host.destination})`;
  if (
    /host key verification failed|no \S+ host key is known|host identification has changed/i.test(
      said,
    )
  ) {
    return new TmuxError(
      "host_key_unknown",
      `${on}: its host key is not in known_hosts (or changed); add it (ssh-keyscan, or one ` +
        `ssh by hand), or start the server with --remote-accept-new-host-keys: ${said}`,
    );
  }
  if (
    /permission denied|too many authentication failures|no supported authentication/i.test(said)
  ) {
    return new TmuxError(
      "auth_failed",
      `${on} refused our key: the server cannot type a password; give the key in the ssh ` +
        `config (IdentityFile) or pass SSH_AUTH_SOCK to the server: ${said}`,
    );
  }
  return new TmuxError("host_unreachable", `${on} cannot be reached: ${said || "ssh failed"}`);
}

/** How long connecting (and authenticating) to a host may take. */
const CONNECT_SECONDS = 10;

/**
 * Short-lived channels (one command's client) open at once per host: the master's own session,
 * the command client and at most six watchers leave room for two under sshd's MaxSessions (10).
 */
const SHORT_CHANNELS = 2;

/** How long a failed channel's master connection may take to be seen going. */
const DROP_MS = 500;

/** What the master's own session prints once it runs: the connection is up. */
const READY = "tmux-mcp-ready";

/** The link to a declared host over ssh; nothing connects until it is used. */
export function createSshLink(host: RemoteHost, options: SshOptions): RemoteLink {
  // Private to this process: unguessable, so no one else's socket can be there before ours.
  const controlPath = `/tmp/tmux-mcp-${crypto.getRandomValues(new Uint8Array(8)).toHex()}-%C`;
  const common = [
    "-T",
    ...["-o", "BatchMode=yes"],
    ...["-o", `StrictHostKeyChecking=${options.acceptNewHostKeys ? "accept-new" : "yes"}`],
    ...["-o", `ConnectTimeout=${CONNECT_SECONDS}`],
    ...["-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"],
    ...["-o", `ControlPath=${controlPath}`],
    ...(options.configFile === null ? [] : ["-F", options.configFile]),
    ...(host.port === null ? [] : ["-p", String(host.port)]),
  ];
  let master: Deno.ChildProcess | null = null;
  let masterWriter: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let connecting: Promise<void> | null = null;
  let up = false;
  const slots = new ChannelSlots(SHORT_CHANNELS);

  async function start(): Promise<void> {
    const { child, lines } = await startMaster(host, common);
    master = child;
    masterWriter = child.stdin.getWriter();
    up = true;
    // Its stdout carries nothing more; drain it so the pipe never fills.
    (async () => {
      for await (const _ of lines) { /* nothing is expected */ }
    })().catch(() => {});
    child.status.then(() => {
      up = false;
      if (master === child) master = null;
    });
  }

  return {
    name: host.name,
    socketName: host.socketName,
    get connected(): boolean {
      return up;
    },
    async dropped(): Promise<boolean> {
      const child = master;
      if (child === null) return true;
      return await abortable(child.status, AbortSignal.timeout(DROP_MS)) !== ABORTED;
    },
    connect(): Promise<void> {
      if (up) return Promise.resolve();
      connecting ??= start().finally(() => connecting = null);
      return connecting;
    },
    command(args, stdio): Deno.Command {
      const words = [host.tmux, ...args];
      const odd = words.find((word) => !REMOTE_WORD.test(word));
      if (odd !== undefined) {
        throw new TmuxError("internal_error", `not sent to a remote shell: ${JSON.stringify(odd)}`);
      }
      return new Deno.Command("ssh", {
        args: [
          ...common,
          ...["-o", "ControlMaster=no"],
          "--",
          host.destination,
          words.map((word) => `'${word}'`).join(" "),
        ],
        ...stdio,
      });
    },
    channel<T>(work: () => Promise<T>): Promise<T> {
      return slots.run(work);
    },
    failure(code: number, stderr: string): TmuxError | null {
      // ssh's own failures exit 255; a remote shell that finds no tmux, 127.
      if (code === 255) return sshFailure(host, stderr);
      if (code !== 127) return null;
      return new TmuxError(
        "tmux_unavailable",
        `tmux is not installed on host ${host.name}, or not on the PATH ssh gives it ` +
          "(declare the host with ?tmux=/path/to/tmux)",
      );
    },
    async close(): Promise<void> {
      const child = master;
      master = null;
      up = false;
      if (child === null) return;
      // End of input ends the master's session; the master then leaves once its channels have.
      await masterWriter?.close().catch(() => {});
      if (await abortable(child.status, AbortSignal.timeout(1000)) === ABORTED) {
        await terminate(child);
      }
    },
  };
}

/** Starts a host's master connection and waits until its session runs; throws why it did not. */
async function startMaster(
  host: RemoteHost,
  common: readonly string[],
): Promise<{ child: Deno.ChildProcess; lines: AsyncIterableIterator<Uint8Array> }> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("ssh", {
      args: [
        ...common,
        ...["-o", "ControlMaster=yes", "-o", "ControlPersist=no"],
        "--",
        host.destination,
        `echo ${READY}; exec cat`,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
      ? new TmuxError(
        "host_unreachable",
        "not permitted to run ssh: start the server with --allow-run=tmux,ssh",
      )
      : error instanceof Deno.errors.NotFound
      ? new TmuxError("host_unreachable", "ssh is not installed or not on PATH")
      : new TmuxError("host_unreachable", `could not start ssh: ${String(error)}`);
  }
  // Read as it comes (a pipe never fills), kept only in its head.
  const stderr = readCapped(child.stderr, MAX_STDERR_BYTES).then(({ bytes }) =>
    new TextDecoder().decode(bytes)
  );
  const lines = readLines(child.stdout);
  const signal = AbortSignal.timeout((CONNECT_SECONDS + 5) * 1000);
  const decoder = new TextDecoder();
  // A login shell may print something first (a noisy rc file): bounded, like any peer's text.
  for (let i = 0; i < 100; i++) {
    const next = await abortable(lines.next(), signal).catch(() => ABORTED);
    if (typeof next === "symbol" || next.done) break;
    if (decoder.decode(next.value).trim() === READY) return { child, lines };
  }
  await terminate(child);
  throw sshFailure(host, await stderr);
}

/** Slots for a host's short-lived channels: `max` at once, the rest wait their turn in line. */
class ChannelSlots {
  readonly #max: number;
  #open = 0;
  #queued: (() => void)[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  /** Runs `work` in a slot, once one is free (within the call's deadline). */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#open >= this.#max) {
      let turn!: () => void;
      const given = new Promise<void>((resolve) => this.#queued.push(turn = resolve));
      try {
        await withinCall(given, "a channel to the host");
      } catch (error) {
        // Given up in line: out of the queue, or, if the slot came meanwhile, passed on.
        const at = this.#queued.indexOf(turn);
        if (at >= 0) this.#queued.splice(at, 1);
        else given.then(() => this.#release());
        throw error;
      }
    } else this.#open++;
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  /** A slot passes straight to the next in line, or is given back. */
  #release(): void {
    const next = this.#queued.shift();
    if (next === undefined) this.#open--;
    else next();
  }
}
