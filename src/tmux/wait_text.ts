/**
 * Waiting for text to appear in a pane: only output that is new since the wait began counts.
 *
 * @module
 */

import { captureSince } from "./capture.ts";
import { TmuxError } from "./errors.ts";
import type { TmuxSocket } from "./exec.ts";

/** Options for {@linkcode waitForText}. */
export interface WaitTextOptions {
  patterns: string[];
  /** Patterns that end the wait early as "stopped" (e.g. an error message). */
  stopPatterns: string[];
  regex: boolean;
  caseSensitive: boolean;
  /** Seconds, already clamped. */
  timeout: number;
  /** How often the pane is read, in milliseconds. */
  intervalMs: number;
  signal?: AbortSignal;
  /** Count output since this capture_since cursor (e.g. from send_keys) instead of since now. */
  cursor?: string | null;
  /** Called about once a second with the seconds waited so far. */
  onProgress?: (elapsed: number) => void;
}

/** How a wait ended. */
export interface WaitTextResult {
  outcome: "matched" | "stopped" | "timeout" | "alternate_screen";
  pattern: string | null;
  line: string | null;
  elapsed_seconds: number;
  effective_timeout: number;
  lines_missed: boolean;
}

/** Compiles patterns into line tests; a bad regular expression is an invalid_argument. */
export function compilePatterns(
  patterns: string[],
  options: { regex: boolean; caseSensitive: boolean },
): Array<{ source: string; test: (line: string) => boolean }> {
  return patterns.map((source) => {
    if (options.regex) {
      let re: RegExp;
      try {
        re = new RegExp(source, options.caseSensitive ? "" : "i");
      } catch (error) {
        throw new TmuxError(
          "invalid_argument",
          `bad regular expression ${JSON.stringify(source)}: ${(error as Error).message}`,
        );
      }
      return { source, test: (line: string) => re.test(line) };
    }
    const needle = options.caseSensitive ? source : source.toLowerCase();
    return {
      source,
      test: (line: string) => (options.caseSensitive ? line : line.toLowerCase()).includes(needle),
    };
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Waits until a pattern shows up in new output, a stop pattern does, or the timeout passes. */
export async function waitForText(
  socket: TmuxSocket,
  paneId: string,
  options: WaitTextOptions,
): Promise<WaitTextResult> {
  const started = Date.now();
  const flags = { regex: options.regex, caseSensitive: options.caseSensitive };
  const wanted = compilePatterns(options.patterns, flags);
  const stops = compilePatterns(options.stopPatterns, flags);
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const end = (
    outcome: WaitTextResult["outcome"],
    pattern: string | null,
    line: string | null,
    missed: boolean,
  ): WaitTextResult => ({
    outcome,
    pattern,
    line,
    elapsed_seconds: elapsed(),
    effective_timeout: options.timeout,
    lines_missed: missed,
  });
  const from = options.cursor ?? null;
  let since = await captureSince(socket, paneId, from);
  // Without a cursor, what the cursor row shows now is old; with one, all of it is new.
  const initialLine = from === null ? since.current_line : null;
  let missed = false;
  let lastProgress = 0;
  while (true) {
    if (options.signal?.aborted) throw new TmuxError("cancelled", "wait_for_text was cancelled");
    const fresh = [...since.lines];
    // The row under the cursor counts once it differs from what it showed when the wait began.
    if (since.lines.length > 0 || since.current_line !== initialLine) {
      fresh.push(since.current_line);
    }
    for (const line of fresh) {
      const stop = stops.find((p) => p.test(line));
      if (stop) return end("stopped", stop.source, line, missed);
      const hit = wanted.find((p) => p.test(line));
      if (hit) return end("matched", hit.source, line, missed);
    }
    if (since.alternate_on) return end("alternate_screen", null, null, missed);
    const waited = Date.now() - started;
    if (waited >= options.timeout * 1000) return end("timeout", null, null, missed);
    if (options.onProgress && waited - lastProgress >= 1000) {
      lastProgress = waited;
      options.onProgress(waited / 1000);
    }
    await sleep(Math.min(options.intervalMs, options.timeout * 1000 - waited), options.signal);
    const cursor = since.cursor;
    since = await captureSince(socket, paneId, cursor);
    missed ||= since.lines_missed;
  }
}
