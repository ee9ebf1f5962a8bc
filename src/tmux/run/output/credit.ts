/**
 * Work paid for by output: what a reducer may spend on a few bytes that ask for much (a rewrite, a
 * line rebuilt in place, blanks up to a far column) is earned by the characters output brings, so
 * crafted output costs in proportion to its size. Pure.
 *
 * @module
 */

/** Options for a {@linkcode Credit}. */
export interface CreditOptions {
  /** What is in hand at first. */
  start: number;
  /** What each character of output earns. */
  perChar: number;
  /** The most that may be in hand. */
  max: number;
}

/** A balance earned by output and spent by the work it pays for. */
export class Credit {
  #left: number;
  #perChar: number;
  #max: number;

  /** A balance of `options.start`. */
  constructor(options: CreditOptions) {
    this.#left = options.start;
    this.#perChar = options.perChar;
    this.#max = options.max;
  }

  /** Output came: `chars` characters of it. */
  earn(chars: number): void {
    this.#left = Math.min(this.#max, this.#left + chars * this.#perChar);
  }

  /** Spends `cost` when it is in hand; false, and nothing spent, when it is not. */
  spend(cost: number): boolean {
    if (cost > this.#left) return false;
    this.#left -= cost;
    return true;
  }

  /** Spends as much of `wanted` as is in hand, and says how much that was. */
  take(wanted: number): number {
    const taken = Math.min(wanted, this.#left);
    this.#left -= taken;
    return taken;
  }
}
