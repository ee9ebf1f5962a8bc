/**
 * Runs that may still start (`started: null`: the line was typed, the shell had not run it when
 * the call gave up, and it could not be withdrawn), and how the pane settles them for any server
 * process: while such a run's record is kept, the pane option {@linkcode ENDED_OPTION} names the
 * last run whose trailer ran there (each trailer writes it, in its one tmux command, only while it
 * is set). The record keeps the name it saw; once the pane's differs, a later line was read and
 * run, and the shell reads its input in order: the pending line was read before it (and ran: its
 * status is kept) or never will be.
 *
 * @module
 */

import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import { optionNames } from "../../objects/options.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { recordOptionNonce, type RunRecord } from "./record.ts";
import { callNames, ENDED_OPTION, markNonce, RUNNING_OPTION } from "./shell.ts";

/**
 * The tmux commands (ending with a separator) that start naming the pane's ended runs if nothing
 * does yet, for a run going pending, and the `after` its record keeps: the name the option has
 * (`ended`, read in the same tmux command as the run's mark) or, set now, the run's own.
 */
export function pendingMark(
  paneId: string,
  options: { channel: string; ended: string },
): { commands: string[]; after: string } {
  const { channel, ended } = options;
  return {
    commands: [
      ...["if-shell", "-F", "-t", paneId, `#{?#{${ENDED_OPTION}},,1}`],
      `set-option -p -t ${paneId} ${ENDED_OPTION} ${channel}`,
      THEN,
    ],
    after: ended === "" ? channel : ended,
  };
}

/**
 * What {@linkcode superseded} reads of the pane, in one tmux command: {@linkcode RUNNING_OPTION},
 * {@linkcode ENDED_OPTION} and `pane_path`.
 */
export type PendingState = Readonly<Record<string, string>>;

/**
 * Whether a later line than a pending run's was read and run in its pane: a later run ended (the
 * pane names another ended run than the record saw, and not this one), or holds the pane and has
 * started (the pane's path is its start marker). False for a run that is not pending.
 */
export function superseded(record: RunRecord, state: PendingState, channel: string): boolean {
  if (record.pending === undefined) return false;
  const ended = state[ENDED_OPTION];
  if (ended !== "" && ended !== record.pending.after && ended !== channel) return true;
  const holder = markNonce(state[RUNNING_OPTION]);
  if (holder === null) return false;
  const names = callNames(holder);
  return names.channel !== channel && state.pane_path === names.startMarker;
}

/**
 * Whether a pane's options (their names) hold {@linkcode ENDED_OPTION} and no run record: nothing
 * pending is left to settle.
 */
export function endedUnused(options: Iterable<string>): boolean {
  let ended = false;
  for (const name of options) {
    if (recordOptionNonce(name) !== null) return false;
    if (name === ENDED_OPTION) ended = true;
  }
  return ended;
}

/**
 * Removes {@linkcode ENDED_OPTION} from a pane once no record is left there (a pending run was
 * collected). A run going pending meanwhile keeps the name it saw, now gone: it is then settled
 * only when seen started, never wrongly.
 */
export async function dropUnusedEnded(socket: TmuxSocket, paneId: string): Promise<void> {
  if (!endedUnused(await optionNames(socket, ["-p", "-t", paneId]))) return;
  await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, ENDED_OPTION]);
}
