/**
 * wait_for_command: collecting a timed-out run later, from any server process.
 *
 * @module
 */

import { linkedSignal } from "../../../util/mod.ts";
import { TmuxError } from "../../errors.ts";
import type { OutputBudget } from "../../read/text/mod.ts";
import { waitChannel } from "../../transport/spawn/waiter.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { queryPane } from "../../objects/target.ts";
import { formatOf, parseRecords } from "../../format.ts";
import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import {
  catchUp,
  collectOutput,
  keepLog,
  logExcerpt,
  resumedProgress,
  RunOutput,
  screenFields,
} from "../output/mod.ts";
import {
  type CallNames,
  callNames,
  currentPosition,
  dropUnusedEnded,
  ENDED_OPTION,
  killedReason,
  mayCollect,
  NO_OUTPUT,
  NO_STATUS,
  type OutputFields,
  outputFields,
  parseRecord,
  parseRunId,
  RUNNING_OPTION,
  type RunRecord,
  type RunResult,
  STILL_MAY_START,
  SUPERSEDED,
  superseded,
} from "../base/mod.ts";
import { channelEnd, parseTrailerValue, type Trailer, waitForEnd } from "../wait/mod.ts";
import { forgetRun, type PaneCall, type Runner } from "../turn/mod.ts";
import { inputPrompt, untilProgramWaits } from "../../read/wait/program_turn.ts";

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

/** What a pane keeps of a run, as wait_for_command reads it. */
function recordFields(names: CallNames): readonly string[] {
  return [
    names.record,
    names.quietRecord,
    names.option,
    RUNNING_OPTION,
    ENDED_OPTION,
    "pane_pid",
    "pane_path",
    "pane_dead",
  ];
}

/** A recorded run being collected: its pane's state (looked at again after a wait), its record. */
interface Collecting {
  runner: Runner;
  request: ResumeRequest;
  call: PaneCall;
  /** The pane's options and state, by field. */
  state: Record<string, string>;
  record: RunRecord;
  /** When the wait began (ms since the epoch). */
  started: number;
  base: Pick<
    RunResult,
    "pane_id" | "shell" | "run_id" | "effective_timeout" | "started" | "not_started_reason"
  >;
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
  const call: PaneCall = { socket: request.socket, paneId: id.paneId, names: callNames(id.nonce) };
  const { state, record } = await recordedRun(request, call);
  const base = {
    pane_id: id.paneId,
    shell: null,
    run_id: request.runId,
    effective_timeout: request.timeout,
    started: true,
    not_started_reason: null,
  };
  const run: Collecting = { runner, request, call, state, record, started, base };
  if (neverRuns(run)) return await supersededResult(run);
  if (state[call.names.option] === "" && running(run) && !replaced(run)) {
    const still = await waitWhileRunning(run);
    if (still !== null) return still;
  }
  const result = await endedResult(run);
  await forget(run);
  return { ...result, elapsed_seconds: elapsedOf(run) };
}

/**
 * The pane's state and the run's record: a record written as the line was typed (its link
 * dropped since) is made the run's record first, and the pane looked at again in the same
 * command, so a trailer either ran before (its status is kept) or runs after (and signals the
 * channel waited on). Another session's run is, to this one, unknown: nothing of it is touched.
 */
async function recordedRun(
  request: ResumeRequest,
  call: PaneCall,
): Promise<Pick<Collecting, "state" | "record">> {
  const { socket, paneId, names } = call;
  const fields = recordFields(names);
  let state = await queryPane(socket, paneId, fields);
  const quiet = state[names.quietRecord];
  const seen = parseRecord(state[names.record] || quiet);
  if (seen !== null && !mayCollect(seen.owner ?? null, request.owner ?? null)) {
    throw unknownRun(request.runId);
  }
  if (state[names.record] === "" && quiet !== "") {
    state = parseRecords(
      await runTmux(socket, [
        ...["set-option", "-p", "-t", paneId, names.record, quiet, THEN],
        ...["display-message", "-p", "-t", paneId, formatOf(fields)],
      ]),
      fields,
    )[0];
  }
  const record = parseRecord(state[names.record]);
  if (record !== null) return { state, record };
  if (state[names.record] === "") throw unknownRun(request.runId);
  await forgetRun(call);
  if (state[ENDED_OPTION] !== "") await dropUnusedEnded(socket, paneId).catch(() => {});
  throw new TmuxError(
    "not_found",
    `run ${request.runId} has a record in its pane that no server wrote (a program in the pane ` +
      "changed it); the record was removed",
  );
}

function elapsedOf(run: Collecting): number {
  return Math.round(Date.now() - run.started) / 1000;
}

/** The record goes, and with the pane's last one the name of its last ended run (pending.ts). */
async function forget(run: Collecting): Promise<void> {
  await forgetRun(run.call);
  if (run.state[ENDED_OPTION] !== "") {
    await dropUnusedEnded(run.call.socket, run.call.paneId).catch(() => {});
  }
}

/** The pane's process is not the one the line was typed into. */
function replaced(run: Collecting): boolean {
  return run.state.pane_dead === "1" || run.state.pane_pid !== String(run.record.anchor.pid);
}

/** The run still holds its mark; a pending run holds none (its line may still start). */
function running(run: Collecting): boolean {
  const { names } = run.call;
  return run.record.pending !== undefined ||
    run.state[RUNNING_OPTION] === `${names.channel}:${run.record.anchor.pid}`;
}

/** A pending line a later run settled: it never runs. */
function neverRuns(run: Collecting): boolean {
  const { names } = run.call;
  return run.state[names.option] === "" && !replaced(run) &&
    superseded(run.record, run.state, names.channel);
}

async function supersededResult(run: Collecting): Promise<RunResult> {
  await forget(run);
  return {
    ...run.base,
    started: false,
    not_started_reason: SUPERSEDED,
    exit_status: null,
    timed_out: false,
    no_status_reason: null,
    elapsed_seconds: elapsedOf(run),
    ...NO_OUTPUT,
  };
}

/**
 * Waits on the run's channel until the timeout; null once it ended (the pane is looked at again),
 * else the result of a run still going (or never to run).
 */
async function waitWhileRunning(run: Collecting): Promise<RunResult | null> {
  const { runner, request } = run;
  // Disposed of in `finally`, not by `using`: the bundle's minifier turns a `using` read once
  // right after into that read, and disposes of nothing (evanw/esbuild#4482).
  const linked = request.signal ? linkedSignal(request.signal, runner.stop.signal) : null;
  try {
    return await waitOnChannel(run, linked?.signal ?? runner.stop.signal);
  } finally {
    linked?.[Symbol.dispose]();
  }
}

/** {@linkcode waitWhileRunning} under `signal` (the call's, or the server's stop). */
async function waitOnChannel(run: Collecting, signal: AbortSignal): Promise<RunResult | null> {
  const { runner, request, call, started } = run;
  const { socket, paneId, names } = call;
  const waiter = waitChannel(socket, names.channel);
  const progress = request.onProgress && await resumedProgress(
    { socket, paneId, stored: runner.store.get(request.runId), started },
    request.onProgress,
  );
  const limits = { socket, paneId, timeout: request.timeout, signal };
  // A run whose line may not have run yet has no command to ask: its shell's editor reads.
  const asks = run.record.pending !== undefined
    ? undefined
    : (signal: AbortSignal) => untilProgramWaits(socket, paneId, { signal });
  const outcome = await waitForEnd(channelEnd(waiter.done), limits, {
    started,
    pid: run.record.anchor.pid,
    progress,
    asks,
  }).finally(() => waiter.kill());
  if (outcome === "pane_gone") throw new TmuxError("not_found", `pane ${paneId} was closed`);
  if (outcome === "aborted") throw new TmuxError("cancelled", "wait_for_command was cancelled");
  run.state = await queryPane(socket, paneId, recordFields(names));
  if (neverRuns(run)) return await supersededResult(run);
  if (run.state[names.option] !== "" || !running(run) || replaced(run)) return null;
  const asked = outcome === "waiting_input"
    ? { waiting_for_input: true as const, ...await inputPrompt(socket, paneId) }
    : {};
  return {
    ...run.base,
    ...(run.record.pending === undefined
      ? {}
      : { started: null, not_started_reason: STILL_MAY_START }),
    exit_status: null,
    timed_out: outcome !== "waiting_input",
    ...asked,
    no_status_reason: null,
    elapsed_seconds: elapsedOf(run),
    ...await runOutput(runner, {
      runId: request.runId,
      call,
      record: run.record,
      budget: request.budget,
      ended: false,
    }),
  };
}

/** The result of a run that ended: its status from its trailer, or why it has none. */
async function endedResult(run: Collecting): Promise<RunResult> {
  const { runner, request, call, record } = run;
  const trailer = parseTrailerValue(run.state[call.names.option]);
  const end = trailer?.end ?? null;
  const finished: RunResult = {
    ...run.base,
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
  if (replaced(run)) {
    return { ...finished, no_status_reason: NO_STATUS.replaced, anchor_lost: true };
  }
  if (trailer !== null && (end?.kind === "exit" || end?.kind === "killed")) {
    return {
      ...finished,
      ...(end.kind === "exit"
        ? { exit_status: end.status }
        : { no_status_reason: killedReason(end.status) }),
      ...await endedOutput(trailer.end_position),
    };
  }
  if (end?.kind === "refused") {
    return { ...finished, started: false, not_started_reason: end.reason };
  }
  const kept = run.state[call.names.option] === "" ? NO_STATUS.killed : NO_STATUS.invalidKept;
  return { ...finished, no_status_reason: kept, ...await endedOutput() };
}

/**
 * A recorded run's output: from its log, when this server followed its stream (the rest read
 * from the screen, see catch_up.ts), only the lines no result has shown yet; else as the screen shows it, up to `end` (default: the
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
    const screen = stored.screen;
    await catchUp(stored, run.ended ? run.end : undefined);
    const from = stored.shown + 1;
    const excerpt = logExcerpt(stored.log, from, budget);
    stored.shown = from - 1 + excerpt.totalLines;
    if (run.ended) stored.ended ??= Date.now();
    return outputFields(excerpt, {
      source: "stream",
      linesMissed: screen?.missed ?? false,
      anchorLost: screen?.anchorLost ?? false,
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
