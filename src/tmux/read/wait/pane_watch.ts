/**
 * A wait on a pane that outlives the call that began it (watch_pane): for a pattern in its new
 * output, and, where asked, for its program's end (it exited, or waits for input again as the
 * kernel tells it). The call checks what it was given and returns; the wait goes on in the
 * background, bounded in time, and ends as a cancellation when its signal aborts.
 *
 * @module
 */

import { outsideCall } from "../../call_deadline.ts";
import { TmuxError } from "../../errors.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { compilePatterns, type OutputBudget } from "../text/mod.ts";
import { waitForText, type WaitOutcome } from "./wait_text.ts";

/** The longest a watch lasts, in seconds. */
export const WATCH_MAX_SECONDS = 3600;

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

/** What one watched line may show of itself. */
const LINE_BUDGET: OutputBudget = { maxBytes: 4096, maxLines: 1 };

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
  const patterns = options.pattern === null ? [] : [options.pattern];
  // A bad pattern is the caller's error, told now.
  await compilePatterns(patterns, options);
  const started = Date.now();
  const elapsed = () => Math.round((Date.now() - started) / 100) / 10;
  const ended = outsideCall(() =>
    waitForText(socket, paneId, {
      patterns,
      stopPatterns: [],
      regex: options.regex,
      caseSensitive: options.caseSensitive,
      prompt: options.programEnd,
      timeout: Math.min(options.seconds, WATCH_MAX_SECONDS),
      intervalMs: 1000,
      budget: LINE_BUDGET,
      signal: options.signal,
    })
  ).then(
    (found): PaneWatchEnd => ({
      outcome: found.outcome,
      line: found.line,
      elapsed_seconds: elapsed(),
      error: null,
    }),
    (error): PaneWatchEnd => ({
      outcome: options.signal.aborted ? "cancelled" : "failed",
      line: null,
      elapsed_seconds: elapsed(),
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  return { ended };
}
