/**
 * The buffer a shell's first call fetches the run function from (see run_function.ts) lives only
 * while such calls are in flight: a buffer left in the user's tmux would be seen by its buffer
 * list, and pasted. Concurrent first calls of one server share it; the last to end deletes it.
 * A call whose shell reads its line only after that finds nothing, and is typed the function
 * whole (see the loader).
 *
 * @module
 */

import { socketKey } from "../transport/exec.ts";
import { runTmux } from "../transport/command.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import type { Runner } from "./state.ts";

/** Counts a first call that sets the buffer and types the fetching line. */
export function fetchBegins(runner: Runner, socket: TmuxSocket): void {
  const key = socketKey(socket);
  runner.fetching.set(key, (runner.fetching.get(key) ?? 0) + 1);
}

/** A first call ended: the last one in flight on its server deletes the buffer. */
export async function fetchEnds(
  runner: Runner,
  socket: TmuxSocket,
  buffer: string,
): Promise<void> {
  const key = socketKey(socket);
  const left = (runner.fetching.get(key) ?? 1) - 1;
  if (left > 0) {
    runner.fetching.set(key, left);
    return;
  }
  runner.fetching.delete(key);
  await runTmux(socket, ["delete-buffer", "-b", buffer]).catch(() => {});
}
