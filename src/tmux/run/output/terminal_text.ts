/**
 * A command's output text reduced to lines as a terminal log would show them, from what
 * {@linkcode EscapeParser} reads of it: a carriage return goes back to the start of the line
 * (what follows overwrites), backspace steps back, and so do the cursor moves within a line that
 * progress bars and spinners write (CSI C forward, D back, G to a column); a move up to a line
 * already passed on (CSI A and F, reverse index: docker pull's layers, multi-row bars) rewrites
 * it, the new text passed on as a rewrite of the last lines once the cursor is back on the line
 * below them ({@linkcode RowsAbove}); erase-in-line applies; other sequences are dropped, tabs are
 * kept as tabs, and what was drawn on the alternate screen (full-screen programs) is left out.
 * Columns count UTF-16 code units, not terminal cells (what a carriage return overwrites is by
 * character, as a log shows it). Lines go to a sink as they end; nothing is kept here beyond the
 * line being written, and a line longer than {@linkcode LONG_LINE} characters is passed on in
 * pieces as it grows ({@linkcode LongLine}; from then on it is only appended to: carriage
 * returns and erasing no longer apply to it). What a few bytes can ask for is paid for by output
 * ({@linkcode Credit}): blanks up to a far column, a line rebuilt in place (past that the line is
 * only appended to, as a long one), rewrites of the lines above. Pure.
 *
 * @module
 */

import { Credit } from "./credit.ts";
import { EscapeParser } from "./escapes.ts";
import { LongLine, type LongLineSink } from "./long_line.ts";
import { RowsAbove } from "./rows_above.ts";

/** Where a reducer's lines go (a long line's, see {@linkcode LONG_LINE}, in pieces). */
export interface LineSink extends LongLineSink {
  /** A line that ended. */
  line(text: string): void;
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

const ALTERNATE_MODES = new Set(["?1049", "?1047", "?47"]);

/** CSI queries tmux answers: primary and secondary device attributes, status reports, XTVERSION. */
const TERMINAL_QUERY = /^(?:[>=]?0?c|\??[56]n|>0?q)$/;

/** Turns a stream of terminal output into lines, fed with {@linkcode LineReducer.push}. */
export class LineReducer {
  #sink: LineSink;
  /** The line being written; `#column` is where the next character goes (a carriage return
   * sends it back to 0, so what follows overwrites). */
  #line = "";
  #long: LongLine | null = null;
  #column = 0;
  #parser = new EscapeParser({
    text: (run) => {
      if (!this.#alternate) this.#write(run);
    },
    control: (char) => this.#control(char),
    csi: (params, final) => this.#csi(params, final),
    reverseIndex: () => this.#moveUp(1),
  });
  #alternate = false;
  #usedAlternate = false;
  /**
   * The last lines passed on, for a move up to rewrite, and the row the cursor is on among them;
   * while it is above the bottom line, `#line` is that row's text (the column goes with it).
   */
  #above = new RowsAbove();
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
    this.#parser.push(text);
  }

  /** The line being written (as far as it is held), or null when none is. */
  current(): string | null {
    if (this.#long !== null) return this.#long.head;
    const line = this.#above.bottom(this.#line);
    return line.length > 0 ? line : null;
  }

  /** Ends a last line without its newline, if one is being written. */
  finish(): void {
    this.#moveDown(this.#above.cursorUp);
    if (this.#line !== "" || this.#long !== null) this.#endLine();
  }

  /** A control character (the parser took ESC). */
  #control(char: string): void {
    if (this.#alternate) return;
    if (char === "\n" && this.#above.cursorUp === 0) {
      this.#endLine();
    } else if (char === "\n") {
      // The terminal sends a newline as a carriage return and a line feed.
      this.#moveDown(1);
      this.#column = 0;
    } else if (char === "\r" && !this.#fixed) {
      this.#column = 0;
    } else if (char === "\b" && !this.#fixed) {
      this.#column = Math.max(0, this.#column - 1);
    }
  }

  /** Writes plain text at the cursor (over what a carriage return left behind it). */
  #write(text: string): void {
    if (this.#long !== null) {
      this.#long.grow(text);
      return;
    }
    const line = this.#line;
    if (this.#column < line.length && !this.#edits.spend(line.length)) {
      // Not paid for: a row above keeps its text, the bottom line is appended to from here on.
      if (this.#above.cursorUp > 0) return;
      this.#appendOnly = true;
      this.#column = line.length;
    }
    if (this.#above.cursorUp > 0) {
      // A row above is rewritten in place: it never grows long (what passes the limit is lost).
      this.#above.changed();
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
    if (this.#line.length > LONG_LINE && this.#above.cursorUp === 0) {
      // Too long to hold: from here on it is passed on as it grows.
      this.#long = new LongLine(this.#sink, this.#line);
      this.#line = "";
      this.#column = 0;
    }
  }

  #endLine(): void {
    const long = this.#long;
    if (long === null) {
      this.#sink.line(this.#line);
      this.#above.push(this.#line);
    } else {
      // A long line is passed on in pieces: no move up rewrites it, or what it follows.
      this.#above.clear();
      long.end();
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
        if (this.#above.cursorUp === 0) this.#appendOnly = true;
        return;
      }
      if (this.#above.cursorUp > 0) this.#above.changed();
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
    this.#line = this.#above.moveUp(n, this.#line) ?? this.#line;
  }

  /**
   * The cursor goes `n` rows down, no further than the bottom line; back there, the rows
   * rewritten on the way are passed on.
   */
  #moveDown(n: number): void {
    if (this.#above.cursorUp === 0) return;
    const { line, rewritten } = this.#above.moveDown(n, this.#line);
    this.#line = line;
    if (rewritten !== null) this.#sink.rewrite(rewritten);
  }
}
