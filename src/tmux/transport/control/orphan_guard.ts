/**
 * What ends this process's control clients when the process dies without ending them (SIGKILL,
 * the OOM killer). A control client's input ends with us, but tmux frees it only once the output
 * queued for it is written, and output to a dead reader never is (every release, 3.2a to master):
 * the client stayed attached for good, and while it did a pane whose output it had not taken
 * was no longer read, its program stopped on a full terminal.
 *
 * So each local tmux server we attach to gets one guard: a tmux client running `source-file -`
 * (reading its standard input, a pipe from this process), then `run-shell`. The pipe ends only
 * when this process does, however it ends; tmux then runs the commands we wrote into the pipe
 * meanwhile (see {@linkcode runWhenGone}: what we changed in a person's panes is put back), then
 * the shell, which ends every process whose arguments carry this process's mark (`-T <mark>`, a
 * terminal feature tmux does not know and ignores): our control clients. tmux drops a client
 * whose process went at once.
 *
 * @module
 */

import {
  type SocketAddress,
  socketKey,
  THEN,
  tmuxCommand,
  type TmuxCommandOptions,
} from "../spawn/mod.ts";

/** The guards of one owner (see `TmuxClient`), and the mark its control clients carry. */
export interface OrphanGuards {
  /** In every control client's arguments (see {@linkcode markArgs}); unique to this process. */
  readonly mark: string;
  /** The running guard of each local tmux server, by socket key. */
  readonly running: Map<string, Guard>;
}

/** One tmux server's guard. */
export interface Guard {
  /** The guard's tmux client. */
  readonly child: Deno.ChildProcess;
  /** Its standard input: what tmux runs once we are gone. */
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  /** The keys of what was written (see {@linkcode runWhenGone}). */
  readonly written: Set<string>;
}

/** At most this many entries a guard, each one line of at most {@linkcode ENTRY_MAX} bytes. */
const ENTRIES_MAX = 10_000;
const ENTRY_MAX = 1024;

/** No guard yet, and a fresh mark. */
export function createOrphanGuards(): OrphanGuards {
  return {
    mark: `tmux-mcp-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`,
    running: new Map(),
  };
}

/** The arguments that mark a control client as ours, placed before `-C`. */
export function markArgs(guards: OrphanGuards): string[] {
  return ["-T", guards.mark];
}

/**
 * The shell `run-shell` runs once we are gone: it ends each process with our mark in its
 * arguments. One line and no `#` (run-shell expands formats), `'`, or `!`, so that every shell
 * tmux may run it with (from 3.4 the `default-shell`: fish, tcsh, nu...) hands it to `/bin/sh`.
 * The pattern is written in two quoted pieces so the shell's own arguments do not match it.
 */
function cleanup(mark: string): string {
  const [head, tail] = [mark.slice(0, 4), mark.slice(4)];
  const match = `*" -T ${head}"${tail}" "*`;
  return `exec /bin/sh -c 'ps -A -o pid= -o args= | while read -r p a; do ` +
    `case "$a" in ${match}) kill "$p";; esac; done'`;
}

/**
 * Starts the guard of a local tmux server unless it runs already (it ends by itself with the tmux
 * server). A remote host's servers have none: a guard there would hold one of the few channels
 * its connection may open.
 */
export function guard(
  guards: OrphanGuards,
  socket: SocketAddress,
  options: TmuxCommandOptions = {},
): void {
  const key = socketKey(socket);
  if (socket.remote || guards.running.has(key)) return;
  let child: Deno.ChildProcess;
  try {
    const args = ["source-file", "-", THEN, "run-shell", "-b", cleanup(guards.mark)];
    const stdio = { stdin: "piped", stdout: "null", stderr: "null" } as const;
    child = tmuxCommand(socket, args, stdio, options).spawn();
  } catch {
    return; // No tmux to run: nothing can attach either.
  }
  const running = { child, writer: child.stdin.getWriter(), written: new Set<string>() };
  guards.running.set(key, running);
  child.status.then(() => {
    if (guards.running.get(key) === running) guards.running.delete(key);
  });
}

/**
 * Has the guard of a local tmux server run `commands` (one line of tmux's command language) once
 * we are gone, however we end; each `key` once. Such a line must still be right to run then: it
 * checks that what it undoes is still ours. False when no guard holds it (none runs for that
 * server, or it holds {@linkcode ENTRIES_MAX} already): the caller then changes nothing.
 */
export async function runWhenGone(
  guards: OrphanGuards,
  socket: SocketAddress,
  entry: { key: string; commands: string },
): Promise<boolean> {
  const running = guards.running.get(socketKey(socket));
  if (running === undefined) return false;
  if (running.written.has(entry.key)) return true;
  const line = new TextEncoder().encode(`${entry.commands}\n`);
  if (running.written.size >= ENTRIES_MAX || line.length > ENTRY_MAX) return false;
  if (entry.commands.includes("\n")) return false;
  running.written.add(entry.key);
  try {
    await running.writer.write(line);
    return true;
  } catch {
    return false; // The guard ended (its tmux server did).
  }
}

/**
 * Ends every guard (at shutdown, once our control clients have ended): each runs its shell, which
 * finds nothing left to end.
 */
export async function closeOrphanGuards(guards: OrphanGuards): Promise<void> {
  const all = [...guards.running.values()];
  guards.running.clear();
  await Promise.all(all.map(async ({ child, writer }) => {
    await writer.close().catch(() => {});
    await child.status;
  }));
}
