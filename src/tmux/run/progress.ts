/**
 * Progress reports: output lines while a command runs.
 *
 * @module
 */

import { captureSince } from "../capture.ts";
import { outputAfter } from "../output.ts";
import type { CallNames } from "./shell.ts";
import type { RunRequest } from "./types.ts";

/** Lines looked through for the typed line before progress reports give up on finding it. */
const PROGRESS_SEARCH_LINES = 1000;

/**
 * Reports output while a command runs: complete lines since the last report, read the way
 * capture_since reads them (so none is repeated or skipped), from the typed line on. Throws
 * not_found when the pane is gone.
 */
export function progressReporter(
  request: RunRequest,
  call: { cursor: string; typed: string; names: CallNames; started: number },
): () => Promise<void> {
  let cursor = call.cursor;
  // Lines read before the typed line showed up; null once it has.
  let before: string[] | null = [];
  return async () => {
    const since = await captureSince(request.socket, request.paneId, cursor);
    cursor = since.cursor;
    let lines = since.lines;
    if (before !== null) {
      before = before.concat(lines);
      const after = outputAfter(before, call.typed, call.names.channel);
      lines = after ?? [];
      if (after !== null || before.length > PROGRESS_SEARCH_LINES) before = null;
    }
    request.onProgress?.({ elapsed: (Date.now() - call.started) / 1000, lines });
  };
}
