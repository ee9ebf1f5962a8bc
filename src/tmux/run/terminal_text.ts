/**
 * A command's output text reduced to lines as a terminal log would show them: a carriage return
 * goes back to the start of the line (what follows overwrites), backspace steps back, escape
 * sequences (CSI, OSC, and the strings of DCS, APC, PM and SOS, sixel images among them) are
 * dropped but for erase-in-line, CAN and SUB cancel a sequence, tabs are kept as tabs, and what
 * was drawn on the alternate screen (full-screen programs) is left out. Lines go to a sink as
 * they end; nothing is kept here beyond the line being written, and a line longer than
 * {@linkcode LONG_LINE} characters is passed on in pieces as it grows (from then on it is only
 * appended to: carriage returns and erasing no longer apply to it). Pure.
 *
 * @module
 */

import { lineBytes } from "../excerpt.ts";

/** Where a reducer's lines go. */
export interface LineSink {
  /** A line that ended. */
  line(text: string): void;
  /** More text of a long line (see {@linkcode LONG_LINE}), in order. */
  longText(text: string): void;
  /** A long line ended: its first and last characters (as kept) and its UTF-8 bytes. */
  longEnd(ends: { head: string; tail: string; bytes: number }): void;
}

/** Characters a line may reach before it is passed on in pieces. */
export const LONG_LINE = 64 * 1024;

/** Characters of a long line's start and end kept for an excerpt of it. */
const LONG_HEAD = 32 * 1024;
const LONG_TAIL = 96 * 1024;

/** Characters of a long line collected before they are passed on. */
const LONG_PIECE = 16 * 1024;

const ESC = "\x1b";
const ALTERNATE_MODES = new Set(["?1049", "?1047", "?47"]);

type State =
  | "text"
  | "escape"
  | "csi"
  | "osc"
  | "osc_escape"
  | "string"
  | "string_escape"
  | "charset";

/** Introducers of strings that only ST ends: DCS, SOS, PM, APC. */
const STRINGS = new Set(["P", "X", "^", "_"]);

/** CAN and SUB: a terminal drops the sequence in progress. */
const CANCEL = new Set(["\x18", "\x1a"]);

/** CSI parameters kept: those that matter here are short; longer ones are kept no further. */
const PARAMS_MAX = 16;

/** A line too long to hold, passed on as it grows: its ends and its size so far. */
interface LongLine {
  head: string;
  tail: string;
  /** Text not yet passed on. */
  pending: string;
  bytes: number;
}

/** Turns a stream of terminal output into lines, fed with {@linkcode LineReducer.push}. */
export class LineReducer {
  #sink: LineSink;
  /** The line being written, a character a cell (so a carriage return can overwrite it). */
  #line: string[] = [];
  #long: LongLine | null = null;
  #column = 0;
  #state: State = "text";
  #sequence = "";
  #alternate = false;
  #usedAlternate = false;

  constructor(sink: LineSink) {
    this.#sink = sink;
  }

  /** Whether the output switched to the alternate screen at some point. */
  get alternateScreen(): boolean {
    return this.#usedAlternate;
  }

  /** Feeds more text (decoded output, cut anywhere). */
  push(text: string): void {
    for (const char of text) this.#step(char);
  }

  /** The line being written (as far as it is held), or null when none is. */
  current(): string | null {
    if (this.#long !== null) return this.#long.head;
    return this.#line.length > 0 ? this.#line.join("") : null;
  }

  /** Ends a last line without its newline, if one is being written. */
  finish(): void {
    if (this.#line.length > 0 || this.#long !== null) this.#endLine();
  }

  #step(char: string): void {
    if (this.#state !== "text" && CANCEL.has(char)) {
      this.#state = "text";
      return;
    }
    switch (this.#state) {
      case "text":
        return this.#text(char);
      case "escape":
        if (char === "[") {
          this.#state = "csi";
          this.#sequence = "";
        } else if (char === "]") {
          this.#state = "osc";
        } else if (STRINGS.has(char)) {
          this.#state = "string";
        } else {
          // A designation (ESC ( B and the like) takes one more character; others end here.
          this.#state = char >= " " && char <= "/" ? "charset" : "text";
        }
        return;
      case "charset":
        this.#state = "text";
        return;
      case "csi":
        if (char >= "@" && char <= "~") {
          this.#state = "text";
          this.#csi(this.#sequence, char);
        } else if (char === ESC) {
          this.#state = "escape";
        } else if (this.#sequence.length < PARAMS_MAX) {
          this.#sequence += char;
        }
        return;
      case "osc":
        if (char === "\x07") this.#state = "text";
        else if (char === ESC) this.#state = "osc_escape";
        return;
      case "osc_escape":
        this.#state = char === "\\" ? "text" : "osc";
        return;
      case "string":
        if (char === ESC) this.#state = "string_escape";
        return;
      case "string_escape":
        this.#state = char === "\\" ? "text" : "string";
        return;
    }
  }

  #text(char: string): void {
    if (char === ESC) {
      this.#state = "escape";
    } else if (this.#alternate) {
      return;
    } else if (char === "\n") {
      this.#endLine();
    } else if (this.#long !== null) {
      if (char === "\t" || (char >= " " && char !== "\x7f")) this.#grow(char);
    } else if (char === "\r") {
      this.#column = 0;
    } else if (char === "\b") {
      this.#column = Math.max(0, this.#column - 1);
    } else if (char === "\t" || (char >= " " && char !== "\x7f")) {
      // Erased cells before the cursor read as spaces.
      while (this.#line.length < this.#column) this.#line.push(" ");
      this.#line[this.#column++] = char;
      if (this.#line.length > LONG_LINE) this.#toLong();
    }
  }

  /** The line being written got too long to hold: from here on it is passed on as it grows. */
  #toLong(): void {
    const text = this.#line.join("");
    this.#line = [];
    this.#column = 0;
    this.#long = { head: text.slice(0, LONG_HEAD), tail: "", pending: "", bytes: 0 };
    this.#grow(text);
  }

  #grow(text: string): void {
    const long = this.#long!;
    long.pending += text;
    long.tail += text;
    if (long.tail.length > 2 * LONG_TAIL) long.tail = long.tail.slice(-LONG_TAIL);
    if (long.pending.length >= LONG_PIECE) this.#passOn(long);
  }

  #passOn(long: LongLine): void {
    long.bytes += lineBytes(long.pending) - 1;
    this.#sink.longText(long.pending);
    long.pending = "";
  }

  #endLine(): void {
    const long = this.#long;
    if (long === null) {
      this.#sink.line(this.#line.join(""));
    } else {
      this.#passOn(long);
      this.#sink.longEnd({ head: long.head, tail: long.tail.slice(-LONG_TAIL), bytes: long.bytes });
      this.#long = null;
    }
    this.#line = [];
    this.#column = 0;
  }

  #csi(params: string, final: string): void {
    if ((final === "h" || final === "l") && ALTERNATE_MODES.has(params)) {
      this.#alternate = final === "h";
      if (this.#alternate) this.#usedAlternate = true;
    } else if (final === "K" && !this.#alternate && this.#long === null) {
      // Erase in line: from the cursor on (0), all of it (2), or up to the cursor (1).
      if (params === "" || params === "0") {
        this.#line.length = Math.min(this.#line.length, this.#column);
      } else if (params === "2") {
        this.#line = [];
      } else if (params === "1") {
        this.#line.fill(" ", 0, Math.min(this.#column + 1, this.#line.length));
      }
    }
  }
}
