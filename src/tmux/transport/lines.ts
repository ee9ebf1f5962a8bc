/**
 * Newline-delimited records from a child's standard output, as bytes: a line is handed on only
 * once whole, however the pipe split it.
 *
 * @module
 */

import { abortable, ABORTED, deadline } from "../../async.ts";
import { chunkReader, concatBytes } from "../../streams.ts";

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
 * pieces and joined once, and no more than `maxLineBytes` of it are kept.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  const reader = chunkReader(stream);
  // The start of the current line, from earlier chunks (copies: the read buffer is reused).
  let pieces: Uint8Array[] = [];
  let kept = 0;
  let dropped = 0;
  const keep = (piece: Uint8Array): void => {
    const take = Math.min(piece.length, max - kept);
    if (take > 0) pieces.push(piece.slice(0, take));
    kept += take;
    dropped += piece.length - take;
  };
  for (let chunk = await reader.read(); chunk !== null; chunk = await reader.read()) {
    let from = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, from)) {
      const piece = chunk.subarray(from, end);
      from = end + 1;
      if (pieces.length === 0 && piece.length <= max) {
        yield piece;
        continue;
      }
      keep(piece);
      const line = pieces.length === 1 ? pieces[0] : concatBytes(pieces);
      if (dropped > 0) options.onCut?.(dropped);
      pieces = [];
      kept = 0;
      dropped = 0;
      yield line;
    }
    keep(chunk.subarray(from));
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
