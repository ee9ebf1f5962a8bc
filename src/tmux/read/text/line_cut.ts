/**
 * A line's size as results count it (UTF-8 bytes and its newline), a line cut inside to fit,
 * with a marker for its middle, and lines that are not text (a binary file's bytes, read as
 * U+FFFD) told and marked. Pure.
 *
 * @module
 */

const encoder = new TextEncoder();

/** UTF-8 bytes of a line and its newline. */
export function lineBytes(line: string): number {
  // ASCII, the common case, without encoding.
  // deno-lint-ignore no-control-regex
  return (/^[\x00-\x7f]*$/.test(line) ? line.length : encoder.encode(line).length) + 1;
}

/** The marker standing for the middle of a line cut inside. */
export function cutMarker(bytes: number): string {
  return `…[${bytes.toLocaleString("en-US")} bytes cut]…`;
}

/** The longest prefix of `text` whose UTF-8 encoding fits `bytes` (never half a character). */
function prefixBytes(text: string, bytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(bytes));
  return text.slice(0, read);
}

/** The longest suffix of `text` whose UTF-8 encoding fits `bytes`. */
function suffixBytes(text: string, bytes: number): string {
  let used = 0;
  let start = text.length;
  for (const char of [...text.slice(Math.max(0, text.length - bytes))].reverse()) {
    const size = lineBytes(char) - 1;
    if (used + size > bytes) break;
    used += size;
    start -= char.length;
  }
  return text.slice(start);
}

/** The marker standing for `lines` lines that are not text, of `bytes` bytes with newlines. */
export function notTextMarker(lines: number, bytes: number): string {
  const count = lines === 1 ? "1 line" : `${lines.toLocaleString("en-US")} lines`;
  return `…[${count} not text, ${bytes.toLocaleString("en-US")} bytes]…`;
}

/** The share of replacement characters (bytes that are not UTF-8) that makes a line not text. */
const NOT_TEXT_SHARE = 8;

/**
 * Whether a line is not text: an eighth or more of its characters are U+FFFD. A binary file's
 * lines are; text in another encoding (Latin-1 accents) mostly is not, but its short lines are.
 */
export function isNotText(line: string): boolean {
  let replaced = 0;
  for (let i = line.indexOf("\ufffd"); i >= 0; i = line.indexOf("\ufffd", i + 1)) replaced++;
  return replaced > 0 && replaced * NOT_TEXT_SHARE >= [...line].length;
}

/** A line known by its ends and its size (one too long to hold whole). */
export interface LineEnds {
  /** Its first characters. */
  head: string;
  /** Its last characters. */
  tail: string;
  /** UTF-8 bytes of the whole line, without its newline. */
  bytes: number;
}

/**
 * A line within `maxBytes` (its newline included): as it is, or its first quarter and last three
 * quarters around a marker saying how many bytes were cut. Returns the line and the bytes cut.
 */
export function cutLine(line: string | LineEnds, maxBytes: number): { line: string; cut: number } {
  // Ends whose tail holds the whole line are that line.
  if (typeof line !== "string" && lineBytes(line.tail) - 1 === line.bytes) line = line.tail;
  const ends = typeof line === "string"
    ? { head: line, tail: line, bytes: lineBytes(line) - 1 }
    : line;
  if (typeof line === "string" && ends.bytes + 1 <= maxBytes) return { line, cut: 0 };
  const keep = Math.max(0, maxBytes - lineBytes(cutMarker(ends.bytes)));
  const head = prefixBytes(ends.head, Math.floor(keep / 4));
  const headBytes = lineBytes(head) - 1;
  // Never a byte shown twice: the tail stays clear of the head, one byte at least cut between.
  const tail = suffixBytes(ends.tail, Math.min(keep - headBytes, ends.bytes - headBytes - 1));
  const cut = ends.bytes - headBytes - (lineBytes(tail) - 1);
  return { line: `${head}${cutMarker(cut)}${tail}`, cut };
}
