/**
 * The one entry point for running tmux commands: over the socket's control client when the
 * command allows it, else (and whenever that client is unavailable) in a new tmux process.
 *
 * @module
 */

import { CONTROL_EXITED, controlSafe, runControl } from "./control.ts";
import { TmuxError } from "./errors.ts";
import { type RunTmuxOptions, spawnRun, type TmuxSocket } from "./exec.ts";

/** Runs a tmux command (or a THEN-chained list) and returns its standard output. */
export async function runTmux(
  socket: TmuxSocket,
  args: readonly string[],
  options: RunTmuxOptions = {},
): Promise<string> {
  if ((socket.control ?? true) && options.stdin === undefined && controlSafe(args)) {
    try {
      const output = await runControl(socket, args);
      if (output !== null) return output;
    } catch (error) {
      // A control client that went away mid-command (its session was killed, say): spawn.
      if (!(error instanceof TmuxError && error.message === CONTROL_EXITED)) throw error;
    }
  }
  return await spawnRun(socket, args, options);
}
