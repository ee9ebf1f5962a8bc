/**
 * Pane lines as the reading tools return them: within the call's output budget (all of them, or
 * the first and last), counts first, the lines last, and the same excerpt in the text block.
 *
 * @module
 */

import { z } from "../../deps.ts";
import { type Excerpt, excerptOf, type OutputBudget } from "../../tmux/mod.ts";
import { count, lines as linesOf, size, withGap } from "./render.ts";

/** The fields of pane lines, in the order results carry them. */
export const paneTextOutput = {
  total_lines: z.number().int().describe("lines in all"),
  total_bytes: z.number().int().describe("their UTF-8 bytes, a newline each"),
  truncated_lines: z.number().int().describe(
    "lines not in `lines` (head_lines lists the first of them)",
  ),
  truncated_bytes: z.number().int().describe("UTF-8 bytes of those lines, a newline each"),
  omitted: z.object({
    after_line: z.number().int().describe("the last line shown before the gap"),
    lines: z.number().int().describe("lines left out"),
    bytes: z.number().int().describe("their UTF-8 bytes"),
  }).nullable().describe("the lines left out between head_lines and lines"),
  cut_lines: z.number().int().describe(
    "shown lines cut inside for length, marked '…[N bytes cut]…'",
  ),
  not_text_lines: z.number().int().optional().describe(
    "lines that are not text (a binary's bytes), one entry '…[N lines not text, B bytes]…' " +
      "for each run of them (absent: none)",
  ),
  head_lines: z.array(z.string()).describe("the first lines, when lines after them were left out"),
  lines: z.array(z.string()).describe("the lines: all of them, or the last ones"),
};

/** Pane lines within a budget. */
export interface PaneText {
  /** Lines in all. */
  total_lines: number;
  /** Their UTF-8 bytes, a newline each. */
  total_bytes: number;
  /** Lines not shown. */
  truncated_lines: number;
  /** Their UTF-8 bytes. */
  truncated_bytes: number;
  /** The lines left out between `head_lines` and `lines`. */
  omitted: { after_line: number; lines: number; bytes: number } | null;
  /** Shown lines cut inside for length. */
  cut_lines: number;
  /** Lines that are not text, shown as one marker a run (absent: none). */
  not_text_lines?: number;
  /** The first lines, when lines after them were left out. */
  head_lines: string[];
  /** The lines shown: all, or the last ones. */
  lines: string[];
}

/** The excerpt of `lines` a result shows, as {@linkcode paneTextOutput} fields. */
export function paneText(lines: readonly string[], budget: OutputBudget): PaneText {
  return paneTextOf(excerptOf(lines, budget));
}

/** An excerpt as {@linkcode paneTextOutput} fields. */
export function paneTextOf(excerpt: Excerpt): PaneText {
  return {
    total_lines: excerpt.totalLines,
    total_bytes: excerpt.totalBytes,
    truncated_lines: excerpt.headLines + (excerpt.omitted?.lines ?? 0),
    truncated_bytes: excerpt.headBytes + (excerpt.omitted?.bytes ?? 0),
    omitted: excerpt.omitted === null ? null : {
      after_line: excerpt.omitted.afterLine,
      lines: excerpt.omitted.lines,
      bytes: excerpt.omitted.bytes,
    },
    cut_lines: excerpt.cutLines,
    ...(excerpt.notTextLines === 0 ? {} : { not_text_lines: excerpt.notTextLines }),
    head_lines: excerpt.head,
    lines: excerpt.tail,
  };
}

/** How to read what a reading tool left out. */
const MORE = "raise max_output_bytes or max_lines, or read fewer rows";

/**
 * The text block of pane lines: `title`, the counts and what was left out on one line, then the
 * same lines the structured half carries, one marker line where lines were left out.
 */
export function renderPaneText(title: string, text: PaneText): string {
  const notes = [linesOf(text.total_lines)];
  if (text.truncated_lines > 0) {
    // From the counts: an entry may stand for a run of lines that are not text.
    const shownFrom = text.truncated_lines + 1;
    const headLines = text.truncated_lines - (text.omitted?.lines ?? 0);
    notes.push(
      headLines > 0
        ? `shown: lines 1-${count(headLines)} and ${count(shownFrom)}-` + count(text.total_lines)
        : `shown: the last ${linesOf(text.total_lines - text.truncated_lines)}`,
      `${linesOf(text.truncated_lines)} (${size(text.truncated_bytes)}) not shown: ${MORE}`,
    );
  }
  if (text.cut_lines > 0) notes.push(`${linesOf(text.cut_lines)} cut inside for length`);
  if (text.not_text_lines) notes.push(`${linesOf(text.not_text_lines)} not text, shown as markers`);
  const gap = text.omitted === null || text.head_lines.length === 0
    ? null
    : { lines: text.omitted.lines, bytes: text.omitted.bytes, hint: "" };
  return [`${title}: ${notes.join("; ")}`, ...withGap(text.head_lines, text.lines, gap)].join(
    "\n",
  );
}
