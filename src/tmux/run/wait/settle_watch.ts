/**
 * What a run's shell writes after the end marker: the run function's last bytes (the OSC 7 that
 * puts the pane path back, once its tmux command has run), then the prompt.
 *
 * @module
 */

const OSC7 = "\x1b]7;";
const ST = "\x1b\\";

/** Text looked through after the end marker for the function's last OSC 7 before giving up. */
const SETTLE_SCAN_MAX = 8192;

/** Follows a shell from its run's end marker to its prompt. */
export class SettleWatch {
  /** What came after the end marker, until the function's last OSC 7 is in it. */
  #after = "";
  #done = false;
  #markSettled!: () => void;
  #markPrompted!: () => void;
  /** Resolves once the run function has written its last bytes. */
  readonly settled: Promise<void> = new Promise((resolve) => this.#markSettled = resolve);
  /** Resolves once the shell wrote something after them: its prompt is being drawn. */
  readonly prompted: Promise<void> = new Promise((resolve) => this.#markPrompted = resolve);

  /** Whether the function's last bytes came by (or were given up on). */
  get done(): boolean {
    return this.#done;
  }

  /** Reads more of what followed the end marker (see {@linkcode SettleWatch.wrote} once done). */
  see(text: string): void {
    this.#after += text;
    const start = this.#after.indexOf(OSC7);
    const end = start < 0 ? -1 : this.#after.indexOf(ST, start);
    if (end < 0 && this.#after.length <= SETTLE_SCAN_MAX) return;
    // The prompt may have come in the same bytes.
    if (end >= 0 && end + ST.length < this.#after.length) this.#markPrompted();
    this.#after = "";
    this.now();
  }

  /** The shell wrote more once settled: its prompt. */
  wrote(): void {
    this.#markPrompted();
  }

  /** Counts the shell as settled now (it never ran the function: nothing more is waited for). */
  now(): void {
    this.#done = true;
    this.#markSettled();
  }
}
