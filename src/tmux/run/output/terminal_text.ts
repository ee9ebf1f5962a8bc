/**
 * A command's output text reduced to lines as a terminal log would show them: a carriage return
 * goes back to the start of the line (what follows overwrites), backspace steps back, and so do
 * the cursor moves within a line that progress bars and spinners write (CSI C forward, D back, G
 * to a column), and a move up to a line already passed on (CSI A and F, reverse index: docker
 * pull's layers, multi-row bars) rewrites it, the new text passed on as a rewrite of the last
 * lines once the cursor is back on the line below them; escape sequences (CSI, OSC, and the strings of DCS, APC, PM and SOS, sixel images
 * among them) are dropped but for those and erase-in-line, CAN and SUB cancel a sequence, tabs are kept as tabs, and what
 * was drawn on the alternate screen (full-screen programs) is left out. Columns count UTF-16 code
 * units, not terminal cells (what a carriage return overwrites is by character, as a log shows
 * it). Lines go to a sink as
 * they end; nothing is kept here beyond the line being written, and a line longer than
 * {@linkcode LONG_LINE} characters is passed on in pieces as it grows (from then on it is only
 * appended to: carriage returns and erasing no longer apply to it). What a few bytes can ask for is
 * paid for by output ({@linkcode Credit}): blanks up to a far column, a line rebuilt in place (past
 * that the line is only appended to, as a long one), rewrites of the lines above. Pure.
 *
 * @module
 */

import { lineBytes } from "../../read/text/excerpt.ts";
import { Credit } from "./credit.ts";
import { RowsAbove } from "./rows_above.ts";

/** Where a reducer's lines go. */
export interface LineSink {
  /** A line that ended. */
  line(text: string): void;
  /** More text of a long line (see {@linkcode LONG_LINE}), in order. */
  longText(text: string): void;
  /** A long line ended: its first and last characters (as kept) and its UTF-8 bytes. */
  longEnd(ends: { head: string; tail: string; bytes: number }): void;
  /** The last `lines.length` lines passed on were rewritten: these are their new texts. */
  rewrite(lines: string[]): void;
}

/**
 * Blanks a move past a line's end may put before the next character, for each character of
 * output, and at first and at most: `ESC [ 65000 G x` would otherwise make ten bytes a line of
 * 65,000 characters for the log to store. Past what is in hand the gap is narrower.
 */
const GAP_CREDIT = { start: 64 * 1024, perChar: 1, max: 64 * 1024 };

/**
 * Characters of a line rebuilt in place (a character written before its end, an erase) for each
 * character of output, and at first and at most: a carriage return and one character over a line
 * of 60,000 would otherwise copy it whole for three bytes. Past what is in hand the line is only
 * appended to until it ends, as a long one is.
 */
const EDIT_CREDIT = { start: 1024 * 1024, perChar: 64, max: 4 * 1024 * 1024 };

/** Characters a line may reach before it is passed on in pieces. */
export const LONG_LINE = 64 * 1024;

/** Characters of a long line's start and end kept for an excerpt of it. */
const LONG_HEAD = 32 * 1024;
const LONG_TAIL = 96 * 1024;

/** Characters of a long line's tail below which its latest piece takes more text. */
const TAIL_PIECE = 1024;

/** Characters of a long line collected before they are passed on. */
const LONG_PIECE = 16 * 1024;

const ESC = "\x1b";
const ALTERNATE_MODES = new Set(["?1049", "?1047", "?47"]);

/** CSI queries tmux answers: primary and secondary device attributes, status reports, XTVERSION. */
const TERMINAL_QUERY = /^(?:[>=]?0?c|\??[56]n|>0?q)$/;

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

/** A run of characters that only write to the line: no control characters (a tab writes). */
// deno-lint-ignore no-control-regex
const PLAIN = /[^\x00-\x08\x0a-\x1f\x7f]+/y;

/**
 * A line too long to hold, passed on as it grows: its start, its latest pieces (at least
 * {@linkcode LONG_TAIL} characters of them), what is not yet passed on, and its size so far. Kept
 * as pieces: joining a growing string again and again would copy it each time.
 */
interface LongLine {
  head: string;
  tail: string[];
  tailLength: number;
  pending: string[];
  pendingLength: number;
  bytes: number;
}

/** Turns a stream of terminal output into lines, fed with {@linkcode LineReducer.push}. */
export class LineReducer {
  #sink: LineSink;
  /** The line being written; `#column` is where the next character goes (a carriage return
   * sends it back to 0, so what follows overwrites). */
  #line = "";
  #long: LongLine | null = null;
  #column = 0;
  #state: State = "text";
  #sequence = "";
  #alternate = false;
  #usedAlternate = false;
  /** The last lines passed on, for a move up to rewrite. */
  #above = new RowsAbove();
  /** Rows above the bottom line the cursor is on; while above, `#line` is that row's text. */
  #up = 0;
  /** The bottom line, put aside while the cursor is above it (the column goes with the cursor). */
  #bottom = "";
  /** How far above the bottom the highest row rewritten since the cursor left it is (0: none). */
  #changedUp = 0;
  /** Blanks before a character past a line's end, paid for by output (see `GAP_CREDIT`). */
  #gaps = new Credit(GAP_CREDIT);
  /** Lines rebuilt in place, paid for by output (see `EDIT_CREDIT`). */
  #edits = new Credit(EDIT_CREDIT);
  /** The line being written is only appended to until it ends: its edits were not paid for. */
  #appendOnly = false;

  /** A reducer passing its lines to `sink`. */
  constructor(sink: LineSink) {
    this.#sink = sink;
  }

  /** Whether the output switched to the alternate screen at some point. */
  get alternateScreen(): boolean {
    return this.#usedAlternate;
  }

  /** Feeds more text (decoded output, cut anywhere). */
  push(text: string): void {
    this.#above.earn(text.length);
    this.#gaps.earn(text.length);
    this.#edits.earn(text.length);
    for (let i = 0; i < text.length;) {
      if (this.#state === "text") {
        // Plain text, the bulk of any output, is written a run at a time.
        PLAIN.lastIndex = i;
        const run = PLAIN.exec(text);
        if (run !== null) {
          if (!this.#alternate) this.#write(run[0]);
          i += run[0].length;
          continue;
        }
      }
      const char = String.fromCodePoint(text.codePointAt(i)!);
      i += char.length;
      this.#step(char);
    }
  }

  /** The line being written (as far as it is held), or null when none is. */
  current(): string | null {
    if (this.#long !== null) return this.#long.head;
    const line = this.#up > 0 ? this.#bottom : this.#line;
    return line.length > 0 ? line : null;
  }

  /** Ends a last line without its newline, if one is being written. */
  finish(): void {
    this.#moveDown(this.#up);
    if (this.#line !== "" || this.#long !== null) this.#endLine();
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
        } else if (char === "M") {
          // Reverse index: a line up.
          this.#state = "text";
          this.#moveUp(1);
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
      if (this.#up === 0) {
        this.#endLine();
      } else {
        // The terminal sends a newline as a carriage return and a line feed.
        this.#moveDown(1);
        this.#column = 0;
      }
    } else if (this.#fixed) {
      return;
    } else if (char === "\r") {
      this.#column = 0;
    } else if (char === "\b") {
      this.#column = Math.max(0, this.#column - 1);
    }
  }

  /** Writes plain text at the cursor (over what a carriage return left behind it). */
  #write(text: string): void {
    if (this.#long !== null) {
      this.#grow(text);
      return;
    }
    const line = this.#line;
    if (this.#column < line.length && !this.#edits.spend(line.length)) {
      // Not paid for: a row above keeps its text, the bottom line is appended to from here on.
      if (this.#up > 0) return;
      this.#appendOnly = true;
      this.#column = line.length;
    }
    if (this.#up > 0) {
      // A row above is rewritten in place: it never grows long (what passes the limit is lost).
      this.#rowChanged();
      text = text.slice(0, Math.max(0, LONG_LINE - this.#column));
    }
    if (this.#column > line.length) {
      this.#column = line.length + this.#gaps.take(this.#column - line.length);
    }
    if (this.#column === line.length) {
      this.#line = line + text;
    } else if (this.#column > line.length) {
      // Erased cells before the cursor read as spaces.
      this.#line = line + " ".repeat(this.#column - line.length) + text;
    } else {
      this.#line = line.slice(0, this.#column) + text + line.slice(this.#column + text.length);
    }
    this.#column += text.length;
    if (this.#line.length > LONG_LINE && this.#up === 0) this.#toLong();
  }

  /** The line being written got too long to hold: from here on it is passed on as it grows. */
  #toLong(): void {
    const text = this.#line;
    this.#line = "";
    this.#column = 0;
    this.#long = {
      head: text.slice(0, LONG_HEAD),
      tail: [],
      tailLength: 0,
      pending: [],
      pendingLength: 0,
      bytes: 0,
    };
    this.#grow(text);
  }

  #grow(text: string): void {
    const long = this.#long!;
    long.pending.push(text);
    long.pendingLength += text.length;
    // Written a character at a time (each between escapes), pieces are merged: dropping the
    // oldest of a hundred thousand one-character pieces made every character cost them all.
    const last = long.tail.length - 1;
    if (last >= 0 && long.tail[last].length < TAIL_PIECE) long.tail[last] += text;
    else long.tail.push(text);
    long.tailLength += text.length;
    while (long.tailLength - long.tail[0].length >= LONG_TAIL) {
      long.tailLength -= long.tail.shift()!.length;
    }
    if (long.pendingLength >= LONG_PIECE) this.#passOn(long);
  }

  #passOn(long: LongLine): void {
    const text = long.pending.join("");
    long.bytes += lineBytes(text) - 1;
    this.#sink.longText(text);
    long.pending = [];
    long.pendingLength = 0;
  }

  #endLine(): void {
    const long = this.#long;
    if (long === null) {
      this.#sink.line(this.#line);
      this.#above.push(this.#line);
    } else {
      // A long line is passed on in pieces: no move up rewrites it, or what it follows.
      this.#above.clear();
      this.#passOn(long);
      this.#sink.longEnd({
        head: long.head,
        tail: long.tail.join("").slice(-LONG_TAIL),
        bytes: long.bytes,
      });
      this.#long = null;
    }
    this.#line = "";
    this.#column = 0;
    this.#appendOnly = false;
  }

  /** Whether the line being written is only appended to: long, or its edits not paid for. */
  get #fixed(): boolean {
    return this.#long !== null || this.#appendOnly;
  }

  /**
   * Whether the output asked the terminal something tmux answers on the pane's input (device
   * attributes, a status or cursor report, XTVERSION): once the command is over, the answers sit
   * on the shell's command line.
   */
  get queriedTerminal(): boolean {
    return this.#queried;
  }
  #queried = false;

  #csi(params: string, final: string): void {
    this.#queried ||= TERMINAL_QUERY.test(params + final);
    const n = /^\d{1,9}$/.test(params) ? Math.max(1, Number(params)) : 1;
    if ((final === "h" || final === "l") && ALTERNATE_MODES.has(params)) {
      this.#alternate = final === "h";
      if (this.#alternate) this.#usedAlternate = true;
    } else if ("AF".includes(final)) {
      // Up (F: to the start of the line up there).
      this.#moveUp(n);
      if (final === "F") this.#column = 0;
    } else if ("BE".includes(final) && !this.#alternate) {
      this.#moveDown(n);
      if (final === "E") this.#column = 0;
    } else if ("CDG".includes(final) && !this.#alternate && !this.#fixed) {
      // Cursor forward, back, or to a column (1-based): where the next character goes.
      const column = final === "C" ? this.#column + n : final === "D" ? this.#column - n : n - 1;
      this.#column = Math.max(0, Math.min(column, LONG_LINE));
    } else if (final === "K" && !this.#alternate && !this.#fixed) {
      if (!this.#edits.spend(this.#line.length)) {
        if (this.#up === 0) this.#appendOnly = true;
        return;
      }
      if (this.#up > 0) this.#rowChanged();
      // Erase in line: from the cursor on (0), all of it (2), or up to the cursor (1).
      if (params === "" || params === "0") {
        this.#line = this.#line.slice(0, this.#column);
      } else if (params === "2") {
        this.#line = "";
      } else if (params === "1") {
        const upTo = Math.min(this.#column + 1, this.#line.length);
        this.#line = " ".repeat(upTo) + this.#line.slice(upTo);
      }
    }
  }

  /** The cursor goes `n` rows up, as far as the lines kept reach; the column stays. */
  #moveUp(n: number): void {
    if (this.#alternate || this.#fixed) return;
    const to = Math.min(this.#up + n, this.#above.length);
    if (to === this.#up) return;
    if (this.#up === 0) this.#bottom = this.#line;
    else this.#putRow();
    this.#up = to;
    this.#line = this.#above.get(to);
  }

  /**
   * The cursor goes `n` rows down, no further than the bottom line; back there, the rows
   * rewritten on the way are passed on.
   */
  #moveDown(n: number): void {
    if (this.#up === 0) return;
    this.#putRow();
    this.#up = Math.max(0, this.#up - n);
    if (this.#up > 0) {
      this.#line = this.#above.get(this.#up);
      return;
    }
    this.#line = this.#bottom;
    if (this.#changedUp === 0) return;
    const rows = this.#above.rewrite(this.#changedUp);
    this.#changedUp = 0;
    if (rows !== null) this.#sink.rewrite(rows);
  }

  /** The row above the cursor is on changes. */
  #rowChanged(): void {
    this.#changedUp = Math.max(this.#changedUp, this.#up);
  }

  /** Puts the row the cursor is on back among the lines above. */
  #putRow(): void {
    this.#above.set(this.#up, this.#line);
  }
}
