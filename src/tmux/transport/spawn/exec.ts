/**
 * The only place that starts tmux processes. Arguments are always an argv array, never a shell string.
 *
 * @module
 */

import { errorFromStderr, TmuxError } from "../../errors.ts";
import {
  type CappedBytes,
  MAX_ANSWER_BYTES,
  MAX_STDERR_BYTES,
  readCapped,
  readLines,
  terminate,
} from "./lines.ts";
import { Pieces } from "../../byte_chunks.ts";
import { abortable, ABORTED } from "../../../util/mod.ts";
import { commandsOf, controlLine, THEN } from "./command_line.ts";
import { type RemoteLink, unreachableWhenDown } from "./remote_link.ts";
import { callDeadline, checkCallDeadline, deadlineError, withinCall } from "../../call_deadline.ts";

/** Which tmux server to talk to. */
export interface SocketAddress {
  /** The `-L` socket name; null means tmux's own default (or `$TMUX`). */
  readonly socketName: string | null;
  /** The directory tmux keeps its sockets under (`TMUX_TMPDIR`); null: tmux's own choice. */
  readonly tmpdir?: string | null;
  /** The link to the host whose tmux this is; null or absent: this machine's. */
  readonly remote?: RemoteLink | null;
}

/** The declared name of a remote socket's host; null for this machine's. */
export function hostName(socket: SocketAddress): string | null {
  return socket.remote?.name ?? null;
}

/** One key per tmux server: its host and socket name (pools, locks and caches use it). */
export function socketKey(socket: SocketAddress): string {
  return `${socket.remote?.name ?? ""}/${socket.socketName ?? ""}`;
}

/** The key of a pane in per-pane maps and locks: its server and its id. */
export function lockKey(socket: SocketAddress, paneId: string): string {
  return `${socketKey(socket)}\x00${paneId}`;
}

/** Options for {@linkcode runTmux}. */
export interface RunTmuxOptions {
  /** Bytes or text given to tmux on standard input (e.g. `load-buffer -`). */
  stdin?: string;
  /**
   * Only the start of each line is wanted (an option's name, say): a longer line comes cut to
   * this many bytes instead of refusing the answer.
   */
  maxLineBytes?: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The argv for one tmux invocation on a socket. `-u` makes tmux take the terminal as UTF-8 whatever
 * the locale: MCP clients start servers without LANG/LC_*, and tmux would then print our field
 * separator as `_` and escape non-ASCII text.
 */
export function tmuxArgs(socket: SocketAddress, args: readonly string[]): string[] {
  const escaped = args.map((arg) =>
    arg === THEN ? ";" : arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg
  );
  return socket.socketName === null
    ? ["-u", ...escaped]
    : ["-u", "-L", socket.socketName, ...escaped];
}

/** Options for {@linkcode tmuxCommand}. */
export interface TmuxCommandOptions {
  /**
   * The socket's path as tmux resolved it (see `socketPath`): the client is started with it
   * (`-S`) and an empty environment. A client sends tmux its whole environment while it
   * identifies, and a long-lived client of ours needs none of it. Ignored for a remote socket.
   */
  path?: string;
}

/**
 * The command that starts tmux for a socket: its argv, and `TMUX_TMPDIR` when the socket lives
 * under a directory of its own (clients start servers without the user's environment).
 */
export function tmuxCommand(
  socket: SocketAddress,
  args: readonly string[],
  stdio: Pick<Deno.CommandOptions, "stdin" | "stdout" | "stderr">,
  options: TmuxCommandOptions = {},
): Deno.Command {
  if (socket.remote) return socket.remote.command(tmuxArgs(socket, args), stdio);
  if (options.path !== undefined) {
    const local = { socketName: null };
    return new Deno.Command("tmux", {
      args: ["-S", options.path, ...tmuxArgs(local, args)],
      clearEnv: true,
      ...stdio,
    });
  }
  return new Deno.Command("tmux", {
    args: tmuxArgs(socket, args),
    ...stdio,
    ...(socket.tmpdir ? { env: { TMUX_TMPDIR: socket.tmpdir } } : {}),
  });
}

function spawnError(error: unknown): TmuxError {
  if (error instanceof Deno.errors.NotFound) {
    return new TmuxError("tmux_unavailable", "tmux is not installed or not on PATH");
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return new TmuxError(
      "tmux_unavailable",
      "not permitted to run tmux: start the server with --allow-run=tmux",
    );
  }
  return new TmuxError("tmux_unavailable", `could not start tmux: ${String(error)}`);
}

/**
 * Runs one tmux command (or a {@linkcode THEN}-chained list) in a new tmux process and returns its
 * standard output. Throws a {@linkcode TmuxError} classified from standard error when tmux fails.
 */
export async function spawnRun(
  socket: SocketAddress,
  args: readonly string[],
  options: RunTmuxOptions = {},
): Promise<string> {
  const { remote } = socket;
  // The call's deadline ends the tmux process (or the remote one's ssh) it would wait for.
  const signal = callDeadline();
  if (remote) {
    return await remote.channel(() => remoteRun(socket, remote, { ...options, args, signal }));
  }
  checkCallDeadline("a command");
  const command = tmuxCommand(socket, args, {
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  let output: BoundedOutput;
  let child: Deno.ChildProcess;
  try {
    child = command.spawn();
  } catch (error) {
    throw spawnError(error);
  }
  const stop = () => terminate(child);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(encoder.encode(options.stdin)).catch(() => {});
      await writer.close().catch(() => {});
    }
    output = await boundedOutput(child, options.maxLineBytes);
  } catch (error) {
    throw error instanceof TmuxError ? error : spawnError(error);
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  if (signal?.aborted) throw deadlineError(signal, "a command");
  if (!output.success) throw errorFromStderr(output.stderr, args);
  return output.stdout;
}

/** A child's exit and what it wrote, each within its bound. */
interface BoundedOutput {
  code: number;
  success: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Waits for a child and reads its output: at most {@linkcode MAX_ANSWER_BYTES} of standard
 * output (more is refused as `memory_limited`, never cut) and the head of standard error; with
 * `maxLineBytes`, each line of the output cut to that.
 */
async function boundedOutput(
  child: Deno.ChildProcess,
  maxLineBytes?: number,
): Promise<BoundedOutput> {
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    maxLineBytes === undefined
      ? readCapped(child.stdout, MAX_ANSWER_BYTES)
      : readLineStarts(child.stdout, maxLineBytes),
    readCapped(child.stderr, MAX_STDERR_BYTES),
  ]);
  if (stdout.dropped > 0) {
    throw new TmuxError(
      "memory_limited",
      `tmux answered with ${stdout.bytes.length + stdout.dropped} bytes, more than the ` +
        `${MAX_ANSWER_BYTES / 1024 / 1024} MiB one answer may hold: refused, not cut`,
    );
  }
  return {
    code: status.code,
    success: status.success,
    stdout: decoder.decode(stdout.bytes),
    stderr: decoder.decode(stderr.bytes),
  };
}

/** The first `maxLineBytes` of each line, within {@linkcode MAX_ANSWER_BYTES} in all. */
async function readLineStarts(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes: number,
): Promise<CappedBytes> {
  const starts = new Pieces();
  let dropped = 0;
  try {
    for await (const line of readLines(stream, { maxLineBytes })) {
      if (dropped > 0 || starts.length + line.length + 1 > MAX_ANSWER_BYTES) {
        dropped += line.length + 1;
        continue;
      }
      starts.push(line);
      starts.push(NEWLINE);
    }
    return { bytes: starts.join(), dropped };
  } finally {
    starts.release();
  }
}

const NEWLINE = new Uint8Array([0x0a]);

/** A long-lived tmux child process (e.g. `wait-for`) that the caller owns and must settle. */
export interface TmuxChild {
  /** Resolves when the child exits: true for exit status 0. */
  readonly done: Promise<{ success: boolean; stderr: string }>;
  /** Kills the child (if still running) and waits until it is reaped. */
  kill(): Promise<void>;
}

/** Starts a tmux child process without waiting for it. */
export function spawnTmux(socket: SocketAddress, args: readonly string[]): TmuxChild {
  if (socket.remote) {
    // The commands go on the remote tmux's input, after the link is up.
    const killer = new AbortController();
    const done = remoteRun(socket, socket.remote, { args, signal: killer.signal }).then(
      () => ({ success: true, stderr: "" }),
      (error) => ({ success: false, stderr: error instanceof Error ? error.message : "" }),
    );
    return {
      done,
      async kill(): Promise<void> {
        killer.abort();
        await done;
      },
    };
  }
  let child: Deno.ChildProcess;
  try {
    child = tmuxCommand(socket, args, { stdin: "null", stdout: "null", stderr: "piped" }).spawn();
  } catch (error) {
    throw spawnError(error);
  }
  let exited = false;
  const done = Promise.all([child.status, readCapped(child.stderr, MAX_STDERR_BYTES)]).then(
    ([status, stderr]) => {
      exited = true;
      return { success: status.success, stderr: decoder.decode(stderr.bytes) };
    },
  );
  return {
    done,
    async kill(): Promise<void> {
      if (!exited) await terminate(child);
      await done;
    },
  };
}

/** The installed tmux's version line (`tmux -V`); fails like any spawn when tmux is missing. */
export async function tmuxVersion(): Promise<string> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("tmux", { args: ["-V"], stdout: "piped", stderr: "null" })
      .output();
  } catch (error) {
    throw spawnError(error);
  }
  return decoder.decode(output.stdout).trim();
}

/** The most text one `set-buffer` carries when a remote buffer is filled piece by piece. */
const BUFFER_PIECE = 16 * 1024;

/** `text` in pieces of at most {@linkcode BUFFER_PIECE} code units, no surrogate pair split. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  do {
    let end = Math.min(text.length, at + BUFFER_PIECE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(text.slice(at, end));
    at = end;
  } while (at < text.length);
  return out;
}

/**
 * A command list as a remote tmux gets it: on its input, where no other input can follow, so a
 * `load-buffer -` of `stdin` becomes `set-buffer` commands carrying the text.
 */
function remoteCommands(args: readonly string[], stdin: string | undefined): string[] {
  const out: string[] = [];
  for (const command of commandsOf(args)) {
    if (out.length > 0) out.push(THEN);
    if (command[0] !== "load-buffer" || command.at(-1) !== "-" || stdin === undefined) {
      out.push(...command);
      continue;
    }
    const buffer = command[command.indexOf("-b") + 1];
    pieces(stdin).forEach((piece, i) => {
      if (i > 0) out.push(THEN);
      out.push("set-buffer", ...(i > 0 ? ["-a"] : []), "-b", buffer, "--", piece);
    });
  }
  return out;
}

/** Commands that start a tmux server when none runs (tmux's own CMD_STARTSERVER). */
const STARTS_SERVER = new Set(["new-session", "start-server"]);

/** What `source-file -` puts before a command's error: its place in the input. */
const SOURCE_PLACE = /^-:\d+: /gm;

/**
 * Runs a command list on a remote host's tmux: `tmux source-file -` over the host's link, the
 * commands on its input in tmux's own language. The argv is fixed: nothing of the commands
 * reaches ssh or the remote shell. `signal` ends it (its ssh process) early.
 */
async function remoteRun(
  socket: SocketAddress,
  link: RemoteLink,
  request: RunTmuxOptions & { args: readonly string[]; signal?: AbortSignal },
): Promise<string> {
  await (request.signal ? withinCall(link.connect(), "the host's connection") : link.connect())
    .catch((error) => {
      throw unreachableWhenDown(link, error);
    });
  if (request.signal?.aborted) throw deadlineError(request.signal, "a command");
  const commands = remoteCommands(request.args, request.stdin);
  const script = `${controlLine(commands).line}\n`;
  // As a local tmux would: only a command that makes a session starts a server.
  const start = commandsOf(commands).some(([name]) => STARTS_SERVER.has(name))
    ? ["start-server", THEN]
    : [];
  const child = tmuxCommand(socket, [...start, "source-file", "-"], {
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stopped = Promise.withResolvers<void>();
  const stop = () => terminate(child).then(stopped.resolve);
  request.signal?.addEventListener("abort", stop, { once: true });
  try {
    const writer = child.stdin.getWriter();
    await writer.write(encoder.encode(script)).catch(() => {});
    await writer.close().catch(() => {});
    // ssh hands its pipes to its connection's master, which holds them open while the host
    // stalls: once the deadline has ended the client, its output is not waited for.
    const reading = boundedOutput(child, request.maxLineBytes);
    reading.catch(() => {});
    const output = request.signal ? await abortable(reading, request.signal) : await reading;
    if (output === ABORTED) {
      await stopped.promise;
      throw deadlineError(request.signal!, "a command");
    }
    const failed = link.failure(output.code, output.stderr);
    if (failed !== null) throw failed;
    if (!output.success) {
      throw errorFromStderr(output.stderr.replace(SOURCE_PLACE, ""), request.args);
    }
    return output.stdout;
  } finally {
    request.signal?.removeEventListener("abort", stop);
  }
}
