/**
 * Captures since an opaque cursor (capture_since, and every wait): only the lines written since
 * the cursor was made, exact after long and wrapped lines, a width change or `clear`, the prompt
 * it stood after and the echo of typed text left out.
 *
 * @module
 */

import { showTypedLines } from "./typed_lines.ts";
import { TmuxError } from "../../errors.ts";
import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import { socketKey } from "../../transport/spawn/exec.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { formatOf, parseRecords } from "../../format.ts";
import { splitCapture, unpadJoined } from "../text/mod.ts";
import { cellWidth } from "../../../screen/mod.ts";
import { parseVersion } from "../../version.ts";
import {
  hashLines,
  newText,
  NOTHING_OLD,
  type OldText,
  oldText,
  oldTextNow,
  oldTextOf,
} from "./cursor_text.ts";
import { type CursorState, decodeCursor, encodeCursor, TAIL_LINES } from "./since_cursor.ts";
import {
  historyTrim,
  type PanePosition,
  parsePosition,
  POSITION_FIELDS,
  queryPosition,
  trimmedRows,
} from "./position.ts";

/** Options for {@linkcode captureSince}. */
export interface SinceOptions {
  /** Text about to be typed at the cursor: its echo (up to its first line end) is not output. */
  typed?: string | null;
  /**
   * With no cursor: the cursor made as text was last typed into the pane (send_keys'), whose
   * echo, should it show only later (a shell still busy draws its prompt late), is not output
   * either. What was written since it is old, as ever without a cursor.
   */
  echoFrom?: string | null;
  /**
   * Lines as tmux shows them, run_command's typed lines too (for finding a run's own line); a
   * cursor made raw is read raw. Default: typed lines show as their commands.
   */
  raw?: boolean;
}

/** What {@linkcode captureSince} returns. */
export interface SinceResult {
  /** Complete lines written since the cursor; the first starts where the cursor stood. */
  lines: string[];
  /** The row the cursor is on, possibly still being written; not consumed. What that row showed
   * when the cursor was made, and the echo of what was typed then, are left out. */
  current_line: string;
  /** Pass this to the next call. */
  cursor: string;
  /** Lines were dropped by tmux's history limit (or the pane was reset) before they were read. */
  lines_missed: boolean;
  /** The pane shows its alternate screen (a full-screen program), which has no history. */
  alternate_on: boolean;
}

/** Rows from some row down to the cursor, read together with the position they belong to. */
interface Block {
  pos: PanePosition;
  /** Absolute row the read began at. */
  first: number;
  /** Whole lines; the cursor's own, unfinished line is not among them, nor the rest of a line
   * that began above the read. */
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
 * A read that begins inside a wrapped line would see only its end: tmux is asked whether the row
 * above wraps into the first one (joined, the two rows are one line) and such a piece is dropped.
 */
async function readBlock(pane: PaneRead, from: number | null): Promise<Block> {
  const { socket, paneId } = pane;
  const fields = ["pane_id", "version", ...POSITION_FIELDS] as const;
  const start = from === null ? "-" : String(from);
  const above = from === null ? [] : [
    ...["capture-pane", "-p", "-J", "-t", paneId, "-S", String(from - 1), "-E", start],
    THEN,
    ...["display-message", "-p", "-t", paneId, JOIN_END],
    THEN,
  ];
  const lines = splitCapture(
    await runTmux(socket, [
      ...above,
      ...["display-message", "-p", "-t", paneId, formatOf(fields), THEN],
      ...["capture-pane", "-p", "-J", "-t", paneId, "-S", start],
    ]),
  );
  // The two rows come back as one line (joined) or two; the pane may show JOIN_END itself.
  const continued = from !== null && lines[2] !== JOIN_END;
  if (from !== null) lines.splice(0, continued ? 2 : 3);
  const record = parseRecords(lines.shift() ?? "", fields)[0];
  if (!record || record.pane_id !== paneId) {
    throw new TmuxError("not_found", `can't find pane: ${paneId}`);
  }
  const pos = parsePosition(record);
  // capture-pane stops at the screen's last row; those below the cursor are not output yet.
  lines.splice(Math.max(0, lines.length - (pos.height - 1 - pos.y)));
  const padded = lines.pop() ?? "";
  const version = parseVersion(record.version);
  lines.splice(0, lines.length, ...unpadJoined(lines, version));
  // The cursor's line keeps the blanks left of the cursor (a prompt's last one, say).
  const [unpadded] = unpadJoined([padded], version);
  const cursorAt = (rowsOf(unpadded, pos.width) - 1) * pos.width + pos.x;
  const current = padded.slice(0, Math.max(unpadded.length, cursorAt));
  const first = from === null ? 0 : Math.max(0, pos.history + from);
  // At the top of history there is no row above to wrap from.
  if (continued && first > 0) lines.shift();
  // Wrapped lines take several rows, so rows are counted from the cursor, which tmux knows.
  const currentStart = pos.history + pos.y - (rowsOf(current, pos.width) - 1);
  const starts = new Array<number>(lines.length);
  let row = currentStart;
  for (let i = lines.length - 1; i >= 0; i--) {
    row -= rowsOf(lines[i], pos.width);
    starts[i] = row;
  }
  // Counted as tmux shows them, the lines read with run_command's typed lines as the commands.
  const shown = pane.raw ? lines : showTypedLines(socket, paneId, lines, { joined: true });
  return { pos, first, lines: shown, starts, current, currentStart };
}

/** A pane to read blocks of, and whether run_command's typed lines stay as tmux shows them. */
interface PaneRead {
  socket: TmuxSocket;
  paneId: string;
  raw: boolean;
}

/** Ends the two-row read that tells whether a block's first row continues a wrapped line. */
const JOIN_END = "tmux-mcp:join-end";

/** Rows read above where a poll starts, for output that arrives while it is on its way. */
const MARGIN_ROWS = 8;
/** How often a poll is read again with a wider margin because output outran it. */
const OUTRUN_MAX = 5;

/** A block from absolute row `top` (as `guess` counts rows) on, read again if output outran it. */
async function readFrom(pane: PaneRead, guess: PanePosition, top: number): Promise<Block> {
  let margin = MARGIN_ROWS;
  for (let outruns = 0;; outruns++) {
    const block = await readBlock(pane, top - guess.history - margin);
    if (block.first <= top || block.first === 0 || outruns >= OUTRUN_MAX) return block;
    margin += 2 * (block.pos.history - guess.history);
    guess = block.pos;
  }
}

/**
 * The cursor for the poll after `block`: after its last complete line. The old text of the
 * cursor's row is carried on while that row is still being written.
 */
function cursorAfter(
  block: Block,
  owner: { pane: string; socket: string },
  old: OldText,
): string {
  const tail = block.lines.slice(-TAIL_LINES);
  return encodeCursor({
    ...owner,
    ...oldTextOf(old),
    pid: block.pos.pid,
    row: block.currentStart,
    history: block.pos.history,
    tail: tail.map((line) => hashLines([line])),
    tailRow: block.starts[block.lines.length - tail.length] ?? block.currentStart,
    ...(block.pos.savedY === null ? {} : { alt: block.pos.savedY }),
  });
}

/** Whether `lines` from `at` on are the last `count` lines of the tail a cursor remembers. */
function tailAt(
  lines: readonly string[],
  at: number,
  state: CursorState,
  count = state.tail.length,
): boolean {
  if (at < 0 || at + count > lines.length) return false;
  const from = state.tail.length - count;
  for (let i = 0; i < count; i++) {
    if (hashLines([lines[at + i]]) !== state.tail[from + i]) return false;
  }
  return true;
}

/** The fewest lines of a tail that place a cursor at the top of history, its first trimmed. */
const TOP_TAIL_MIN = 2;

/** Rows above the cursor read for a new cursor's lines: more when lines are long. */
const REACH_ROWS = [TAIL_LINES, 64, 512, 4096];

/**
 * Lines written to a pane since `cursor` (null: since now, returning nothing but a cursor).
 * Rows are absolute (history + screen). Each poll reads rows and position at once, so output
 * arriving meanwhile cannot shift what was read. When tmux has trimmed history (a tenth of
 * history-limit whenever it is full), rows moved up by whole trims, which are counted from the
 * history sizes; the last lines read check the guess. Failing that (more trims than guessed, a
 * width change reflowed the rows) they are looked for in all history, or their last ones at its
 * top when tmux trimmed into them, and lines are reported missed when they are gone.
 * The cursor's row loses what it showed when the cursor was made and the echo of `typed`.
 */
export async function captureSince(
  socket: TmuxSocket,
  paneId: string,
  cursor: string | null,
  options: SinceOptions = {},
): Promise<SinceResult> {
  const owner = { pane: paneId, socket: socketKey(socket) };
  const read: PaneRead = { socket, paneId, raw: options.raw ?? false };
  // A cursor made now, after a read from `echoFrom` that only follows the echo.
  const now = cursor === null;
  const made = now ? echoCursor(options.echoFrom ?? null, owner) : decodeCursor(cursor, owner);
  let guess = await queryPosition(socket, paneId);
  const first = made === null ? null : leftFullScreen(made, guess);
  if (first === null) {
    // From a few whole lines up, for the lines the next poll checks its place by.
    let block!: Block;
    for (const reach of REACH_ROWS) {
      block = await readFrom(read, guess, guess.history + guess.y - reach);
      if (block.lines.length >= TAIL_LINES || block.first === 0) break;
      guess = block.pos;
    }
    return nowResult(block, owner, oldText(block.current, options.typed ?? null));
  }
  let state = first;
  const found = (block: Block, start: number): SinceResult => {
    const lines = block.lines.slice(start);
    const text = newText(lines, block.current, state);
    if (now) return nowResult(block, owner, oldTextNow(block.current, text));
    return {
      lines: text.lines,
      current_line: text.current,
      cursor: cursorAfter(block, owner, lines.length === 0 ? state : text.echoLeft),
      lines_missed: false,
      alternate_on: block.pos.alternate,
    };
  };
  // A program that left its screen between the position read and a rows read: what follows
  // begins at the normal screen's row, read from all rows.
  const leftMeanwhile = (block: Block): boolean =>
    first === made && made.pid === block.pos.pid && leftFullScreen(made, block.pos) !== made;
  const n = state.tail.length;
  for (const { trims, row: cursorRow } of trimmedRows(state.row, state.history, guess)) {
    if (state.pid !== guess.pid) break;
    // The tail's first row now; above the top of history when tmux trimmed it away.
    const wanted = cursorRow - (state.row - state.tailRow);
    if (wanted < 0) break;
    const block = await readFrom(read, guess, wanted);
    guess = block.pos;
    if (leftMeanwhile(block)) break;
    if (block.first > wanted || block.pos.pid !== state.pid) break;
    if (n === 0) {
      // Nothing to check the rows by (the pane had no line yet): trust them untrimmed.
      if (trims > 0) continue;
      const at = block.starts.findIndex((row) => row >= wanted);
      return found(block, at < 0 ? block.lines.length : at);
    }
    const at = block.starts.indexOf(wanted);
    if (at >= 0 && tailAt(block.lines, at, state)) return found(block, at + n);
  }
  // Respawned, trimmed past recall, cleared, or reflowed to a new width: all history.
  const all = await readBlock(read, null);
  if (leftMeanwhile(all)) {
    const left = leftFullScreen(first, all.pos);
    state = left;
    const at = all.starts.findIndex((row) => row >= left.row);
    return found(all, at < 0 ? all.lines.length : at);
  }
  if (state.pid === all.pos.pid && n > 0) {
    for (let at = all.lines.length - n; at >= 0; at--) {
      if (tailAt(all.lines, at, state)) return found(all, at + n);
    }
    // Trimmed into the tail: its last lines begin history, and end a whole number of trims
    // above the cursor's row.
    const trim = historyTrim(all.pos.limit);
    for (let count = Math.min(n - 1, all.lines.length); count >= TOP_TAIL_MIN; count--) {
      const after = all.starts[count] ?? all.currentStart;
      if (
        after <= state.row && (state.row - after) % trim === 0 && tailAt(all.lines, 0, state, count)
      ) return found(all, count);
    }
  }
  if (now) return nowResult(all, owner, oldText(all.current, null));
  return {
    lines: all.lines,
    current_line: all.current,
    cursor: cursorAfter(all, owner, NOTHING_OLD),
    // A full-screen program's screen has rows, not lines that follow others: none were missed.
    lines_missed: !(all.pos.alternate && state.alt === undefined),
    alternate_on: all.pos.alternate,
  };
}

/**
 * A cursor made on a full-screen program's screen, read once the program left it: what follows
 * begins where the normal screen's cursor was when the program took the screen (the rows the
 * program's exit and the shell then wrote), read from that row untrimmed, nothing old on it.
 */
function leftFullScreen(state: CursorState, now: PanePosition): CursorState {
  if (state.alt === undefined || now.alternate) return state;
  const row = now.history + Math.min(state.alt, now.height - 1);
  return { ...state, ...NOTHING_OLD, row, history: now.history, tail: [], tailRow: row };
}

/** The state of `echoFrom` (see {@linkcode SinceOptions}), when it is a cursor for this pane. */
function echoCursor(
  echoFrom: string | null,
  owner: { pane: string; socket: string },
): CursorState | null {
  if (echoFrom === null) return null;
  try {
    return decodeCursor(echoFrom, owner);
  } catch {
    return null;
  }
}

/** A result with no lines and a cursor made now, its row's text `old`. */
function nowResult(
  block: Block,
  owner: { pane: string; socket: string },
  old: OldText,
): SinceResult {
  return {
    lines: [],
    current_line: block.current,
    cursor: cursorAfter(block, owner, old),
    lines_missed: false,
    alternate_on: block.pos.alternate,
  };
}
