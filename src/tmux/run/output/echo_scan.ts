/**
 * Where a shell's echo of a typed token ends in the bytes its pane writes. Line editors do not
 * echo a line as one run of text: bash rewrites the first character of a wrapped row after a
 * carriage return (`ef\rf0`), zsh clears and rewrites it (`e \r\x1b[Kf\rf0`), others colour words.
 * The scan reads only what lands on the screen as text, and takes a character repeated right after
 * a carriage return as the same character. An echo it cannot read is not seen (never a false one).
 *
 * @module
 */

const ESC = 0x1b;
const BEL = 0x07;
const CR = 0x0d;

/** Where in an escape sequence the scan is. */
type Escape = "none" | "esc" | "csi" | "string" | "string_esc";

/** Finds the end of a token's echo in a pane's output, fed in pieces. Linear in the text. */
export class EchoScan {
  #token: string;
  /** The last screen characters seen, at most the token's length. */
  #tail = "";
  #escape: Escape = "none";
  #afterReturn = false;
  #seen = false;

  /** `token`: printable ASCII without spaces (output.ts `typedToken`). */
  constructor(token: string) {
    this.#token = token;
  }

  /** Whether the token's echo has come by. */
  get seen(): boolean {
    return this.#seen;
  }

  /**
   * Feeds the next text; returns the index just after the token's echo when it ends in `text`,
   * else -1 (also once it has been seen).
   */
  scan(text: string): number {
    if (this.#seen) return -1;
    for (let i = 0; i < text.length; i++) {
      if (!this.#isScreenText(text.charCodeAt(i))) continue;
      const char = text[i];
      // A line editor moving to a new row writes its first character, returns, and writes it again.
      const repeated = this.#afterReturn && this.#tail.endsWith(char);
      this.#afterReturn = false;
      if (repeated) continue;
      this.#tail = (this.#tail + char).slice(-this.#token.length);
      if (this.#tail === this.#token) {
        this.#seen = true;
        return i + 1;
      }
    }
    return -1;
  }

  /** Steps the escape-sequence state; true when the code is a character written on screen. */
  #isScreenText(code: number): boolean {
    switch (this.#escape) {
      case "esc":
        // CSI, or a string (OSC, DCS, APC, PM, SOS) ended by ST or BEL; else a two-byte sequence.
        this.#escape = code === 0x5b
          ? "csi"
          : code === 0x5d || code === 0x50 || code === 0x5f || code === 0x5e || code === 0x58
          ? "string"
          : "none";
        return false;
      case "csi":
        if (code >= 0x40 && code <= 0x7e) this.#escape = "none";
        return false;
      case "string":
        if (code === BEL) this.#escape = "none";
        else if (code === ESC) this.#escape = "string_esc";
        return false;
      case "string_esc":
        this.#escape = code === 0x5c ? "none" : "string";
        return false;
    }
    if (code === ESC) {
      this.#escape = "esc";
      return false;
    }
    if (code === CR) this.#afterReturn = true;
    // Spaces are skipped too: zsh writes one before the return that wraps a row.
    return code > 0x20 && code !== 0x7f;
  }
}
