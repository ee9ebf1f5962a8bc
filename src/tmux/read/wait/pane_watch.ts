/**
 * A wait on a pane that outlives the call that began it (watch_pane): for a pattern in its new
 * output, and, where asked, for its program's end (it exited, or waits for input again as the
 * kernel tells it). The call checks what it was given and returns; the wait goes on in the
 * background, bounded in time, and ends as a cancellation when its signal aborts.
 *
 * Between calls nothing follows the pane's output: tmux before 3.8 crashes when a person respawns
 * a pane whose output a control client has not caught up with, and a watch lasts up to an hour.
 * So a watch looks: one tmux command tells whether the pane changed (its window's activity, its
 * cursor and history); only then is its new text read, and the kernel asked whether the program
 * waits. A quiet pane is looked at less and less often (from 1 s to 30 s apart).
 *
 * @module
 */

import { abortable, ABORTED, delay } from "../../../util/mod.ts";
import { outsideCall } from "../../call_deadline.ts";
import { TmuxError } from "../../errors.ts";
import { classifyProcess } from "../../shells.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { captureSince } from "../capture/mod.ts";
import { compilePatterns, knownPrompt, MatchClock, type SourcePattern } from "../text/mod.ts";
import { type PaneChange, paneChange } from "./pane_change.ts";
import { programWaitsNow } from "./program_turn.ts";
import { firstMatch, type WaitOutcome } from "./wait_text.ts";

/** The longest a watch lasts, in seconds. */
export const WATCH_MAX_SECONDS = 3600;

/** The first pause between looks, and after the pane changed. */
export const WATCH_LOOK_MIN_MS = 1000;

/** The longest pause between looks at a quiet pane. */
export const WATCH_LOOK_MAX_MS = 30_000;

/** Options for {@linkcode watchPane}. */
export interface PaneWatchOptions {
  /** The text (or RE2 expression) to watch for; null: only the program's end. */
  pattern: string | null;
  /** Read the pattern as an RE2 regular expression. */
  regex: boolean;
  /** Match case exactly. */
  caseSensitive: boolean;
  /** End too when the program exits, or waits for input again. */
  programEnd: boolean;
  /** How long to watch, in seconds (at most {@linkcode WATCH_MAX_SECONDS}). */
  seconds: number;
  /** Ends the watch (its session closed). */
  signal: AbortSignal;
}

/** How a watch ended. */
export interface PaneWatchEnd {
  /** matched, prompt (the program waits for input), exited, timeout, or cancelled. */
  outcome: WaitOutcome | "cancelled" | "failed";
  /** The line that matched. */
  line: string | null;
  /** Seconds it lasted. */
  elapsed_seconds: number;
  /** Why it failed (the pane closed, tmux went away...), else null. */
  error: string | null;
}

/** The longest line a watch reports, in characters. */
const LINE_MAX = 4096;

/**
 * Checks the watch's pattern, then watches the pane in the background; the promise it returns
 * resolves once the watch is under way, with the watch's end to come.
 */
export async function watchPane(
  socket: TmuxSocket,
  paneId: string,
  options: PaneWatchOptions,
): Promise<{ ended: Promise<PaneWatchEnd> }> {
  if (options.pattern === null && !options.programEnd) {
    throw new TmuxError("invalid_argument", "give a pattern, or program_end: true");
  }
  const flags = { regex: options.regex, caseSensitive: options.caseSensitive };
  // A bad pattern is the caller's error, told now.
  const patterns = await compilePatterns(options.pattern === null ? [] : [options.pattern], flags);
  const started = Date.now();
  const elapsed = () => Math.round((Date.now() - started) / 100) / 10;
  const ended = outsideCall(() => looks(socket, paneId, { ...options, patterns })).then(
    (found): PaneWatchEnd => ({ ...found, elapsed_seconds: elapsed(), error: null }),
    (error): PaneWatchEnd => ({
      outcome: options.signal.aborted ? "cancelled" : "failed",
      line: null,
      elapsed_seconds: elapsed(),
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  return { ended };
}

/** How the looks ended. */
type Found = { outcome: WaitOutcome; line: string | null };

/** Looks at the pane until the watch's end, its pause growing while the pane stays quiet. */
async function looks(
  socket: TmuxSocket,
  paneId: string,
  options: PaneWatchOptions & { patterns: SourcePattern[] },
): Promise<Found> {
  const { signal, programEnd } = options;
  const until = Date.now() + Math.min(options.seconds, WATCH_MAX_SECONDS) * 1000;
  const clock = new MatchClock();
  let change: PaneChange;
  try {
    change = await paneChange(socket, paneId, null);
  } catch (error) {
    return gone(error);
  }
  // The program that has the pane: a watch for its end ends when another has it (a shell's
  // end is the pane's).
  const program = classifyProcess(change.command) === "other" ? change.command : null;
  let cursor = (await captureSince(socket, paneId, null)).cursor;
  let row = "";
  let pause = WATCH_LOOK_MIN_MS;
  // Whether the program's turn is to be looked at once the pane is quiet: at first, then after
  // each change.
  let turnDue = programEnd;
  let quiet = true;
  while (true) {
    if (turnDue && quiet) {
      turnDue = false;
      const turn = await programWaitsNow(socket, paneId);
      if (turn === "waiting") return { outcome: "prompt", line: null };
      if (turn === "untold" && knownPrompt(row) !== null) return { outcome: "prompt", line: null };
    }
    const left = until - Date.now();
    if (left <= 0) return { outcome: "timeout", line: null };
    if (await abortable(delay(Math.min(pause, left)), signal) === ABORTED) {
      throw new TmuxError("cancelled", "the watch was cancelled");
    }
    try {
      change = await paneChange(socket, paneId, change);
    } catch (error) {
      return gone(error);
    }
    if (change.dead || programEnd && program !== null && change.command !== program) {
      return { outcome: "exited", line: null };
    }
    quiet = !change.moved && !change.active;
    if (!quiet) {
      // The window had output: this pane's text tells whether it was this pane's.
      const since = await captureSince(socket, paneId, cursor);
      cursor = since.cursor;
      quiet = !change.moved && since.lines.length === 0 && since.current_line === row;
      row = since.current_line;
      const lines = row === "" ? since.lines : [...since.lines, row];
      const match = await firstMatch(lines, { stops: [], wanted: options.patterns, clock });
      if (match !== null) {
        return { outcome: "matched", line: [...match.line].slice(0, LINE_MAX).join("") };
      }
    }
    if (quiet) {
      pause = Math.min(pause * 2, WATCH_LOOK_MAX_MS);
      continue;
    }
    pause = WATCH_LOOK_MIN_MS;
    turnDue = programEnd;
  }
}

/** A pane that closed as its program ended: the watch's end, else the error it is. */
function gone(error: unknown): Found {
  if (error instanceof TmuxError && error.code === "not_found") {
    return { outcome: "exited", line: null };
  }
  throw error;
}
