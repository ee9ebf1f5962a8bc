/**
 * The line a call types into its pane: the first one, and the one typed again when the shell
 * read the first and did not run it (it lacked the run function, or, launched, could not fetch
 * its script by `$TMUX`).
 *
 * @module
 */

import { shownCommand } from "../read/capture/typed_lines.ts";
import { runTmux } from "../transport/control/command.ts";
import { type Attempt, type Line, waitOnce } from "./attempt.ts";
import { notStarted, streamEnd } from "./end/mod.ts";
import {
  buildTypedLine,
  commandDigest,
  fetchOf,
  forgetPaneShell,
  type LauncherRun,
  launcherRun,
  type ShellProgram,
  type TypedLineOptions,
} from "./line/mod.ts";
import { encodeRecord, isInlineSafe, runningMark, type RunResult, UNREAD } from "./base/mod.ts";
import { rememberFunction } from "./turn/mod.ts";
import { RunStream, type WaitOutcome } from "./wait/mod.ts";
import { deleteUnfetched, pasteLine, releaseClaim, typeAgain } from "./look/mod.ts";

/** The line a POSIX shell is typed: a call of the run function, defined first as `define` says. */
async function posixLine(
  attempt: Attempt,
  define: TypedLineOptions["define"],
  inline: boolean,
): Promise<string> {
  const { request } = attempt;
  const build = (source: TypedLineOptions["source"]) =>
    buildTypedLine({
      names: attempt.names,
      paneId: request.paneId,
      run: attempt.run,
      define,
      panePath: attempt.panePath,
      suppressHistory: request.suppressHistory,
      pagers: request.pagers,
      waited: attempt.tap === null,
      source,
    });
  if (inline) return build({ inline: request.command });
  return build({ sha256: await commandDigest(request.command) });
}

/** A launched shell's run: fetched by its `$TMUX` when `bootstrap` is null. */
function launcherOf(
  attempt: Attempt,
  program: ShellProgram,
  bootstrap: string | null,
): Promise<LauncherRun> {
  const { request } = attempt;
  return launcherRun({
    names: attempt.names,
    paneId: request.paneId,
    socketPath: attempt.pane.state.socket_path,
    shell: program,
    command: request.command,
    panePath: attempt.panePath,
    waited: attempt.tap === null,
    pagers: request.pagers,
  }, { bootstrap, suppressHistory: request.suppressHistory });
}

/** What the runner keeps for a pane whose launched shell needs the socket's line (its process). */
function socketLineMark(attempt: Attempt): string {
  return `socket:${attempt.pane.anchor.pid}`;
}

/**
 * The record a remote run writes as its line is typed (so its trailer keeps its status when the
 * link drops); null for a local one, which writes it only if its watcher falls behind (see
 * {@linkcode recordWhenBehind}).
 */
function recordOf(attempt: Attempt, typed: string): string | null {
  if (attempt.request.socket.remote === null || attempt.tap === null) return null;
  return recordValue(attempt, typed);
}

function recordValue(attempt: Attempt, typed: string): string {
  const { owner } = attempt.request;
  return encodeRecord({
    anchor: attempt.pane.anchor,
    typed,
    created: Date.now(),
    ...(owner === undefined || owner === null ? {} : { owner }),
  });
}

/**
 * Once the watcher a local run follows falls behind (tmux says it held the pane's output for
 * seconds: a flood), the run is recorded as a remote one is, so its trailer keeps its status: tmux
 * may pause the pane for the watcher and drop its end marker. Written only then, so a server that
 * dies mid-call leaves nothing in the common case.
 */
export function recordWhenBehind(attempt: Attempt, line: Line): void {
  const { tap } = attempt;
  if (tap === null || line.record !== null || attempt.request.socket.remote !== null) return;
  tap.onBehind(() => {
    // Settled already: the record would outlive the call.
    if (attempt.context !== null) return;
    const { socket, paneId, names } = line.call;
    attempt.lateRecord = runTmux(socket, [
      ...["set-option", "-p", "-t", paneId, names.quietRecord, recordValue(attempt, line.onScreen)],
    ]).then(() => true, () => false);
  });
}

/**
 * The first line a call types. A launched shell fetches its script by its $TMUX when the stream
 * shows whether it could; one that could not is typed the socket's line from then on. A POSIX
 * shell is given the run function unless it has it: only the stream shows a stand-in's end at
 * once, so a waited line always brings the function whole; a followed one fetches it (a few rows
 * typed, not thirty), and brings it whole only when the fetch cannot work there (see `retyped`),
 * or when no line editor reads yet (a shell in its startup file reads the line only later, maybe
 * after the call).
 */
export async function firstLine(attempt: Attempt): Promise<Line> {
  const { runner, request, names, pane, key, tap } = attempt;
  const { socket, paneId } = request;
  const mark = runningMark(names, pane.anchor.pid);
  const reads = attempt.typing.editorReads !== false;
  if (pane.shell?.kind === "launched" && pane.bootstrap !== null) {
    const byEnv = tap !== null && reads && runner.functions.get(key) !== socketLineMark(attempt);
    const launched = await launcherOf(attempt, pane.shell.shell, byEnv ? null : pane.bootstrap);
    // The launcher's script (the command in it) goes to its own buffer.
    const call = { socket, paneId, names: { ...names, commandBuffer: launched.buffer } };
    const typed = launched.typed;
    const buffered = launched.script;
    const record = recordOf(attempt, typed);
    return {
      call,
      typed,
      onScreen: typed,
      mark,
      inline: false,
      launched,
      fetch: null,
      buffered,
      record,
    };
  }
  const inline = isInlineSafe(request.command);
  const needs = runner.functions.get(key) !== attempt.functionMark;
  // The line a later call types: the fetched text draws it in place of the fetching line.
  const later = await posixLine(attempt, "none", inline);
  const fetch = needs && tap !== null && reads
    ? await fetchOf(attempt.run, { channel: names.channel, paneId, at: pane.anchor, line: later })
    : null;
  const typed = fetch === null && !needs
    ? later
    : await posixLine(attempt, fetch ?? "typed", inline);
  const onScreen = fetch === null ? typed : later;
  // The command goes to the call's buffer unless typed inline.
  const buffered = inline ? null : request.command;
  const call = { socket, paneId, names };
  return {
    call,
    typed,
    onScreen,
    mark,
    inline,
    launched: null,
    fetch,
    buffered,
    record: recordOf(attempt, onScreen),
  };
}

/**
 * A line the shell read and did not run, typed again when another line can run it: with the run
 * function whole (the shell lacks it), or naming the socket (a launched shell could not fetch
 * its script by $TMUX). Then the outcome, or the result of a line never run.
 */
export async function retyped(
  attempt: Attempt,
  outcome: WaitOutcome,
  progress: (() => Promise<void>) | undefined,
): Promise<WaitOutcome | RunResult> {
  const { runner, request, key, names, output, pane } = attempt;
  let line = attempt.line!;
  const unread = () => outcome === "ended" ? attempt.stream?.unread ?? null : null;
  if (unread() !== null) {
    // The shell may be another than the one given the function, or than the one looked at.
    runner.functions.delete(key);
    forgetPaneShell(runner.shells, request.socket, request.paneId);
  }
  if (unread()?.lacksFunction) {
    // A shell started in the pane since the function was defined: the line again, with it.
    const typed = await posixLine(attempt, "typed", line.inline);
    line = attempt.line = { ...line, typed, onScreen: typed };
    attempt.stream = new RunStream(names, output, attempt.run.name);
    attempt.stream.typing(line.typed, attempt.typing);
    await pasteLine(line.call, {
      typed: line.typed,
      shown: shownCommand(request.command),
      pasteFlags: attempt.pasteFlags,
    });
    outcome = await waitOnce(attempt, streamEnd(attempt.stream, attempt.tap!), progress);
  }
  if (unread()?.fallback && pane.shell?.kind === "launched" && pane.bootstrap !== null) {
    // The shell could not fetch its script by $TMUX (nothing of it ran): the socket's line.
    rememberFunction(runner, key, socketLineMark(attempt));
    await deleteUnfetched(line.call);
    const launched = await launcherOf(attempt, pane.shell.shell, pane.bootstrap);
    const call = { ...line.call, names: { ...names, commandBuffer: launched.buffer } };
    const typed = launched.typed;
    line = attempt.line = {
      ...line,
      call,
      typed,
      onScreen: typed,
      launched,
      buffered: launched.script,
    };
    attempt.stream = new RunStream(names, output, null);
    attempt.stream.typing(typed, attempt.typing);
    attempt.stream.expectRefusals(launched.refusals);
    const record = recordOf(attempt, typed);
    await typeAgain(call, {
      typed,
      shown: shownCommand(request.command),
      pasteFlags: attempt.pasteFlags,
      buffered: launched.script,
      record,
    });
    outcome = await waitOnce(attempt, streamEnd(attempt.stream, attempt.tap!), progress);
  }
  const still = unread();
  if (still === null) return outcome;
  const withdrawn = await releaseClaim(line.call, line.mark);
  if (still.refused === null) return notStarted(attempt.base, UNREAD, attempt.elapsed());
  if (withdrawn) return notStarted(attempt.base, still.refused, attempt.elapsed());
  // The script was fetched: those words were not the launcher's, and the run is followed as one
  // whose stream was lost.
  return "stream_lost";
}
