/**
 * The lines a terminal-text reducer passed on that a move up can still reach and rewrite, how
 * much rewriting they may still pass on, and the row among them the cursor is on. Pure.
 *
 * @module
 */

import { Credit } from "./credit.ts";

/** Lines passed on that a move up can still reach, and the characters they may hold together. */
const REWRITE_ROWS = 64;
const REWRITE_CHARS = 256 * 1024;

/**
 * What rewrites may pass on, in characters, for each character of output, and at most in hand: a
 * rewrite costs the rows it passes on again, so output that moves up and back over a full window
 * for a few bytes would otherwise cost a quarter of a megabyte each time (20,000 such moves, 220
 * KB, took 8 s). docker pull's update of its top layer among thirty rewrites about thirty times
 * what it prints. A rewrite past what is in hand is not passed on: the window is let go, the lines
 * stay as first shown.
 */
export const REWRITE_PER_CHAR = 64;
/** The most rewrites may have in hand. */
export const REWRITE_CREDIT_MAX = 4 * REWRITE_CHARS;

/** The last lines passed on (oldest first), addressed by how far above the bottom line they are. */
export class RowsAbove {
  #rows: string[] = [];
  #chars = 0;
  /** Rows above the bottom line the cursor is on. */
  #up = 0;
  /** The bottom line, put aside while the cursor is above it. */
  #bottom = "";
  /** How far above the bottom the highest row rewritten since the cursor left it is (0: none). */
  #changedUp = 0;
  /** Characters rewrites may still pass on. */
  #credit = new Credit({
    start: REWRITE_CHARS,
    perChar: REWRITE_PER_CHAR,
    max: REWRITE_CREDIT_MAX,
  });

  /** How many lines are within reach. */
  get length(): number {
    return this.#rows.length;
  }

  /** Output came: rewrites may pass on more. */
  earn(chars: number): void {
    this.#credit.earn(chars);
  }

  /** A line passed on, kept within reach (the oldest go past the bounds). */
  push(line: string): void {
    this.#rows.push(line);
    this.#chars += line.length;
    while (this.#rows.length > REWRITE_ROWS || this.#chars > REWRITE_CHARS) {
      this.#chars -= this.#rows.shift()!.length;
    }
  }

  /** Lets go of every line (none can be rewritten any more). */
  clear(): void {
    this.#rows = [];
    this.#chars = 0;
  }

  /** Rows above the bottom line the cursor is on (0: it is on the bottom line). */
  get cursorUp(): number {
    return this.#up;
  }

  /** The bottom line: `line` (the cursor's row's text) unless the cursor is above it. */
  bottom(line: string): string {
    return this.#up > 0 ? this.#bottom : line;
  }

  /**
   * The cursor goes `n` rows up, as far as the lines kept reach, from its row holding `line`:
   * the text of the row it goes to, or null when it stays.
   */
  moveUp(n: number, line: string): string | null {
    const to = Math.min(this.#up + n, this.#rows.length);
    if (to === this.#up) return null;
    if (this.#up === 0) this.#bottom = line;
    else this.set(this.#up, line);
    this.#up = to;
    return this.get(to);
  }

  /**
   * The cursor, above the bottom line, goes `n` rows down (no further than the bottom line) from
   * its row holding `line`: the text of the row it goes to, and, back on the bottom line, the
   * rows rewritten on the way to pass on (null: none, or not paid for).
   */
  moveDown(n: number, line: string): { line: string; rewritten: string[] | null } {
    this.set(this.#up, line);
    this.#up = Math.max(0, this.#up - n);
    if (this.#up > 0) return { line: this.get(this.#up), rewritten: null };
    const rewritten = this.#changedUp === 0 ? null : this.#rewrite(this.#changedUp);
    this.#changedUp = 0;
    return { line: this.#bottom, rewritten };
  }

  /** The row the cursor is on (above the bottom line) was written to. */
  changed(): void {
    this.#changedUp = Math.max(this.#changedUp, this.#up);
  }

  /** The line `up` rows above the bottom line (1: the one just above). */
  get(up: number): string {
    return this.#rows[this.#rows.length - up];
  }

  /** Writes the line `up` rows above the bottom line. */
  set(up: number, text: string): void {
    const index = this.#rows.length - up;
    this.#chars += text.length - this.#rows[index].length;
    this.#rows[index] = text;
  }

  /**
   * The lines from `up` rows above the bottom line down, to pass on as a rewrite, paid for; null
   * when they cost more than is in hand (then every line is let go).
   */
  #rewrite(up: number): string[] | null {
    const rows = this.#rows.slice(this.#rows.length - up);
    const cost = rows.reduce((sum, row) => sum + row.length + 1, 0);
    if (!this.#credit.spend(cost)) {
      this.clear();
      return null;
    }
    return rows;
  }
}
