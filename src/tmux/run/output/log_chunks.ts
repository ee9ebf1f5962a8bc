/**
 * The chunks an output log keeps its bytes in, and finding lines among them: where a line starts
 * and ends, the bytes between two offsets, where the last lines start; a new chunk, or the
 * first one grown.
 *
 * @module
 */

import { CHUNK_BYTES, takeChunk } from "../../byte_chunks.ts";

/** Some of a log's bytes, in order: chunks follow one another, but for a dropped middle. */
export interface Chunk {
  /** Offset of its first byte in the whole output. */
  start: number;
  /** Its bytes (`used` of them written). */
  data: Uint8Array;
  /** Bytes written in `data`. */
  used: number;
  /** The line its first byte belongs to (1-based). */
  line: number;
  /** Whether its first byte starts that line. */
  atLineStart: boolean;
  /** Newlines in `data[0, used)`. */
  newlines: number;
}

/** The newline byte. */
export const NEWLINE = 0x0a;

/** The first chunk's size: most outputs are small. */
const FIRST_CHUNK = 1024;

/**
 * The last chunk grown (twice as large, at most a slab chunk) when it is the log's only one and
 * the log is smaller than a slab chunk: small outputs grow one buffer instead of leaving small
 * chunks behind. Null when it is not grown.
 */
export function grownChunk(chunks: readonly Chunk[], total: number): Chunk | null {
  const last = chunks.at(-1);
  if (
    last === undefined || last.data.length >= CHUNK_BYTES || last.start !== 0 ||
    total >= CHUNK_BYTES
  ) {
    return null;
  }
  const grown = new Uint8Array(Math.min(CHUNK_BYTES, last.data.length * 2));
  grown.set(last.data.subarray(0, last.used));
  last.data = grown;
  return last;
}

/** A new, empty chunk starting at `at`: a small one for a log's first, else a slab chunk. */
export function freshChunk(
  first: boolean,
  at: Pick<Chunk, "start" | "line" | "atLineStart">,
): Chunk {
  const data = first ? new Uint8Array(FIRST_CHUNK) : takeChunk();
  return { ...at, data, used: 0, newlines: 0 };
}

/** Offset of the start of line `n`, or null when it is not kept. */
export function lineStart(chunks: readonly Chunk[], n: number): number | null {
  for (const chunk of chunks) {
    const first = chunk.atLineStart ? chunk.line : chunk.line + 1;
    const last = chunk.line + chunk.newlines;
    if (n < first || n > last) continue;
    if (n === chunk.line && chunk.atLineStart) return chunk.start;
    // After the (n - chunk.line)-th newline in this chunk.
    let seen = 0;
    for (let i = chunk.data.indexOf(NEWLINE); i >= 0 && i < chunk.used;) {
      if (++seen === n - chunk.line) return chunk.start + i + 1;
      i = chunk.data.indexOf(NEWLINE, i + 1);
    }
  }
  return null;
}

/**
 * Offset of the newline ending the line that starts at `offset` (`total`, the end, when none
 * yet), looking past dropped bytes: a line that spans them ends among the newest.
 */
export function lineEnd(chunks: readonly Chunk[], offset: number, total: number): number {
  let i = chunks.findIndex((chunk) => offset >= chunk.start && offset < chunk.start + chunk.used);
  for (; i >= 0 && i < chunks.length; i++) {
    const chunk = chunks[i];
    const from = Math.max(0, offset - chunk.start);
    const at = chunk.data.subarray(0, chunk.used).indexOf(NEWLINE, from);
    if (at >= 0) return chunk.start + at;
  }
  return total;
}

/** Bytes [from, to), all kept. */
export function bytesOf(chunks: readonly Chunk[], from: number, to: number): Uint8Array {
  const out = new Uint8Array(to - from);
  for (const chunk of chunks) {
    const a = Math.max(from, chunk.start);
    const b = Math.min(to, chunk.start + chunk.used);
    if (a < b) out.set(chunk.data.subarray(a - chunk.start, b - chunk.start), a - from);
  }
  return out;
}

/**
 * Offset of the first of the last `lines` lines (the bytes end with a newline), looking no
 * further back than chunk `floor`; null when they reach past it, or past what is kept.
 */
export function startOfLast(chunks: readonly Chunk[], lines: number, floor: number): number | null {
  let seen = 0;
  for (let i = chunks.length - 1; i >= floor; i--) {
    const chunk = chunks[i];
    const data = chunk.data.subarray(0, chunk.used);
    for (let at = data.lastIndexOf(NEWLINE); at >= 0; at = data.lastIndexOf(NEWLINE, at - 1)) {
      if (++seen === lines + 1) return chunk.start + at + 1;
      if (at === 0) break;
    }
  }
  // Every line is taken back: the first starts at the first byte.
  return floor === 0 && seen === lines && chunks[0]?.start === 0 ? 0 : null;
}
