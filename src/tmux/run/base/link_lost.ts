/**
 * A remote run whose link (ssh) dropped under it. Its record was written in the same tmux command
 * that typed its line, so whatever moment the link went, the run can be collected later: the
 * result says so (`transport_lost`, its run_id), and nothing is typed again.
 *
 * @module
 */

import { TmuxError } from "../../errors.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import type { RunResult } from "./types.ts";

/** Whether a failure on a remote socket means its link dropped (not tmux, not the pane). */
export async function linkDropped(socket: TmuxSocket, error: unknown): Promise<boolean> {
  if (socket.remote === null || !(error instanceof TmuxError)) return false;
  if (error.code === "host_unreachable") return true;
  return error.code === "tmux_unavailable" && await socket.remote.dropped();
}

/** Why a remote run has no status: its link went. */
function lostReason(socket: TmuxSocket, runId: string): string {
  const host = socket.remote?.name ?? "";
  return `the link to host ${host} was lost during the call: the command MAY STILL BE ` +
    `RUNNING (or, if the link went as it was typed, may not have started); ` +
    `wait_for_command run_id=${runId} collects it once ${host} can be reached`;
}

/** What a result for a lost link says about how the run went: that it is not known. */
export type Settled =
  | "exit_status"
  | "timed_out"
  | "started"
  | "not_started_reason"
  | "no_status_reason";

/** A result for a run whose link dropped, from what the call has of it. */
export function transportLost(result: Omit<RunResult, Settled>, socket: TmuxSocket): RunResult {
  return {
    ...result,
    exit_status: null,
    timed_out: false,
    transport_lost: true,
    started: true,
    not_started_reason: null,
    no_status_reason: lostReason(socket, result.run_id),
  };
}
