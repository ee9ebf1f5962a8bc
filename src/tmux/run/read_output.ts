/**
 * read_command_output: a kept run's output by line number, a page at a time, also while the run
 * goes on (what has arrived so far).
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import type { OutputBudget } from "../read/text/mod.ts";
import { mayCollect, parseRunId } from "./base/mod.ts";
import type { Runner } from "./turn/mod.ts";
import type { OutputLog, StoredRun } from "./output/mod.ts";
import { catchUp } from "./output/mod.ts";

/** One read_command_output request. */
export interface ReadRequest {
  /** As run_command or wait_for_command returned it. */
  runId: string;
  /** The first line to read, from 1; negative counts from the end (-1: the last line). */
  fromLine: number;
  /** How much a page holds. */
  budget: OutputBudget;
  /** Who asks (see owner.ts); null or absent: anyone may read any run. */
  owner?: string | null;
}

/** A page of a run's output. */
export interface RunPage {
  /** The run, as a result named it. */
  run_id: string;
  /** Whether the run has ended (false: more may come). */
  ended: boolean;
  /** Lines of output so far. */
  total_lines: number;
  /** UTF-8 bytes of them so far, a newline each. */
  total_bytes: number;
  /** The line the page starts at. */
  from_line: number;
  /** The next line to ask for, or null when the page reaches the end so far. */
  next_line: number | null;
  /** Lines asked for that were not kept (over 16 MiB a run, the middle is dropped). */
  missing: { from_line: number; to_line: number } | null;
  /** The last line of the page is still being written. */
  partial_last_line: boolean;
  /** Until when the output is kept (ISO 8601). */
  expires_at: string;
  /** The lines, each longer than half the page cut inside (it says how many bytes it lost). */
  lines: string[];
}

/** A kept run, as its owner (or anyone, when runs are shared) may read it; else not_found. */
export function keptRun(
  runner: Runner,
  request: { runId: string; owner?: string | null },
): StoredRun {
  if (parseRunId(request.runId) === null) {
    throw new TmuxError("invalid_argument", "run_id must look like 3.0123456789abcdef");
  }
  const found = runner.store.get(request.runId);
  // Another session's run is, to this one, not kept.
  if (found === undefined || !mayCollect(found.owner, request.owner ?? null)) {
    throw new TmuxError(
      "not_found",
      `run ${request.runId}'s output is not kept: its result showed all of it, it expired an ` +
        "hour after the run ended (or was dropped for newer runs' output), or this server " +
        "process did not run it",
    );
  }
  return found;
}

/** The line a read starts at: `fromLine` from 1, or negative from the end (-1: the last line). */
export function firstLine(log: OutputLog, fromLine: number): number {
  return fromLine < 0 ? Math.max(1, log.lines + 1 + fromLine) : Math.max(1, fromLine);
}

/**
 * A page of a kept run's output (a timed-out one's read from the screen up to now first);
 * not_found when the run's output is not kept.
 */
export async function readRunOutput(runner: Runner, request: ReadRequest): Promise<RunPage> {
  const stored = keptRun(runner, request);
  await catchUp(stored);
  const { log } = stored;
  const from = firstLine(log, request.fromLine);
  const page = log.read(from, request.budget);
  return {
    run_id: request.runId,
    ended: stored.ended !== null,
    total_lines: log.lines,
    total_bytes: log.bytes,
    from_line: page.from,
    next_line: page.next,
    missing: page.missing === null
      ? null
      : { from_line: page.missing.from, to_line: page.missing.to },
    partial_last_line: page.partial,
    expires_at: new Date(runner.store.expires(stored)).toISOString(),
    lines: page.lines,
  };
}
