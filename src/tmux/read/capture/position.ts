/**
 * Where a pane's cursor stands in its history, and how tmux trims that history: shared by the
 * run machinery and capture_since, which both count rows from the top of history.
 *
 * @module
 */

import type { TmuxSocket } from "../../transport/socket.ts";
import { intField } from "../../format.ts";
import { queryPane } from "../../objects/target.ts";

/** The format fields {@linkcode parsePosition} reads. */
export const POSITION_FIELDS = [
  "pane_pid",
  "history_size",
  "history_limit",
  "cursor_x",
  "cursor_y",
  "pane_width",
  "pane_height",
  "alternate_on",
  "alternate_saved_y",
] as const;

/** A pane's cursor and history: rows of history above the screen, the cursor on the screen. */
export interface PanePosition {
  /** The pane's process. */
  pid: number;
  /** Rows of history above the screen. */
  history: number;
  /** The pane's history-limit. */
  limit: number;
  /** The cursor's column. */
  x: number;
  /** The cursor's row on the screen. */
  y: number;
  /** The pane's width in cells. */
  width: number;
  /** The pane's height in rows. */
  height: number;
  /** Whether the alternate screen is on. */
  alternate: boolean;
  /** On the alternate screen, the normal screen's cursor row, where it comes back; else null. */
  savedY: number | null;
}

/** Parses the {@linkcode POSITION_FIELDS} of a record. */
export function parsePosition(
  record: Record<(typeof POSITION_FIELDS)[number], string>,
): PanePosition {
  return {
    pid: intField(record.pane_pid, "pane_pid"),
    history: intField(record.history_size, "history_size"),
    limit: intField(record.history_limit, "history_limit"),
    x: intField(record.cursor_x, "cursor_x"),
    y: intField(record.cursor_y, "cursor_y"),
    width: intField(record.pane_width, "pane_width"),
    height: intField(record.pane_height, "pane_height"),
    alternate: record.alternate_on === "1",
    savedY: record.alternate_on === "1" && /^\d{1,5}$/.test(record.alternate_saved_y)
      ? Number(record.alternate_saved_y)
      : null,
  };
}

/** Asks tmux where a pane's cursor is. */
export async function queryPosition(socket: TmuxSocket, paneId: string): Promise<PanePosition> {
  return parsePosition(await queryPane(socket, paneId, POSITION_FIELDS));
}

/** Rows tmux drops at once whenever a pane's history is full: a tenth of history-limit. */
export function historyTrim(limit: number): number {
  return Math.max(1, Math.floor(limit / 10));
}

/** How many counts of history trims are tried before all history is searched. */
const TRIM_GUESSES = 3;

/**
 * Where an absolute row (counted from the top of history) noted when history held `historyThen`
 * rows may be now: tmux drops a tenth of history-limit each time history fills up, so the row is
 * where it was less some number of such trims. The fewest that fit come first, a few of them;
 * rows above the top of history are not offered, nor anything for numbers that are not safe
 * integers (they come from what a cursor or a record carried).
 */
export function* trimmedRows(
  row: number,
  historyThen: number,
  now: { history: number; limit: number },
): Generator<{ trims: number; row: number }, void, undefined> {
  if (![row, historyThen, now.history, now.limit].every(Number.isSafeInteger)) return;
  const trim = historyTrim(now.limit);
  const fewest = Math.max(0, Math.ceil((historyThen - now.history) / trim));
  for (let trims = fewest; trims < fewest + TRIM_GUESSES; trims++) {
    const at = row - trims * trim;
    if (at < 0) return;
    yield { trims, row: at };
  }
}
