/**
 * Searching panes for a literal text or an RE2 regular expression, pane by pane, top to bottom.
 *
 * @module
 */

import type { TmuxSocket } from "../../transport/socket.ts";
import { capturePane } from "../capture/mod.ts";
import { listPanes, type PaneFilter } from "../../objects/objects.ts";
import { compilePatterns, MatchClock } from "../text/mod.ts";

/** Options for {@linkcode searchPanes}. */
export interface SearchOptions extends PaneFilter {
  /** Read the pattern as an RE2 regular expression. */
  regex: boolean;
  /** Match case exactly. */
  caseSensitive: boolean;
  /** Search the scrollback too. */
  includeHistory: boolean;
  /** Stop after this many matches. */
  maxMatches: number;
}

/** One matching line. */
export interface SearchMatch {
  /** The pane. */
  pane_id: string;
  /** The row: 0 is the top of the screen, negative is history. */
  row: number;
  /** The matching line (at most {@linkcode MATCH_CHARS} characters). */
  line: string;
}

/** A matching line is cut to this many characters. */
export const MATCH_CHARS = 2000;

/** What {@linkcode searchPanes} found. */
export interface SearchResult {
  /** The matches, pane by pane, top to bottom. */
  matches: SearchMatch[];
  /** maxMatches was reached: there may be more. */
  truncated: boolean;
  /** How many panes were searched. */
  panes_searched: number;
}

/** Finds a pattern in the panes the filter keeps. */
export async function searchPanes(
  socket: TmuxSocket,
  pattern: string,
  options: SearchOptions,
): Promise<SearchResult> {
  const [test] = await compilePatterns([pattern], options);
  const panes = await listPanes(socket, options);
  const matches: SearchMatch[] = [];
  const clock = new MatchClock();
  for (const pane of panes) {
    const start = options.includeHistory ? -pane.history_size : 0;
    const lines = await capturePane(socket, pane.pane_id, { start, end: null, join: false });
    clock.start();
    for (let i = 0; i < lines.length; i++) {
      if (clock.due()) await clock.pause();
      if (!clock.test(test, lines[i])) continue;
      if (matches.length >= options.maxMatches) {
        return { matches, truncated: true, panes_searched: panes.length };
      }
      matches.push({ pane_id: pane.pane_id, row: start + i, line: lines[i].slice(0, MATCH_CHARS) });
    }
  }
  return { matches, truncated: false, panes_searched: panes.length };
}
