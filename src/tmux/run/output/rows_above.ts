/**
 * The lines a terminal-text reducer passed on that a move up can still reach and rewrite, and how
 * much rewriting they may still pass on. Pure.
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
  rewrite(up: number): string[] | null {
    const rows = this.#rows.slice(this.#rows.length - up);
    const cost = rows.reduce((sum, row) => sum + row.length + 1, 0);
    if (!this.#credit.spend(cost)) {
      this.clear();
      return null;
    }
    return rows;
  }
}
