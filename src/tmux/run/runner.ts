/**
 * run_command: one shell command in one pane, typed, waited for and collected.
 *
 * @module
 */

import { randomHex } from "../../hex.ts";
import { delay } from "../../async.ts";
import { captureSince } from "../capture.ts";
import { runTmux } from "../transport/command.ts";
import { TmuxError } from "../errors.ts";
import { THEN } from "../transport/exec.ts";
import { type ChannelWait, waitChannel } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { intField } from "../format.ts";
import { acquire } from "../lock.ts";
import { collectOutput, shapeOutput } from "./collect.ts";
import { foreground, idleState, isMarker, ready, reconcile } from "./preflight.ts";
import { progressReporter } from "./progress.ts";
import { encodeRecord, runIdOf } from "./record.ts";
import {
  buildTypedLine,
  callNames,
  isInlineSafe,
  NONCE_BYTES,
  type RunFunction,
  runFunction,
  RUNNING_OPTION,
  runningMark,
} from "./shell.ts";
import {
  addOrphan,
  lockKey,
  rememberEnd,
  rememberFunction,
  type Runner,
  sweepOrphans,
} from "./state.ts";
import {
  type Anchor,
  currentPosition,
  type OutputFields,
  outputFields,
  type RunRequest,
  type RunResult,
} from "./types.ts";
import { endedAtTimeout, readTrailer, trailerCommands, waitFor } from "./wait.ts";
import { RunStream } from "./stream.ts";
import { lineEditorState, tapOutput, watcherCaughtUp } from "../transport/watch.ts";

/** Why a line that was typed did not start within the timeout. */
const NEVER_STARTED = "the line was typed but the shell did not run it within the timeout: it " +
  "is probably waiting at a continuation prompt (an unclosed quote or bracket) or was read as " +
  "input by a program; it may still run if that input is completed, so look at the pane " +
  "(capture_pane) before retrying";

/** Lines a run's output keeps at most when read from the stream; earlier ones are counted. */
const STREAM_MAX_LINES = 1_000_000;

/** How long the stream may lag behind tmux's parsing of the end marker. */
const STREAM_END_MS = 2000;

/** Output fields from the byte stream (its reducer already kept at most maxLines). */
function streamOutput(stream: RunStream): OutputFields {
  const reduced = stream.lines();
  return outputFields(reduced, {
    linesMissed: false,
    anchorLost: false,
    alternateScreen: reduced.alternateScreen,
  });
}

/** How long a line editor's prompt may take to reach the watcher after tmux drew it. */
const EDITOR_WAIT_MS = 150;
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

/** C-u: line editors' unix-line-discard, and the terminal's kill character. */
const KILL_LINE = "\x15";

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
  const nonce = randomHex(NONCE_BYTES);
  const names = callNames(nonce);
  const base = {
    pane_id: paneId,
    run_id: runIdOf(paneId, nonce),
    effective_timeout: request.timeout,
    output: [] as string[],
    output_truncated: false,
    output_truncated_lines: 0,
    output_truncated_bytes: 0,
    lines_missed: false,
    anchor_lost: false,
    alternate_screen: false,
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
    await sweepOrphans(runner, socket, paneId);
    let state = await idleState(socket, paneId, runner.lastEnds.get(key));
    runner.lastEnds.delete(key);
    if (!ready(state, undefined) && await reconcile(socket, paneId, state)) {
      state = await idleState(socket, paneId, undefined);
    }
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
    if (kind === "unsupported_shell") {
      throw new TmuxError(
        "unsupported_shell",
        `pane ${paneId} runs ${state.pane_current_command}, which is not a POSIX shell`,
      );
    }
    /** A result for a line never typed. */
    const notTyped = (reason: string): RunResult => ({
      ...base,
      exit_status: null,
      timed_out: false,
      started: false,
      not_started_reason: reason,
      elapsed_seconds: elapsed(),
    });
    if (kind === "other") {
      return notTyped(
        running === ""
          ? `pane ${paneId} is running ${JSON.stringify(state.pane_current_command)}, ` +
            "not an idle shell"
          : `pane ${paneId} is still running an earlier run_command (${RUNNING_OPTION} ${running})`,
      );
    }
    if (!await lineEditorReading(socket, { sessionId: state.session_id, paneId })) {
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
    const inline = isInlineSafe(request.command);
    const run = await functionFor(runner, state.socket_path);
    // The shell is given the run function once (per shell process); later lines just call it.
    const functionMark = `${run.name}:${state.pane_pid}`;
    const define = runner.functions.get(key) !== functionMark;
    const typed = buildTypedLine(request.command, {
      names,
      paneId,
      run,
      define,
      // A trailer that never got to put the path back (its shell was killed) left its marker.
      panePath: isMarker(state.pane_path) ? "" : state.pane_path,
      suppressHistory: request.suppressHistory,
      inline,
    });
    /** Deletes the buffers a shell that never ran the line left unfetched. */
    const deleteUnfetched = async (): Promise<void> => {
      if (!inline) await deleteBuffer(socket, names.commandBuffer);
      if (define) await deleteBuffer(socket, names.functionBuffer);
    };
    // The output is read from the pane's byte stream when a watcher can be had (the screen is
    // the fallback): subscribed before the line is typed, so no byte is missed.
    const stream = socket.controls === null
      ? null
      : new RunStream(names, request.maxLines ?? STREAM_MAX_LINES);
    const tap = stream === null
      ? null
      : await tapOutput(socket, { sessionId: state.session_id, paneId }, (bytes) =>
        stream.push(bytes));
    try {
      // Where progress reports start reading: before the line is typed.
      const progressCursor = request.onProgress
        ? (await captureSince(socket, paneId, null)).cursor
        : null;
      // One paste, into this pane alone (keys sent with send-keys would reach every pane of a
      // synchronized window): C-u first, as text someone left unsent at the prompt would otherwise
      // prefix our line (line editors keep it in their kill ring; without one, the terminal's kill
      // character drops it), then the line and its Enter.
      const paste = [
        ...(define ? ["set-buffer", "-b", names.functionBuffer, "--", run.definition, THEN] : []),
        ...["set-option", "-p", "-t", paneId, RUNNING_OPTION, runningMark(names, anchor.pid), THEN],
        ...["set-buffer", "-b", names.pasteBuffer, "--", `${KILL_LINE}${typed}\r`, THEN],
        ...["paste-buffer", "-d", "-b", names.pasteBuffer, "-t", paneId],
      ];
      try {
        await runTmux(
          socket,
          inline ? paste : ["load-buffer", "-b", names.commandBuffer, "-", THEN, ...paste],
          inline ? {} : { stdin: request.command },
        );
      } catch (error) {
        await deleteUnfetched();
        await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION])
          .catch(() => {});
        throw error;
      }
      // Spawned once the line is on its way, so the shell starts meanwhile. A signal sent before
      // the waiter arrives is kept by tmux until it does.
      // With the stream, nothing is captured while the trailer holds: it is released at once.
      const streaming = tap?.alive === true;
      const call = { socket, paneId, names };
      let waiter: ChannelWait;
      try {
        // The waiting client reads the trailer as soon as the channel is signalled.
        waiter = waitChannel(socket, names.channel, {
          then: trailerCommands(call, { release: streaming }),
        });
      } catch (error) {
        addOrphan(runner, { socket, paneId, names });
        throw error;
      }
      /** Stops waiting: the child is killed and reaped, an unfetched command buffer deleted. */
      const abandon = async (): Promise<void> => {
        await waiter.kill();
        await deleteUnfetched();
      };
      const progress = progressCursor === null
        ? undefined
        : progressReporter(request, { cursor: progressCursor, typed, names, started });
      let outcome = await waitFor(waiter, request, started, progress);
      if (outcome === "timeout" && await endedAtTimeout(socket, { names, waiter })) {
        outcome = "signalled";
      }
      const collect = { socket, paneId, anchor, typed, names };
      if (outcome === "pane_gone") {
        await abandon();
        throw new TmuxError("not_found", `pane ${paneId} was closed while the command ran`);
      }
      if (outcome !== "signalled") {
        await abandon();
        addOrphan(runner, { socket, paneId, names });
        // Released ahead, so the trailer will not hold when the command ends later.
        if (outcome === "aborted") {
          await runTmux(socket, ["wait-for", "-S", names.release]).catch(() => {});
          throw new TmuxError("cancelled", "run_command was cancelled");
        }
        // Kept in the pane until collected (wait_for_command) or expired; the trailer keeps its
        // status for it. Set before the capture below releases the trailer, and before records
        // past keeping (and anything else stale) in this pane are cleared: a trailer that ended
        // just now is this run's, not one nobody collects.
        const record = encodeRecord({ anchor, typed, created: Date.now() });
        await runTmux(socket, ["set-option", "-p", "-t", paneId, names.record, record]);
        await reconcile(socket, paneId, state).catch(() => false);
        const now = await currentPosition(socket, paneId);
        const cut = await collectOutput({ ...collect, end: now, now });
        // The shell never started the line (its start marker never showed): a continuation
        // prompt or a program reading input took it. No mark of ours stays behind (the trailer,
        // should the line run later, was released above with the capture).
        const started = stream?.started || now.path === names.startMarker ||
          now.path === names.channel;
        if (started) {
          rememberFunction(runner, key, functionMark);
        } else {
          // The shell may lack the function after all (it was re-executed, say): sent again.
          runner.functions.delete(key);
          await runTmux(socket, [
            ...["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION, THEN],
            ...["set-option", "-p", "-u", "-t", paneId, names.record],
          ]).catch(() => {});
        }
        return {
          ...base,
          ...shapeOutput(cut, request.maxLines),
          exit_status: null,
          timed_out: true,
          started,
          not_started_reason: started ? null : NEVER_STARTED,
          elapsed_seconds: elapsed(),
        };
      }
      rememberFunction(runner, key, functionMark);
      const { status, end, now } = await readTrailer(call, {
        release: streaming,
        output: (await waiter.done).output,
      });
      rememberEnd(runner, key, now);
      const done = {
        ...base,
        exit_status: status,
        timed_out: false,
        started: true,
        not_started_reason: null,
      };
      // tmux has parsed the end marker (readTrailer saw it), so the watcher has it on its way.
      if (streaming && stream !== null && await stream.ended(STREAM_END_MS) && tap?.alive) {
        return { ...done, ...streamOutput(stream), elapsed_seconds: elapsed() };
      }
      const cut = await collectOutput({ ...collect, end, now, release: !streaming });
      return { ...done, ...shapeOutput(cut, request.maxLines), elapsed_seconds: elapsed() };
    } finally {
      tap?.close();
    }
  } finally {
    release();
  }
}

async function deleteBuffer(socket: TmuxSocket, name: string): Promise<void> {
  try {
    await runTmux(socket, ["delete-buffer", "-b", name]);
  } catch {
    // Already fetched and deleted by the shell, or the server is gone.
  }
}
