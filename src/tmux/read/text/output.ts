/**
 * Turning a pane capture into a command's own output, and measuring text in terminal cells. Pure.
 *
 * @module
 */

import { joinedCapturePadded, type TmuxVersion } from "../../version.ts";
import { cellWidth } from "../../../screen/mod.ts";

/** Rows a typed line may span around the first row naming its channel. */
const TYPED_ROWS_MAX = 256;

/**
 * Index of the first line after the typed line, or -1 when the typed line is not in `lines`. The
 * typed line is found by its channel name (unique per call); rows that a line editor broke without
 * tmux's wrap flag still concatenate back to the typed text. Text that reaches a shell before its
 * line editor has taken the terminal is echoed twice, by the terminal and again after the prompt;
 * no output can come between the two (the command has not been read yet), so a second copy right
 * after the first is skipped too.
 */
export function outputStart(lines: readonly string[], typedLine: string, channel: string): number {
  return findTyped(lines, typedLine, channel)?.next ?? -1;
}

/**
 * The lines after the typed line, or null when it is not in `lines`. A typed line that exactly
 * fills its last row leaves that row marked as wrapped, so a capture with wrapped rows joined
 * glues the first output line onto it: that text comes back as the first line.
 */
export function outputAfter(
  lines: readonly string[],
  typedLine: string,
  channel: string,
): string[] | null {
  const found = findTyped(lines, typedLine, channel);
  if (found === null) return null;
  const rest = lines.slice(found.next);
  return found.glued === "" ? rest : [found.glued, ...rest];
}

/** Where the typed line ends: the next line's index and the text glued after it on its row. */
interface TypedEnd {
  next: number;
  glued: string;
}

/** How much of a typed line's end finds its row when the line does not name its channel. */
const TYPED_TAIL = 32;

/**
 * The part of a typed line that finds its echo: the run's name, or, in a launcher's line (which
 * hides the name), the end of its last word (the SHA-256 of the run's script). No spaces.
 */
export function typedToken(typedLine: string, channel: string): string {
  if (typedLine.includes(channel)) return channel;
  return typedLine.trim().split(/\s/).at(-1)!.slice(-TYPED_TAIL);
}

function findTyped(lines: readonly string[], typedLine: string, channel: string): TypedEnd | null {
  const typed = typedLine.trim();
  const token = typedToken(typed, channel);
  const first = lines.findIndex((line) => line.includes(token));
  if (first < 0) return null;
  let end: TypedEnd | null = null;
  for (let from = first; from >= Math.max(0, first - TYPED_ROWS_MAX) && end === null; from--) {
    end = typedEnd(lines, from, typed);
  }
  // Not matched as typed (the line editor redrew it): the channel's row ends it.
  if (end === null) return { next: first + 1, glued: "" };
  if (end.glued !== "") return end;
  return typedEnd(lines, end.next, typed) ?? end;
}

/** When the rows from `from` on join up to contain `typed`: where it ends. */
function typedEnd(lines: readonly string[], from: number, typed: string): TypedEnd | null {
  const last = Math.min(lines.length - 1, from + TYPED_ROWS_MAX);
  let joined = "";
  for (let i = from; i <= last; i++) {
    joined += lines[i];
    const at = joined.indexOf(typed);
    if (at < 0) {
      if (joined.length > typed.length * 2 + 1024) break;
      continue;
    }
    // Blanks after it are cells a line drawn over a longer one cleared (see `FirstCall`).
    const glued = joined.slice(at + typed.length);
    return { next: i + 1, glued: glued.trim() === "" ? "" : glued };
  }
  return null;
}

/** Splits capture-pane output into lines (its final newline ends the last line, it is no extra line). */
export function splitCapture(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Lines of a `capture-pane -J` as tmux 3.3 and later print them: without the blanks an older tmux
 * pads each line with (see `joinedCapturePadded`).
 */
export function unpadJoined(lines: string[], version: TmuxVersion): string[] {
  return joinedCapturePadded(version) ? lines.map((line) => line.replace(/ +$/, "")) : lines;
}

/** Terminal cells a text takes. */
export function cellsOf(text: string): number {
  let cells = 0;
  for (const char of text) cells += cellWidth(char);
  return cells;
}

/** The longest prefix of `text` that fits in `cells` terminal cells. */
export function prefixCells(text: string, cells: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += cellWidth(char);
    if (used > cells) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * Cuts what was drawn after the end position off the last captured line: when output did not end
 * with a newline, the next prompt shares its row. `endRow` is that row alone, as captured.
 */
export function cutAtCursor(lines: string[], endRow: string, cursorX: number): string[] {
  const last = lines.at(-1);
  if (last === undefined || !last.endsWith(endRow)) return lines;
  const kept = last.slice(0, last.length - endRow.length) + prefixCells(endRow, cursorX);
  return [...lines.slice(0, -1), kept];
}
