/**
 * run_command: one shell command in one pane, typed, waited for and collected. Its stages, in
 * order, each in its own place:
 * - check the pane (preflight.ts: mode, foreground process, marks; probe.ts: which shell);
 * - check the reader (reading.ts: a line editor reading a command line);
 * - claim the pane and type the line in one tmux command (type_line.ts; the line: shell.ts);
 * - follow the run's byte stream or its channel (follow.ts, stream.ts, wait.ts);
 * - end: the result from how the wait ended, and what stays in the pane (settle.ts; the fields
 *   of a result: results.ts; the reasons it gives: reasons.ts; a run that may still start:
 *   pending.ts);
 * - after the call: a timed-out run followed, the shell let settle (follow.ts `afterRun`), and
 *   the pane's lock released (here).
 *
 * @module
 */
import { afterCall } from "../call_deadline.ts";
import { captureSince } from "../read/capture.ts";
import { TmuxError } from "../errors.ts";
import { waitChannel } from "../transport/waiter.ts";
import { hostName, lockKey, type TmuxChild } from "../transport/exec.ts";
import { intField } from "../format.ts";
import { newNonce } from "../names.ts";
import { verbatimPasteFlags } from "../version.ts";
import { foreground, isMarker, stateForRun, typableVersion } from "./preflight.ts";
import { progressReporter } from "./progress.ts";
import { forgetPaneShell, paneShell, shellLanguage } from "./probe.ts";
import { launcherBootstrap, launcherRun, type ShellProgram } from "./launcher.ts";
import { encodeRecord, runIdOf } from "./record.ts";
import { linkDropped, transportLost } from "./link_lost.ts";
import {
  deleteFetched,
  deleteUnfetched,
  pasteLine,
  releaseClaim,
  typeAgain,
  typeLine,
} from "./type_line.ts";
import { callNames, isInlineSafe, RUNNING_OPTION, runningMark, showsLineEditor } from "./shell.ts";
import {
  buildTypedLine,
  commandDigest,
  type Fetch,
  fetchOf,
  type TypedLineOptions,
} from "./run_function.ts";
import {
  functionFor,
  type PaneCall,
  paneTurn,
  rememberFunction,
  type Runner,
  sweepOrphans,
} from "./state.ts";
import { type Anchor, NO_OUTPUT, type RunRequest, type RunResult } from "./types.ts";
import { RunOutput } from "./run_output.ts";
import { channelEnd, waitForEnd } from "./wait.ts";
import { RunStream } from "./stream.ts";
import { tapOutput } from "../transport/watch.ts";
import { cancelledRun, settle } from "./settle.ts";
import { notStarted, type RunContext } from "./results.ts";
import { afterRun, streamEnd } from "./follow.ts";
import { editorReads, lineEditorReading, lineEditorUnknown } from "./reading.ts";
import {
  busyWith,
  notIdle,
  notReading,
  UNREAD,
  unsupportedShell,
  untypableSocket,
} from "./reasons.ts";

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

async function runQueued(runner: Runner, request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const { socket, paneId } = request;
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const nonce = newNonce();
  const names = callNames(nonce);
  const owner = request.owner ?? null;
  let base = {
    pane_id: paneId,
    shell: null as string | null,
    run_id: runIdOf(paneId, nonce, hostName(socket)),
    effective_timeout: request.timeout,
    ...NO_OUTPUT,
  };
  const key = lockKey(socket, paneId);
  const release = await paneTurn(runner, key, {
    paneId,
    deadline: started + request.timeout * 1000,
    signal: request.signal,
  });
  try {
    await runner.settling.get(key);
    await sweepOrphans(runner, socket, paneId);
    const state = await stateForRun(socket, paneId, runner.lastEnds.get(key));
    runner.lastEnds.delete(key);
    const version = typableVersion(state, paneId);
    const running = state[RUNNING_OPTION];
    const kind = foreground(state);
    const shell = kind === "posix_shell" || kind === "launched_shell"
      ? await paneShell(socket, paneId, {
        cache: runner.shells,
        panePid: state.pane_pid,
        command: state.pane_current_command,
        readerUnknown: lineEditorUnknown(socket, { sessionId: state.session_id, paneId }),
        bracketPaste: state.bracket_paste_flag,
        runsOver: running === "",
        waitMs: started + request.timeout * 1000 - Date.now(),
      })
      : null;
    if (kind === "unsupported_shell" || shell?.kind === "unsupported") {
      throw new TmuxError(
        "unsupported_shell",
        unsupportedShell(paneId, state.pane_current_command),
      );
    }
    base = { ...base, shell: shellLanguage(shell, state.pane_current_command) };
    const bootstrap = shell?.kind === "launched" ? launcherBootstrap(state.socket_path) : null;
    if (shell?.kind === "launched" && bootstrap === null) {
      throw new TmuxError(
        "unsupported_shell",
        untypableSocket(paneId, shell.shell.kind, state.socket_path),
      );
    }
    // A result for a line never typed.
    const notTyped = (reason: string): RunResult => notStarted(base, reason, elapsed());
    if (kind === "other" || shell?.kind === "other") {
      return notTyped(
        running !== ""
          ? busyWith(request, running, "an earlier run_command")
          : notIdle(paneId, state.pane_current_command),
      );
    }
    if (
      shell?.kind === "not_reading" ||
      showsLineEditor(state.pane_current_command) &&
        !await lineEditorReading(socket, { sessionId: state.session_id, paneId })
    ) {
      return notTyped(notReading(paneId, state.pane_current_command));
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
    // The run function this call set in a buffer for its line to fetch.
    let fetch: Fetch | null = null;
    let context: RunContext | null = null;
    try {
      // Where progress reports start reading: before the line is typed.
      const progressCursor = request.onProgress
        ? (await captureSince(socket, paneId, null)).cursor
        : null;
      // A trailer that never got to put the path back (its shell was killed) left its marker.
      const panePath = isMarker(state.pane_path) ? "" : state.pane_path;
      const typing = {
        editorReads: editorReads(socket, { sessionId: state.session_id, paneId }, {
          cooked: shell?.kind === "posix" && shell.cooked === true,
        }),
      };
      const launcherWith = (program: ShellProgram, bootstrap: string | null) =>
        launcherRun({
          names,
          paneId,
          socketPath: state.socket_path,
          shell: program,
          command: request.command,
          panePath,
          waited: tap === null,
          pagers: request.pagers,
        }, { bootstrap, suppressHistory: request.suppressHistory });
      // A launched shell fetches its script by its $TMUX when the stream shows whether it could;
      // one that could not is typed the socket's line from then on.
      const socketLine = `socket:${anchor.pid}`;
      const byEnv = tap !== null && typing.editorReads !== false &&
        runner.functions.get(key) !== socketLine;
      let launched = bootstrap !== null && shell?.kind === "launched"
        ? await launcherWith(shell.shell, byEnv ? null : bootstrap)
        : null;
      const inline = launched === null && isInlineSafe(request.command);
      const source = launched !== null || inline
        ? { inline: request.command }
        : { sha256: await commandDigest(request.command) };
      const lineWith = (define: TypedLineOptions["define"]): string =>
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
      let call: PaneCall = launched === null
        ? { socket, paneId, names }
        : { socket, paneId, names: { ...names, commandBuffer: launched.buffer } };
      const pasteFlags = verbatimPasteFlags(version);
      // Only the stream shows a stand-in's end at once: a waited line always brings the function,
      // whole. A followed one fetches it (a few rows typed, not thirty), and brings it whole
      // only when the fetch cannot work there (see the retry below), or when no line editor
      // reads yet (a shell in its startup file reads the line only later, maybe after the call).
      const needs = launched === null && runner.functions.get(key) !== functionMark;
      fetch = needs && tap !== null && typing.editorReads !== false ? await fetchOf(run) : null;
      const define = fetch ?? (needs ? "typed" : "none");
      let typed = launched?.typed ?? lineWith(define);
      const buffered = launched?.script ?? (inline ? null : request.command);
      stream?.typing(typed, typing);
      if (launched !== null) stream?.expectRefusals(launched.refusals);
      // A remote run is recorded as it is typed: a link that drops at any moment after leaves it
      // collectable by its run_id.
      const recordOf = (typed: string) =>
        socket.remote !== null && tap !== null
          ? encodeRecord({
            anchor,
            typed,
            created: Date.now(),
            ...(owner === null ? {} : { owner }),
          })
          : null;
      const record = recordOf(typed);
      let claimed: string | null;
      try {
        claimed = await typeLine(call, {
          typed,
          pasteFlags,
          mark,
          buffered,
          record,
          definition: fetch,
        });
      } catch (error) {
        if (error instanceof TmuxError && error.code === "cancelled" && request.signal?.aborted) {
          // Cancelled as the line was typed: tmux may have run the command, claim and all.
          const recorded = record !== null;
          const run = { runner, call, anchor, typed, mark, waiter: null, recorded, base, owner };
          return await afterCall(() => cancelledRun(run));
        }
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
      // Followed in its session's stream, a run is watched for its pane leaving that session.
      const sessionId = tap === null ? undefined : state.session_id;
      let outcome = await waitForEnd(ending, request, {
        started,
        pid: anchor.pid,
        progress,
        sessionId,
      });
      if (outcome === "ended" && stream?.unread) {
        // The shell may be another than the one given the function, or than the one looked at.
        runner.functions.delete(key);
        forgetPaneShell(runner.shells, socket, paneId);
      }
      if (outcome === "ended" && stream?.unread?.lacksFunction) {
        // A shell started in the pane since the function was defined: the line again, with it.
        typed = lineWith("typed");
        stream = new RunStream(names, output, run.name);
        stream.typing(typed, typing);
        await pasteLine(call, { typed, pasteFlags });
        outcome = await waitForEnd(streamEnd(stream, tap!), request, {
          started,
          pid: anchor.pid,
          progress,
          sessionId,
        });
      }
      if (
        outcome === "ended" && stream?.unread?.fallback && bootstrap !== null &&
        shell?.kind === "launched"
      ) {
        // The shell could not fetch its script by $TMUX (nothing of it ran): the socket's line.
        rememberFunction(runner, key, socketLine);
        await deleteUnfetched(call);
        launched = await launcherWith(shell.shell, bootstrap);
        call = { socket, paneId, names: { ...names, commandBuffer: launched.buffer } };
        typed = launched.typed;
        stream = new RunStream(names, output, null);
        stream.typing(typed, typing);
        stream.expectRefusals(launched.refusals);
        await typeAgain(call, {
          typed,
          pasteFlags,
          buffered: launched.script,
          record: recordOf(typed),
        });
        outcome = await waitForEnd(streamEnd(stream, tap!), request, {
          started,
          pid: anchor.pid,
          progress,
          sessionId,
        });
      }
      const unread = outcome === "ended" ? stream?.unread : null;
      if (unread) {
        const withdrawn = await releaseClaim(call, mark);
        if (unread.refused === null) return notTyped(UNREAD);
        if (withdrawn) return notTyped(unread.refused);
        // The script was fetched: those words were not the launcher's, and the run is followed
        // as one whose stream was lost.
        outcome = "stream_lost";
      }
      context = {
        runner,
        request,
        owner,
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
        withdrawable: !inline,
        base,
        elapsed,
        followed: false,
      };
      return await settle(context, outcome);
    } finally {
      await waiter?.kill();
      // The shell that evaluated the fetched function deleted its buffer. One that has not read
      // the line yet (the call timed out first) still may: the buffer stays for it.
      const pending = context?.followed === true && stream?.started === false;
      if (fetch !== null && !pending) await deleteFetched(socket, fetch.buffer);
      afterRun(runner, { key, runId: base.run_id, stream, tap, context });
      // A log the store does not keep is done with: its bytes go now, not at some collection. One
      // it keeps, complete unless the run is still followed, leaves the slab.
      if (!runner.store.keeps(base.run_id, output.log)) output.log.release();
      else if (context?.followed !== true) output.log.settle();
    }
  } finally {
    release();
  }
}
