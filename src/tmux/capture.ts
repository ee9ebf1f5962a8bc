/**
 * Reading pane content: plain captures, captures since an opaque cursor, and searches.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { runTmux } from "./command.ts";
import { THEN, type TmuxSocket } from "./exec.ts";
import { formatOf, intField, parseRecords } from "./format.ts";
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

const POSITION = ["pane_pid", "history_size", "cursor_y", "pane_height", "alternate_on"] as const;

interface Position {
  pid: number;
  history: number;
  /** Cursor row on the screen. */
  y: number;
  height: number;
  alternate: boolean;
}

function toPosition(record: Record<(typeof POSITION)[number], string>): Position {
  return {
    pid: intField(record.pane_pid, "pane_pid"),
    history: intField(record.history_size, "history_size"),
    y: intField(record.cursor_y, "cursor_y"),
    height: intField(record.pane_height, "pane_height"),
    alternate: record.alternate_on === "1",
  };
}

/** Rows from some row down to the cursor, read together with the position they belong to. */
interface Block {
  pos: Position;
  /** Absolute row of `lines[0]` (exact while no line in the block wraps). */
  first: number;
  /** Complete lines; the cursor's own, unfinished line is not among them. */
  lines: string[];
  current: string;
}

/**
 * Reads the position and, in the same tmux command list (so no output lands in between), the
 * rows from `from` (relative to the screen top as `guess` saw it; null: all history) down to the
 * bottom of the screen. The rows below the cursor and the cursor's line are cut off the end.
 */
async function readBlock(socket: TmuxSocket, paneId: string, from: number | null): Promise<Block> {
  const fields = ["pane_id", ...POSITION] as const;
  const lines = splitCapture(
    await runTmux(socket, [
      ...["display-message", "-p", "-t", paneId, formatOf(fields), THEN],
      ...["capture-pane", "-p", "-J", "-t", paneId, "-S", from === null ? "-" : String(from)],
    ]),
  );
  const record = parseRecords(lines.shift() ?? "", fields)[0];
  if (!record || record.pane_id !== paneId) {
    throw new TmuxError("not_found", `can't find pane: ${paneId}`);
  }
  const pos = toPosition(record);
  // capture-pane stops at the screen's last row; those below the cursor are not output yet.
  lines.splice(Math.max(0, lines.length - (pos.height - 1 - pos.y)));
  const current = lines.pop() ?? "";
  const first = from === null ? 0 : Math.max(0, pos.history + from);
  return { pos, first, lines, current };
}

/** Rows read above where a poll starts, for output that arrives while it is on its way. */
const MARGIN_ROWS = 8;
/** How often a poll is read again with a wider margin because output outran it. */
const OUTRUN_MAX = 5;

/**
 * Lines written to a pane since `cursor` (null: since now, returning nothing but a cursor).
 * Rows are absolute (history + screen). Each poll reads rows and position at once, so output
 * arriving meanwhile cannot shift what was read; when tmux trims history or the screen is
 * cleared, the last returned line is looked for in all history, and lines are reported missed
 * when it is gone.
 */
export async function captureSince(
  socket: TmuxSocket,
  paneId: string,
  cursor: string | null,
): Promise<SinceResult> {
  const state = cursor === null ? null : decodeCursor(cursor);
  let guess = toPosition(await queryPane(socket, paneId, POSITION));
  // The first row wanted: the last returned line's (to check it), else where the cursor was.
  const wanted = state === null ? null : state.row - (state.last === null ? 0 : 1);
  let margin = MARGIN_ROWS;
  let block: Block;
  for (let outruns = 0;; outruns++) {
    const top = wanted === null ? guess.history + guess.y : wanted;
    block = await readBlock(socket, paneId, top - guess.history - margin);
    if (block.first <= top || block.first === 0 || outruns >= OUTRUN_MAX) break;
    margin += 2 * (block.pos.history - guess.history);
    guess = block.pos;
  }
  const { pos } = block;
  const at = (row: number): number => row - block.first;
  const result = { current_line: block.current, alternate_on: pos.alternate };
  // The next poll starts after the last complete line read, whose text checks the rows.
  const next = (from: Block): string =>
    encodeCursor({
      pid: from.pos.pid,
      row: from.first + from.lines.length,
      last: from.lines.at(-1) ?? null,
    });
  if (state === null) {
    return { ...result, lines: [], cursor: next(block), lines_missed: false };
  }
  if (state.pid === pos.pid && wanted !== null && at(wanted) >= 0) {
    if (state.last === null) {
      const lines = block.lines.slice(at(wanted));
      return { ...result, lines, cursor: next(block), lines_missed: false };
    }
    if (block.lines[at(wanted)] === state.last) {
      const lines = block.lines.slice(at(wanted) + 1);
      return { ...result, lines, cursor: next(block), lines_missed: false };
    }
  }
  // Respawned, trimmed, cleared, or a wrapped line moved the rows: look in all history.
  const all = await readBlock(socket, paneId, null);
  const found = state.pid === all.pos.pid && state.last !== null
    ? all.lines.lastIndexOf(state.last)
    : -1;
  const lines = all.lines.slice(found + 1);
  return {
    current_line: all.current,
    alternate_on: all.pos.alternate,
    lines,
    cursor: next(all),
    lines_missed: found < 0,
  };
}
