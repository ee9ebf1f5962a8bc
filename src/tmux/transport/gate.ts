/**
 * Starting and ending this process's control clients, one at a time per tmux server.
 *
 * tmux 3.2 to 3.6b crash (SIGSEGV: every session is lost) when a control-mode notification is
 * written to a control client that has not finished identifying itself (tmux issue #4980: a
 * client that detaches sends `%client-detached` to every control client, one that attaches
 * `%client-session-changed`), and when a control client goes away before it has finished
 * identifying (issue #5004); both fixed in 3.7. So, for the control clients of one tmux server:
 * - a client counts as started once it has written its first line: tmux runs the command it was
 *   started with (attach-session) only after identification;
 * - a client is ended only once it has started;
 * - starts and ends never overlap: they pass through one queue;
 * - after an end, one tmux command is answered before the queue moves on, so tmux has sent the
 *   notifications the leaving client caused before anything of ours connects.
 *
 * Clients of other programs, and clients tmux detaches itself (their session was killed), are
 * beyond this; the defence there is connecting rarely (see control.ts and watch.ts).
 *
 * @module
 */

import { abortable, ABORTED } from "../../async.ts";
import { acquire, createKeyedLock, type KeyedLock } from "../lock.ts";
import { type SocketAddress, socketKey, spawnRun, tmuxCommand } from "./exec.ts";
import { readLines, terminate } from "./lines.ts";

/** The queue of each tmux server (by socket name) that starts and ends go through. */
export type ClientGates = KeyedLock;

/** Empty queues. */
export function createClientGates(): ClientGates {
  return createKeyedLock();
}

/** A control client that has started: its first line has been read. */
export interface StartedClient {
  /** The `tmux -C` process. */
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** The first line it wrote (a copy). */
  first: Uint8Array;
  /** Its later lines (see `readLines`: each valid until the next is asked for). */
  lines: AsyncGenerator<Uint8Array, void, undefined>;
}

/** Every line a started client wrote: its first, then the rest as they come. */
export async function* allLines(
  started: StartedClient,
): AsyncGenerator<Uint8Array, void, undefined> {
  yield started.first;
  yield* started.lines;
}

/** How long a new control client may take to write its first line. */
const START_MS = 5000;

/** How long an ended client may take to exit after its input closed, before SIGTERM. */
const EXIT_MS = 1000;

async function throughGate<T>(
  gates: ClientGates,
  socket: SocketAddress,
  work: () => Promise<T>,
): Promise<T> {
  const release = (await acquire(gates, socketKey(socket)))!;
  try {
    return await work();
  } finally {
    release();
  }
}

/**
 * Starts `tmux -C <args>` and waits until it has written its first line; null when it exits (or
 * cannot be spawned) first. A client that never writes within {@linkcode START_MS} is ended.
 */
export function startClient(
  gates: ClientGates,
  socket: SocketAddress,
  args: readonly string[],
): Promise<StartedClient | null> {
  return throughGate(gates, socket, async () => {
    let child: Deno.ChildProcess;
    try {
      await socket.remote?.connect();
      child = tmuxCommand(socket, ["-C", ...args], {
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
    } catch {
      return null;
    }
    const writer = child.stdin.getWriter();
    const lines = readLines(child.stdout);
    const first = await abortable(lines.next(), AbortSignal.timeout(START_MS)).catch(() => null);
    if (first === null || first === ABORTED || first.done) {
      await writer.close().catch(() => {});
      await terminate(child);
      return null;
    }
    return { child, writer, first: first.value.slice(), lines };
  });
}

/**
 * Ends a started control client: its input closed (tmux -C exits at end of input), SIGTERM if it
 * is still there a moment later, reaped; then, unless `last` (the process is stopping and nothing
 * connects after), one tmux command answered before the next start.
 */
export function endClient(
  gates: ClientGates,
  socket: SocketAddress,
  client: { child: Deno.ChildProcess; writer: WritableStreamDefaultWriter<Uint8Array> },
  options: { last?: boolean } = {},
): Promise<void> {
  return throughGate(gates, socket, async () => {
    await client.writer.close().catch(() => {});
    if (await abortable(client.child.status, AbortSignal.timeout(EXIT_MS)) === ABORTED) {
      await terminate(client.child);
    }
    if (!options.last) await spawnRun(socket, ["display-message", "-p", ""]).catch(() => {});
  });
}
