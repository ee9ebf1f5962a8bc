/**
 * What ends this process's control clients when the process dies without ending them (SIGKILL,
 * the OOM killer). A control client's input ends with us, but tmux frees it only once the output
 * queued for it is written, and output to a dead reader never is (every release, 3.2a to master):
 * the client stayed attached for good, and while it did a pane whose output it had not taken
 * was no longer read, its program stopped on a full terminal.
 *
 * So each local tmux server we attach to gets one guard: a tmux client running `load-buffer -`
 * (reading its standard input, a pipe from this process), then `run-shell`. The pipe ends only
 * when this process does, however it ends; tmux then runs the shell, which ends every process
 * whose arguments carry this process's mark (`-T <mark>`, a terminal feature tmux does not know
 * and ignores): our control clients. tmux drops a client whose process went at once.
 *
 * @module
 */

import { THEN } from "./command_line.ts";
import { type SocketAddress, socketKey, tmuxCommand, type TmuxCommandOptions } from "./exec.ts";

/** The guards of one owner (see `TmuxClient`), and the mark its control clients carry. */
export interface OrphanGuards {
  /** In every control client's arguments (see {@linkcode markArgs}); unique to this process. */
  readonly mark: string;
  /** The running guard of each local tmux server, by socket key. */
  readonly running: Map<string, Deno.ChildProcess>;
}

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
    const args = ["load-buffer", "-", THEN, "run-shell", "-b", cleanup(guards.mark)];
    const stdio = { stdin: "piped", stdout: "null", stderr: "null" } as const;
    child = tmuxCommand(socket, args, stdio, options).spawn();
  } catch {
    return; // No tmux to run: nothing can attach either.
  }
  guards.running.set(key, child);
  child.status.then(() => {
    if (guards.running.get(key) === child) guards.running.delete(key);
  });
}

/**
 * Ends every guard (at shutdown, once our control clients have ended): each runs its shell, which
 * finds nothing left to end.
 */
export async function closeOrphanGuards(guards: OrphanGuards): Promise<void> {
  const all = [...guards.running.values()];
  guards.running.clear();
  await Promise.all(all.map(async (child) => {
    await child.stdin.close().catch(() => {});
    await child.status;
  }));
}
