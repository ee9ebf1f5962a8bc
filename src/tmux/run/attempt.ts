/**
 * A run_command call from the moment its pane is its turn: what its stages (runner.ts, line.ts)
 * share, and the wait they all make.
 *
 * @module
 */

import type { TmuxChild } from "../transport/spawn/exec.ts";
import type { OutputTap } from "../transport/watch/watch.ts";
import type { RunRecording } from "../record/mod.ts";
import type { Fetch, LauncherRun, RunFunction } from "./line/mod.ts";
import type { TypablePane } from "./look/mod.ts";
import type { RunContext } from "./end/mod.ts";
import type { RunOutput } from "./output/mod.ts";
import type { CallNames, RunRequest } from "./base/mod.ts";
import type { PaneCall, Runner } from "./turn/mod.ts";
import { type RunStream, type TypingOptions, waitForEnd, type WaitOutcome } from "./wait/mod.ts";
import type { InputWait } from "../read/wait/input_wait.ts";
import { abortable, ABORTED } from "../../util/mod.ts";
import { untilProgramWaits } from "../read/wait/program_turn.ts";
import { queryPane } from "../objects/target.ts";
import { RUNNING_OPTION } from "../names.ts";

/** What a call has before it types: its pane's turn, its names, the result's first fields. */
export interface Start {
  /** The server's run state. */
  runner: Runner;
  /** What the call asked. */
  request: RunRequest;
  /** The pane's key in the runner's maps. */
  key: string;
  /** The call's names (channel, markers, buffers). */
  names: CallNames;
  /** When the call started (ms since the epoch). */
  started: number;
  /** The result fields known before the run ends. */
  base: RunContext["base"];
  /** Seconds since the call started. */
  elapsed: () => number;
  /** Where the run's output is recorded too (`--record-dir`); null: nowhere. */
  recording: RunRecording | null;
}

/** The line a call types, and what goes with it. */
export interface Line {
  /** The pane, and the call's names (the command buffer a launcher's script's). */
  call: PaneCall;
  /** The line as typed. */
  typed: string;
  /**
   * The line as the screen shows it once the shell ran it: a fetching line's place is taken by
   * the call later calls type (see `FirstCall`); else as typed.
   */
  onScreen: string;
  /** The running mark the line claims the pane with. */
  mark: string;
  /** The command is typed in the line (not sent through its buffer, by its hash). */
  inline: boolean;
  /** A launched shell's run; null: a POSIX shell's. */
  launched: LauncherRun | null;
  /** The run function, set in a buffer of its own for the line to fetch; null: none. */
  fetch: Fetch | null;
  /** What goes to the call's buffer before the line is typed; null: nothing. */
  buffered: string | null;
  /** The run's record, written as the line is typed (a remote run); null: none. */
  record: string | null;
}

/** A call from the moment it types into its pane: its stages share this. */
export interface Attempt extends Start {
  /** The pane, as the call found it. */
  pane: TypablePane;
  /** The run function of the pane's socket. */
  run: RunFunction;
  /** The run function's mark for the pane's shell; null: a launcher runs the command. */
  functionMark: string | null;
  /** Where the run's lines go. */
  output: RunOutput;
  /** The run's byte stream (a new one when the line is typed again); null: none is followed. */
  stream: RunStream | null;
  /** The tap on the pane's output while the stream is followed; null: none. */
  tap: OutputTap | null;
  /** Whether the shell's line editor reads as the line is typed. */
  typing: TypingOptions;
  /** The pane's path to put back once the command ends. */
  panePath: string;
  /** `paste-buffer` flags for the pane's tmux. */
  pasteFlags: readonly string[];
  /** The line typed last; null until one is. */
  line: Line | null;
  /** The `tmux wait-for` process on the run's channel; null: none. */
  waiter: TmuxChild | null;
  /** Once the run is settled: what settling it knew. */
  context: RunContext | null;
  /**
   * The record a local run writes once its watcher fell behind (see typing.ts
   * `recordWhenBehind`): true once written. Absent: none was asked for.
   */
  lateRecord?: Promise<boolean>;
}

/** Waits for the run's end, its progress reported. */
export function waitOnce(
  attempt: Attempt,
  ending: Promise<"ended" | "stream_lost">,
  progress: (() => Promise<void>) | undefined,
): Promise<WaitOutcome> {
  return waitForEnd(ending, attempt.request, {
    started: attempt.started,
    pid: attempt.pane.anchor.pid,
    progress,
    // Followed in its session's stream, a run is watched for its pane leaving that session.
    sessionId: attempt.tap === null ? undefined : attempt.pane.state.session_id,
    asks: attempt.tap === null || attempt.stream === null || attempt.line === null
      ? undefined
      : (signal) =>
        commandAsks(attempt.request, attempt.stream!, { signal, mark: attempt.line!.mark }),
  });
}

/**
 * Resolves once the command (or a program it started) waits for terminal input, its output
 * settled: looked for from its start marker on (before it, the shell's own line editor reads);
 * null when that cannot be told, or the run ended first. The run's mark must still hold the pane:
 * a stream that no longer sees the pane (moved to another session) misses the end, and the shell
 * back at its prompt waits for input too.
 */
async function commandAsks(
  request: Pick<RunRequest, "socket" | "paneId">,
  stream: RunStream,
  options: { signal: AbortSignal; mark: string },
): Promise<InputWait | null> {
  const { socket, paneId } = request;
  const { signal } = options;
  if (await abortable(stream.whenStarted, signal) === ABORTED) return null;
  const look = await untilProgramWaits(socket, paneId, {
    signal,
    lastOutput: () => stream.lastOutput,
  });
  if (look === null || stream.done) return null;
  const pane = await queryPane(socket, paneId, [RUNNING_OPTION]).catch(() => null);
  return pane?.[RUNNING_OPTION] === options.mark ? look : null;
}
