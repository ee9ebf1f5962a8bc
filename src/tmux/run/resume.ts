/**
 * wait_for_command: collecting a timed-out run later, from any server process.
 *
 * @module
 */

import { runTmux } from "../transport/command.ts";
import { TmuxError } from "../errors.ts";
import { THEN } from "../transport/exec.ts";
import { waitChannel } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { queryPane } from "../target.ts";
import { collectOutput, shapeOutput } from "./collect.ts";
import { parseRecord, parseRunId } from "./record.ts";
import { callNames } from "./shell.ts";
import { drain, forgetOrphan, type Runner } from "./state.ts";
import { currentPosition, type RunResult } from "./types.ts";
import { parseTrailerValue, waitFor } from "./wait.ts";

/** One wait_for_command request. */
export interface ResumeRequest {
  /** The tmux server the run was started on. */
  socket: TmuxSocket;
  /** As run_command returned it. */
  runId: string;
  /** Seconds, already clamped to the server's ceiling. */
  timeout: number;
  /** Keep only the last N output lines; null: all. */
  maxLines: number | null;
  /** Cancels the wait. */
  signal?: AbortSignal;
}

/**
 * Waits again for a run that timed out, by its run id, and once it has ended returns its real
 * exit status and output and forgets it. Works from any server process: what it needs is kept
 * in the pane (see `run_record.ts`).
 */
export async function waitForRun(runner: Runner, request: ResumeRequest): Promise<RunResult> {
  const started = Date.now();
  const id = parseRunId(request.runId);
  if (id === null) {
    throw new TmuxError("invalid_argument", "run_id must look like 3.0123456789abcdef");
  }
  const { socket } = request;
  const { paneId, nonce } = id;
  const names = callNames(nonce);
  const signal = request.signal
    ? AbortSignal.any([request.signal, runner.stop.signal])
    : runner.stop.signal;
  // This call drains the run's done signal now, not a later sweep.
  forgetOrphan(runner, { socket, paneId, names });
  const fields = [names.record, names.option] as const;
  let state = await queryPane(socket, paneId, fields);
  const record = parseRecord(state[names.record]);
  if (record === null) {
    throw new TmuxError(
      "not_found",
      `run ${request.runId} is unknown: it finished within its run_command, was collected ` +
        "already, or expired",
    );
  }
  let waited = false;
  if (state[names.option] === "") {
    const waiter = waitChannel(socket, names.channel);
    const limits = { socket, paneId, timeout: request.timeout, signal };
    const outcome = await waitFor(waiter, limits, started).finally(() => waiter.kill());
    if (outcome === "pane_gone") throw new TmuxError("not_found", `pane ${paneId} was closed`);
    if (outcome === "aborted") throw new TmuxError("cancelled", "wait_for_command was cancelled");
    waited = outcome === "signalled";
    state = await queryPane(socket, paneId, fields);
  }
  const base = {
    pane_id: paneId,
    run_id: request.runId,
    effective_timeout: request.timeout,
    started: true,
    not_started_reason: null,
  };
  const collect = { socket, paneId, anchor: record.anchor, typed: record.typed, names };
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  if (state[names.option] === "") {
    const now = await currentPosition(socket, paneId);
    const cut = await collectOutput({ ...collect, end: now, now, release: false });
    return {
      ...base,
      ...shapeOutput(cut, request.maxLines),
      exit_status: null,
      timed_out: true,
      elapsed_seconds: elapsed(),
    };
  }
  const trailer = parseTrailerValue(state[names.option]);
  const now = await currentPosition(socket, paneId);
  const cut = await collectOutput({ ...collect, end: trailer.end, now, release: false });
  await runTmux(socket, [
    ...["set-option", "-p", "-u", "-t", paneId, names.record, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option],
  ]);
  if (!waited) await drain(socket, names.channel);
  return {
    ...base,
    ...shapeOutput(cut, request.maxLines),
    exit_status: trailer.status,
    timed_out: false,
    elapsed_seconds: elapsed(),
  };
}
