/**
 * A run's output kept for reading later, by line number, in memory bounded whatever the run
 * prints: UTF-8 bytes in chunks, the first {@linkcode LogLimits.headBytes} kept for good and
 * then the newest bytes up to {@linkcode LogLimits.maxBytes} in all; what falls between is
 * dropped and counted, never silently missing. Pure.
 *
 * @module
 */

import { cutMarker, lineBytes, type LineEnds, type OutputBudget } from "../../read/text/excerpt.ts";
import { CHUNK_BYTES, giveChunk, keepChunk, takeChunk } from "../../byte_chunks.ts";
import { bytesOf, type Chunk, lineEnd, lineStart, NEWLINE, startOfLast } from "./log_chunks.ts";

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

/** Lines a log no longer holds, as {@linkcode OutputLog.entries} reports them. */
export interface Skipped {
  /** How many lines, and their bytes, are not held. */
  skipped: { lines: number; bytes: number };
}

/** How far a reader has shown a log's lines: a rewrite of lines shown lowers it (see {@linkcode OutputLog.follow}). */
export interface ReadMark {
  /** Lines shown so far: the next read starts after them. */
  shown: number;
}

/** Lines read from a log. */
export interface LogPage {
  /** The lines, from `from` on (a line longer than half the budget cut inside, marked). */
  lines: string[];
  /** The line number (1-based) of the first of `lines`. */
  from: number;
  /** The line to ask for next, or null when these reach the end so far. */
  next: number | null;
  /** Lines in the asked range that were not kept (the log's middle was dropped). */
  missing: { from: number; to: number } | null;
  /** The last line is still being written (the run goes on). */
  partial: boolean;
}

const FIRST_CHUNK = 1024;
const CHUNK_MAX = CHUNK_BYTES;

/** Gives back the slab chunks of a log no one released before it was collected. */
const UNRELEASED = new FinalizationRegistry<Chunk[]>((chunks) => {
  for (const chunk of chunks) giveChunk(chunk.data);
});
const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
  #marks = new Set<WeakRef<ReadMark>>();
  #marked = new WeakSet<ReadMark>();

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
    const last = this.#chunks.at(-1);
    if (
      last !== undefined && last.data.length < CHUNK_MAX && last.start === 0 &&
      this.#total < CHUNK_MAX
    ) {
      // Small outputs grow one buffer instead of leaving small chunks behind.
      const grown = new Uint8Array(Math.min(CHUNK_MAX, last.data.length * 2));
      grown.set(last.data.subarray(0, last.used));
      last.data = grown;
      return last;
    }
    const inHead = this.#total < this.#limits.headBytes;
    if (!inHead && this.#headLines === null) {
      this.#pinned = this.#chunks.length;
      this.#headLines = this.#newlines;
      this.#headEndsMidLine = !this.#atLineStart;
    }
    const size = last === undefined ? FIRST_CHUNK : CHUNK_MAX;
    const chunk: Chunk = {
      start: this.#total,
      data: size === CHUNK_MAX ? takeChunk() : new Uint8Array(size),
      used: 0,
      line: this.#newlines + 1,
      atLineStart: this.#atLineStart,
      newlines: 0,
    };
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
    return this.#limits.headBytes + 2 * CHUNK_MAX;
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

  /** The bytes dropped between the head and the newest bytes, or null when none were. */
  #dropped(): { start: number; end: number } | null {
    const head = this.#chunks[this.#pinned - 1];
    const first = this.#chunks[this.#pinned];
    if (head === undefined || first === undefined) return null;
    const start = head.start + head.used;
    return first.start > start ? { start, end: first.start } : null;
  }

  /**
   * The lines not kept, or null when none are missing. A line that starts in the head and ends
   * among the newest bytes is not missing: it is read cut at the dropped bytes.
   */
  #gap(): { from: number; to: number } | null {
    if (this.#dropped() === null) return null;
    const first = this.#chunks[this.#pinned];
    const from = this.#headLines! + 1;
    const spans = this.#headEndsMidLine && !first.atLineStart && first.line === from;
    const firstKept = first.atLineStart ? first.line : first.line + 1;
    return spans || firstKept <= from ? null : { from, to: firstKept - 1 };
  }

  /**
   * A line's text between two offsets; a line longer than `maxBytes` (its newline included), or
   * one that spans dropped bytes, is cut inside as `cutLine` cuts, its ends decoded straight from
   * the kept bytes (it is never read whole).
   */
  #text(from: number, to: number, maxBytes: number): string {
    const dropped = this.#dropped();
    const spans = dropped !== null && from < dropped.start && to > dropped.end;
    if (!spans && to - from + 1 <= maxBytes) return decoder.decode(bytesOf(this.#chunks, from, to));
    const keep = Math.max(0, maxBytes - lineBytes(cutMarker(to - from)));
    const headEnd = Math.min(from + Math.floor(keep / 4), spans ? dropped.start : to);
    // A character cut short at the head's end is left out (stream mode holds it back)...
    const head = new TextDecoder().decode(bytesOf(this.#chunks, from, headEnd), { stream: true });
    const tailStart = Math.max(to - (keep - lineBytes(head) + 1), spans ? dropped.end : from);
    const tailBytes = bytesOf(this.#chunks, tailStart, to);
    // ...and so are continuation bytes at the tail's start.
    let skip = 0;
    while (skip < tailBytes.length && (tailBytes[skip] & 0xc0) === 0x80) skip++;
    const tail = decoder.decode(tailBytes.subarray(skip));
    const cut = to - from - (lineBytes(head) - 1) - (lineBytes(tail) - 1);
    return `${head}${cutMarker(cut)}${tail}`;
  }

  /**
   * Keeps `mark` true as lines are taken back: a reader that showed a line later rewritten shows
   * it again, as it is now, from its next read on.
   */
  follow(mark: ReadMark): void {
    if (this.#marked.has(mark)) return;
    this.#marked.add(mark);
    this.#marks.add(new WeakRef(mark));
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
    for (const ref of this.#marks) {
      const mark = ref.deref();
      if (mark === undefined) this.#marks.delete(ref);
      else mark.shown = Math.min(mark.shown, first - 1);
    }
    return true;
  }

  /** Reads lines from line `from` (1-based) within a budget. */
  read(from: number, budget: OutputBudget): LogPage {
    const lineMax = Math.floor(budget.maxBytes / 2);
    const total = this.lines;
    const gap = this.#gap();
    let n = Math.max(1, from);
    let missing: LogPage["missing"] = null;
    if (gap !== null && n >= gap.from && n <= gap.to) {
      missing = { from: n, to: gap.to };
      n = gap.to + 1;
    }
    const first = n;
    const lines: string[] = [];
    let used = 0;
    let partial = false;
    let start = n <= total ? lineStart(this.#chunks, n) : null;
    // Lines follow one another up to the gap, where the next page starts.
    while (start !== null && n <= total && lines.length < budget.maxLines) {
      if (gap !== null && n === gap.from) break;
      const end = lineEnd(this.#chunks, start, this.#total);
      const text = this.#text(start, end, lineMax);
      const size = lineBytes(text);
      if (lines.length > 0 && used + size > budget.maxBytes) break;
      lines.push(text);
      used += size;
      partial = n === total && !this.#atLineStart;
      n++;
      start = end + 1;
    }
    return { lines, from: first, next: n <= total ? n : null, missing, partial };
  }

  /**
   * Every line from line `from` on, in order: a line's text, or for one longer than `lineMax`
   * bytes its ends and size, and lines not kept as one count (lines and bytes, exact).
   */
  *entries(from: number, lineMax: number): Generator<string | LineEnds | Skipped> {
    const total = this.lines;
    const gap = this.#gap();
    let n = Math.max(1, from);
    while (n <= total) {
      if (gap !== null && n >= gap.from && n <= gap.to) {
        const first = n === 1
          ? 0
          : lineEnd(this.#chunks, lineStart(this.#chunks, n - 1)!, this.#total) + 1;
        const after = lineStart(this.#chunks, gap.to + 1) ?? this.#total;
        yield { skipped: { lines: gap.to - n + 1, bytes: after - first } };
        n = gap.to + 1;
        continue;
      }
      const start = lineStart(this.#chunks, n);
      if (start === null) return;
      // Consecutive lines up to the gap, or the end.
      for (let at = start; n <= total && !(gap !== null && n === gap.from); n++) {
        const end = lineEnd(this.#chunks, at, this.#total);
        if (end - at + 1 <= lineMax) {
          yield decoder.decode(bytesOf(this.#chunks, at, end));
        } else {
          const head = new TextDecoder().decode(bytesOf(this.#chunks, at, at + lineMax), {
            stream: true,
          });
          const tailBytes = bytesOf(this.#chunks, Math.max(at, end - lineMax), end);
          let skip = 0;
          while (skip < tailBytes.length && (tailBytes[skip] & 0xc0) === 0x80) skip++;
          yield { head, tail: decoder.decode(tailBytes.subarray(skip)), bytes: end - at };
        }
        at = end + 1;
      }
    }
  }
}
