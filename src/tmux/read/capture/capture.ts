/**
 * Reading pane content: plain captures of rows, joined or not (captures since a cursor:
 * capture_since.ts).
 *
 * @module
 */

import { showTypedLines } from "./typed_lines.ts";
import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { formatOf, splitRecords } from "../../format.ts";
import { splitCapture, unpadJoined } from "../text/mod.ts";
import { parseVersion } from "../../version.ts";

/** Options for {@linkcode capturePane}. */
export interface CaptureOptions {
  /** First row: 0 is the top of the screen, negative rows are history; null: start of history. */
  start?: number | null;
  /** Last row; null: the bottom of the screen. */
  end?: number | null;
  /** Join wrapped rows into one line (default true). */
  join?: boolean;
  /** Keep colour and attribute escape sequences. */
  escapes?: boolean;
}

/**
 * Runs capture-pane commands (THEN-chained) after asking the server's version in the same tmux
 * command, and returns their lines, `-J`'s padding dropped where that tmux pads (see
 * `unpadJoined`). Only the version is read as a record: the rest is pane text, whatever it holds.
 */
export async function captureLines(
  socket: TmuxSocket,
  captures: readonly string[],
  options: { joined: boolean },
): Promise<string[]> {
  const output = await runTmux(socket, [
    ...["display-message", "-p", formatOf(["version"]), THEN],
    ...captures,
  ]);
  const { records, rest } = splitRecords(output, { count: 1 });
  const lines = splitCapture(rest);
  return options.joined ? unpadJoined(lines, parseVersion(records[0]?.[0] ?? "")) : lines;
}

/** Captures pane rows as lines. */
export async function capturePane(
  socket: TmuxSocket,
  paneId: string,
  options: CaptureOptions = {},
): Promise<string[]> {
  const joined = options.join ?? true;
  const args = ["capture-pane", "-p", "-t", paneId];
  if (joined) args.push("-J");
  if (options.escapes) args.push("-e");
  args.push("-S", options.start == null ? "-" : String(options.start));
  if (options.end != null) args.push("-E", String(options.end));
  const lines = showTypedLines(socket, paneId, await captureLines(socket, args, { joined }), {
    joined,
  });
  if (options.end == null) {
    // Rows below the last written one are blank screen, not output.
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  }
  return lines;
}

/** The screen's rows as they show (not joined), trailing spaces dropped. */
export async function screenRows(socket: TmuxSocket, paneId: string): Promise<string[]> {
  const rows = await capturePane(socket, paneId, { start: 0, join: false });
  return rows.map((row) => row.trimEnd());
}
