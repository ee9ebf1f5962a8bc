/**
 * Reading a run's log by line: a page within a budget, or every line in order, around the
 * middle the log dropped (counted, never silently missing). Pure.
 *
 * @module
 */

import { cutMarker, lineBytes, type LineEnds, type OutputBudget } from "../../read/text/mod.ts";
import { bytesOf, type Chunk, lineEnd, lineStart } from "./log_chunks.ts";

/** What a log holds, as its readers see it. */
export interface LogView {
  /** Its chunks, in order. */
  chunks: readonly Chunk[];
  /** Chunks before this index are the kept head; the rest are the newest bytes. */
  pinned: number;
  /** Lines wholly kept in the head; null until the head is full. */
  headLines: number | null;
  /** Whether the head ends inside a line. */
  headEndsMidLine: boolean;
  /** Bytes of all output so far, kept or not. */
  total: number;
  /** Lines so far, a last one still being written included. */
  lines: number;
  /** Whether the last byte written ended a line (or nothing was written). */
  atLineStart: boolean;
}

/** Lines a log no longer holds, as {@linkcode logEntries} reports them. */
export interface Skipped {
  /** How many lines, and their bytes, are not held. */
  skipped: { lines: number; bytes: number };
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

/** How far a reader has shown a log's lines: a rewrite of lines shown lowers it. */
export interface ReadMark {
  /** Lines shown so far: the next read starts after them. */
  shown: number;
}

/** The marks of a log's readers, held only as long as their readers hold them. */
export class ReadMarks {
  #refs = new Set<WeakRef<ReadMark>>();
  #held = new WeakSet<ReadMark>();

  /** Follows `mark` (once, however often it is given). */
  add(mark: ReadMark): void {
    if (this.#held.has(mark)) return;
    this.#held.add(mark);
    this.#refs.add(new WeakRef(mark));
  }

  /** Lines after `shown` were taken back: no mark stays past them. */
  lowerTo(shown: number): void {
    for (const ref of this.#refs) {
      const mark = ref.deref();
      if (mark === undefined) this.#refs.delete(ref);
      else mark.shown = Math.min(mark.shown, shown);
    }
  }
}

const decoder = new TextDecoder();

/** The bytes dropped between the head and the newest bytes, or null when none were. */
function dropped(log: LogView): { start: number; end: number } | null {
  const head = log.chunks[log.pinned - 1];
  const first = log.chunks[log.pinned];
  if (head === undefined || first === undefined) return null;
  const start = head.start + head.used;
  return first.start > start ? { start, end: first.start } : null;
}

/**
 * The lines not kept, or null when none are missing. A line that starts in the head and ends
 * among the newest bytes is not missing: it is read cut at the dropped bytes.
 */
function gapOf(log: LogView): { from: number; to: number } | null {
  if (dropped(log) === null) return null;
  const first = log.chunks[log.pinned];
  const from = log.headLines! + 1;
  const spans = log.headEndsMidLine && !first.atLineStart && first.line === from;
  const firstKept = first.atLineStart ? first.line : first.line + 1;
  return spans || firstKept <= from ? null : { from, to: firstKept - 1 };
}

/** The bytes [from, to) decoded, but for a character cut short at their end. */
function headOf(log: LogView, from: number, to: number): string {
  return new TextDecoder().decode(bytesOf(log.chunks, from, to), { stream: true });
}

/** The bytes [from, to) decoded, but for continuation bytes at their start. */
function tailOf(log: LogView, from: number, to: number): string {
  const bytes = bytesOf(log.chunks, from, to);
  let skip = 0;
  while (skip < bytes.length && (bytes[skip] & 0xc0) === 0x80) skip++;
  return decoder.decode(bytes.subarray(skip));
}

/**
 * A line's text between two offsets; a line longer than `maxBytes` (its newline included), or
 * one that spans dropped bytes, is cut inside as `cutLine` cuts, its ends decoded straight from
 * the kept bytes (it is never read whole).
 */
function lineText(log: LogView, from: number, to: number, maxBytes: number): string {
  const gone = dropped(log);
  const spans = gone !== null && from < gone.start && to > gone.end;
  if (!spans && to - from + 1 <= maxBytes) return decoder.decode(bytesOf(log.chunks, from, to));
  const keep = Math.max(0, maxBytes - lineBytes(cutMarker(to - from)));
  const head = headOf(log, from, Math.min(from + Math.floor(keep / 4), spans ? gone.start : to));
  const tailStart = Math.max(to - (keep - lineBytes(head) + 1), spans ? gone.end : from);
  const tail = tailOf(log, tailStart, to);
  const cut = to - from - (lineBytes(head) - 1) - (lineBytes(tail) - 1);
  return `${head}${cutMarker(cut)}${tail}`;
}

/** Reads lines from line `from` (1-based) within a budget. */
export function readPage(log: LogView, from: number, budget: OutputBudget): LogPage {
  const lineMax = Math.floor(budget.maxBytes / 2);
  const total = log.lines;
  const gap = gapOf(log);
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
  let start = n <= total ? lineStart(log.chunks, n) : null;
  // Lines follow one another up to the gap, where the next page starts.
  while (start !== null && n <= total && lines.length < budget.maxLines) {
    if (gap !== null && n === gap.from) break;
    const end = lineEnd(log.chunks, start, log.total);
    const text = lineText(log, start, end, lineMax);
    const size = lineBytes(text);
    if (lines.length > 0 && used + size > budget.maxBytes) break;
    lines.push(text);
    used += size;
    partial = n === total && !log.atLineStart;
    n++;
    start = end + 1;
  }
  return { lines, from: first, next: n <= total ? n : null, missing, partial };
}

/**
 * Every line from line `from` on, in order: a line's text, or for one longer than `lineMax`
 * bytes its ends and size, and lines not kept as one count (lines and bytes, exact).
 */
export function* logEntries(
  log: LogView,
  from: number,
  lineMax: number,
): Generator<string | LineEnds | Skipped> {
  const total = log.lines;
  const gap = gapOf(log);
  let n = Math.max(1, from);
  while (n <= total) {
    if (gap !== null && n >= gap.from && n <= gap.to) {
      const first = n === 1 ? 0 : lineEnd(log.chunks, lineStart(log.chunks, n - 1)!, log.total) + 1;
      const after = lineStart(log.chunks, gap.to + 1) ?? log.total;
      yield { skipped: { lines: gap.to - n + 1, bytes: after - first } };
      n = gap.to + 1;
      continue;
    }
    const start = lineStart(log.chunks, n);
    if (start === null) return;
    // Consecutive lines up to the gap, or the end.
    for (let at = start; n <= total && !(gap !== null && n === gap.from); n++) {
      const end = lineEnd(log.chunks, at, log.total);
      if (end - at + 1 <= lineMax) {
        yield decoder.decode(bytesOf(log.chunks, at, end));
      } else {
        const head = headOf(log, at, at + lineMax);
        yield { head, tail: tailOf(log, Math.max(at, end - lineMax), end), bytes: end - at };
      }
      at = end + 1;
    }
  }
}
