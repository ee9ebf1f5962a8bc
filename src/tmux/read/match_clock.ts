/**
 * Time spent matching a caller's patterns, kept in slices and within a budget. RE2 keeps a match
 * linear in the text, but its cost per character grows with the pattern, and matching runs on
 * the thread that serves every session: a call's matching gives the thread back after each
 * slice, and stops with a clear error once it has used its budget.
 *
 * @module
 */

import { delay } from "../../util/mod.ts";
import { TmuxError } from "../errors.ts";

/** How long matching runs before other work gets the thread. */
export const MATCH_SLICE_MS = 10;

/** How much time one call's matching may take in all. */
export const MATCH_BUDGET_MS = 2000;

/** Options for {@linkcode MatchClock}. */
export interface MatchClockOptions {
  /** The call's budget in ms (default {@linkcode MATCH_BUDGET_MS}). */
  budgetMs?: number;
}

/**
 * One call's clock: {@linkcode MatchClock.start} before a stretch of matching, then before each
 * line `if (clock.due()) await clock.pause()`.
 */
export class MatchClock {
  readonly #budget: number;
  #spent = 0;
  #from = performance.now();

  /** A clock with nothing spent. */
  constructor(options: MatchClockOptions = {}) {
    this.#budget = options.budgetMs ?? MATCH_BUDGET_MS;
  }

  /** Counts from now: what came since the last stretch (waiting, reading) is not matching. */
  start(): void {
    this.#from = performance.now();
  }

  /**
   * Whether a slice has run (time to pause); throws an invalid_argument once the budget is
   * spent.
   */
  due(): boolean {
    const now = performance.now();
    if (now - this.#from < MATCH_SLICE_MS) return false;
    this.#spent += now - this.#from;
    this.#from = now;
    if (this.#spent > this.#budget) {
      throw new TmuxError(
        "invalid_argument",
        `the pattern is too costly for this much text: matching it used the ` +
          `${this.#budget / 1000} s a call may spend matching; use a simpler pattern (a ` +
          "literal text, fewer repetitions), or search less text (fewer panes, no history)",
      );
    }
    return true;
  }

  /** Gives the thread to other work, then counts on. */
  async pause(): Promise<void> {
    await delay(0);
    this.start();
  }
}
