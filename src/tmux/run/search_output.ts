/**
 * read_command_output's search: the lines of a kept run's output that match a pattern (literal,
 * or RE2: linear time), each with a few lines around it, within the output budget; the matches
 * are counted exactly to the end of the output so far, shown or not.
 *
 * @module
 */

import { cutLine, lineBytes, type OutputBudget } from "../read/excerpt.ts";
import { MatchClock } from "../read/match_clock.ts";
import { compilePatterns } from "../read/wait_text.ts";
import { firstLine, keptRun } from "./read_output.ts";
import type { Runner } from "./state.ts";

/** One search of a run's output. */
export interface SearchOutputRequest {
  /** As run_command or wait_for_command returned it. */
  runId: string;
  /** What a line must hold. */
  pattern: string;
  /** The pattern is an RE2 regular expression (else literal text). */
  regex: boolean;
  /** Match case exactly. */
  caseSensitive: boolean;
  /** Lines shown before and after each match. */
  context: number;
  /** The first line searched, from 1; negative counts from the end. */
  fromLine: number;
  /** How much the shown lines hold. */
  budget: OutputBudget;
  /** Who asks (see owner.ts); null or absent: anyone may read any run. */
  owner?: string | null;
}

/** Matches shown together: consecutive lines, some of them matches. */
export interface MatchGroup {
  /** The line number of the first of `lines`. */
  from_line: number;
  /** The lines, each longer than half the budget cut inside. */
  lines: string[];
  /** The line numbers among them that match. */
  match_lines: number[];
}

/** What a search found. */
export interface OutputMatches {
  /** The run. */
  run_id: string;
  /** Whether the run has ended (false: more may come). */
  ended: boolean;
  /** Lines of output so far. */
  total_lines: number;
  /** UTF-8 bytes of them so far, a newline each. */
  total_bytes: number;
  /** Until when the output is kept (ISO 8601). */
  expires_at: string;
  /** The first line searched. */
  from_line: number;
  /** Matches from the first line searched to the end so far, shown or not. */
  match_count: number;
  /** The matches shown, with their context, in order. */
  groups: MatchGroup[];
  /** The first match not shown (the budget was full), to search from next; else null. */
  next_line: number | null;
  /** Lines not searched: not kept (the middle of a long output was dropped); null: none. */
  not_kept: { from_line: number; to_line: number } | null;
  /** Lines over 2 MiB, searched only in their first and last MiB. */
  lines_searched_in_part: number;
}

/** Lines longer than twice this are searched in their ends only, this much of each. */
const SEARCH_LINE_MAX = 1024 * 1024;

/** Searches a kept run's output; not_found when it is not kept. */
export async function searchRunOutput(
  runner: Runner,
  request: SearchOutputRequest,
): Promise<OutputMatches> {
  const stored = keptRun(runner, request);
  const [test] = await compilePatterns([request.pattern], request);
  const { log } = stored;
  const { budget, context } = request;
  const lineMax = Math.floor(budget.maxBytes / 2);
  const found: OutputMatches = {
    run_id: request.runId,
    ended: stored.ended !== null,
    total_lines: log.lines,
    total_bytes: log.bytes,
    expires_at: new Date(runner.store.expires(stored)).toISOString(),
    from_line: firstLine(log, request.fromLine),
    match_count: 0,
    groups: [],
    next_line: null,
    not_kept: null,
    lines_searched_in_part: 0,
  };
  let shownLines = 0;
  let shownBytes = 0;
  let full = false;
  /** The lines before the current one, for a match's context. */
  const before: Array<[number, string]> = [];
  /** Lines still to show after the last match shown. */
  let after = 0;
  let group: MatchGroup | null = null;
  /** Shows lines (numbered, a match among them or not) if all of them fit in the budget. */
  const show = (lines: Array<[number, string]>, match: number | null): boolean => {
    const cut = lines.map(([n, text]): [number, string] => [n, cutLine(text, lineMax).line]);
    const size = cut.reduce((sum, [, line]) => sum + lineBytes(line), 0);
    if (shownLines + cut.length > budget.maxLines || shownBytes + size > budget.maxBytes) {
      return false;
    }
    shownLines += cut.length;
    shownBytes += size;
    for (const [n, line] of cut) {
      if (group === null || group.from_line + group.lines.length !== n) {
        group = { from_line: n, lines: [], match_lines: [] };
        found.groups.push(group);
      }
      group.lines.push(line);
      if (n === match) group.match_lines.push(n);
    }
    return true;
  };
  const clock = new MatchClock();
  let n = found.from_line;
  for (const entry of log.entries(n, SEARCH_LINE_MAX)) {
    if (clock.due()) await clock.pause();
    if (typeof entry === "object" && "skipped" in entry) {
      found.not_kept = { from_line: n, to_line: n + entry.skipped.lines - 1 };
      n += entry.skipped.lines;
      before.length = 0;
      after = 0;
      continue;
    }
    const text = typeof entry === "string" ? entry : `${entry.head}…${entry.tail}`;
    // Its ends overlap, and cover it whole, up to twice their size.
    if (typeof entry !== "string" && entry.bytes > 2 * SEARCH_LINE_MAX) {
      found.lines_searched_in_part++;
    }
    const match = typeof entry === "string"
      ? test.test(text)
      : test.test(entry.head) || test.test(entry.tail);
    if (match) {
      found.match_count++;
      if (!full && !show([...before, [n, text]], n)) {
        full = true;
        found.next_line = n;
      }
      before.length = 0;
      after = context;
    } else if (!full && after > 0) {
      after--;
      if (!show([[n, text]], null)) full = true;
    } else if (!full && context > 0) {
      before.push([n, text]);
      if (before.length > context) before.shift();
    }
    n++;
  }
  return found;
}
