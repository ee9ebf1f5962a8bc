/**
 * A run's output kept for reading later, by line number, in memory bounded whatever the run
 * prints: UTF-8 bytes in chunks, the first {@linkcode LogLimits.headBytes} kept for good and
 * then the newest bytes up to {@linkcode LogLimits.maxBytes} in all; what falls between is
 * dropped and counted, never silently missing. Pure.
 *
 * @module
 */

import type { LineEnds, OutputBudget } from "../../read/text/mod.ts";
import { CHUNK_BYTES, giveChunk, keepChunk } from "../../byte_chunks.ts";
import { type Chunk, freshChunk, grownChunk, NEWLINE, startOfLast } from "./log_chunks.ts";
import {
  logEntries,
  type LogPage,
  type LogView,
  type ReadMark,
  ReadMarks,
  readPage,
  type Skipped,
} from "./log_read.ts";

/** How much of one run's output is kept. */
export interface LogLimits {
  /** Bytes kept in all (default 16 MiB). */
  maxBytes: number;
  /** The first bytes, always kept (default 1 MiB). */
  headBytes: number;
}

/** The default: 16 MiB a run, the first 1 MiB of it for good. */
export const LOG_LIMITS: LogLimits = { maxBytes: 16 * 1024 * 1024, headBytes: 1024 * 1024 };

/**
 * Bytes all the logs of this process may keep together, runs going on and kept ones alike: one
 * bound for the output a server holds, however many runs print at once. A log that would pass
 * it keeps less of its middle (its head, and at least two chunks of its newest bytes).
 */
export const LOGS_MAX_BYTES = 48 * 1024 * 1024;

/**
 * The logs of this process, for {@linkcode LOGS_MAX_BYTES}: a log leaves when released, or
 * when no one holds it any more (the garbage collector has it).
 */
const LIVE = new Set<WeakRef<OutputLog>>();

/** Bytes the live logs other than `self` keep. */
function keptByOthers(self: OutputLog): number {
  let bytes = 0;
  for (const ref of LIVE) {
    const log = ref.deref();
    if (log === undefined) LIVE.delete(ref);
    else if (log !== self) bytes += log.kept;
  }
  return bytes;
}

/** Gives back the slab chunks of a log no one released before it was collected. */
const UNRELEASED = new FinalizationRegistry<Chunk[]>((chunks) => {
  for (const chunk of chunks) giveChunk(chunk.data);
});
const encoder = new TextEncoder();

/** One run's output, appended as it arrives and read by line. */
export class OutputLog {
  #limits: LogLimits;
  #chunks: Chunk[] = [];
  /** Chunks before this index are the kept head; the rest are the newest bytes. */
  #pinned = 0;
  #total = 0;
  #kept = 0;
  /** Complete lines so far. */
  #newlines = 0;
  /** Whether the last byte written ended a line (or nothing was written). */
  #atLineStart = true;
  /** Lines wholly kept in the head; set once the head is full. */
  #headLines: number | null = null;
  /** Whether the head ends inside a line. */
  #headEndsMidLine = false;

  readonly #ref = new WeakRef(this);
  /** The readers' marks, held as long as their readers hold them. */
  #marks = new ReadMarks();

  /** An empty log, keeping at most what `limits` say. */
  constructor(limits: LogLimits = LOG_LIMITS) {
    this.#limits = limits;
    LIVE.add(this.#ref);
    UNRELEASED.register(this, this.#chunks, this.#ref);
  }

  /**
   * Lets go of every byte at once (the log is done with: its run's result showed it, or the
   * store dropped it); it is empty from then on and no longer counts toward the shared bound.
   */
  release(): void {
    LIVE.delete(this.#ref);
    UNRELEASED.unregister(this.#ref);
    for (const chunk of this.#chunks) giveChunk(chunk.data);
    this.#chunks.length = 0;
    this.#pinned = 0;
    this.#kept = 0;
  }

  /**
   * Moves its bytes from the slab of logs being written to the slab of kept ones (see
   * byte_chunks.ts): for a log kept once its run's output is complete (the store's), so that the
   * first can go when the runs are over.
   */
  settle(): void {
    for (const chunk of this.#chunks) chunk.data = keepChunk(chunk.data, chunk.used);
  }

  /** Lines so far, a last one still being written included. */
  get lines(): number {
    return this.#newlines + (this.#atLineStart ? 0 : 1);
  }

  /** Whether the last line is still being written (a long line passed on in pieces). */
  get endsMidLine(): boolean {
    return !this.#atLineStart;
  }

  /** Bytes of all output so far (lines with their newlines), kept or not. */
  get bytes(): number {
    return this.#total;
  }

  /** Bytes held in memory. */
  get kept(): number {
    return this.#kept;
  }

  /**
   * Appends text: the line being written goes on, a newline in it ends it. Encoded straight into
   * the log's chunks (a character never split between two).
   */
  append(text: string): void {
    let rest = text;
    while (rest !== "") {
      let chunk = this.#chunks.at(-1);
      // Room for any one character (4 bytes), else a new chunk.
      if (chunk === undefined || chunk.data.length - chunk.used < 4) chunk = this.#newChunk();
      const { read, written } = encoder.encodeInto(rest, chunk.data.subarray(chunk.used));
      const part = chunk.data.subarray(chunk.used, chunk.used + written);
      for (let i = part.indexOf(NEWLINE); i >= 0; i = part.indexOf(NEWLINE, i + 1)) {
        chunk.newlines++;
        this.#newlines++;
      }
      if (written > 0) this.#atLineStart = part[written - 1] === NEWLINE;
      chunk.used += written;
      this.#total += written;
      this.#kept += written;
      rest = rest.slice(read);
    }
    this.#dropOldest();
  }

  #newChunk(): Chunk {
    const grown = grownChunk(this.#chunks, this.#total);
    if (grown !== null) return grown;
    if (this.#total >= this.#limits.headBytes && this.#headLines === null) {
      this.#pinned = this.#chunks.length;
      this.#headLines = this.#newlines;
      this.#headEndsMidLine = !this.#atLineStart;
    }
    const chunk = freshChunk(this.#chunks.length === 0, {
      start: this.#total,
      line: this.#newlines + 1,
      atLineStart: this.#atLineStart,
    });
    this.#chunks.push(chunk);
    return chunk;
  }

  /**
   * Drops the oldest chunks after the head while more than the limit is kept: the log's own, or
   * less where the other logs leave less of {@linkcode LOGS_MAX_BYTES}.
   */
  #dropOldest(): void {
    const shared = Math.max(this.least, LOGS_MAX_BYTES - keptByOthers(this));
    this.shrinkTo(Math.min(this.#limits.maxBytes, shared));
  }

  /** The least a log keeps however it is squeezed: its head and two chunks of its newest bytes. */
  get least(): number {
    return this.#limits.headBytes + 2 * CHUNK_BYTES;
  }

  /**
   * Drops its oldest chunks after the head until it keeps at most `max` bytes (or only its head
   * and newest chunk); what is dropped is counted as any dropped middle is.
   */
  shrinkTo(max: number): void {
    while (this.#kept > max && this.#chunks.length > this.#pinned + 1) {
      const [gone] = this.#chunks.splice(this.#pinned, 1);
      this.#kept -= gone.used;
      giveChunk(gone.data);
    }
  }

  /**
   * Keeps `mark` true as lines are taken back: a reader that showed a line later rewritten shows
   * it again, as it is now, from its next read on.
   */
  follow(mark: ReadMark): void {
    this.#marks.add(mark);
  }

  /**
   * Takes back the last `lines` lines, all complete, for their rewritten texts to follow; does
   * so only when their bytes are all among those kept since the head or the dropped middle, and
   * says whether it did.
   */
  takeBack(lines: number): boolean {
    if (lines === 0) return true;
    if (!this.#atLineStart || lines > this.#newlines) return false;
    const offset = startOfLast(this.#chunks, lines, this.#headLines === null ? 0 : this.#pinned);
    if (offset === null) return false;
    while (this.#chunks.length > 0 && this.#chunks.at(-1)!.start >= offset) {
      const gone = this.#chunks.pop()!;
      this.#kept -= gone.used;
      giveChunk(gone.data);
    }
    const last = this.#chunks.at(-1);
    if (last !== undefined) {
      const cut = last.data.subarray(offset - last.start, last.used);
      for (let i = cut.indexOf(NEWLINE); i >= 0; i = cut.indexOf(NEWLINE, i + 1)) last.newlines--;
      this.#kept -= cut.length;
      last.used = offset - last.start;
    }
    const first = this.#newlines - lines + 1;
    this.#newlines -= lines;
    this.#total = offset;
    this.#atLineStart = true;
    this.#marks.lowerTo(first - 1);
    return true;
  }

  /** Reads lines from line `from` (1-based) within a budget. */
  read(from: number, budget: OutputBudget): LogPage {
    return readPage(this.#view(), from, budget);
  }

  /**
   * Every line from line `from` on, in order: a line's text, or for one longer than `lineMax`
   * bytes its ends and size, and lines not kept as one count (lines and bytes, exact).
   */
  entries(from: number, lineMax: number): Generator<string | LineEnds | Skipped> {
    return logEntries(this.#view(), from, lineMax);
  }

  #view(): LogView {
    return {
      chunks: this.#chunks,
      pinned: this.#pinned,
      headLines: this.#headLines,
      headEndsMidLine: this.#headEndsMidLine,
      total: this.#total,
      lines: this.lines,
      atLineStart: this.#atLineStart,
    };
  }
}
