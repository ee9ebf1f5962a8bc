/**
 * Newline-delimited records from a child's standard output, as bytes: a line is handed on only
 * once whole, however the pipe split it.
 *
 * @module
 */

import { abortable, ABORTED, chunkReader, deadline } from "../../../util/mod.ts";
import { Pieces } from "../../byte_chunks.ts";

const NEWLINE = 0x0a;

/** The longest line kept whole by default: what a peer may make us hold for one line. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** The most one answer of tmux (all its lines) may hold: more is refused, never cut. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The most of a child's standard error kept (the head: where its reason is). */
export const MAX_STDERR_BYTES = 16 * 1024;

/** Options for {@linkcode readLines}. */
export interface ReadLinesOptions {
  /** A longer line is cut to its first this many bytes (default {@linkcode MAX_LINE_BYTES}). */
  maxLineBytes?: number;
  /** Told, just before a cut line is yielded, how many bytes it lost. */
  onCut?: (dropped: number) => void;
}

/**
 * Yields each complete line of a byte stream (without its newline); an unfinished tail is
 * dropped. A line is valid only until the next one is asked for (the read buffer is reused).
 * Linear in what is read, whatever the line lengths: a line split across chunks is kept as its
 * pieces (see byte_chunks.ts) and joined once, and no more than `maxLineBytes` of it are kept.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  const reader = chunkReader(stream);
  // The start of the current line, from earlier chunks (copies: the read buffer is reused).
  const pieces = new Pieces();
  let dropped = 0;
  const keep = (piece: Uint8Array): void => {
    const take = Math.min(piece.length, max - pieces.length);
    if (take > 0) pieces.push(piece.subarray(0, take));
    dropped += piece.length - take;
  };
  try {
    for (let chunk = await reader.read(); chunk !== null; chunk = await reader.read()) {
      let from = 0;
      for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, from)) {
        const piece = chunk.subarray(from, end);
        from = end + 1;
        // No line begun in an earlier chunk (only a non-empty rest is kept, or counted).
        if (pieces.length === 0 && dropped === 0 && piece.length <= max) {
          yield piece;
          continue;
        }
        keep(piece);
        const line = pieces.join();
        if (dropped > 0) options.onCut?.(dropped);
        dropped = 0;
        yield line;
      }
      if (from < chunk.length) keep(chunk.subarray(from));
    }
  } finally {
    pieces.release();
  }
}

/** What {@linkcode readCapped} read: the first bytes, and how many more it drained unkept. */
export interface CappedBytes {
  /** The line's bytes, as far as they are kept. */
  bytes: Uint8Array;
  /** Bytes of it dropped past the limit. */
  dropped: number;
}

/**
 * Reads a byte stream to its end, keeping at most `maxBytes` of it (the first, as pieces: see
 * byte_chunks.ts) and counting the rest: a peer that writes without end costs time, not memory.
 * Linear in what is read.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<CappedBytes> {
  const reader = chunkReader(stream, { size: Math.max(1024, Math.min(maxBytes, 64 * 1024)) });
  const pieces = new Pieces();
  let dropped = 0;
  try {
    for (let chunk = await reader.read(); chunk !== null; chunk = await reader.read()) {
      const take = Math.min(chunk.length, maxBytes - pieces.length);
      if (take > 0) pieces.push(chunk.subarray(0, take));
      dropped += chunk.length - take;
    }
    return { bytes: pieces.join(), dropped };
  } finally {
    pieces.release();
  }
}

/** How long a child may take to exit after SIGTERM before SIGKILL. */
const KILL_AFTER_MS = 2000;

/**
 * Sends SIGTERM to a child that may already have exited, SIGKILL if it is still there a moment
 * later (a stopped process takes no SIGTERM until it runs again), then waits until it is reaped.
 */
export async function terminate(child: Deno.ChildProcess): Promise<void> {
  const signal = (name: Deno.Signal): void => {
    try {
      child.kill(name);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  using limit = deadline(KILL_AFTER_MS);
  if (await abortable(child.status, limit.signal) === ABORTED) signal("SIGKILL");
  await child.status;
}
