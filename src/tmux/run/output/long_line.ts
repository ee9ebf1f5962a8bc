/**
 * A line too long to hold, passed on as it grows: its start, its latest pieces, what is not yet
 * passed on, and its size so far. Kept as pieces: joining a growing string again and again would
 * copy it each time. Pure.
 *
 * @module
 */

import { lineBytes } from "../../read/text/mod.ts";

/** Characters of a long line's start and end kept for an excerpt of it. */
const LONG_HEAD = 32 * 1024;
const LONG_TAIL = 96 * 1024;

/** Characters of a long line's tail below which its latest piece takes more text. */
const TAIL_PIECE = 1024;

/** Characters of a long line collected before they are passed on. */
const LONG_PIECE = 16 * 1024;

/** Where a long line's text goes. */
export interface LongLineSink {
  /** More text of a long line, in order. */
  longText(text: string): void;
  /** A long line ended: its first and last characters (as kept) and its UTF-8 bytes. */
  longEnd(ends: { head: string; tail: string; bytes: number }): void;
}

/** A long line being written: text goes on at its end only. */
export class LongLine {
  #sink: LongLineSink;
  /** Its first {@linkcode LONG_HEAD} characters. */
  readonly head: string;
  #tail: string[] = [];
  #tailLength = 0;
  #pending: string[] = [];
  #pendingLength = 0;
  #bytes = 0;

  /** A long line starting with `text`, passing its text on to `sink`. */
  constructor(sink: LongLineSink, text: string) {
    this.#sink = sink;
    this.head = text.slice(0, LONG_HEAD);
    this.grow(text);
  }

  /** Appends text, passing it on once enough is collected. */
  grow(text: string): void {
    this.#pending.push(text);
    this.#pendingLength += text.length;
    // Written a character at a time (each between escapes), pieces are merged: dropping the
    // oldest of a hundred thousand one-character pieces made every character cost them all.
    const tail = this.#tail;
    const last = tail.length - 1;
    if (last >= 0 && tail[last].length < TAIL_PIECE) tail[last] += text;
    else tail.push(text);
    this.#tailLength += text.length;
    while (this.#tailLength - tail[0].length >= LONG_TAIL) {
      this.#tailLength -= tail.shift()!.length;
    }
    if (this.#pendingLength >= LONG_PIECE) this.#passOn();
  }

  /** The line ended: the rest is passed on, then its ends and size. */
  end(): void {
    this.#passOn();
    this.#sink.longEnd({
      head: this.head,
      tail: this.#tail.join("").slice(-LONG_TAIL),
      bytes: this.#bytes,
    });
  }

  #passOn(): void {
    const text = this.#pending.join("");
    this.#bytes += lineBytes(text) - 1;
    this.#sink.longText(text);
    this.#pending = [];
    this.#pendingLength = 0;
  }
}
