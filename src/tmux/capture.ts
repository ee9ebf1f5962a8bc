/**
 * Reading pane content: plain captures, captures since an opaque cursor, and searches.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { runTmux } from "./command.ts";
import type { TmuxSocket } from "./exec.ts";
import { intField } from "./format.ts";
import { splitCapture } from "./output.ts";
import { queryPane } from "./target.ts";

/** Options for {@linkcode capturePane}. */
export interface CaptureOptions {
  /** First row: 0 is the top of the screen, negative rows are history; null: start of history. */
  start?: number | null;
  /** Last row; null: the bottom of the screen. */
  end?: number | null;
  /** Join wrapped rows into one line (default true). */
  join?: boolean;
  /** Keep colour and attribute escape sequences. */
  escapes?: boolean;
}

/** Captures pane rows as lines. */
export async function capturePane(
  socket: TmuxSocket,
  paneId: string,
  options: CaptureOptions = {},
): Promise<string[]> {
  const args = ["capture-pane", "-p", "-t", paneId];
  if (options.join ?? true) args.push("-J");
  if (options.escapes) args.push("-e");
  args.push("-S", options.start == null ? "-" : String(options.start));
  if (options.end != null) args.push("-E", String(options.end));
  const lines = splitCapture(await runTmux(socket, args));
  if (options.end == null) {
    // Rows below the last written one are blank screen, not output.
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  }
  return lines;
}

interface CursorState {
  pid: number;
  /** Absolute row (history rows + screen row) of the first row not yet returned. */
  row: number;
  /** The last complete line returned, to detect rows shifted by history trimming. */
  last: string | null;
}

/** What {@linkcode captureSince} returns. */
export interface SinceResult {
  /** Complete lines written since the cursor. */
  lines: string[];
  /** The row the cursor is on, possibly still being written; not consumed. */
  current_line: string;
  /** Pass this to the next call. */
  cursor: string;
  /** Lines were dropped by tmux's history limit (or the pane was reset) before they were read. */
  lines_missed: boolean;
  /** The pane shows its alternate screen (a full-screen program), which has no history. */
  alternate_on: boolean;
}

function encodeCursor(state: CursorState): string {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  return btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
}

function decodeCursor(cursor: string): CursorState {
  try {
    const bytes = Uint8Array.from(atob(cursor), (c) => c.charCodeAt(0));
    const state = JSON.parse(new TextDecoder().decode(bytes));
    if (
      typeof state.pid === "number" && typeof state.row === "number" &&
      (state.last === null || typeof state.last === "string")
    ) {
      return state;
    }
  } catch {
    // Fall through to the error below.
  }
  throw new TmuxError("invalid_argument", "cursor is not one this server returned");
}

const POSITION = ["pane_pid", "history_size", "cursor_y", "alternate_on"] as const;

/**
 * Lines written to a pane since `cursor` (null: since now, returning nothing but a cursor).
 * Rows are absolute (history + screen); when tmux trims history the rows shift, which the last
 * returned line reveals, and the lines are then found again by that line or reported missed.
 */
export async function captureSince(
  socket: TmuxSocket,
  paneId: string,
  cursor: string | null,
): Promise<SinceResult> {
  const pos = await queryPane(socket, paneId, POSITION);
  const pid = intField(pos.pane_pid, "pane_pid");
  const history = intField(pos.history_size, "history_size");
  const cursorRow = history + intField(pos.cursor_y, "cursor_y");
  const currentRows = await capturePane(socket, paneId, {
    start: cursorRow - history,
    end: cursorRow - history,
  });
  const current = currentRows[0] ?? "";
  if (cursor === null) {
    const last = cursorRow > 0
      ? (await capturePane(socket, paneId, {
        start: cursorRow - 1 - history,
        end: cursorRow - 1 - history,
      }))[0] ?? ""
      : null;
    return {
      lines: [],
      current_line: current,
      cursor: encodeCursor({ pid, row: cursorRow, last }),
      lines_missed: false,
      alternate_on: pos.alternate_on === "1",
    };
  }
  const state = decodeCursor(cursor);
  const lastRow = cursorRow - 1 - history;
  let lines: string[];
  let missed = false;
  if (state.pid !== pid) {
    missed = true;
    lines = await capturePane(socket, paneId, { start: null, end: lastRow });
  } else {
    const from = state.row - history - (state.last === null ? 0 : 1);
    const rows = from <= lastRow
      ? await capturePane(socket, paneId, { start: from, end: lastRow })
      : [];
    if (state.last === null) {
      lines = rows;
    } else if (rows[0] === state.last) {
      lines = rows.slice(1);
    } else {
      // History was trimmed and rows moved up: find the last returned line again.
      const all = await capturePane(socket, paneId, { start: null, end: lastRow });
      const at = all.lastIndexOf(state.last);
      missed = at < 0;
      lines = all.slice(at + 1);
    }
  }
  return {
    lines,
    current_line: current,
    cursor: encodeCursor({ pid, row: cursorRow, last: lines.at(-1) ?? state.last }),
    lines_missed: missed,
    alternate_on: pos.alternate_on === "1",
  };
}
