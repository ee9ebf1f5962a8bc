/**
 * A program's own chrome at the bottom of its screen (a coding agent's composer box, its status
 * lines): the rows its screen showed at the bottom both before a prompt was typed and once its
 * answer was over. An answer read off the pane ends with them; they are not the answer.
 *
 * @module
 */

import type { TmuxSocket } from "../../transport/socket.ts";
import { screenRows } from "./capture.ts";

/** Rows looked at from the bottom, at most. */
const CHROME_ROWS_MAX = 12;

/** The rows at the bottom of both screens that are the same, from the bottom up, blank rows aside. */
export function unchangedBottom(before: readonly string[], after: readonly string[]): string[] {
  const shown = (rows: readonly string[]) =>
    rows.map((row) => row.trimEnd()).filter((row) => row !== "");
  const was = shown(before);
  const is = shown(after);
  const same: string[] = [];
  while (
    same.length < CHROME_ROWS_MAX && same.length < was.length && same.length < is.length &&
    was[was.length - 1 - same.length] === is[is.length - 1 - same.length]
  ) {
    same.unshift(is[is.length - 1 - same.length]);
  }
  return same;
}

/**
 * Leaves out the end of `lines` that is the pane's chrome: the rows at the bottom of its screen
 * now that were there, the same, in `before` (the screen's rows as the prompt was typed). Returns
 * the lines kept and how many were left out.
 */
export async function withoutChrome(
  socket: TmuxSocket,
  paneId: string,
  text: { lines: readonly string[]; before: readonly string[] },
): Promise<{ lines: string[]; left: number }> {
  const chrome = unchangedBottom(text.before, await screenRows(socket, paneId));
  const lines = [...text.lines];
  let left = 0;
  while (lines.length > 0 && lines.at(-1)!.trimEnd() === "") lines.pop();
  for (let i = chrome.length - 1; i >= 0 && lines.length > 0; i--) {
    if (lines.at(-1)!.trimEnd() !== chrome[i]) break;
    lines.pop();
    left++;
  }
  return { lines, left };
}

/**
 * Leaves out the start of `lines` that is the echo of a typed text's later lines (its first line
 * is on the row the typing began at, which an answer already leaves out): a program that shows
 * what was pasted into it writes them again.
 */
export function withoutEcho(lines: readonly string[], typed: string): string[] {
  const echo = typed.split("\n").slice(1).map((line) => line.trim());
  let at = 0;
  while (at < echo.length && at < lines.length && lines[at].trim() === echo[at]) at++;
  return at === echo.length ? lines.slice(at) : [...lines];
}
