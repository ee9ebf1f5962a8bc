/**
 * The end stage of a run: its call's result from how the wait for it ended (its end marker, its
 * channel, the timeout, a lost stream), and what that leaves in the pane: a record for a run that
 * goes on, nothing for one that ended, a withdrawn line for one that never started.
 *
 * @module
 */

import { restoreCommands } from "../../objects/activity_mark.ts";
import { runTmux } from "../../transport/control/command.ts";
import { afterCall } from "../../call_deadline.ts";
import { TmuxError } from "../../errors.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import { formatOf, parseRecords } from "../../format.ts";
import { deleteUnfetched, idleState, reconcile } from "../look/mod.ts";
import { forgetPaneShell } from "../line/mod.ts";
import {
  encodeRecord,
  ENDED_OPTION,
  linkDropped,
  MAY_START,
  NEVER_STARTED,
  NO_OUTPUT,
  NO_STATUS,
  pendingMark,
  RUNNING_OPTION,
  type RunRecord,
  type RunResult,
  transportLost,
} from "../base/mod.ts";
import { waitForRun } from "./resume.ts";
import { lockKey } from "../../transport/spawn/exec.ts";
import { addCancelled, addOrphan, forgetRun, rememberFunction } from "../turn/mod.ts";
import { STREAM_END_MS, type WaitOutcome } from "../wait/mod.ts";
import { watcherCaughtUp } from "../../transport/watch/watch.ts";
import { inputPrompt } from "../../read/wait/program_turn.ts";
import {
  finished,
  lostFields,
  lostStreamResult,
  movedResult,
  type RunContext,
  runningResult,
  streamOutput,
  streamResult,
  waitedResult,
} from "./results.ts";

/** Turns how the wait ended into the call's result. */
export async function settle(context: RunContext, outcome: WaitOutcome): Promise<RunResult> {
  const { runner, call, stream } = context;
  const key = lockKey(call.socket, call.paneId);
  switch (outcome) {
    case "ended":
      if (stream === null) return await waitedResult(context);
      return await streamResult(context, stream);
    case "pane_gone":
      await deleteUnfetched(call);
      throw new TmuxError("not_found", `pane ${call.paneId} was closed while the command ran`);
    case "shell_gone": {
      const state = await idleState(call.socket, call.paneId, undefined).catch(() => null);
      if (state !== null) await reconcile(call.socket, call.paneId, state).catch(() => false);
      await forgetRun(call);
      runner.functions.delete(key);
      return {
        ...finished(context),
        ...(stream === null ? NO_OUTPUT : streamOutput(context, stream)),
        no_status_reason: NO_STATUS.replaced,
        anchor_lost: true,
      };
    }
    case "aborted":
      return await afterCall(() => cancelledRun(context));
    case "timeout":
    case "waiting_input":
      // The run goes on whatever the call says: recording it for wait_for_command has a deadline
      // of its own, not what is left of the call's (a flood that swamps tmux took more).
      return await afterCall(() => timedOut(context, outcome));
    case "pane_moved":
      // Its output reaches the stream no more: the rest is waited for as a timed-out run is,
      // and read from the pane.
      return await timedOut({ ...context, stream: null }, outcome);
    case "stream_lost":
      // The stream went with the link: nothing more can be asked; the record stays for later.
      if (context.recorded && await call.socket.remote?.dropped()) {
        return transportLost(lostFields(context), call.socket);
      }
      try {
        return await timedOut(context, outcome);
      } catch (error) {
        if (!context.recorded || !await linkDropped(call.socket, error)) throw error;
        return transportLost(lostFields(context), call.socket);
      }
  }
}

/**
 * Clears the record a remote run was typed with, and the status its trailer kept for it: the
 * call saw the end (or gives up on a run it cancels). Before the trailer or after, it is the same:
 * a trailer that finds no record drops the status itself.
 */
export async function forgetQuietRecord(
  context: Pick<RunContext, "recorded" | "call">,
): Promise<void> {
  if (!context.recorded) return;
  const { socket, paneId, names } = context.call;
  await runTmux(socket, [
    ...["set-option", "-p", "-u", "-t", paneId, names.quietRecord, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option],
  ]).catch(() => {});
}

const TIMEOUT_FIELDS = [RUNNING_OPTION, ENDED_OPTION, "pane_pid", "pane_path"] as const;

/**
 * Records the run for wait_for_command and, in the same tmux command, reads its pane: whether the
 * running mark is still the run's says which came first, this or the run's trailer (see
 * {@linkcode timedOut}).
 */
async function recordRun(
  context: Pick<RunContext, "call" | "anchor" | "typed" | "owner">,
): Promise<{ written: RunRecord; state: Record<typeof TIMEOUT_FIELDS[number], string> }> {
  const { socket, paneId, names } = context.call;
  const written = {
    anchor: context.anchor,
    typed: context.typed,
    created: Date.now(),
    ...(context.owner === null ? {} : { owner: context.owner }),
  };
  const answer = await runTmux(socket, [
    ...["set-option", "-p", "-t", paneId, names.record, encodeRecord(written), THEN],
    ...["display-message", "-p", "-t", paneId, formatOf(TIMEOUT_FIELDS)],
  ]);
  return { written, state: parseRecords(answer, TIMEOUT_FIELDS)[0] };
}

/** What recording a cancelled run needs: its line was typed, or may have been. */
export type TypedRun = Pick<
  RunContext,
  "runner" | "call" | "anchor" | "typed" | "mark" | "waiter" | "recorded" | "base" | "owner"
>;

/**
 * The call was cancelled, not its command, which may go on: it is recorded as a timed-out run is,
 * so the busy text of the pane's next call and wait_for_command agree on it. A run that ended
 * meanwhile (or whose line was never typed: the cancellation came as it was), and one whose
 * server is stopping, leave nothing: a waited run's trailer still signals and keeps its option,
 * swept later; a streamed run's is gone with it.
 */
export async function cancelledRun(context: TypedRun): Promise<never> {
  const { runner, call } = context;
  const { socket, paneId, names } = call;
  await context.waiter?.kill();
  const recorded = runner.stop.signal.aborted ? null : await recordRun(context).catch(() => null);
  const running = recorded?.state[RUNNING_OPTION] === context.mark;
  if (!running) {
    if (context.waiter !== null) addOrphan(runner, call);
    await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, names.record]).catch(() => {});
    await forgetQuietRecord(context);
    await deleteUnfetched(call);
    throw new TmuxError("cancelled", "run_command was cancelled");
  }
  addCancelled(runner, call);
  throw new TmuxError(
    "cancelled",
    "run_command was cancelled; its command may still be running: wait_for_command " +
      `run_id=${context.base.run_id} collects it`,
  );
}

/**
 * A run whose time is up before its shell ran the line (a continuation prompt or a program took
 * it, or the shell is still starting): no mark of ours holds the pane any more; the shell may
 * lack the function after all (it was re-executed, say), or be another than the one looked at.
 * Withdrawn when its command waits in its buffer (the function runs it only from there): never
 * started; else it may still run, and its record stays for wait_for_command.
 */
async function notRunYet(
  context: RunContext,
  seen: { written: RunRecord; state: Record<typeof TIMEOUT_FIELDS[number], string> },
): Promise<RunResult> {
  const { runner, call } = context;
  const { socket, paneId, names } = call;
  const key = lockKey(socket, paneId);
  const { written, state } = seen;
  runner.functions.delete(key);
  forgetPaneShell(runner.shells, socket, paneId);
  // Withdrawn: the function runs a buffered command only from its buffer, now gone.
  const withdrawn = await deleteUnfetched(call) && context.withdrawable;
  const mark = pendingMark(paneId, { channel: names.channel, ended: state[ENDED_OPTION] });
  const pending = encodeRecord({ ...written, pending: { after: mark.after } });
  await runTmux(socket, [
    ...["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION, THEN],
    ...restoreCommands(paneId),
    THEN,
    ...(withdrawn ? [] : mark.commands),
    ...(withdrawn ? ["set-option", "-p", "-u", "-t", paneId, names.quietRecord, THEN] : []),
    ...(withdrawn
      ? ["set-option", "-p", "-u", "-t", paneId, names.record]
      : ["set-option", "-p", "-t", paneId, names.record, pending]),
  ]).catch(() => {});
  if (withdrawn) {
    return {
      ...await runningResult(context),
      started: false,
      not_started_reason: NEVER_STARTED,
    };
  }
  // The line may still run: its record stays for wait_for_command.
  return { ...await runningResult(context), started: null, not_started_reason: MAY_START };
}

/**
 * The call's time is up (or, following the stream, the watcher went away). The run is recorded,
 * and in the same tmux command its running mark is read: the trailer writes its status, clears
 * the mark and looks for a record in one tmux command too, so exactly one of two things holds.
 * Either the mark is still this run's: the trailer has not run, will find the record and keep
 * its status for wait_for_command. Or the trailer ran first: the run has just ended.
 */
async function timedOut(
  context: RunContext,
  outcome: "timeout" | "stream_lost" | "pane_moved" | "waiting_input",
): Promise<RunResult> {
  const { runner, request, call, stream } = context;
  const { socket, paneId, names } = call;
  const key = lockKey(socket, paneId);
  await context.waiter?.kill();
  const asks = outcome === "waiting_input";
  if (stream !== null && (outcome === "timeout" || asks)) {
    // Output tmux has read is on its way: an end marker among it ends the call after all.
    await watcherCaughtUp(socket, { sessionId: context.sessionId });
    if (stream.done) return streamResult(context, stream);
  }
  const { written, state } = await recordRun(context);
  if (state.pane_pid !== String(context.anchor.pid)) return await settle(context, "shell_gone");
  if (state[RUNNING_OPTION] === context.mark) {
    const started = stream?.started === true || state.pane_path === names.startMarker;
    // A lost stream says nothing of the shell (its watcher went away just after the line was
    // typed, say): the run is waited for by its record, never called not started.
    if (!started && (outcome === "timeout" || asks)) {
      return await notRunYet(context, { written, state });
    }
    rememberFunction(runner, key, context.functionMark);
    // Records past keeping (and anything else stale) in this pane go now.
    const fresh = await idleState(socket, paneId, undefined).catch(() => null);
    if (fresh !== null) await reconcile(socket, paneId, fresh).catch(() => false);
    const remaining = context.started + request.timeout * 1000 - Date.now();
    if (asks) {
      const prompt = await inputPrompt(socket, paneId);
      return {
        ...await runningResult(context),
        timed_out: false,
        waiting_for_input: true,
        ...prompt,
      };
    }
    if (outcome !== "timeout" && remaining > 0) {
      return await waitForRun(runner, {
        socket,
        runId: context.base.run_id,
        timeout: request.timeout,
        budget: request.budget,
        signal: request.signal,
        started: context.started,
      });
    }
    return await runningResult(context);
  }
  // The trailer ran before the record was written: the run has just ended.
  if (outcome === "pane_moved") {
    // Its status went with the stream, which no longer saw the pane.
    await forgetRun(call);
    return await movedResult(context);
  }
  if (stream === null) {
    const result = await waitedResult(context);
    await forgetRun(call);
    return result;
  }
  const ended = (outcome === "timeout" || asks) &&
    await stream.ended(AbortSignal.timeout(STREAM_END_MS));
  if (!ended && context.recorded) {
    // The trailer kept the status for the record the line was typed with.
    const result = await lostStreamResult(context, stream);
    await forgetRun(call);
    return result;
  }
  await forgetRun(call);
  if (ended) return streamResult(context, stream);
  return {
    ...finished(context),
    ...streamOutput(context, stream),
    no_status_reason: NO_STATUS.lost,
  };
}
