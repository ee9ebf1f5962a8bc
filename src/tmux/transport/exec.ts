/**
 * The only place that starts tmux processes. Arguments are always an argv array, never a shell string.
 *
 * @module
 */

import { errorFromStderr, TmuxError } from "../errors.ts";
import { terminate } from "./lines.ts";
import { readAllText } from "../../streams.ts";

/** Which tmux server to talk to. */
export interface SocketAddress {
  /** The `-L` socket name; null means tmux's own default (or `$TMUX`). */
  readonly socketName: string | null;
  /** The directory tmux keeps its sockets under (`TMUX_TMPDIR`); null: tmux's own choice. */
  readonly tmpdir?: string | null;
}

/** Options for {@linkcode runTmux}. */
export interface RunTmuxOptions {
  /** Bytes or text given to tmux on standard input (e.g. `load-buffer -`). */
  stdin?: string;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Separates commands in one invocation. tmux reads any argument that ends with ";" as a command
 * separator, so every other argument ending with ";" is escaped on its way out, and only this
 * token (NUL cannot come from outside: no argv may hold it) becomes a real separator.
 */
export const THEN = "\0;";

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

/**
 * The command that starts tmux for a socket: its argv, and `TMUX_TMPDIR` when the socket lives
 * under a directory of its own (clients start servers without the user's environment).
 */
export function tmuxCommand(
  socket: SocketAddress,
  args: readonly string[],
  stdio: Pick<Deno.CommandOptions, "stdin" | "stdout" | "stderr">,
): Deno.Command {
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
  const command = tmuxCommand(socket, args, {
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  let output: Deno.CommandOutput;
  try {
    if (options.stdin === undefined) {
      output = await command.output();
    } else {
      const child = command.spawn();
      const writer = child.stdin.getWriter();
      await writer.write(encoder.encode(options.stdin));
      await writer.close();
      output = await child.output();
    }
  } catch (error) {
    throw spawnError(error);
  }
  if (!output.success) {
    throw errorFromStderr(decoder.decode(output.stderr), args);
  }
  return decoder.decode(output.stdout);
}

/** A long-lived tmux child process (e.g. `wait-for`) that the caller owns and must settle. */
export interface TmuxChild {
  /** Resolves when the child exits: true for exit status 0. */
  readonly done: Promise<{ success: boolean; stderr: string }>;
  /** Kills the child (if still running) and waits until it is reaped. */
  kill(): Promise<void>;
}

/** Starts a tmux child process without waiting for it. */
export function spawnTmux(socket: SocketAddress, args: readonly string[]): TmuxChild {
  let child: Deno.ChildProcess;
  try {
    child = tmuxCommand(socket, args, { stdin: "null", stdout: "null", stderr: "piped" }).spawn();
  } catch (error) {
    throw spawnError(error);
  }
  let exited = false;
  const done = Promise.all([child.status, readAllText(child.stderr)]).then(([status, stderr]) => {
    exited = true;
    return { success: status.success, stderr };
  });
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
