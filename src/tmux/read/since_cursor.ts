/**
 * The cursor capture_since hands out: where it stands in a pane's rows, what it last read, and
 * what its row held that is not new; opaque to the caller, and checked when it comes back.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { OLD_FIELDS, type OldText } from "./cursor_text.ts";

/** Lines hashed into a cursor to recognise its place. */
export const TAIL_LINES = 4;

/** A cursor: where it stands, and (its {@linkcode OldText}) what its row held that is not new. */
export interface CursorState extends OldText {
  /** The pane and tmux server (socket name, "" for the default) the cursor was made for. */
  pane: string;
  /** The socket the pane belongs to. */
  socket: string;
  /** The pane's process when the cursor was made. */
  pid: number;
  /** Absolute row (history rows + screen row) of the first row not yet returned. */
  row: number;
  /** History rows then, to tell how often tmux has trimmed history since. */
  history: number;
  /** A hash of each of the last TAIL_LINES complete lines read (there may be fewer), and the
   * row they begin at: they find the rows again after history moved, even in repetitive output,
   * and their last ones do at the top of history when tmux trimmed the first. Hashes keep a
   * cursor small whatever the lines. */
  tail: number[];
  /** The row of the last line read. */
  tailRow: number;
}

/** The opaque text a caller passes back. */
export function encodeCursor(state: CursorState): string {
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
export function decodeCursor(cursor: string, owner: { pane: string; socket: string }): CursorState {
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
    isCount(state.tailRow, ROW_MAX) && Array.isArray(state.tail) &&
    state.tail.length <= TAIL_LINES &&
    state.tail.every((hash: unknown) => isCount(hash, ROW_MAX)) &&
    OLD_FIELDS.every((field) => isCount(state[field], ROW_MAX));
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
