/**
 * read_command_output's answer to a pattern, as a page: the matching lines grep-style ('N:line',
 * context 'N-line', '--' between groups), where to search on from, and the exact count.
 *
 * @module
 */

import type { OutputMatches, RunPage } from "../../tmux/mod.ts";

/** A search's matches as read_command_output's page, with the count. */
export function matchesPage(
  found: OutputMatches,
): RunPage & { match_count: number; lines_searched_in_part?: number } {
  const lines: string[] = [];
  for (const group of found.groups) {
    if (lines.length > 0) lines.push("--");
    group.lines.forEach((line, i) => {
      const n = group.from_line + i;
      lines.push(`${n}${group.match_lines.includes(n) ? ":" : "-"}${line}`);
    });
  }
  return {
    run_id: found.run_id,
    ended: found.ended,
    total_lines: found.total_lines,
    total_bytes: found.total_bytes,
    from_line: found.from_line,
    next_line: found.next_line,
    missing: found.not_kept,
    partial_last_line: false,
    expires_at: found.expires_at,
    lines,
    match_count: found.match_count,
    ...(found.lines_searched_in_part === 0
      ? {}
      : { lines_searched_in_part: found.lines_searched_in_part }),
  };
}
