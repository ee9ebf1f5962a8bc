/**
 * Cutting a command's own output from the pane, between the anchor and the end position.
 *
 * @module
 */

import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { cellsOf, cutAtCursor, outputAfter } from "../../read/text/output.ts";
import { captureLines } from "../../read/capture/capture.ts";
import { trimmedRows } from "../../read/capture/position.ts";
import {
  type Anchor,
  type CallNames,
  type Current,
  type MoreFrom,
  type OutputFields,
  outputFields,
  type Position,
} from "../base/mod.ts";
import type { RunOutput } from "./run_output.ts";

/** Options for {@linkcode collectOutput}. */
export interface CollectOptions {
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane the run was in. */
  paneId: string;
  /** Where its line was typed. */
  anchor: Anchor;
  /** Where output ended, in the coordinates of the moment it was recorded. */
  end: Position;
  /** The pane's position now. */
  now: Current;
  /** The line typed. */
  typed: string;
  /** The call's names (channel, markers). */
  names: CallNames;
}

/** A run's output as the screen and scrollback still show it. */
export interface Collected {
  /** The lines, the typed line left out. */
  lines: string[];
  /** tmux's history-limit dropped some before they were read. */
  linesMissed: boolean;
  /** The anchor could not be trusted (history cleared, pane respawned). */
  anchorLost: boolean;
}

interface Rows {
  /** First row (negative: history); null: the start of history. */
  from: number | null;
  to: number;
  /** Cursor column on the last row: what is right of it came after the output. */
  cursorX: number;
}

/** Captures rows with -J (wrapped lines joined), the last one cut at the cursor. */
async function captureRows(socket: TmuxSocket, paneId: string, rows: Rows): Promise<string[]> {
  const capture = (from: string, to: number) => [
    ...["capture-pane", "-p", "-J", "-t", paneId, "-S", from, "-E", String(to)],
  ];
  const args = capture(rows.from === null ? "-" : String(rows.from), rows.to);
  // A last line without its newline shares its row with whatever came next: capture that row too.
  const partial = rows.cursorX !== 0;
  if (partial) args.push(THEN, ...capture(String(rows.to), rows.to));
  const lines = await captureLines(socket, args, { joined: true });
  if (!partial) return lines;
  const row = lines.pop() ?? "";
  return cutAtCursor(lines, row, rows.cursorX);
}

/**
 * Captures from the anchor to the end position and drops the typed line. Row numbers count from
 * the top of history, which moves when tmux drops old lines, so the typed line is looked for where
 * the anchor and the trims since say, and over the whole history when it is not there.
 */
export async function collectOutput(options: CollectOptions): Promise<Collected> {
  const { socket, paneId, anchor, end, now } = options;
  const capture = (from: number | null, to: number): Promise<string[]> =>
    captureRows(socket, paneId, { from, to, cursorX: end.x });
  const respawned = now.pid !== anchor.pid;
  const endAbsolute = end.history + end.y - (end.x === 0 ? 1 : 0);
  const endRow = now.history >= end.history ? endAbsolute - now.history : endAbsolute - end.history;
  const find = (lines: string[]): string[] | null =>
    outputAfter(lines, options.typed, options.names.channel);
  if (!respawned) {
    // The anchor row is where it was, less the history trims since (see trimmedRows).
    for (const { row } of trimmedRows(anchor.history + anchor.y, anchor.history, now)) {
      const startRow = row - now.history;
      // Output ends above where it started: the screen was cleared (see below).
      if (endRow < startRow) continue;
      const output = find(await capture(startRow, endRow));
      if (output !== null) return { lines: output, linesMissed: false, anchorLost: false };
    }
  }
  const lines = await capture(null, endRow);
  const output = find(lines);
  if (output !== null) return { lines: output, linesMissed: false, anchorLost: respawned };
  // The typed line is gone: scrolled out of a full history (its tail is the output)...
  const full = Math.max(anchor.history, end.history, now.history) >= now.limit * 0.9;
  if (respawned) return { lines: [], linesMissed: false, anchorLost: true };
  if (full) return { lines, linesMissed: true, anchorLost: false };
  // ...or never drawn (the terminal's echo is off: output starts on the prompt's row, or on
  // the next one when the row holds no more than the prompt), or the screen and history were
  // cleared (output starts at the top of the screen). Either way no earlier output is
  // returned, and the result says the anchor could not be checked.
  const anchorRow = anchor.history + anchor.y - now.history;
  if (anchorRow > endRow || anchorRow < -now.history) {
    const lines = endRow < 0 ? [] : await capture(0, endRow);
    return { lines, linesMissed: false, anchorLost: true };
  }
  const rows = await capture(anchorRow, endRow);
  const promptOnly = rows.length > 0 && cellsOf(rows[0]) <= anchor.x;
  return { lines: promptOnly ? rows.slice(1) : rows, linesMissed: false, anchorLost: true };
}

/**
 * Output fields from a screen capture: its lines go to the run's output (its log and the
 * excerpt the result shows).
 */
export function screenFields(
  collected: Collected,
  output: RunOutput,
  more?: MoreFrom,
): OutputFields {
  for (const line of collected.lines) output.line(line);
  output.flush();
  // The screen cannot tell the alternate screen was used (what was drawn there is gone with it),
  // nor invalid UTF-8 (tmux stored it as U+FFFD).
  return outputFields(output.excerpt(), {
    source: "screen",
    linesMissed: collected.linesMissed,
    anchorLost: collected.anchorLost,
    alternateScreen: false,
    invalidUtf8: false,
  }, { more });
}
