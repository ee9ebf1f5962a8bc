/**
 * Time spent matching a caller's patterns, kept in slices and within a budget. RE2 keeps a match
 * linear in the text, but its cost per character grows with the pattern, and matching runs on
 * the thread that serves every session: a call's matching gives the thread back after each
 * slice, and stops with a clear error once it has used its budget, or before a line whose worst
 * cost is more than the budget has left (one long line would otherwise hold the thread for
 * seconds before the clock is looked at again).
 *
 * @module
 */

import { delay } from "../../../util/mod.ts";
import { TmuxError } from "../../errors.ts";
import type { LinePattern } from "./regex.ts";

/** How long matching runs before other work gets the thread. */
export const MATCH_SLICE_MS = 10;

/** How much time one call's matching may take in all. */
export const MATCH_BUDGET_MS = 2000;

/**
 * What one step of matching costs at most, in ns: re2js's worst measured (a 4,002-instruction
 * program over 10,000 characters: 0.78 s, 19.5 ns per character and instruction), with room.
 */
const STEP_NS = 25;

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
    if (this.#spent > this.#budget) throw this.#tooCostly("used");
    return true;
  }

  /**
   * Whether `pattern` matches `line`; throws an invalid_argument, matching nothing, when the
   * line's worst cost is more than the budget has left.
   */
  test(pattern: LinePattern, line: string): boolean {
    const worstMs = line.length * pattern.steps * STEP_NS / 1e6;
    const spent = this.#spent + performance.now() - this.#from;
    if (spent + worstMs > this.#budget) throw this.#tooCostly("could take more than");
    return pattern.test(line);
  }

  #tooCostly(how: string): TmuxError {
    return new TmuxError(
      "invalid_argument",
      `the pattern is too costly for this much text: matching it ${how} the ` +
        `${this.#budget / 1000} s a call may spend matching; use a simpler pattern (a ` +
        "literal text, fewer repetitions), or search less text (fewer panes, no history)",
    );
  }

  /** Gives the thread to other work, then counts on. */
  async pause(): Promise<void> {
    await delay(0);
    this.start();
  }
}
