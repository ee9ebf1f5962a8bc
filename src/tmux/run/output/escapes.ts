/**
 * Terminal output read as a terminal reads it: runs of text, control characters, and the escape
 * sequences that matter to a log of lines (CSI sequences, reverse index); the strings of OSC,
 * DCS, APC, PM and SOS (sixel images among them) and character-set designations are dropped,
 * and CAN and SUB cancel a sequence in progress. Pure.
 *
 * @module
 */

/** What an {@linkcode EscapeParser} reads out of terminal output. */
export interface TerminalEvents {
  /** A run of characters that only write: no control characters (a tab writes). */
  text(run: string): void;
  /** A control character outside any sequence (newline, carriage return, backspace...). */
  control(char: string): void;
  /** A CSI sequence: its parameters (at most {@linkcode PARAMS_MAX} characters) and final. */
  csi(params: string, final: string): void;
  /** Reverse index (ESC M): a line up. */
  reverseIndex(): void;
}

const ESC = "\x1b";

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

/** Reads terminal output, cut anywhere, into {@linkcode TerminalEvents}. */
export class EscapeParser {
  #events: TerminalEvents;
  #state: State = "text";
  #sequence = "";

  /** A parser telling `events` what it reads. */
  constructor(events: TerminalEvents) {
    this.#events = events;
  }

  /** Reads more text. */
  push(text: string): void {
    for (let i = 0; i < text.length;) {
      if (this.#state === "text") {
        // Plain text, the bulk of any output, is read a run at a time.
        PLAIN.lastIndex = i;
        const run = PLAIN.exec(text);
        if (run !== null) {
          this.#events.text(run[0]);
          i += run[0].length;
          continue;
        }
      }
      const char = String.fromCodePoint(text.codePointAt(i)!);
      i += char.length;
      this.#step(char);
    }
  }

  #step(char: string): void {
    if (this.#state !== "text" && CANCEL.has(char)) {
      this.#state = "text";
      return;
    }
    switch (this.#state) {
      case "text":
        if (char === ESC) this.#state = "escape";
        else this.#events.control(char);
        return;
      case "escape":
        if (char === "[") {
          this.#state = "csi";
          this.#sequence = "";
        } else if (char === "]") {
          this.#state = "osc";
        } else if (STRINGS.has(char)) {
          this.#state = "string";
        } else if (char === "M") {
          this.#state = "text";
          this.#events.reverseIndex();
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
          this.#events.csi(this.#sequence, char);
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
}
