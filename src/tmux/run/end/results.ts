/**
 * A run's result fields as its wait ended: from its byte stream, from its trailer and the screen,
 * from the pane a moved run took with it, or, timed out, the output so far. What settling a run
 * works with (see settle.ts).
 *
 * @module
 */

import { lockKey, type TmuxChild } from "../../transport/spawn/exec.ts";
import {
  catchUp,
  collectOutput,
  keepLog,
  logExcerpt,
  readRestFromScreen,
  RunOutput,
  screenFields,
  type StoredRun,
} from "../output/mod.ts";
import { releaseClaim } from "../look/mod.ts";
import {
  type Anchor,
  currentPosition,
  killedReason,
  NO_OUTPUT,
  NO_STATUS,
  NO_TMUX_REASON,
  type OutputFields,
  outputFields,
  type RunEnd,
  type RunRequest,
  type RunResult,
} from "../base/mod.ts";
import { type PaneCall, rememberEnd, rememberFunction, type Runner } from "../turn/mod.ts";
import { readTrailer, type RunStream } from "../wait/mod.ts";

/** What settling a run needs. */
export interface RunContext {
  /** The server's run state. */
  runner: Runner;
  /** What the call asked. */
  request: RunRequest;
  /** Whose run it is (see owner.ts). */
  owner: string | null;
  /** The pane, its socket and the call's names. */
  call: PaneCall;
  /** The pane's session. */
  sessionId: string;
  /** When the call started (ms since the epoch). */
  started: number;
  /** Where the line was typed. */
  anchor: Anchor;
  /** The line typed. */
  typed: string;
  /** The running mark the call set on the pane. */
  mark: string;
  /** Where the run's lines go (its log, and the excerpt its result shows). */
  output: RunOutput;
  /** The run's byte stream, while it is followed; null: the server waits on the channel. */
  stream: RunStream | null;
  /** Its record was written as it was typed (a remote run): cleared when the call sees its end. */
  recorded: boolean;
  /** The `tmux wait-for` process on the run's channel; null: none. */
  waiter: TmuxChild | null;
  /** The run function's mark for the pane's shell; null: a launcher ran the command. */
  functionMark: string | null;
  /** The command reaches the shell only from its buffer, by its hash (deleting it withdraws it). */
  withdrawable: boolean;
  /** The result fields known before the run ended. */
  base: Pick<RunResult, "pane_id" | "shell" | "run_id" | "effective_timeout"> & OutputFields;
  /** Seconds since the call started. */
  elapsed: () => number;
  /** Set when the run timed out and its stream is to be followed after the call. */
  followed: boolean;
}

/** The result of a line never typed, or typed and withdrawn: why, and nothing else. */
export function notStarted(
  base: RunContext["base"],
  reason: string,
  elapsed: number,
): RunResult {
  return {
    ...base,
    exit_status: null,
    timed_out: false,
    started: false,
    not_started_reason: reason,
    no_status_reason: null,
    elapsed_seconds: elapsed,
  };
}

/** What a run whose link dropped has to show: the output the stream brought. */
export function lostFields(context: RunContext): RunResult {
  const { stream } = context;
  return { ...finished(context), ...(stream === null ? NO_OUTPUT : streamOutput(context, stream)) };
}

/** The fields of a run that ended (not timed out), before its status is known. */
export function finished(context: RunContext): RunResult {
  return {
    ...context.base,
    exit_status: null,
    timed_out: false,
    started: true,
    not_started_reason: null,
    no_status_reason: null,
    elapsed_seconds: context.elapsed(),
  };
}

/** Output fields from the byte stream; what they do not show is kept for reading later. */
export function streamOutput(context: RunContext, stream: RunStream): OutputFields {
  const excerpt = stream.excerpt();
  return outputFields(excerpt, {
    source: "stream",
    linesMissed: false,
    anchorLost: false,
    alternateScreen: stream.alternateScreen,
    invalidUtf8: stream.invalidUtf8,
  }, {
    more: keepOutput(context, {
      ended: stream.done,
      shown: excerpt.totalLines - (stream.partial ? 1 : 0),
    }),
  });
}

/** Where a result of this run points for what it did not show. */
function keepOutput(context: RunContext, run: { ended: boolean; shown: number }) {
  return keepLog(context.runner.store, {
    runId: context.base.run_id,
    owner: context.owner,
    log: context.output.log,
    ...run,
  });
}

/** A result with how a run ended, as its trailer reported it. */
function withEnd(result: RunResult, end: RunEnd | null): RunResult {
  if (end === null) return { ...result, no_status_reason: NO_STATUS.invalidMarker };
  switch (end.kind) {
    case "refused":
      return { ...result, ...NO_OUTPUT, started: false, not_started_reason: end.reason };
    case "killed":
      return { ...result, no_status_reason: killedReason(end.status) };
    case "exit":
      return { ...result, exit_status: end.status };
  }
}

/** The result of a run whose end marker came through the stream. */
export async function streamResult(context: RunContext, stream: RunStream): Promise<RunResult> {
  const { runner, call } = context;
  rememberFunction(runner, lockKey(call.socket, call.paneId), context.functionMark);
  const end = stream.end ?? null;
  // A shell without tmux could not clear its claim: the run is known over, cleared from here.
  if (end?.kind === "refused" && end.reason === NO_TMUX_REASON) {
    await releaseClaim(call, context.mark);
  }
  return withEnd({ ...finished(context), ...streamOutput(context, stream) }, end);
}

/** The result of a waited run whose channel was signalled: its option, and the screen. */
export async function waitedResult(context: RunContext): Promise<RunResult> {
  const { runner, call } = context;
  const key = lockKey(call.socket, call.paneId);
  rememberFunction(runner, key, context.functionMark);
  const { trailer, now } = await readTrailer(call);
  rememberEnd(runner, key, now);
  const cut = await collectOutput({
    ...call,
    anchor: context.anchor,
    typed: context.typed,
    end: trailer.end_position,
    now,
  });
  const more = keepOutput(context, { ended: true, shown: cut.lines.length });
  return withEnd(
    { ...finished(context), ...screenFields(cut, context.output, more) },
    trailer.end,
  );
}

/**
 * The result of a run whose stream was lost after its trailer ran (tmux paused the pane for a
 * watcher that fell far behind a flood): its status as the trailer kept it (the run was recorded
 * as it was typed), and its output, what the stream brought and then the rest from the screen
 * (`lines_missed` where tmux's history had dropped lines).
 */
export async function lostStreamResult(context: RunContext, stream: RunStream): Promise<RunResult> {
  const { runner, call } = context;
  const key = lockKey(call.socket, call.paneId);
  rememberFunction(runner, key, context.functionMark);
  const { trailer, now } = await readTrailer(call);
  rememberEnd(runner, key, now);
  context.output.flush();
  const stored: StoredRun = {
    log: context.output.log,
    ended: Date.now(),
    stored: Date.now(),
    shown: 0,
    owner: context.owner,
  };
  const screen = readRestFromScreen(stored, context);
  await catchUp(stored, trailer.end_position);
  const excerpt = logExcerpt(stored.log, 1, context.request.budget);
  const output = outputFields(excerpt, {
    source: "stream",
    linesMissed: screen.missed,
    anchorLost: screen.anchorLost,
    alternateScreen: stream.alternateScreen,
    invalidUtf8: stream.invalidUtf8,
  }, { more: keepOutput(context, { ended: true, shown: excerpt.totalLines }) });
  return withEnd({ ...finished(context), ...output }, trailer.end);
}

/**
 * The result of a run that ended while its pane was in another session than the stream that
 * followed it: no status, and the output cut from the pane (its history moved with it) up to the
 * row the shell's prompt is now drawn on.
 */
export async function movedResult(context: RunContext): Promise<RunResult> {
  const { call, request } = context;
  const now = await currentPosition(call.socket, call.paneId);
  const cut = await collectOutput({
    ...call,
    anchor: context.anchor,
    typed: context.typed,
    end: { ...now, x: 0 },
    now,
  });
  // What the stream brought is in the pane too: the log starts again from the pane.
  const output = new RunOutput(request.budget);
  const more = keepLog(context.runner.store, {
    runId: context.base.run_id,
    owner: context.owner,
    log: output.log,
    ended: true,
    shown: cut.lines.length,
  });
  return {
    ...finished(context),
    ...screenFields(cut, output, more),
    no_status_reason: NO_STATUS.moved,
  };
}

/**
 * A timed-out result with the output so far: from the stream (which goes on being followed, and
 * the run's log kept), else the screen.
 */
export async function runningResult(context: RunContext): Promise<RunResult> {
  const { runner, call, stream } = context;
  let output: OutputFields;
  if (stream !== null) {
    output = streamOutput(context, stream);
    runner.store.put(context.base.run_id, {
      log: context.output.log,
      ended: null,
      // A line still being written is shown again, whole, by the next read.
      shown: output.output_total_lines - (stream.partial ? 1 : 0),
      seen: stream,
      owner: context.owner,
    });
    context.followed = true;
  } else {
    const now = await currentPosition(call.socket, call.paneId);
    const cut = await collectOutput({
      ...call,
      anchor: context.anchor,
      typed: context.typed,
      end: now,
      now,
    });
    output = screenFields(
      cut,
      context.output,
      keepOutput(context, {
        ended: false,
        shown: cut.lines.length,
      }),
    );
  }
  return { ...finished(context), ...output, timed_out: true };
}
