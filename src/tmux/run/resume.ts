/**
 * wait_for_command: collecting a timed-out run later, from any server process.
 *
 * @module
 */

import { abortable } from "../../util/mod.ts";
import { TmuxError } from "../errors.ts";
import type { OutputBudget } from "../read/excerpt.ts";
import { waitChannel } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { queryPane } from "../objects/target.ts";
import { formatOf, parseRecords } from "../format.ts";
import { runTmux } from "../transport/command.ts";
import { THEN } from "../transport/command_line.ts";
import { collectOutput, screenFields } from "./collect.ts";
import { parseRecord, parseRunId, type RunRecord } from "./record.ts";
import { mayCollect } from "./owner.ts";
import { keepLog, logExcerpt, RunOutput } from "./run_output.ts";
import { callNames, ENDED_OPTION, RUNNING_OPTION } from "./shell.ts";
import { killedReason } from "./run_end.ts";
import { dropUnusedEnded, superseded } from "./pending.ts";
import { NO_STATUS, STILL_MAY_START, SUPERSEDED } from "./reasons.ts";
import { STREAM_END_MS } from "./stream.ts";
import { forgetRun, type PaneCall, type Runner } from "./state.ts";
import {
  currentPosition,
  NO_OUTPUT,
  type OutputFields,
  outputFields,
  type RunResult,
} from "./types.ts";
import { channelEnd, parseTrailerValue, type Trailer, waitForEnd } from "./wait.ts";
import { resumedProgress } from "./progress.ts";

/** One wait_for_command request. */
export interface ResumeRequest {
  /** The tmux server the run was started on. */
  socket: TmuxSocket;
  /** As run_command returned it. */
  runId: string;
  /** Seconds, already clamped to the server's ceiling. */
  timeout: number;
  /** How much output the result shows. */
  budget: OutputBudget;
  /** Cancels the wait. */
  signal?: AbortSignal;
  /** When the wait began (ms since the epoch); default now. */
  started?: number;
  /** Who asks (see owner.ts); null or absent: anyone may collect any run. */
  owner?: string | null;
  /** Called about twice a second while waiting, with the complete lines new since the last. */
  onProgress?: (update: { elapsed: number; lines: string[] }) => void;
}

function unknownRun(runId: string): TmuxError {
  return new TmuxError(
    "not_found",
    `run ${runId} is unknown: it finished within its run_command, was collected already, or ` +
      "expired",
  );
}

/**
 * Waits again for a run that timed out, by its run id, and once it has ended returns its real
 * exit status and output and forgets it. Works from any server process: what it needs is kept
 * in the pane (see record.ts). A run whose shell went away, or that ended without its trailer,
 * is reported at once as ended with no status.
 */
export async function waitForRun(runner: Runner, request: ResumeRequest): Promise<RunResult> {
  const started = request.started ?? Date.now();
  const id = parseRunId(request.runId);
  if (id === null) {
    throw new TmuxError("invalid_argument", "run_id must look like 3.0123456789abcdef");
  }
  const { socket } = request;
  const { paneId, nonce } = id;
  const names = callNames(nonce);
  const call: PaneCall = { socket, paneId, names };
  const signal = request.signal
    ? AbortSignal.any([request.signal, runner.stop.signal])
    : runner.stop.signal;
  const fields = [
    names.record,
    names.quietRecord,
    names.option,
    RUNNING_OPTION,
    ENDED_OPTION,
    "pane_pid",
    "pane_path",
    "pane_dead",
  ] as const;
  let state = await queryPane(socket, paneId, fields);
  const quiet = state[names.quietRecord];
  // Another session's run is, to this one, unknown: nothing of it is touched.
  const seen = parseRecord(state[names.record] || quiet);
  if (seen !== null && !mayCollect(seen.owner ?? null, request.owner ?? null)) {
    throw unknownRun(request.runId);
  }
  if (state[names.record] === "" && quiet !== "") {
    // A record written as the line was typed (its link dropped since): made the run's record,
    // and the pane looked at again in the same command, so a trailer either ran before (its
    // status is kept) or runs after (and signals the channel waited on below).
    state = parseRecords(
      await runTmux(socket, [
        ...["set-option", "-p", "-t", paneId, names.record, quiet, THEN],
        ...["display-message", "-p", "-t", paneId, formatOf(fields)],
      ]),
      fields,
    )[0];
  }
  // The record goes, and with the pane's last one the name of its last ended run (pending.ts).
  const forget = async () => {
    await forgetRun(call);
    if (state[ENDED_OPTION] !== "") await dropUnusedEnded(socket, paneId).catch(() => {});
  };
  const record = parseRecord(state[names.record]);
  if (record === null) {
    if (state[names.record] === "") throw unknownRun(request.runId);
    await forget();
    throw new TmuxError(
      "not_found",
      `run ${request.runId} has a record in its pane that no server wrote (a program in the pane ` +
        "changed it); the record was removed",
    );
  }
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const base = {
    pane_id: paneId,
    shell: null,
    run_id: request.runId,
    effective_timeout: request.timeout,
    started: true,
    not_started_reason: null,
  };
  const replaced = () => state.pane_dead === "1" || state.pane_pid !== String(record.anchor.pid);
  // A pending run holds no mark: its line may still start, and its trailer signals all the same.
  const running = () =>
    record.pending !== undefined ||
    state[RUNNING_OPTION] === `${names.channel}:${record.anchor.pid}`;
  const neverRuns = () =>
    state[names.option] === "" && !replaced() && superseded(record, state, names.channel);
  const supersededResult = async (): Promise<RunResult> => {
    await forget();
    return {
      ...base,
      started: false,
      not_started_reason: SUPERSEDED,
      exit_status: null,
      timed_out: false,
      no_status_reason: null,
      elapsed_seconds: elapsed(),
      ...NO_OUTPUT,
    };
  };
  if (neverRuns()) return await supersededResult();
  if (state[names.option] === "" && running() && !replaced()) {
    const waiter = waitChannel(socket, names.channel);
    const limits = { socket, paneId, timeout: request.timeout, signal };
    const progress = request.onProgress && await resumedProgress(
      { socket, paneId, stored: runner.store.get(request.runId), started },
      request.onProgress,
    );
    const outcome = await waitForEnd(channelEnd(waiter.done), limits, {
      started,
      pid: record.anchor.pid,
      progress,
    }).finally(() => waiter.kill());
    if (outcome === "pane_gone") throw new TmuxError("not_found", `pane ${paneId} was closed`);
    if (outcome === "aborted") throw new TmuxError("cancelled", "wait_for_command was cancelled");
    state = await queryPane(socket, paneId, fields);
    if (neverRuns()) return await supersededResult();
    if (state[names.option] === "" && running() && !replaced()) {
      return {
        ...base,
        ...(record.pending === undefined
          ? {}
          : { started: null, not_started_reason: STILL_MAY_START }),
        exit_status: null,
        timed_out: true,
        no_status_reason: null,
        elapsed_seconds: elapsed(),
        ...await runOutput(runner, {
          runId: request.runId,
          call,
          record,
          budget: request.budget,
          ended: false,
        }),
      };
    }
  }
  const trailer = parseTrailerValue(state[names.option]);
  const end = trailer?.end ?? null;
  const finished: RunResult = {
    ...base,
    exit_status: null,
    timed_out: false,
    no_status_reason: null,
    elapsed_seconds: 0,
    ...NO_OUTPUT,
  };
  const endedOutput = (end?: Trailer["end_position"]) =>
    runOutput(runner, {
      runId: request.runId,
      call,
      record,
      budget: request.budget,
      ended: true,
      end,
    });
  let result: RunResult;
  if (replaced()) {
    result = { ...finished, no_status_reason: NO_STATUS.replaced, anchor_lost: true };
  } else if (trailer !== null && (end?.kind === "exit" || end?.kind === "killed")) {
    result = {
      ...finished,
      ...(end.kind === "exit"
        ? { exit_status: end.status }
        : { no_status_reason: killedReason(end.status) }),
      ...await endedOutput(trailer.end_position),
    };
  } else if (end?.kind === "refused") {
    result = { ...finished, started: false, not_started_reason: end.reason };
  } else {
    result = {
      ...finished,
      no_status_reason: state[names.option] === "" ? NO_STATUS.killed : NO_STATUS.invalidKept,
      ...await endedOutput(),
    };
  }
  await forget();
  return { ...result, elapsed_seconds: elapsed() };
}

/**
 * A recorded run's output: from its log, when this server follows (or followed) its stream,
 * only the lines no result has shown yet; else as the screen shows it, up to `end` (default: the
 * cursor now).
 */
async function runOutput(
  runner: Runner,
  run: {
    runId: string;
    call: PaneCall;
    record: RunRecord;
    budget: OutputBudget;
    ended: boolean;
    end?: { history: number; y: number; x: number };
  },
): Promise<OutputFields> {
  const { runId, call, record, budget } = run;
  const stored = runner.store.get(runId);
  if (stored !== undefined) {
    if (run.ended && stored.following) {
      await abortable(stored.following, AbortSignal.timeout(STREAM_END_MS));
    }
    const from = stored.shown + 1;
    const excerpt = logExcerpt(stored.log, from, budget);
    stored.shown = from - 1 + excerpt.totalLines;
    if (run.ended) stored.ended ??= Date.now();
    return outputFields(excerpt, {
      source: "stream",
      linesMissed: false,
      anchorLost: false,
      alternateScreen: stored.seen?.alternateScreen ?? false,
      invalidUtf8: stored.seen?.invalidUtf8 ?? false,
    }, {
      fromLine: from,
      more: (first) => ({
        run_id: runId,
        from_line: first,
        expires_at: new Date(runner.store.expires(stored)).toISOString(),
      }),
    });
  }
  const now = await currentPosition(call.socket, call.paneId);
  const cut = await collectOutput({
    ...call,
    anchor: record.anchor,
    typed: record.typed,
    end: run.end ?? now,
    now,
  });
  const output = new RunOutput(budget);
  const more = keepLog(runner.store, {
    runId,
    owner: record.owner ?? null,
    log: output.log,
    ended: run.ended,
    shown: cut.lines.length,
  });
  return screenFields(cut, output, more);
}
