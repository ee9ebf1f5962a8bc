/**
 * Reading pane content: plain captures, captures since an opaque cursor, and searches.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { runTmux } from "./transport/command.ts";
import { THEN } from "./transport/exec.ts";
import type { TmuxSocket } from "./transport/socket.ts";
import { formatOf, parseRecords } from "./format.ts";
import { cellWidth, splitCapture } from "./output.ts";
import {
  type PanePosition,
  parsePosition,
  POSITION_FIELDS,
  queryPosition,
  trimmedRows,
} from "./position.ts";

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
  /** The pane and tmux server (socket name, "" for the default) the cursor was made for. */
  pane: string;
  socket: string;
  pid: number;
  /** Absolute row (history rows + screen row) of the first row not yet returned. */
  row: number;
  /** History rows then, to tell how often tmux has trimmed history since. */
  history: number;
  /** The last complete line read, and a hash of the last TAIL_LINES (n of them, n may be
   * fewer) and the row they begin at: they find the rows again after history moved, even in
   * repetitive output. */
  last: string | null;
  tail: number;
  n: number;
  tailRow: number;
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

/** Bounds of a cursor's numbers: tmux's rows are ints, a process id fits in 31 bits. */
const ROW_MAX = 2 ** 32;

function isCount(value: unknown, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < max;
}

/**
 * A cursor's state, checked: made for this pane of this tmux server, every number a safe integer
 * within tmux's ranges (a cursor comes from the caller, and every loop over it is bounded by them).
 */
function decodeCursor(cursor: string, owner: { pane: string; socket: string }): CursorState {
  let state;
  try {
    const bytes = Uint8Array.from(atob(cursor), (c) => c.charCodeAt(0));
    state = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    state = null;
  }
  const valid = state !== null && typeof state === "object" && typeof state.pane === "string" &&
    typeof state.socket === "string" && isCount(state.pid, ROW_MAX) && state.pid > 0 &&
    isCount(state.row, ROW_MAX) && isCount(state.history, ROW_MAX) &&
    isCount(state.tailRow, ROW_MAX) && isCount(state.n, TAIL_LINES + 1) &&
    isCount(state.tail, ROW_MAX) && (state.last === null || typeof state.last === "string");
  if (!valid) throw new TmuxError("invalid_argument", "cursor is not one this server returned");
  if (state.pane !== owner.pane || state.socket !== owner.socket) {
    throw new TmuxError(
      "invalid_argument",
      `the cursor was made for another pane or tmux server, not ${owner.pane}: take a new one ` +
        "(capture_since without a cursor)",
    );
  }
  return state;
}

/** Rows from some row down to the cursor, read together with the position they belong to. */
interface Block {
  pos: PanePosition;
  /** Absolute row the read began at. */
  first: number;
  /** Complete lines; the cursor's own, unfinished line is not among them. */
  lines: string[];
  /** Absolute row each line begins at, counted up from the cursor. */
  starts: number[];
  current: string;
  /** Absolute row the cursor's line begins at: the first row not returned. */
  currentStart: number;
}

/** Terminal rows a joined line takes at `width` columns. */
function rowsOf(line: string, width: number): number {
  let cells = line.length;
  // deno-lint-ignore no-control-regex
  if (!/^[\x00-\x7f]*$/.test(line)) {
    cells = 0;
    for (const char of line) cells += cellWidth(char);
  }
  return Math.max(1, Math.ceil(cells / width));
}

/**
 * Reads the position and, in the same tmux command list (so no output lands in between), the
 * rows from `from` (relative to the screen top as `guess` saw it; null: all history) down to the
 * bottom of the screen. The rows below the cursor and the cursor's line are cut off the end.
 */
async function readBlock(socket: TmuxSocket, paneId: string, from: number | null): Promise<Block> {
  const fields = ["pane_id", ...POSITION_FIELDS] as const;
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
  const pos = parsePosition(record);
  // capture-pane stops at the screen's last row; those below the cursor are not output yet.
  lines.splice(Math.max(0, lines.length - (pos.height - 1 - pos.y)));
  const current = lines.pop() ?? "";
  const first = from === null ? 0 : Math.max(0, pos.history + from);
  // Wrapped lines take several rows, so rows are counted from the cursor, which tmux knows.
  const currentStart = pos.history + pos.y - (rowsOf(current, pos.width) - 1);
  const starts = new Array<number>(lines.length);
  let row = currentStart;
  for (let i = lines.length - 1; i >= 0; i--) {
    row -= rowsOf(lines[i], pos.width);
    starts[i] = row;
  }
  return { pos, first, lines, starts, current, currentStart };
}

/** Rows read above where a poll starts, for output that arrives while it is on its way. */
const MARGIN_ROWS = 8;
/** How often a poll is read again with a wider margin because output outran it. */
const OUTRUN_MAX = 5;

/** A block from absolute row `top` (as `guess` counts rows) on, read again if output outran it. */
async function readFrom(
  socket: TmuxSocket,
  paneId: string,
  guess: PanePosition,
  top: number,
): Promise<Block> {
  let margin = MARGIN_ROWS;
  for (let outruns = 0;; outruns++) {
    const block = await readBlock(socket, paneId, top - guess.history - margin);
    if (block.first <= top || block.first === 0 || outruns >= OUTRUN_MAX) return block;
    margin += 2 * (block.pos.history - guess.history);
    guess = block.pos;
  }
}

/** Lines hashed into a cursor to recognise its place. */
const TAIL_LINES = 4;

/** FNV-1a over lines, each ended by a newline. */
function hashLines(lines: readonly string[]): number {
  let hash = 0x811c9dc5;
  for (const line of lines) {
    for (let i = 0; i < line.length; i++) hash = Math.imul(hash ^ line.charCodeAt(i), 0x01000193);
    hash = Math.imul(hash ^ 10, 0x01000193);
  }
  return hash >>> 0;
}

/** The cursor for the poll after `block`: after its last complete line. */
function cursorAfter(block: Block, owner: { pane: string; socket: string }): string {
  const tail = block.lines.slice(-TAIL_LINES);
  return encodeCursor({
    ...owner,
    pid: block.pos.pid,
    row: block.currentStart,
    history: block.pos.history,
    last: tail.at(-1) ?? null,
    tail: hashLines(tail),
    n: tail.length,
    tailRow: block.starts[block.lines.length - tail.length] ?? block.currentStart,
  });
}

/** Whether `lines` from `at` on are the tail a cursor remembers. */
function tailAt(lines: readonly string[], at: number, state: CursorState): boolean {
  return at >= 0 && at + state.n <= lines.length && lines[at + state.n - 1] === state.last &&
    hashLines(lines.slice(at, at + state.n)) === state.tail;
}

/**
 * Lines written to a pane since `cursor` (null: since now, returning nothing but a cursor).
 * Rows are absolute (history + screen). Each poll reads rows and position at once, so output
 * arriving meanwhile cannot shift what was read. When tmux has trimmed history (a tenth of
 * history-limit whenever it is full), rows moved up by whole trims, which are counted from the
 * history sizes; the last lines read check the guess. Failing that they are looked for in all
 * history, and lines are reported missed when they are gone.
 */
export async function captureSince(
  socket: TmuxSocket,
  paneId: string,
  cursor: string | null,
): Promise<SinceResult> {
  const owner = { pane: paneId, socket: socket.socketName ?? "" };
  const state = cursor === null ? null : decodeCursor(cursor, owner);
  let guess = await queryPosition(socket, paneId);
  if (state === null) {
    // From a few rows up, for the lines the next poll checks its place by.
    const block = await readFrom(socket, paneId, guess, guess.history + guess.y - TAIL_LINES);
    return {
      lines: [],
      current_line: block.current,
      cursor: cursorAfter(block, owner),
      lines_missed: false,
      alternate_on: block.pos.alternate,
    };
  }
  // The first row wanted: the first of the remembered tail.
  const first = state.n === 0 ? state.row : state.tailRow;
  for (const { trims, row: wanted } of trimmedRows(first, state.history, guess)) {
    if (state.pid !== guess.pid) break;
    const block = await readFrom(socket, paneId, guess, wanted);
    guess = block.pos;
    if (block.first > wanted || block.pos.pid !== state.pid) break;
    let start: number;
    if (state.n === 0) {
      // Nothing to check the rows by (the pane had no line yet): trust them untrimmed.
      if (trims > 0) continue;
      const at = block.starts.findIndex((row) => row >= wanted);
      start = at < 0 ? block.lines.length : at;
    } else {
      const at = block.starts.indexOf(wanted);
      if (at < 0 || !tailAt(block.lines, at, state)) continue;
      start = at + state.n;
    }
    return {
      lines: block.lines.slice(start),
      current_line: block.current,
      cursor: cursorAfter(block, owner),
      lines_missed: false,
      alternate_on: block.pos.alternate,
    };
  }
  // Respawned, trimmed past recall, cleared, or a wrapped line moved the rows: all history.
  const all = await readBlock(socket, paneId, null);
  let found = -1;
  if (state.pid === all.pos.pid && state.n > 0) {
    for (let at = all.lines.length - state.n; at >= 0 && found < 0; at--) {
      if (tailAt(all.lines, at, state)) found = at;
    }
  }
  return {
    lines: found < 0 ? all.lines : all.lines.slice(found + state.n),
    current_line: all.current,
    cursor: cursorAfter(all, owner),
    lines_missed: found < 0,
    alternate_on: all.pos.alternate,
  };
}
