/**
 * The one entry point for running tmux commands: over the socket's control client when the
 * command allows it, else (and whenever that client is unavailable) in a new tmux process.
 *
 * @module
 */

import { CONTROL_EXITED, CONTROL_FORGED, type ControlledSocket, runControl } from "./control.ts";
import {
  chained,
  commandsOf,
  controlSafe,
  QUERIES,
  type RunTmuxOptions,
  spawnRun,
} from "../spawn/mod.ts";
import { TmuxError } from "../../errors.ts";
import { gated } from "./gate.ts";

/** The query commands (see {@linkcode QUERIES}) of a THEN-chained list, chained again. */
export function queriesOf(args: readonly string[]): string[] {
  const queries = commandsOf(args).filter((command) => QUERIES.has(command[0]));
  return chained(queries);
}

/** Runs a tmux command (or a THEN-chained list) and returns its standard output. */
export async function runTmux(
  socket: ControlledSocket,
  args: readonly string[],
  options: RunTmuxOptions = {},
): Promise<string> {
  if (options.stdin === undefined && controlSafe(args)) {
    try {
      const output = await runControl(socket, args, options);
      if (output !== null) return output;
    } catch (error) {
      if (!(error instanceof TmuxError)) throw error;
      // The line ran but pane content forged its output: ask the queries again.
      if (error.message === CONTROL_FORGED) {
        const queries = queriesOf(args);
        return queries.length === 0 ? "" : await spawnRun(socket, queries, options);
      }
      if (error.message !== CONTROL_EXITED) throw error;
      // The control client went away mid-command (its session was killed, say). A line of
      // queries is asked again; anything else may have run already, and running it twice could
      // type a command twice.
      if (queriesOf(args).length !== args.length) {
        throw new TmuxError(
          "tmux_unavailable",
          "the connection to tmux closed while the command ran; it may or may not have run",
        );
      }
    }
  }
  return await gated(socket, args, () => spawnRun(socket, args, options));
}
