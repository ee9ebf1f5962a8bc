/**
 * Waiting for a run's end, and reading what its trailer left.
 *
 * @module
 */

import { runTmux } from "../../transport/control/command.ts";
import { abortable, ABORTED, deadline, delay } from "../../../util/mod.ts";
import { TmuxError } from "../../errors.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import { formatOf, recordOf, splitRecords } from "../../format.ts";
import { queryPane } from "../../objects/target.ts";
import type { PaneCall } from "../turn/mod.ts";
import {
  type Current,
  CURRENT_FIELDS,
  currentPosition,
  endMarkerPrefix,
  parseCurrent,
  parseRunEnd,
  type Position,
  type RunEnd,
  type RunRequest,
} from "../base/mod.ts";

const SETTLE_TRIES = 400;
const SETTLE_STEP_MS = 5;

/**
 * The commands that read and remove the trailer's option and read the pane's position (for a
 * run whose server waited on its channel).
 */
export function trailerCommands(call: PaneCall): string[] {
  const { paneId, names } = call;
  return [
    ...["display-message", "-p", "-t", paneId, formatOf([names.option]), THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option, THEN],
    ...["display-message", "-p", "-t", paneId, formatOf(CURRENT_FIELDS)],
  ];
}

/** A trailer's option value, parsed: how the run ended, where output ended, `#{pane_path}`. */
export interface Trailer {
  /** Null: the status field was not one the trailer writes. */
  end: RunEnd | null;
  /** Where the trailer left the cursor. */
  end_position: Position;
  /** The pane's `#{pane_path}` then. */
  path: string;
}

/**
 * Reads and removes the trailer's option: how the run ended and where. The position is exact
 * when tmux had already parsed the OSC 7 end marker then; otherwise tmux is still behind on the
 * pane's output, and waiting for the marker to show up in `#{pane_path}` gives the end.
 */
export async function readTrailer(call: PaneCall): Promise<{ trailer: Trailer; now: Current }> {
  const { socket, paneId, names } = call;
  const { records } = splitRecords(await runTmux(socket, trailerCommands(call)));
  const value = records[0]?.[0] ?? "";
  const trailer = parseTrailerValue(value);
  let now = parseCurrent(recordOf(records[1] ?? [], CURRENT_FIELDS));
  if (trailer === null) {
    throw new TmuxError("tmux_error", `unexpected trailer value ${JSON.stringify(value)}`);
  }
  const marker = endMarkerPrefix(names);
  if (trailer.path.startsWith(marker)) return { trailer, now };
  for (let i = 0; i < SETTLE_TRIES && !now.path.startsWith(marker); i++) {
    await delay(SETTLE_STEP_MS);
    now = await currentPosition(socket, paneId);
  }
  return { trailer: { ...trailer, end_position: now }, now };
}

/** The largest history and screen numbers a trailer can report (tmux's are ints). */
const POSITION_MAX = 2 ** 31;

/**
 * A trailer's option value (`status:history_size:cursor_y:cursor_x:pane_path`), checked: numbers
 * within tmux's ranges; null when it is not one a trailer writes (a program in the pane can
 * rewrite the option).
 */
export function parseTrailerValue(value: string): Trailer | null {
  const match = value.match(/^([0-9a-z]{1,4}):(\d{1,10}):(\d{1,10}):(\d{1,10}):(.*)$/s);
  if (!match) return null;
  const numbers = [match[2], match[3], match[4]].map(Number);
  if (numbers.some((n) => n >= POSITION_MAX)) return null;
  return {
    end: parseRunEnd(match[1]),
    end_position: { history: numbers[0], y: numbers[1], x: numbers[2] },
    path: match[5],
  };
}

/** How a wait for a run's end ended. */
export type WaitOutcome =
  | "ended"
  | "timeout"
  | "aborted"
  | "pane_gone"
  | "shell_gone"
  | "stream_lost"
  | "pane_moved"
  | "waiting_input";

/** How often a waiting call checks that its pane and its shell are still there. */
const PANE_CHECK_MS = 500;

/** Options for {@linkcode waitForEnd}. */
export interface WaitForEndOptions {
  /** When the call started (ms since the epoch): the timeout counts from there. */
  started: number;
  /** The pane process the command was typed into: another one means the pane was respawned. */
  pid: number;
  /** Called at every pane check: progress reports for the caller. */
  progress?: () => Promise<void>;
  /**
   * The session whose byte stream the run is followed in: a pane moved out of it (its output
   * then reaches that stream no more) ends the wait as `pane_moved`.
   */
  sessionId?: string;
  /**
   * Resolves once the command waits for terminal input (see read/program_turn.ts), null when
   * that cannot be told; ends the wait as `waiting_input`. Given the wait's own signal.
   */
  asks?: (signal: AbortSignal) => Promise<unknown | null>;
}

/**
 * Waits for `ended` (the run's end, or the loss of what reports it) until the timeout passes, the
 * call is cancelled, or the pane goes away or gets another process (checked every
 * {@linkcode PANE_CHECK_MS}: a closed pane, or a replaced shell, never reports an end), or
 * the command waits for input (`asks`).
 */
export async function waitForEnd(
  ended: Promise<"ended" | "stream_lost">,
  request: Pick<RunRequest, "socket" | "paneId" | "timeout" | "signal">,
  options: WaitForEndOptions,
): Promise<WaitOutcome> {
  let check: ReturnType<typeof setInterval> | undefined;
  const gone = new Promise<"pane_gone" | "shell_gone" | "pane_moved">((resolve) => {
    let busy = false;
    check = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const state = await queryPane(request.socket, request.paneId, [
          "pane_pid",
          "pane_dead",
          "session_id",
        ]);
        if (state.pane_dead === "1" || state.pane_pid !== String(options.pid)) {
          resolve("shell_gone");
        }
        if (options.sessionId !== undefined && state.session_id !== options.sessionId) {
          resolve("pane_moved");
        }
        await options.progress?.();
      } catch (error) {
        if (error instanceof TmuxError && error.code === "not_found") resolve("pane_gone");
      } finally {
        busy = false;
      }
    }, PANE_CHECK_MS);
  });
  using limit = deadline(options.started + request.timeout * 1000 - Date.now(), request.signal);
  const stopAsking = new AbortController();
  const asking = options.asks?.(AbortSignal.any([limit.signal, stopAsking.signal]));
  // A look that finds no question says nothing: the race goes on without it. Its silence is the
  // call's own promise: one shared by every call would keep each race's reaction, and the call.
  const asked = asking?.then((look) => look === null ? silent() : "waiting_input" as const);
  try {
    const sides = asked === undefined ? [ended, gone] : [ended, gone, asked];
    const outcome = await abortable(Promise.race(sides), limit.signal);
    if (outcome === ABORTED) return request.signal?.aborted ? "aborted" : "timeout";
    return outcome;
  } finally {
    clearInterval(check);
    stopAsking.abort();
    await asking?.catch(() => null);
  }
}

/** A promise that never settles, made for one race (gone with it): a side with nothing to say. */
function silent(): Promise<never> {
  return new Promise(() => {});
}

/** What a `tmux wait-for` child reports, as {@linkcode waitForEnd} takes it. */
export async function channelEnd(
  done: Promise<{ success: boolean; stderr: string }>,
): Promise<"ended"> {
  const result = await done;
  // wait-for only fails when the server went away.
  if (!result.success) {
    throw new TmuxError(
      "tmux_unavailable",
      `tmux server went away while waiting: ${result.stderr.trim() || "wait-for failed"}`,
    );
  }
  return "ended";
}
