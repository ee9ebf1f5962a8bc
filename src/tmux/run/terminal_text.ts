/**
 * A command's output text reduced to lines as a terminal log would show them: a carriage return
 * goes back to the start of the line (what follows overwrites), backspace steps back, escape
 * sequences (CSI, OSC, and the strings of DCS, APC, PM and SOS, sixel images among them) are
 * dropped but for erase-in-line, CAN and SUB cancel a sequence, tabs are kept as tabs, and what
 * was drawn on the alternate screen (full-screen programs) is left out. Lines are kept up to
 * a ceiling, the earliest dropped first and counted exactly. Pure.
 *
 * @module
 */

/** Options for {@linkcode LineReducer}. */
export interface LineReducerOptions {
  /** Most lines kept; earlier ones are dropped and counted. */
  maxLines: number;
}

/** What a {@linkcode LineReducer} made of the text it was given. */
export interface ReducedLines {
  lines: string[];
  /** Lines dropped from the head to stay under maxLines. */
  droppedLines: number;
  /** UTF-8 bytes of those lines, a newline each. */
  droppedBytes: number;
  /** Whether the output switched to the alternate screen at some point. */
  alternateScreen: boolean;
}

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

const encoder = new TextEncoder();

/** Turns a stream of terminal output into lines, fed with {@linkcode LineReducer.push}. */
export class LineReducer {
  #max: number;
  #lines: string[] = [];
  #head = 0;
  #dropped = 0;
  #droppedBytes = 0;
  #line: string[] = [];
  #column = 0;
  #state: State = "text";
  #sequence = "";
  #alternate = false;
  #usedAlternate = false;

  constructor(options: LineReducerOptions) {
    this.#max = Math.max(1, options.maxLines);
  }

  /** Feeds more text (decoded output, cut anywhere). */
  push(text: string): void {
    for (const char of text) this.#step(char);
  }

  /** The lines so far, a last one without its newline included. */
  finish(): ReducedLines {
    const lines = this.#lines.slice(this.#head);
    if (this.#line.length > 0) lines.push(this.#line.join(""));
    return {
      lines,
      droppedLines: this.#dropped,
      droppedBytes: this.#droppedBytes,
      alternateScreen: this.#usedAlternate,
    };
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
      this.#emit(this.#line.join(""));
      this.#line = [];
      this.#column = 0;
    } else if (char === "\r") {
      this.#column = 0;
    } else if (char === "\b") {
      this.#column = Math.max(0, this.#column - 1);
    } else if (char === "\t" || (char >= " " && char !== "\x7f")) {
      while (this.#line.length < this.#column) this.#line.push(" ");
      this.#line[this.#column++] = char;
    }
  }

  #csi(params: string, final: string): void {
    if ((final === "h" || final === "l") && ALTERNATE_MODES.has(params)) {
      this.#alternate = final === "h";
      if (this.#alternate) this.#usedAlternate = true;
    } else if (final === "K" && !this.#alternate) {
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

  #emit(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length - this.#head <= this.#max) return;
    this.#droppedBytes += encoder.encode(this.#lines[this.#head]).length + 1;
    this.#dropped++;
    this.#head++;
    // Now and then the dropped lines are let go of.
    if (this.#head > this.#max) {
      this.#lines = this.#lines.slice(this.#head);
      this.#head = 0;
    }
  }
}
