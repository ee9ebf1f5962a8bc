/**
 * read_command_output's search: the lines of a kept run's output that match a pattern (literal,
 * or RE2: linear time), each with a few lines around it, within the output budget; the matches
 * are counted exactly to the end of the output so far, shown or not.
 *
 * @module
 */

import { catchUp } from "./output/mod.ts";
import { cutLine, lineBytes, type OutputBudget } from "../read/text/mod.ts";
import { MatchClock } from "../read/text/match_clock.ts";
import { compilePatterns } from "../read/text/mod.ts";
import { firstLine, keptRun } from "./read_output.ts";
import type { Runner } from "./turn/mod.ts";

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

/** The groups of numbered lines a search shows, within its budget. */
class ShownGroups {
  readonly #groups: MatchGroup[];
  readonly #budget: OutputBudget;
  #lines = 0;
  #bytes = 0;
  #group: MatchGroup | null = null;

  constructor(groups: MatchGroup[], budget: OutputBudget) {
    this.#groups = groups;
    this.#budget = budget;
  }

  /**
   * Shows lines (numbered; `match` the number of the match among them, or null) if all of them
   * fit in the budget, each cut inside past half of it; false when they do not.
   */
  add(lines: Array<[number, string]>, match: number | null): boolean {
    const lineMax = Math.floor(this.#budget.maxBytes / 2);
    const cut = lines.map(([n, text]): [number, string] => [n, cutLine(text, lineMax).line]);
    const size = cut.reduce((sum, [, line]) => sum + lineBytes(line), 0);
    if (
      this.#lines + cut.length > this.#budget.maxLines || this.#bytes + size > this.#budget.maxBytes
    ) {
      return false;
    }
    this.#lines += cut.length;
    this.#bytes += size;
    for (const [n, line] of cut) {
      let group = this.#group;
      if (group === null || group.from_line + group.lines.length !== n) {
        group = this.#group = { from_line: n, lines: [], match_lines: [] };
        this.#groups.push(group);
      }
      group.lines.push(line);
      if (n === match) group.match_lines.push(n);
    }
    return true;
  }
}

/** Searches a kept run's output; not_found when it is not kept. */
export async function searchRunOutput(
  runner: Runner,
  request: SearchOutputRequest,
): Promise<OutputMatches> {
  const stored = keptRun(runner, request);
  const [test] = await compilePatterns([request.pattern], request);
  await catchUp(stored);
  const { log } = stored;
  const { budget, context } = request;
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
  const shown = new ShownGroups(found.groups, budget);
  let full = false;
  /** The lines before the current one, for a match's context. */
  const before: Array<[number, string]> = [];
  /** Lines still to show after the last match shown. */
  let after = 0;
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
      ? clock.test(test, text)
      : clock.test(test, entry.head) || clock.test(test, entry.tail);
    if (match) {
      found.match_count++;
      if (!full && !shown.add([...before, [n, text]], n)) {
        full = true;
        found.next_line = n;
      }
      before.length = 0;
      after = context;
    } else if (!full && after > 0) {
      after--;
      if (!shown.add([[n, text]], null)) full = true;
    } else if (!full && context > 0) {
      before.push([n, text]);
      if (before.length > context) before.shift();
    }
    n++;
  }
  return found;
}
