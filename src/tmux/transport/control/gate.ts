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
 *   notifications the leaving client caused before anything of ours connects;
 * - our own commands that make tmux notify control clients (see {@linkcode notifies}) wait while a
 *   start or an end is under way, and a start or an end waits for those running to finish.
 *
 * Clients of other programs, and clients tmux detaches itself (their session was killed), are
 * beyond this; the defence there is connecting rarely (see control.ts and watch.ts).
 *
 * @module
 */

import { abortable, ABORTED } from "../../../util/mod.ts";
import { acquire, createKeyedLock, type KeyedLock } from "../../lock.ts";
import {
  commandsOf,
  QUERIES,
  readLines,
  type SocketAddress,
  socketKey,
  socketPath,
  type SocketPaths,
  spawnRun,
  terminate,
  tmuxCommand,
} from "../spawn/mod.ts";
import {
  createOrphanGuards,
  guard,
  markArgs,
  type OrphanGuards,
  runWhenGone,
} from "./orphan_guard.ts";
import { checkCallDeadline, withCallDeadline, withinCall } from "../../call_deadline.ts";

/** Per tmux server (by socket name): the queue starts and ends go through, the notifying
 * commands under way, and the guard that ends our clients should this process die. */
export interface ClientGates {
  /** The queue of starts and ends, by socket. */
  readonly starts: KeyedLock;
  /** The notifying commands under way, by socket (see {@linkcode whileNoClientConnects}). */
  readonly notifying: Map<string, Set<Promise<unknown>>>;
  /** Every client started here carries their mark (see orphan_guard.ts). */
  readonly orphans: OrphanGuards;
  /** The paths of the local sockets clients were started on. */
  readonly paths: SocketPaths;
}

/** Empty queues, no guard yet. */
export function createClientGates(): ClientGates {
  return {
    starts: createKeyedLock(),
    notifying: new Map(),
    orphans: createOrphanGuards(),
    paths: new Map(),
  };
}

/**
 * Whether a command (one argv of a THEN-chained list) can make tmux notify control clients. A
 * user option (`@name`) is stored and nothing more; other options can rename or resize things.
 */
export function notifies(command: readonly string[]): boolean {
  // Queries change nothing, so tmux has nothing to tell (control-notify.c: sessions, windows,
  // panes, layouts, modes, clients and paste buffers changing); wait-for neither.
  if (QUERIES.has(command[0]) || command[0] === "wait-for") return false;
  if (command[0] === "set-option") return !command.some((arg) => arg.startsWith("@"));
  return true;
}

/**
 * Runs `work` (commands that make tmux notify control clients) never while a control client of
 * ours is starting or ending on that tmux server; starts and ends wait for it in turn.
 */
export async function whileNoClientConnects<T>(
  gates: ClientGates,
  socket: SocketAddress,
  work: () => Promise<T>,
): Promise<T> {
  const key = socketKey(socket);
  // Whatever start or end is queued now goes first; one queued meanwhile goes first too.
  for (let queued = gates.starts.get(key); queued; queued = gates.starts.get(key)) {
    await withinCall(queued, "its turn");
  }
  checkCallDeadline("its turn");
  const running = gates.notifying.get(key) ?? new Set();
  gates.notifying.set(key, running);
  const job = work();
  running.add(job);
  try {
    return await job;
  } finally {
    running.delete(job);
    if (running.size === 0) gates.notifying.delete(key);
  }
}

/** A control client that has started: its first line has been read. */
export interface StartedClient {
  /** The `tmux -C` process. */
  child: Deno.ChildProcess;
  /** Its standard input. */
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** The first line it wrote (a copy). */
  first: Uint8Array;
  /** Its later lines (see `readLines`: each valid until the next is asked for). */
  lines: AsyncGenerator<Uint8Array, void, undefined>;
  /** How many of its lines were cut (longer than `readLines` keeps), so far. */
  cut: { lines: number };
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

/**
 * How long a start or an end may take in all, whatever call asked for it: the queue goes on for
 * every later call, and an end's last command (see {@linkcode endClient}) must not be cut short by
 * the deadline of the call that happened to start it (or of one long over: an idle watcher's end).
 */
const GATE_WORK_MS = START_MS + EXIT_MS + 4000;

async function throughGate<T>(
  gates: ClientGates,
  socket: SocketAddress,
  work: () => Promise<T>,
): Promise<T> {
  const key = socketKey(socket);
  const release = (await acquire(gates.starts, key))!;
  try {
    // Notifying commands that started before this one was queued finish first.
    for (let running = gates.notifying.get(key); running; running = gates.notifying.get(key)) {
      await Promise.allSettled([...running]);
    }
    return await withCallDeadline(AbortSignal.timeout(GATE_WORK_MS), work);
  } finally {
    release();
  }
}

/**
 * Starts `tmux -C <args>` (marked ours, its tmux server guarded: see orphan_guard.ts; on this
 * machine by the socket's path, without our environment: see socket_path.ts) and waits
 * until it has written its first line; null when it exits (or cannot be spawned) first. A client
 * that never writes within {@linkcode START_MS} is ended.
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
      const path = socket.remote ? undefined : await socketPath(gates.paths, socket);
      if (path === null) return null;
      guard(gates.orphans, socket, { path });
      child = tmuxCommand(socket, [...markArgs(gates.orphans), "-C", ...args], {
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }, { path }).spawn();
    } catch {
      return null;
    }
    const writer = child.stdin.getWriter();
    const cut = { lines: 0 };
    const lines = readLines(child.stdout, { onCut: () => cut.lines++ });
    const first = await abortable(lines.next(), AbortSignal.timeout(START_MS)).catch(() => null);
    if (first === null || first === ABORTED || first.done) {
      await writer.close().catch(() => {});
      await terminate(child);
      return null;
    }
    return { child, writer, first: first.value.slice(), lines, cut };
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

/**
 * Runs `work` (the commands `args`) through {@linkcode whileNoClientConnects} when any of them
 * notifies and the socket's owner starts control clients at all.
 */
export function gated<T>(
  socket: SocketAddress & {
    readonly controls: { readonly gates: ClientGates } | null;
    readonly watchers: { readonly gates: ClientGates } | null;
  },
  args: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  const gates = socket.controls?.gates ?? socket.watchers?.gates;
  if (gates === undefined || !commandsOf(args).some(notifies)) return work();
  return whileNoClientConnects(gates, socket, work);
}

/**
 * Has the guard of a local tmux server (started first if none runs: see orphan_guard.ts) run
 * `entry.commands` when this process ends; false when none can (a remote host's tmux, no socket
 * path).
 */
export async function runWhenWeEnd(
  gates: ClientGates,
  socket: SocketAddress,
  entry: { key: string; commands: string },
): Promise<boolean> {
  if (socket.remote) return false;
  if (!gates.orphans.running.has(socketKey(socket))) {
    const path = await socketPath(gates.paths, socket);
    if (path === null) return false;
    guard(gates.orphans, socket, { path });
  }
  return await runWhenGone(gates.orphans, socket, entry);
}
