/**
 * Whether a byte stream, cut anywhere, is valid UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). A decoder shows invalid bytes as U+FFFD, which a pane can
 * also print on purpose: this tells the two apart. Pure.
 *
 * @module
 */

/** Checks bytes fed with {@linkcode Utf8Check.push}; {@linkcode Utf8Check.valid} says so far. */
export class Utf8Check {
  /** Continuation bytes still expected. */
  #need = 0;
  /** Bounds for the next continuation byte (the first one of a sequence is narrower). */
  #low = 0x80;
  #high = 0xbf;
  #valid = true;

  /** False once an invalid sequence was seen. */
  get valid(): boolean {
    return this.#valid;
  }

  /** Feeds more bytes. */
  push(bytes: Uint8Array): void {
    if (!this.#valid) return;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (this.#need > 0) {
        if (byte < this.#low || byte > this.#high) {
          this.#valid = false;
          return;
        }
        this.#need--;
        this.#low = 0x80;
        this.#high = 0xbf;
        continue;
      }
      if (byte < 0x80) continue;
      if (byte >= 0xc2 && byte <= 0xdf) {
        this.#need = 1;
      } else if (byte >= 0xe0 && byte <= 0xef) {
        this.#need = 2;
        if (byte === 0xe0) this.#low = 0xa0;
        if (byte === 0xed) this.#high = 0x9f;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        this.#need = 3;
        if (byte === 0xf0) this.#low = 0x90;
        if (byte === 0xf4) this.#high = 0x8f;
      } else {
        this.#valid = false;
        return;
      }
    }
  }
}
