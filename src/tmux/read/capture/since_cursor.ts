/**
 * The cursor capture_since hands out: where it stands in a pane's rows, what it last read, and
 * what its row held that is not new; opaque to the caller, and checked when it comes back.
 *
 * @module
 */

import { TmuxError } from "../../errors.ts";
import { OLD_FIELDS, type OldText } from "./cursor_text.ts";
import { BoundedMap } from "../../../util/mod.ts";

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
  /**
   * Made on the alternate screen (a full-screen program's): the normal screen's cursor row
   * there, where what follows the program's exit begins.
   */
  alt?: number;
}

/**
 * Cursors handed out, by their handle: what a cursor stands for stays with the server, the
 * caller holds a short name for it (most of an answer's bytes were its cursors). The oldest go
 * first past the bound.
 */
const CURSORS_MAX = 8192;
const cursors = new BoundedMap<string, string>(CURSORS_MAX);

/** A handle: `c`, then 16 random hex digits. */
const HANDLE = /^c[0-9a-f]{16}$/;

/** The short handle a caller passes back (at most 17 characters). */
export function encodeCursor(state: CursorState): string {
  const handle = `c${crypto.getRandomValues(new Uint8Array(8)).toHex()}`;
  cursors.set(handle, JSON.stringify(state));
  return handle;
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
  const kept = HANDLE.test(cursor) ? cursors.get(cursor) : undefined;
  if (kept === undefined) {
    throw new TmuxError(
      "invalid_argument",
      "cursor is not one this server returned (or it was let go: the server keeps the latest " +
        `${CURSORS_MAX}): take a new one (capture_since without a cursor)`,
    );
  }
  const state = JSON.parse(kept);
  const valid = state !== null && typeof state === "object" && typeof state.pane === "string" &&
    typeof state.socket === "string" && isCount(state.pid, ROW_MAX) && state.pid > 0 &&
    isCount(state.row, ROW_MAX) && isCount(state.history, ROW_MAX) &&
    isCount(state.tailRow, ROW_MAX) && Array.isArray(state.tail) &&
    state.tail.length <= TAIL_LINES &&
    state.tail.every((hash: unknown) => isCount(hash, ROW_MAX)) &&
    OLD_FIELDS.every((field) => isCount(state[field], ROW_MAX)) &&
    (state.alt === undefined || isCount(state.alt, ROW_MAX));
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
