/**
 * The part of some pane text one result shows: every line when they fit the budget, else the
 * first lines (about a quarter of it) and the last (the rest), what lies between counted exactly.
 * Compilers and test runners put the first error near the top and the summary at the end, so
 * both ends survive. A line longer than half the budget is cut inside, its middle replaced by a
 * marker with its byte count. Lines that are not text (a binary file's bytes, read as U+FFFD)
 * are shown as one marker for each run of them, with their count and bytes (a short one alone
 * as it is): printable lines between them stay as they are. Pure.
 *
 * @module
 */

import { cutLine, isNotText, lineBytes, type LineEnds, notTextMarker } from "./line_cut.ts";

/** How much pane text one result shows. */
export interface OutputBudget {
  /** UTF-8 bytes of the lines shown, a newline each, at most. */
  maxBytes: number;
  /** Lines shown, at most. */
  maxLines: number;
  /** Show only the last lines, no head (a caller's max_lines). */
  tailOnly?: boolean;
}

/** What a result shows when the caller asks for nothing else: 16 KiB and 400 lines at most. */
export const DEFAULT_BUDGET: OutputBudget = { maxBytes: 16 * 1024, maxLines: 400 };

/** The lines shown, and exact counts of all of them and of what is not shown. */
export interface Excerpt {
  /** The first lines, when lines between them and `tail` are left out (else empty). */
  head: string[];
  /** Lines the head stands for (a run of lines that are not text is one entry). */
  headLines: number;
  /** UTF-8 bytes of the head's lines as they were (before any cut), a newline each. */
  headBytes: number;
  /** The last lines (all of them when nothing is left out). */
  tail: string[];
  /** Lines in all. */
  totalLines: number;
  /** UTF-8 bytes of all lines, a newline each. */
  totalBytes: number;
  /** The lines left out between `head` and `tail`: after which line, how many, their bytes. */
  omitted: { afterLine: number; lines: number; bytes: number } | null;
  /** Shown lines cut inside (each says how many bytes it lost). */
  cutLines: number;
  /** UTF-8 bytes of those lines, a newline each, that the cuts left out. */
  cutBytes: number;
  /** Lines that are not text, shown as markers (`…[3 lines not text, 812 bytes]…`). */
  notTextLines: number;
}

interface Kept {
  line: string;
  /** Bytes the shown line takes, a newline included. */
  shown: number;
  /** Bytes of the lines as they were. */
  bytes: number;
  cut: number;
  /** Lines it stands for: more than one only for a run of lines that are not text. */
  lines: number;
  notText: boolean;
}

/** A line that is not text shows as itself when it is alone and shorter than this (bytes). */
const NOT_TEXT_SHOWN = 64;

/**
 * The entry for a line that is not text, joined to the run `last` ends with when there is one:
 * a marker, or the line itself when it is alone and short (it costs no more than a marker).
 */
function notTextEntry(last: Kept | undefined, line: string, bytes: number): Kept {
  if (!last?.notText && bytes < NOT_TEXT_SHOWN) {
    return { line, shown: bytes, bytes, cut: 0, lines: 1, notText: true };
  }
  const lines = (last?.notText ? last.lines : 0) + 1;
  const total = (last?.notText ? last.bytes : 0) + bytes;
  const marker = notTextMarker(lines, total);
  return { line: marker, shown: lineBytes(marker), bytes: total, cut: 0, lines, notText: true };
}

/** Whether an entry is a marker for lines that are not text. */
function isMarker(kept: Kept): boolean {
  return kept.notText && (kept.lines > 1 || kept.bytes >= NOT_TEXT_SHOWN);
}

/** An excerpt of the entries a builder shows (its head and tail) and the counts it kept. */
function shownExcerpt(
  head: Kept[],
  rest: {
    tail: Kept[];
    totalLines: number;
    totalBytes: number;
    omittedLines: number;
    omittedBytes: number;
  },
): Excerpt {
  const { tail } = rest;
  const shown = [...head, ...tail];
  const headLines = head.reduce((sum, kept) => sum + kept.lines, 0);
  return {
    head: head.map((kept) => kept.line),
    headLines,
    headBytes: head.reduce((sum, kept) => sum + kept.bytes, 0),
    tail: tail.map((kept) => kept.line),
    totalLines: rest.totalLines,
    totalBytes: rest.totalBytes,
    omitted: rest.omittedLines === 0 ? null : {
      afterLine: headLines,
      lines: rest.omittedLines,
      bytes: rest.omittedBytes,
    },
    cutLines: shown.filter((kept) => kept.cut > 0).length,
    cutBytes: shown.reduce((sum, kept) => sum + kept.cut, 0),
    notTextLines: shown.reduce((sum, kept) => sum + (isMarker(kept) ? kept.lines : 0), 0),
  };
}

/** Builds an {@linkcode Excerpt} from lines fed one at a time, in memory bounded by the budget. */
export class ExcerptBuilder {
  #budget: OutputBudget;
  #lineMax: number;
  /** Every line, while all of them fit the budget; null once they no longer do. */
  #all: Kept[] | null = [];
  #allBytes = 0;
  #head: Kept[] = [];
  #tail: Kept[] = [];
  /** Index of the oldest line of `#tail` still kept (lines before it were let go). */
  #tailStart = 0;
  #tailBytes = 0;
  #totalLines = 0;
  #totalBytes = 0;
  #omittedLines = 0;
  #omittedBytes = 0;

  /** A builder within `budget`. */
  constructor(budget: OutputBudget) {
    this.#budget = {
      maxBytes: Math.max(64, budget.maxBytes),
      maxLines: Math.max(1, budget.maxLines),
      tailOnly: budget.tailOnly,
    };
    this.#lineMax = Math.floor(this.#budget.maxBytes / 2);
  }

  /** Lines fed so far. */
  get lines(): number {
    return this.#totalLines;
  }

  #clone(): ExcerptBuilder {
    const copy = new ExcerptBuilder(this.#budget);
    copy.#all = this.#all === null ? null : [...this.#all];
    copy.#allBytes = this.#allBytes;
    copy.#head = this.#head;
    copy.#tail = this.#tail.slice(this.#tailStart);
    copy.#tailBytes = this.#tailBytes;
    copy.#totalLines = this.#totalLines;
    copy.#totalBytes = this.#totalBytes;
    copy.#omittedLines = this.#omittedLines;
    copy.#omittedBytes = this.#omittedBytes;
    return copy;
  }

  /** Counts lines that are not there to show (a log no longer holds them): they are left out. */
  skip(lines: number, bytes: number): void {
    if (lines === 0) return;
    if (this.#all !== null) this.#split();
    // The tail shown must run unbroken to the end: lines before the gap join what is left out.
    for (const gone of this.#tail.slice(this.#tailStart)) {
      this.#omittedLines += gone.lines;
      this.#omittedBytes += gone.bytes;
    }
    this.#tail = [];
    this.#tailStart = 0;
    this.#tailBytes = 0;
    this.#totalLines += lines;
    this.#totalBytes += bytes;
    this.#omittedLines += lines;
    this.#omittedBytes += bytes;
  }

  /** Feeds the next line: its text, or its ends and size when it was too long to hold. */
  push(line: string | LineEnds): void {
    const bytes = typeof line === "string" ? lineBytes(line) : line.bytes + 1;
    this.#totalLines++;
    this.#totalBytes += bytes;
    if (isNotText(typeof line === "string" ? line : line.head + line.tail)) {
      this.#pushNotText(typeof line === "string" ? line : "", bytes);
      return;
    }
    const { line: shown, cut } = cutLine(line, this.#lineMax);
    const kept = {
      line: shown,
      shown: cut === 0 ? bytes : lineBytes(shown),
      bytes,
      cut,
      lines: 1,
      notText: false,
    };
    this.#keep(kept);
  }

  /** A line that is not text: it joins the run of them the held lines end with, or starts one. */
  #pushNotText(line: string, bytes: number): void {
    const held = this.#all ?? this.#tail;
    const last = held.length > (this.#all ? 0 : this.#tailStart) ? held.at(-1) : undefined;
    if (!last?.notText) {
      this.#keep(notTextEntry(undefined, line, bytes));
      return;
    }
    // A new entry, never the old one changed: a copy made by finish() shares the old ones.
    const joined = notTextEntry(last, line, bytes);
    held[held.length - 1] = joined;
    if (this.#all === null) {
      this.#tailBytes += joined.shown - last.shown;
      this.#trimTail();
      return;
    }
    this.#allBytes += joined.shown - last.shown;
    if (this.#allBytes > this.#budget.maxBytes) this.#split();
  }

  #keep(kept: Kept): void {
    if (this.#all !== null) {
      const fits = this.#allBytes + kept.shown <= this.#budget.maxBytes &&
        this.#all.length < this.#budget.maxLines;
      if (fits) {
        this.#all.push(kept);
        this.#allBytes += kept.shown;
        return;
      }
      this.#split();
    }
    this.#keepLast(kept);
  }

  /** Whether the last `lines` lines fed are still held, each its own entry, to be taken back. */
  canTakeBack(lines: number): boolean {
    const held = this.#all ?? this.#tail.slice(this.#tailStart);
    return lines <= held.length &&
      held.slice(held.length - lines).every((kept) => kept.lines === 1);
  }

  /** Takes back the last `lines` lines fed, held as {@linkcode ExcerptBuilder.canTakeBack} says. */
  takeBack(lines: number): void {
    for (let i = 0; i < lines; i++) {
      const gone = this.#all !== null ? this.#all.pop()! : this.#tail.pop()!;
      if (this.#all !== null) this.#allBytes -= gone.shown;
      else this.#tailBytes -= gone.shown;
      this.#totalLines -= gone.lines;
      this.#totalBytes -= gone.bytes;
    }
  }

  /** All lines no longer fit: the first go to the head (a quarter), the rest to the tail. */
  #split(): void {
    const all = this.#all!;
    this.#all = null;
    let i = 0;
    if (!this.#budget.tailOnly) {
      const bytes = Math.floor(this.#budget.maxBytes / 4);
      const lines = Math.floor(this.#budget.maxLines / 4);
      let used = 0;
      for (; i < all.length && i < lines && used + all[i].shown <= bytes; i++) {
        used += all[i].shown;
      }
      this.#head = all.slice(0, i);
    }
    for (; i < all.length; i++) this.#keepLast(all[i]);
  }

  #keepLast(kept: Kept): void {
    this.#tail.push(kept);
    this.#tailBytes += kept.shown;
    this.#trimTail();
  }

  /** Lets the oldest lines of the tail go while it is over its share of the budget. */
  #trimTail(): void {
    const share = this.#budget.tailOnly ? 1 : 3 / 4;
    const maxBytes = Math.floor(this.#budget.maxBytes * share);
    const maxLines = Math.max(1, Math.floor(this.#budget.maxLines * share));
    while (
      this.#tail.length - this.#tailStart > maxLines ||
      (this.#tailBytes > maxBytes && this.#tail.length - this.#tailStart > 1)
    ) {
      const gone = this.#tail[this.#tailStart++];
      this.#tailBytes -= gone.shown;
      this.#omittedLines += gone.lines;
      this.#omittedBytes += gone.bytes;
    }
    // Now and then the lines let go are let go of for good.
    if (this.#tailStart > 1024) {
      this.#tail = this.#tail.slice(this.#tailStart);
      this.#tailStart = 0;
    }
  }

  /**
   * The excerpt of everything fed so far, and of a line still being written when given (left
   * out of what is fed: the builder stays as it was).
   */
  finish(current?: string): Excerpt {
    if (current !== undefined) {
      const copy = this.#clone();
      copy.push(current);
      return copy.finish();
    }
    const shownAll = this.#all !== null;
    return shownExcerpt(shownAll ? [] : this.#head, {
      tail: shownAll ? this.#all! : this.#tail.slice(this.#tailStart),
      totalLines: this.#totalLines,
      totalBytes: this.#totalBytes,
      omittedLines: this.#omittedLines,
      omittedBytes: this.#omittedBytes,
    });
  }
}

/** The excerpt of a list of lines. */
export function excerptOf(lines: Iterable<string>, budget: OutputBudget): Excerpt {
  const builder = new ExcerptBuilder(budget);
  for (const line of lines) builder.push(line);
  return builder.finish();
}
