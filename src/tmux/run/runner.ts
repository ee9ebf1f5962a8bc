/**
 * run_command: one shell command in one pane, typed, waited for and collected.
 *
 * @module
 */

import { outsideCall } from "../call_deadline.ts";
import { abortable, deadline, delay } from "../../async.ts";
import { captureSince } from "../capture.ts";
import { runTmux } from "../transport/command.ts";
import { TmuxError } from "../errors.ts";
import { THEN } from "../transport/command_line.ts";
import { waitChannel } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { hostName, type TmuxChild } from "../transport/exec.ts";
import { formatOf, intField, parseRecords } from "../format.ts";
import { acquire } from "../lock.ts";
import { newNonce } from "../names.ts";
import { checkSupported, parseVersion, verbatimPasteFlags } from "../version.ts";
import { collectOutput, screenFields } from "./collect.ts";
import { foreground, idleState, isMarker, ready, reconcile } from "./preflight.ts";
import { progressReporter } from "./progress.ts";
import { forgetPaneShell, paneShell } from "./probe.ts";
import {
  buildLauncherLine,
  launcherBootstrap,
  launcherBuffer,
  launcherScript,
  type LauncherScriptOptions,
} from "./launcher.ts";
import { encodeRecord, runIdOf } from "./record.ts";
import { linkDropped, transportLost } from "./link_lost.ts";
import { deleteUnfetched, pasteLine, releaseClaim, typeLine } from "./type_line.ts";
import { waitForRun } from "./resume.ts";
import {
  buildTypedLine,
  callNames,
  commandDigest,
  isInlineSafe,
  killedReason,
  markNonce,
  programName,
  type RunEnd,
  type RunFunction,
  runFunction,
  RUNNING_OPTION,
  runningMark,
  showsLineEditor,
} from "./shell.ts";
import {
  addOrphan,
  forgetRun,
  lockKey,
  type PaneCall,
  rememberEnd,
  rememberFunction,
  type Runner,
  sweepOrphans,
} from "./state.ts";
import {
  type Anchor,
  currentPosition,
  NO_OUTPUT,
  type OutputFields,
  outputFields,
  type RunRequest,
  type RunResult,
} from "./types.ts";
import { KEEP_MS, keepLog, RunOutput } from "./run_output.ts";
import { channelEnd, readTrailer, waitForEnd, type WaitOutcome } from "./wait.ts";
import { RunStream } from "./stream.ts";
import { lineEditorState, type OutputTap, tapOutput, watcherCaughtUp } from "../transport/watch.ts";

/** Why a line that was typed did not start within the timeout. */
const NEVER_STARTED = "the line was typed but the shell did not run it within the timeout, and " +
  "it is withdrawn: it will not run. The shell is probably waiting at a continuation prompt (an " +
  "unclosed quote or bracket), still starting, or a program read the line: look at the pane " +
  "(capture_pane) before retrying";

/** Why a run whose line the shell has not run yet, and may, is neither started nor not. */
const MAY_START = "unknown: the line was typed but the shell has not run it within the timeout " +
  "(a shell still starting, a continuation prompt, or a program reading input took it), and it " +
  "may still run: do not retry; collect run_id with wait_for_command, or look at the pane";

/** Why a line the shell read did not run the function. */
const UNREAD = "the shell read the line but did not run it: it lacks the run function and " +
  "did not take its definition, or a continuation prompt (an unclosed quote or here-document " +
  "typed earlier) took the line; look at the pane (capture_pane) before retrying";

/** Why a run that ended has no exit status. */
const NO_STATUS = {
  replaced: "the pane's shell exited or was replaced (respawn-pane) while the command ran",
  invalid: "the run's end marker carried no valid status",
  lost: "the command ended as the call timed out, and its status did not arrive",
};

/** How long the stream may lag behind a trailer that has run. */
const STREAM_END_MS = 2000;

/** How long a run's shell may take to finish after its end marker (its trailer's tmux command). */
const SETTLE_MS = 1000;

/**
 * How long a line editor's prompt may take to reach the watcher once it has caught up with tmux:
 * the shell may not have drawn it yet. Only a refusal waits this long; on a loaded machine 150 ms
 * was seen to be too short after a flood.
 */
const EDITOR_WAIT_MS = 1000;
const EDITOR_STEP_MS = 5;

/**
 * False when the pane's watcher saw its shell's line editor hand the terminal to a program (a
 * script at a `read` prompt, say) and not take it back; true when it reads, or nobody knows (no
 * watcher followed the pane, or the shell never switches bracketed paste). Right after a call the
 * prompt may be drawn but not yet reported (after a large output the watcher can be well behind):
 * the watcher is first brought up to what tmux has read, then given a moment for the rest.
 */
async function lineEditorReading(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
): Promise<boolean> {
  if (lineEditorState(socket, target) !== "not_reading") return true;
  await watcherCaughtUp(socket, target);
  const signal = AbortSignal.timeout(EDITOR_WAIT_MS);
  while (lineEditorState(socket, target) === "not_reading") {
    if (signal.aborted) return false;
    await delay(EDITOR_STEP_MS);
  }
  return true;
}

function functionFor(runner: Runner, socketPath: string): Promise<RunFunction> {
  let run = runner.definitions.get(socketPath);
  if (run === undefined) {
    run = runFunction(socketPath);
    runner.definitions.set(socketPath, run);
  }
  return run;
}

/** Runs a command in a pane and waits for it, as the run_command contract says. */
export async function runCommand(runner: Runner, request: RunRequest): Promise<RunResult> {
  if (runner.stop.signal.aborted) {
    throw new TmuxError("cancelled", "the server is shutting down");
  }
  const signal = request.signal
    ? AbortSignal.any([request.signal, runner.stop.signal])
    : runner.stop.signal;
  const call = runQueued(runner, { ...request, signal });
  runner.inFlight.add(call);
  try {
    return await call;
  } finally {
    runner.inFlight.delete(call);
  }
}

/** The line a launched shell is typed, and the script it runs (see launcher.ts). */
async function launcherRun(
  script: LauncherScriptOptions,
  line: { bootstrap: string; suppressHistory: boolean },
): Promise<{ typed: string; script: string }> {
  const text = launcherScript(script);
  const typed = buildLauncherLine({
    bootstrap: line.bootstrap,
    paneId: script.paneId,
    sha256: await commandDigest(text),
    suppressHistory: line.suppressHistory,
  });
  return { typed, script: text };
}

/** Why run_command cannot run commands in a pane's shell, and what to do instead. */
function unsupportedShell(paneId: string, name: string): string {
  return `pane ${paneId} runs ${name}, which run_command cannot run commands in (see ` +
    "docs/run_command.md for the shells it can); start bash or sh in the pane " +
    "(send_keys text 'bash', enter: true) and run commands there";
}

/** The run a running mark names, as a sentence an agent can act on. */
function busyWith(
  pane: { socket: TmuxSocket; paneId: string },
  mark: string,
  earlier: string,
): string {
  const { socket, paneId } = pane;
  const nonce = markNonce(mark);
  const runId = nonce === null ? "" : ` (run_id ${runIdOf(paneId, nonce, hostName(socket))})`;
  return `pane ${paneId} is still running ${earlier}${runId}: collect it with wait_for_command ` +
    "when it has ended, or interrupt it (send_keys keys ['C-c'])";
}

async function runQueued(runner: Runner, request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const { socket, paneId } = request;
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const nonce = newNonce();
  const names = callNames(nonce);
  let base = {
    pane_id: paneId,
    shell: null as string | null,
    run_id: runIdOf(paneId, nonce, hostName(socket)),
    effective_timeout: request.timeout,
    ...NO_OUTPUT,
  };
  const key = lockKey(socket, paneId);
  const release = await acquire(runner.locks, key, {
    deadline: started + request.timeout * 1000,
    signal: request.signal,
  });
  if (release === null) {
    if (request.signal?.aborted) throw new TmuxError("cancelled", "run_command was cancelled");
    throw new TmuxError(
      "pane_busy",
      `pane ${paneId} was busy with another run_command for the whole timeout`,
    );
  }
  try {
    await runner.settling.get(key);
    await sweepOrphans(runner, socket, paneId);
    let state = await idleState(socket, paneId, runner.lastEnds.get(key));
    runner.lastEnds.delete(key);
    if (!ready(state, undefined) && await reconcile(socket, paneId, state)) {
      state = await idleState(socket, paneId, undefined);
    }
    const version = parseVersion(state.version);
    checkSupported(version);
    if (state.pane_dead === "1") {
      throw new TmuxError("pane_dead", `pane ${paneId} is dead (its process has exited)`);
    }
    if (state.pane_in_mode === "1") {
      throw new TmuxError(
        "pane_in_mode",
        `pane ${paneId} is in ${
          state.pane_mode || "a mode"
        }; leave it (q or Escape) before running commands`,
      );
    }
    const running = state[RUNNING_OPTION];
    const kind = foreground(state);
    const shell = kind === "posix_shell" || kind === "launched_shell"
      ? await paneShell(socket, paneId, {
        cache: runner.shells,
        panePid: state.pane_pid,
        command: state.pane_current_command,
      })
      : null;
    if (kind === "unsupported_shell" || shell?.kind === "unsupported") {
      throw new TmuxError(
        "unsupported_shell",
        unsupportedShell(paneId, state.pane_current_command),
      );
    }
    base = {
      ...base,
      shell: shell?.kind === "launched"
        ? shell.shell.kind
        : shell?.kind === "posix"
        ? programName(state.pane_current_command)
        : null,
    };
    const bootstrap = shell?.kind === "launched" ? launcherBootstrap(state.socket_path) : null;
    if (shell?.kind === "launched" && bootstrap === null) {
      throw new TmuxError(
        "unsupported_shell",
        `pane ${paneId} runs ${shell.shell.kind}, and the tmux socket's path ` +
          `${JSON.stringify(state.socket_path)} cannot be typed into it (quotes, $, ! or a ` +
          "backslash); use a socket path without them (--tmux-tmpdir), or start bash in the pane",
      );
    }
    /** A result for a line never typed. */
    const notTyped = (reason: string): RunResult => ({
      ...base,
      exit_status: null,
      timed_out: false,
      started: false,
      not_started_reason: reason,
      no_status_reason: null,
      elapsed_seconds: elapsed(),
    });
    if (kind === "other" || shell?.kind === "other") {
      return notTyped(
        running === ""
          ? `pane ${paneId} is running ${JSON.stringify(state.pane_current_command)}, ` +
            "not an idle shell"
          : busyWith(request, running, "an earlier run_command"),
      );
    }
    if (
      showsLineEditor(state.pane_current_command) &&
      !await lineEditorReading(socket, { sessionId: state.session_id, paneId })
    ) {
      return notTyped(
        `pane ${paneId}'s shell is not reading a command line: a program it started ` +
          `(${JSON.stringify(state.pane_current_command)}: a script waiting for input, say) ` +
          "has the terminal, and would take the line as its input",
      );
    }
    const anchor: Anchor = {
      history: intField(state.history_size, "history_size"),
      y: intField(state.cursor_y, "cursor_y"),
      x: intField(state.cursor_x, "cursor_x"),
      pid: intField(state.pane_pid, "pane_pid"),
    };
    const run = await functionFor(runner, state.socket_path);
    // A POSIX shell is given the run function once (per shell process); later lines call it.
    const functionMark = bootstrap === null ? `${run.name}:${state.pane_pid}` : null;
    // Output and end are read from the pane's byte stream when a watcher can be had (subscribed
    // before the line is typed, so no byte is missed); else the server waits on the channel and
    // reads the screen.
    const output = new RunOutput(request.budget);
    let stream = socket.controls === null || socket.watchers === null
      ? null
      : new RunStream(names, output, bootstrap === null ? run.name : null);
    const tap = stream === null ? null : await tapOutput(
      socket,
      { sessionId: state.session_id, paneId },
      (bytes) => stream?.push(bytes),
    );
    let waiter: TmuxChild | null = null;
    let context: RunContext | null = null;
    try {
      // Where progress reports start reading: before the line is typed.
      const progressCursor = request.onProgress
        ? (await captureSince(socket, paneId, null)).cursor
        : null;
      // A trailer that never got to put the path back (its shell was killed) left its marker.
      const panePath = isMarker(state.pane_path) ? "" : state.pane_path;
      const launched = bootstrap !== null && shell?.kind === "launched"
        ? await launcherRun({
          names,
          paneId,
          socketPath: state.socket_path,
          shell: shell.shell,
          command: request.command,
          panePath,
          waited: tap === null,
          pagers: request.pagers,
        }, { bootstrap, suppressHistory: request.suppressHistory })
        : null;
      const inline = launched === null && isInlineSafe(request.command);
      const source = launched !== null || inline
        ? { inline: request.command }
        : { sha256: await commandDigest(request.command) };
      const lineWith = (define: boolean): string =>
        buildTypedLine({
          names,
          paneId,
          run,
          define,
          panePath,
          suppressHistory: request.suppressHistory,
          pagers: request.pagers,
          waited: tap === null,
          source,
        });
      const mark = runningMark(names, anchor.pid);
      // The command goes to the call's buffer unless typed inline; a launcher's script (the
      // command in it) to the pane's launcher buffer.
      const call: PaneCall = launched === null
        ? { socket, paneId, names }
        : { socket, paneId, names: { ...names, commandBuffer: launcherBuffer(paneId) } };
      const pasteFlags = verbatimPasteFlags(version);
      // Only the stream shows a stand-in's end at once: a waited line always brings the function.
      let typed = launched?.typed ??
        lineWith(tap === null || runner.functions.get(key) !== functionMark);
      const buffered = launched?.script ?? (inline ? null : request.command);
      stream?.typing(typed);
      // A remote run is recorded as it is typed: a link that drops at any moment after leaves it
      // collectable by its run_id.
      const record = socket.remote !== null && tap !== null
        ? encodeRecord({ anchor, typed, created: Date.now() })
        : null;
      let claimed: string | null;
      try {
        claimed = await typeLine(call, { typed, pasteFlags, mark, buffered, record });
      } catch (error) {
        if (record === null || !await linkDropped(socket, error)) throw error;
        return transportLost({ ...base, elapsed_seconds: elapsed() }, socket);
      }
      if (claimed !== null) {
        return notTyped(busyWith(request, claimed, "a run_command of another server"));
      }
      // Spawned once the line is on its way, so the shell starts meanwhile. A signal sent before
      // the waiter arrives is kept by tmux until it does.
      waiter = tap === null ? waitChannel(socket, names.channel) : null;
      const progress = progressCursor === null
        ? undefined
        : progressReporter(request, { cursor: progressCursor, typed, names, started });
      const ending = waiter === null ? streamEnd(stream!, tap!) : channelEnd(waiter.done);
      let outcome = await waitForEnd(ending, request, { started, pid: anchor.pid, progress });
      if (outcome === "ended" && stream?.unread) {
        // The shell may be another than the one given the function, or than the one looked at.
        runner.functions.delete(key);
        forgetPaneShell(runner.shells, socket, paneId);
      }
      if (outcome === "ended" && stream?.unread?.lacksFunction) {
        // A shell started in the pane since the function was defined: the line again, with it.
        typed = lineWith(true);
        stream = new RunStream(names, output, run.name);
        stream.typing(typed);
        await pasteLine(call, { typed, pasteFlags });
        outcome = await waitForEnd(streamEnd(stream, tap!), request, {
          started,
          pid: anchor.pid,
          progress,
        });
      }
      if (outcome === "ended" && stream?.unread) {
        await releaseClaim(call, mark);
        return notTyped(UNREAD);
      }
      context = {
        runner,
        request,
        call,
        sessionId: state.session_id,
        started,
        anchor,
        typed,
        mark,
        output,
        stream: tap === null ? null : stream,
        recorded: record !== null,
        waiter,
        functionMark,
        withdrawable: launched === null && !inline,
        base,
        elapsed,
        followed: false,
      };
      return await settle(context, outcome);
    } finally {
      await waiter?.kill();
      if (tap !== null && context?.followed) {
        outsideCall(() => follow(runner, { runId: base.run_id, stream: stream!, tap }));
      } else if (tap !== null && stream?.done) {
        // The shell finishes just after the run's end: the tap stays to see it do so.
        const limit = deadline(SETTLE_MS);
        const seen = Promise.race([stream.settled, tap.lost]);
        const settled: Promise<void> = abortable(seen, limit.signal).then(() => {
          limit[Symbol.dispose]();
          tap.close();
          if (runner.settling.get(key) === settled) runner.settling.delete(key);
        });
        runner.settling.set(key, settled);
        // A remote run's record goes after its result, in the background: a next call finds
        // it harmless (a quiet record keeps only this run's status), and stopping waits for it.
        if (context?.recorded) {
          const forgot = outsideCall(() => forgetQuietRecord(context!));
          const cleared: Promise<void> = abortable(forgot, limit.signal)
            .then(() => void runner.inFlight.delete(cleared));
          runner.inFlight.add(cleared);
        }
      } else {
        tap?.close();
      }
    }
  } finally {
    release();
  }
}

/** What settling a run needs. */
interface RunContext {
  runner: Runner;
  request: RunRequest;
  call: PaneCall;
  sessionId: string;
  /** When the call started (ms since the epoch). */
  started: number;
  anchor: Anchor;
  typed: string;
  mark: string;
  /** Where the run's lines go (its log, and the excerpt its result shows). */
  output: RunOutput;
  /** The run's byte stream, while it is followed; null: the server waits on the channel. */
  stream: RunStream | null;
  /** Its record was written as it was typed (a remote run): cleared when the call sees its end. */
  recorded: boolean;
  waiter: TmuxChild | null;
  /** The run function's mark for the pane's shell; null: a launcher ran the command. */
  functionMark: string | null;
  /** The command reaches the shell only from its buffer, by its hash (deleting it withdraws it). */
  withdrawable: boolean;
  base: Pick<RunResult, "pane_id" | "shell" | "run_id" | "effective_timeout"> & OutputFields;
  elapsed: () => number;
  /** Set when the run timed out and its stream is to be followed after the call. */
  followed: boolean;
}

/**
 * Follows a timed-out run's stream after its call, so its log keeps filling (for
 * read_command_output and wait_for_command), until the run ends, the stream goes, the store lets
 * the run go, or an hour passes.
 */
function follow(
  runner: Runner,
  run: { runId: string; stream: RunStream; tap: OutputTap },
): void {
  const stored = runner.store.get(run.runId);
  if (stored === undefined) {
    run.tap.close();
    return;
  }
  const stop = new AbortController();
  stored.onDrop = () => stop.abort();
  const limit = deadline(KEEP_MS, stop.signal);
  stored.following = Promise.race([run.stream.ended(limit.signal), run.tap.lost]).then(() => {
    limit[Symbol.dispose]();
    run.tap.close();
    stored.ended ??= Date.now();
    stored.following = undefined;
  });
}

/** The stream's end, or its loss (the watcher went away). */
function streamEnd(stream: RunStream, tap: OutputTap): Promise<"ended" | "stream_lost"> {
  const controller = new AbortController();
  return Promise.race([
    stream.ended(controller.signal).then(() => "ended" as const),
    tap.lost.then(() => stream.done ? "ended" as const : "stream_lost" as const),
  ]).finally(() => controller.abort());
}

/** Turns how the wait ended into the call's result. */
async function settle(context: RunContext, outcome: WaitOutcome): Promise<RunResult> {
  const { runner, call, stream } = context;
  const key = lockKey(call.socket, call.paneId);
  switch (outcome) {
    case "ended":
      if (stream === null) return await waitedResult(context);
      return streamResult(context, stream);
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
      await context.waiter?.kill();
      // The trailer of a waited run still signals and keeps its option: swept later. A streamed
      // run, with no record, leaves nothing.
      if (context.waiter !== null) addOrphan(runner, call);
      await forgetQuietRecord(context);
      await deleteUnfetched(call);
      throw new TmuxError("cancelled", "run_command was cancelled");
    case "timeout":
      return await timedOut(context, outcome);
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

/** What a run whose link dropped has to show: the output the stream brought. */
function lostFields(context: RunContext): RunResult {
  const { stream } = context;
  return { ...finished(context), ...(stream === null ? NO_OUTPUT : streamOutput(context, stream)) };
}

/**
 * Clears the record a remote run was typed with, and the status its trailer kept for it: the
 * call saw the end (or gives up on a run it cancels). Before the trailer or after, it is the same:
 * a trailer that finds no record drops the status itself.
 */
async function forgetQuietRecord(context: RunContext): Promise<void> {
  if (!context.recorded) return;
  const { socket, paneId, names } = context.call;
  await runTmux(socket, [
    ...["set-option", "-p", "-u", "-t", paneId, names.quietRecord, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option],
  ]).catch(() => {});
}

/** The fields of a run that ended (not timed out), before its status is known. */
function finished(context: RunContext): RunResult {
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
function streamOutput(context: RunContext, stream: RunStream): OutputFields {
  const excerpt = stream.excerpt();
  return outputFields(excerpt, {
    source: "stream",
    linesMissed: false,
    anchorLost: false,
    alternateScreen: stream.alternateScreen,
    invalidUtf8: stream.invalidUtf8,
  }, { more: keepOutput(context, { ended: stream.done, shown: excerpt.totalLines }) });
}

/** Where a result of this run points for what it did not show. */
function keepOutput(context: RunContext, run: { ended: boolean; shown: number }) {
  return keepLog(context.runner.store, {
    runId: context.base.run_id,
    log: context.output.log,
    ...run,
  });
}

/** A result with how a run ended, as its trailer reported it. */
function withEnd(result: RunResult, end: RunEnd | null): RunResult {
  if (end === null) return { ...result, no_status_reason: NO_STATUS.invalid };
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
function streamResult(context: RunContext, stream: RunStream): RunResult {
  const { runner, call } = context;
  rememberFunction(runner, lockKey(call.socket, call.paneId), context.functionMark);
  return withEnd({ ...finished(context), ...streamOutput(context, stream) }, stream.end ?? null);
}

/** The result of a waited run whose channel was signalled: its option, and the screen. */
async function waitedResult(context: RunContext): Promise<RunResult> {
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

const TIMEOUT_FIELDS = [RUNNING_OPTION, "pane_pid", "pane_path"] as const;

/**
 * The call's time is up (or, following the stream, the watcher went away). The run is recorded,
 * and in the same tmux command its running mark is read: the trailer writes its status, clears
 * the mark and looks for a record in one tmux command too, so exactly one of two things holds.
 * Either the mark is still this run's: the trailer has not run, will find the record and keep
 * its status for wait_for_command. Or the trailer ran first: the run has just ended.
 */
async function timedOut(
  context: RunContext,
  outcome: "timeout" | "stream_lost",
): Promise<RunResult> {
  const { runner, request, call, stream } = context;
  const { socket, paneId, names } = call;
  const key = lockKey(socket, paneId);
  await context.waiter?.kill();
  if (stream !== null && outcome === "timeout") {
    // Output tmux has read is on its way: an end marker among it ends the call after all.
    await watcherCaughtUp(socket, { sessionId: context.sessionId });
    if (stream.done) return streamResult(context, stream);
  }
  const written = { anchor: context.anchor, typed: context.typed, created: Date.now() };
  const record = encodeRecord(written);
  const answer = await runTmux(socket, [
    ...["set-option", "-p", "-t", paneId, names.record, record, THEN],
    ...["display-message", "-p", "-t", paneId, formatOf(TIMEOUT_FIELDS)],
  ]);
  const state = parseRecords(answer, TIMEOUT_FIELDS)[0];
  if (state.pane_pid !== String(context.anchor.pid)) return await settle(context, "shell_gone");
  if (state[RUNNING_OPTION] === context.mark) {
    const started = stream?.started === true || state.pane_path === names.startMarker;
    // A lost stream says nothing of the shell (its watcher went away just after the line was
    // typed, say): the run is waited for by its record, never called not started.
    if (!started && outcome === "timeout") {
      // The shell has not run the line (a continuation prompt or a program took it, or the shell
      // is still starting): no mark of ours holds the pane; the shell may lack the function after
      // all (it was re-executed, say), or be another than the one looked at.
      runner.functions.delete(key);
      forgetPaneShell(runner.shells, socket, paneId);
      // Withdrawn: the function runs a buffered command only from its buffer, now gone.
      const withdrawn = await deleteUnfetched(call) && context.withdrawable;
      const pending = encodeRecord({ ...written, pending: true });
      await runTmux(socket, [
        ...["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION, THEN],
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
    rememberFunction(runner, key, context.functionMark);
    // Records past keeping (and anything else stale) in this pane go now.
    const fresh = await idleState(socket, paneId, undefined).catch(() => null);
    if (fresh !== null) await reconcile(socket, paneId, fresh).catch(() => false);
    const remaining = context.started + request.timeout * 1000 - Date.now();
    if (outcome === "stream_lost" && remaining > 0) {
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
  if (stream === null) {
    const result = await waitedResult(context);
    await forgetRun(call);
    return result;
  }
  const ended = outcome === "timeout" &&
    await stream.ended(AbortSignal.timeout(STREAM_END_MS));
  await forgetRun(call);
  if (ended) return streamResult(context, stream);
  return {
    ...finished(context),
    ...streamOutput(context, stream),
    no_status_reason: NO_STATUS.lost,
  };
}

/**
 * A timed-out result with the output so far: from the stream (which goes on being followed, and
 * the run's log kept), else the screen.
 */
async function runningResult(context: RunContext): Promise<RunResult> {
  const { runner, call, stream } = context;
  let output: OutputFields;
  if (stream !== null) {
    output = streamOutput(context, stream);
    runner.store.put(context.base.run_id, {
      log: context.output.log,
      ended: null,
      shown: output.output_total_lines,
      seen: stream,
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
