/**
 * A run's output read from the pane's byte stream: exactly what the command wrote between its
 * start and end markers (OSC 7 sequences naming the call's nonce, which the typed line's echo
 * does not contain), reduced to lines. Independent of history-limit, pane width, echo, `clear`
 * and prompts.
 *
 * @module
 */

import { abortable } from "../../async.ts";
import type { CallNames } from "./shell.ts";
import { LineReducer, type ReducedLines } from "./terminal_text.ts";

/** The bytes a trailer writes as its OSC 7 marker for `path`. */
function osc7(path: string): string {
  return `\x1b]7;${path}\x1b\\`;
}

/** Collects one run's output; feed it the pane's bytes with {@linkcode RunStream.push}. */
export class RunStream {
  #decoder = new TextDecoder();
  #pending = "";
  #phase: "before" | "inside" | "after" = "before";
  #reducer: LineReducer;
  #start: string;
  #end: string;
  #ended: Promise<void>;
  #markEnded!: () => void;

  constructor(names: CallNames, maxLines: number) {
    this.#reducer = new LineReducer({ maxLines });
    this.#start = osc7(names.startMarker);
    this.#end = osc7(names.channel);
    this.#ended = new Promise((resolve) => this.#markEnded = resolve);
  }

  /** Whether the end marker came by: every byte of the output is in. */
  get done(): boolean {
    return this.#phase === "after";
  }

  /** Whether the start marker came by: the shell ran the line. */
  get started(): boolean {
    return this.#phase !== "before";
  }

  /** Feeds the pane's next output bytes. */
  push(bytes: Uint8Array): void {
    if (this.#phase === "after") return;
    let text = this.#pending + this.#decoder.decode(bytes, { stream: true });
    if (this.#phase === "before") {
      const at = text.indexOf(this.#start);
      if (at < 0) {
        this.#pending = text.slice(-(this.#start.length - 1));
        return;
      }
      text = text.slice(at + this.#start.length);
      this.#phase = "inside";
    }
    const at = text.indexOf(this.#end);
    if (at < 0) {
      // What could be the start of the end marker waits for the next bytes.
      const keep = Math.min(text.length, this.#end.length - 1);
      this.#reducer.push(text.slice(0, text.length - keep));
      this.#pending = text.slice(text.length - keep);
      return;
    }
    this.#reducer.push(text.slice(0, at));
    this.#pending = "";
    this.#phase = "after";
    this.#markEnded();
  }

  /** Resolves true once the end marker came by, false when `ms` pass first. */
  async ended(ms: number): Promise<boolean> {
    if (this.done) return true;
    await abortable(this.#ended, AbortSignal.timeout(ms));
    return this.done;
  }

  /** The lines so far (all of them once ended). */
  lines(): ReducedLines {
    return this.#reducer.finish();
  }
}
