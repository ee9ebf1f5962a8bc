/**
 * Waiting for text to appear in a pane: only output that is new since the wait began counts.
 *
 * @module
 */

import { captureSince } from "./capture.ts";
import { type Excerpt, ExcerptBuilder, type OutputBudget } from "./excerpt.ts";
import { compileUserRegex } from "./regex.ts";
import { queryPane } from "./target.ts";
import { watchOutput } from "./transport/watch.ts";
import { MatchClock } from "./match_clock.ts";
import { TmuxError } from "./errors.ts";
import type { TmuxSocket } from "./transport/socket.ts";

/** Options for {@linkcode waitForText}. */
export interface WaitTextOptions {
  /** What to wait for: any one of them ends the wait as "matched". */
  patterns: string[];
  /** Patterns that end the wait early as "stopped" (e.g. an error message). */
  stopPatterns: string[];
  /** Read the patterns as RE2 regular expressions. */
  regex: boolean;
  /** Match case exactly. */
  caseSensitive: boolean;
  /** Seconds, already clamped. */
  timeout: number;
  /** How often the pane is read when it reports no output, in milliseconds. */
  intervalMs: number;
  /** Cancels the wait. */
  signal?: AbortSignal;
  /** Count output since this capture_since cursor (e.g. from send_keys) instead of since now. */
  cursor?: string | null;
  /** With no cursor: the one made as text was last typed into the pane (its late echo is old). */
  echoFrom?: string | null;
  /** How much of the new output the result shows. */
  budget: OutputBudget;
  /** Called about once a second with the seconds waited so far. */
  onProgress?: (elapsed: number) => void;
}

/** How a wait ended. */
export interface WaitTextResult {
  /** How the wait ended. */
  outcome: "matched" | "stopped" | "timeout" | "alternate_screen";
  /** The pattern that matched or stopped it. */
  pattern: string | null;
  /** The line it matched. */
  line: string | null;
  /** Seconds spent waiting. */
  elapsed_seconds: number;
  /** The timeout enforced, in seconds. */
  effective_timeout: number;
  /** tmux's history dropped lines before they were read. */
  lines_missed: boolean;
  /** The new output read, up to the row the wait ended on (which may still be written). */
  output: Excerpt;
  /** A capture_since cursor after the last complete line read. */
  cursor: string;
}

/** Compiles patterns into line tests; a bad regular expression is an invalid_argument. */
export async function compilePatterns(
  patterns: string[],
  options: { regex: boolean; caseSensitive: boolean },
): Promise<Array<{ source: string; test: (line: string) => boolean }>> {
  return await Promise.all(patterns.map(async (source) => {
    if (options.regex) {
      const re = await compileUserRegex(source, options);
      return { source, test: (line: string) => re.test(line) };
    }
    const needle = options.caseSensitive ? source : source.toLowerCase();
    return {
      source,
      test: (line: string) => (options.caseSensitive ? line : line.toLowerCase()).includes(needle),
    };
  }));
}

/** Wakes a paused wait; a wake that comes while not paused is kept for the next pause. */
class Alarm {
  #wake: (() => void) | null = null;
  #pending = false;

  /** Wakes the current (or the next) pause. */
  ring(): void {
    if (this.#wake) this.#wake();
    else this.#pending = true;
  }

  /** Resolves after `ms`, or as soon as rung or aborted. */
  pause(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = null;
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/**
 * Waits until a pattern shows up in new output, a stop pattern does, or the timeout passes. The
 * pane is read again whenever it reports output (see watch.ts), and every `intervalMs` anyway.
 */
export async function waitForText(
  socket: TmuxSocket,
  paneId: string,
  options: WaitTextOptions,
): Promise<WaitTextResult> {
  const started = Date.now();
  const flags = { regex: options.regex, caseSensitive: options.caseSensitive };
  const wanted = await compilePatterns(options.patterns, flags);
  const stops = await compilePatterns(options.stopPatterns, flags);
  const output = new ExcerptBuilder(options.budget);
  const alarm = new Alarm();
  const clock = new MatchClock();
  const { session_id: sessionId } = await queryPane(socket, paneId, ["session_id"]);
  const unwatch = await watchOutput(socket, { sessionId, paneId }, () => alarm.ring());
  try {
    let since = await captureSince(socket, paneId, options.cursor ?? null, {
      echoFrom: options.echoFrom,
    });
    let missed = since.lines_missed;
    // Without a cursor, what the cursor's row shows now is old.
    let current = options.cursor == null ? "" : since.current_line;
    const end = (
      outcome: WaitTextResult["outcome"],
      match: { source: string; line: string } | null = null,
    ): WaitTextResult => ({
      outcome,
      pattern: match?.source ?? null,
      line: match?.line ?? null,
      elapsed_seconds: Math.round(Date.now() - started) / 1000,
      effective_timeout: options.timeout,
      lines_missed: missed,
      output: output.finish(current === "" ? undefined : current),
      cursor: since.cursor,
    });
    let lastProgress = 0;
    while (true) {
      if (options.signal?.aborted) throw new TmuxError("cancelled", "wait_for_text was cancelled");
      let match: { outcome: "matched" | "stopped"; source: string; line: string } | null = null;
      // The row under the cursor counts once it shows something new.
      clock.start();
      for (const line of current === "" ? since.lines : [...since.lines, current]) {
        if (clock.due()) await clock.pause();
        const stop = stops.find((p) => p.test(line));
        const hit = stop ?? wanted.find((p) => p.test(line));
        if (hit) {
          match = { outcome: stop ? "stopped" : "matched", source: hit.source, line };
          break;
        }
      }
      for (const line of since.lines) output.push(line);
      if (match) return end(match.outcome, match);
      if (since.alternate_on) return end("alternate_screen");
      const waited = Date.now() - started;
      if (waited >= options.timeout * 1000) return end("timeout");
      if (options.onProgress && waited - lastProgress >= 1000) {
        lastProgress = waited;
        options.onProgress(waited / 1000);
      }
      await alarm.pause(
        Math.min(options.intervalMs, options.timeout * 1000 - waited),
        options.signal,
      );
      since = await captureSince(socket, paneId, since.cursor);
      missed ||= since.lines_missed;
      current = since.current_line;
    }
  } finally {
    unwatch();
  }
}
