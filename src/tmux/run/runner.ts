/**
 * run_command: one shell command in one pane, typed, waited for and collected. Its stages, in
 * order, each a folder (what a call's stages share: attempt.ts):
 * - the pane's turn (turn/: state.ts `paneTurn`);
 * - check the pane (look/: look.ts; preflight.ts: mode, foreground process, marks; reading.ts: a
 *   line editor reading a command line; line/probe.ts: which shell);
 * - the line (typing.ts: the run function's call, or a launcher's line), claimed and typed in one
 *   tmux command (look/type_line.ts), typed again when the shell read it and could not run it;
 * - follow the run's byte stream or its channel (wait/: stream.ts, wait.ts);
 * - end: the result from how the wait ended, and what stays in the pane (end/: settle.ts; the
 *   fields of a result: results.ts; the reasons it gives: base/reasons.ts; a run that may still
 *   start: base/pending.ts);
 * - after the call: a timed-out run followed, the shell let settle (end/follow.ts `afterRun`),
 *   and the pane's lock released (here).
 *
 * @module
 */

import { shownCommand } from "../read/capture/typed_lines.ts";
import { afterCall } from "../call_deadline.ts";
import { captureSince } from "../read/capture/mod.ts";
import { TmuxError } from "../errors.ts";
import { waitChannel } from "../transport/spawn/waiter.ts";
import { hostName, lockKey } from "../transport/spawn/exec.ts";
import { newNonce } from "../names.ts";
import { linkedSignal } from "../../util/mod.ts";
import { verbatimPasteFlags } from "../version.ts";
import {
  deleteFetched,
  editorReads,
  isMarker,
  lookAtPane,
  PANE_CHANGED,
  type TypablePane,
  typeLine,
} from "./look/mod.ts";
import { progressReporter, RunOutput } from "./output/mod.ts";
import {
  busyWith,
  callNames,
  linkDropped,
  NO_OUTPUT,
  ordered,
  runIdOf,
  type RunRequest,
  type RunResult,
  transportLost,
} from "./base/mod.ts";
import {
  functionFor,
  namedInRefusal,
  paneTurn,
  type Runner,
  shellStartingFor,
} from "./turn/mod.ts";
import { personKeysSinceLook } from "../read/person.ts";
import { channelEnd, RunStream } from "./wait/mod.ts";
import { tapOutput } from "../transport/watch/watch.ts";
import type { RunRecording } from "../record/mod.ts";
import {
  afterRun,
  cancelledRun,
  notStarted,
  type RunContext,
  settle,
  streamEnd,
} from "./end/mod.ts";
import { type Attempt, type Line, type Start, waitOnce } from "./attempt.ts";
import { firstLine, recordWhenBehind, retyped } from "./typing.ts";

/** Runs a command in a pane and waits for it, as the run_command contract says. */
export async function runCommand(runner: Runner, request: RunRequest): Promise<RunResult> {
  if (runner.stop.signal.aborted) {
    throw new TmuxError("cancelled", "the server is shutting down");
  }
  using linked = request.signal ? linkedSignal(request.signal, runner.stop.signal) : null;
  const call = runQueued(runner, { ...request, signal: linked?.signal ?? runner.stop.signal });
  runner.inFlight.add(call);
  try {
    return await call;
  } finally {
    runner.inFlight.delete(call);
  }
}

/** How many times a call looks at its pane that changed before it types (see type_line.ts). */
const LOOKS_MAX = 4;

async function runQueued(runner: Runner, request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const { socket, paneId } = request;
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const nonce = newNonce();
  const base: RunContext["base"] = {
    pane_id: paneId,
    shell: null,
    run_id: runIdOf(paneId, nonce, hostName(socket)),
    effective_timeout: request.timeout,
    ...NO_OUTPUT,
  };
  const key = lockKey(socket, paneId);
  const deadline = started + request.timeout * 1000;
  const release = await paneTurn(runner, key, { paneId, deadline, signal: request.signal });
  // A pane that changed between the look and the typing (a person's key, output) is looked at
  // again; past the last look, the line is typed as the look left it.
  const lookAndRun = async (): Promise<RunResult> => {
    // The recording of the pane (--record-dir), with the run's marker: once, however many looks.
    let recording: RunRecording | null | undefined;
    for (let look = 1;; look++) {
      let looked = await lookAtPane(runner, request, { key, deadline });
      // A shell this server started is waited for while it reads its startup files.
      while (
        looked.notTyped !== undefined &&
        await shellStartingFor(runner, { key, deadline, signal: request.signal })
      ) looked = await lookAtPane(runner, request, { key, deadline });
      base.shell = looked.shell;
      if (looked.notTyped !== undefined) return notStarted(base, looked.notTyped, elapsed());
      runner.starting.delete(key);
      const target = { paneId, sessionId: looked.pane.state.session_id };
      if (recording === undefined) {
        recording = await runner.recordings?.start({
          socket,
          paneId,
          owner: request.owner ?? null,
          runId: base.run_id,
          command: request.command,
        }) ?? null;
      }
      const names = callNames(nonce);
      const result = await typeAndFollow(
        { runner, request, key, names, started, base, elapsed, recording },
        { ...looked.pane, checked: look < LOOKS_MAX },
      );
      if (result === PANE_CHANGED) continue;
      const typedOver = result.started !== false && await personKeysSinceLook(socket, target);
      const said = {
        ...(typedOver ? { person_keys: true as const } : {}),
        ...(recording === null || result.started === false ? {} : { recording: recording.path }),
      };
      return Object.keys(said).length === 0 ? result : ordered({ ...result, ...said });
    }
  };
  runner.runs.begin(base.run_id, {
    socket,
    paneId,
    command: request.command,
    owner: request.owner ?? null,
  });
  try {
    const result = await lookAndRun();
    runner.runs.answered(base.run_id, result);
    return result;
  } catch (error) {
    runner.runs.drop(base.run_id);
    throw error;
  } finally {
    release();
  }
}

/**
 * Types the line and follows the run to its result. Output and end are read from the pane's
 * byte stream when a watcher can be had (subscribed before the line is typed, so no byte is
 * missed); else the server waits on the channel and reads the screen.
 */
async function typeAndFollow(
  start: Start,
  pane: TypablePane & { checked: boolean },
): Promise<RunResult | typeof PANE_CHANGED> {
  const { runner, request, names } = start;
  const { socket, paneId } = request;
  const { state } = pane;
  const run = await functionFor(runner, state.socket_path);
  const output = new RunOutput(request.budget);
  const followed = socket.controls !== null && socket.watchers !== null;
  const attempt: Attempt = {
    ...start,
    pane,
    run,
    // A POSIX shell is given the run function once (per shell process); later lines call it.
    functionMark: pane.bootstrap === null ? `${run.name}:${state.pane_pid}` : null,
    output,
    stream: followed
      ? new RunStream(names, output, pane.bootstrap === null ? run.name : null)
      : null,
    tap: null,
    typing: {},
    // A trailer that never got to put the path back (its shell was killed) left its marker.
    panePath: isMarker(state.pane_path) ? "" : state.pane_path,
    pasteFlags: verbatimPasteFlags(pane.version),
    line: null,
    waiter: null,
    context: null,
  };
  if (followed) {
    attempt.tap = await tapOutput(
      socket,
      { sessionId: state.session_id, paneId },
      (bytes) => {
        attempt.stream?.push(bytes);
        start.recording?.write(bytes);
      },
    );
  }
  // Whether the line editor reads, as the pane's watcher (subscribed just above) has seen it.
  attempt.typing.editorReads = editorReads(socket, { sessionId: state.session_id, paneId }, {
    cooked: pane.shell?.kind === "posix" && pane.shell.cooked === true,
  });
  try {
    // Where progress reports start reading: before the line is typed.
    const progressCursor = request.onProgress
      ? (await captureSince(socket, paneId, null, { raw: true })).cursor
      : null;
    const line = attempt.line = await firstLine(attempt);
    const notTyped = await typeFirst(attempt, line, pane.checked);
    if (notTyped !== null) return notTyped;
    recordWhenBehind(attempt, line);
    // Spawned once the line is on its way, so the shell starts meanwhile. A signal sent before
    // the waiter arrives is kept by tmux until it does.
    attempt.waiter = attempt.tap === null ? waitChannel(socket, names.channel) : null;
    const progress = progressCursor === null ? undefined : progressReporter(request, {
      cursor: progressCursor,
      typed: line.typed,
      names,
      started: start.started,
    });
    const ending = attempt.waiter === null
      ? streamEnd(attempt.stream!, attempt.tap!)
      : channelEnd(attempt.waiter.done);
    const outcome = await retyped(attempt, await waitOnce(attempt, ending, progress), progress);
    if (typeof outcome === "object") return outcome;
    attempt.context = contextOf(attempt, attempt.line, await attempt.lateRecord ?? false);
    return await settle(attempt.context, outcome);
  } finally {
    await cleanUp(attempt);
  }
}

/**
 * Types the first line, claiming the pane: null once typed, else the result of a call that typed
 * nothing (another server's run holds the pane), was cancelled as it typed, or lost its link.
 */
async function typeFirst(
  attempt: Attempt,
  line: Line,
  checked: boolean,
): Promise<RunResult | null | typeof PANE_CHANGED> {
  const { request, base } = attempt;
  attempt.stream?.typing(line.typed, attempt.typing);
  if (line.launched !== null) attempt.stream?.expectRefusals(line.launched.refusals);
  let claimed: string | null | typeof PANE_CHANGED;
  try {
    claimed = await typeLine(line.call, {
      typed: line.typed,
      onScreen: line.onScreen,
      shown: shownCommand(request.command),
      pasteFlags: attempt.pasteFlags,
      mark: line.mark,
      buffered: line.buffered,
      record: line.record,
      definition: line.fetch,
      seen: checked ? attempt.pane.anchor : null,
    });
  } catch (error) {
    if (error instanceof TmuxError && error.code === "cancelled" && request.signal?.aborted) {
      // Cancelled as the line was typed: tmux may have run the command, claim and all.
      const { runner, pane } = attempt;
      const owner = request.owner ?? null;
      const { call, onScreen: typed, mark } = line;
      const recorded = line.record !== null;
      const run = {
        runner,
        call,
        anchor: pane.anchor,
        typed,
        mark,
        waiter: null,
        recorded,
        base,
        owner,
      };
      return await afterCall(() => cancelledRun(run));
    }
    if (line.record === null || !await linkDropped(request.socket, error)) throw error;
    return transportLost({ ...base, elapsed_seconds: attempt.elapsed() }, request.socket);
  }
  if (claimed === null || claimed === PANE_CHANGED) return claimed;
  namedInRefusal(attempt.runner, attempt.key, claimed);
  return notStarted(
    base,
    busyWith(request, claimed, "a run_command of another server"),
    attempt.elapsed(),
  );
}

/** What settling the run needs. */
function contextOf(attempt: Attempt, line: Line, recordedLate: boolean): RunContext {
  return {
    runner: attempt.runner,
    request: attempt.request,
    owner: attempt.request.owner ?? null,
    call: line.call,
    sessionId: attempt.pane.state.session_id,
    started: attempt.started,
    anchor: attempt.pane.anchor,
    typed: line.onScreen,
    mark: line.mark,
    output: attempt.output,
    stream: attempt.tap === null ? null : attempt.stream,
    recorded: line.record !== null || recordedLate,
    waiter: attempt.waiter,
    functionMark: attempt.functionMark,
    withdrawable: !line.inline,
    base: attempt.base,
    elapsed: attempt.elapsed,
    followed: false,
  };
}

/** What a call leaves once it returns: its waiter, its fetched function's buffer, its log. */
async function cleanUp(attempt: Attempt): Promise<void> {
  const { runner, stream, tap, context, output, base } = attempt;
  await attempt.waiter?.kill();
  // The shell that evaluated the fetched function deleted its buffer. One that has not read the
  // line yet (the call timed out first) still may: the buffer stays for it.
  const pending = context?.followed === true && stream?.started === false;
  const fetch = attempt.line?.fetch ?? null;
  if (fetch !== null && !pending) await deleteFetched(attempt.request.socket, fetch.buffer);
  afterRun(runner, { key: attempt.key, runId: base.run_id, stream, tap, context });
  // A log the store does not keep is done with: its bytes go now, not at some collection. One it
  // keeps, complete unless the run is still followed, leaves the slab.
  if (!runner.store.keeps(base.run_id, output.log)) output.log.release();
  else if (context?.followed !== true) output.log.settle();
}
