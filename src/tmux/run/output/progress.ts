/**
 * Progress reports: output lines while a command runs.
 *
 * @module
 */

import { captureSince } from "../../read/capture/mod.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import type { StoredRun } from "./run_output.ts";
import { catchUp } from "./catch_up.ts";
import { outputAfter } from "../../read/text/output.ts";
import type { CallNames, RunRequest } from "../base/mod.ts";

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
    // Raw: the typed line is what output is found after.
    const since = await captureSince(request.socket, request.paneId, cursor, { raw: true });
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

/** Lines a report on a collected run carries at most (the tool keeps the last of them). */
const RESUMED_LINES = 200;

/**
 * Reports output while wait_for_command waits on a run: from the run's kept log when this server
 * follows it (complete lines no result or report has shown), else from the screen, as
 * capture_since reads it, from when the wait began.
 */
export async function resumedProgress(
  run: { socket: TmuxSocket; paneId: string; stored: StoredRun | undefined; started: number },
  onProgress: (update: { elapsed: number; lines: string[] }) => void,
): Promise<() => Promise<void>> {
  const elapsed = () => (Date.now() - run.started) / 1000;
  const { stored } = run;
  if (stored !== undefined) {
    // Lines reported and then rewritten are reported again.
    const reported = { shown: stored.shown };
    stored.log.follow(reported);
    return async () => {
      // A run no longer followed: what it wrote since is on the screen.
      await catchUp(stored);
      const page = stored.log.read(reported.shown + 1, {
        maxBytes: 16 * 1024,
        maxLines: RESUMED_LINES,
      });
      const lines = page.partial ? page.lines.slice(0, -1) : page.lines;
      reported.shown = page.from + lines.length - 1;
      onProgress({ elapsed: elapsed(), lines });
    };
  }
  let cursor = (await captureSince(run.socket, run.paneId, null)).cursor;
  return async () => {
    const since = await captureSince(run.socket, run.paneId, cursor);
    cursor = since.cursor;
    onProgress({ elapsed: elapsed(), lines: since.lines });
  };
}
