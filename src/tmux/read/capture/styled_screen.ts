/**
 * A pane's screen as it shows, styles and all: its size, cursor and modes and its rows with their
 * SGR sequences (`capture-pane -e -N`: blanks kept, so coloured ones show), read in one tmux
 * command so the two agree.
 *
 * @module
 */

import { type Grid, parseGrid } from "../../../screen/mod.ts";
import { TmuxError } from "../../errors.ts";
import { formatOf, recordOf, splitRecords } from "../../format.ts";
import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { splitCapture } from "../text/mod.ts";

const FIELDS = [
  "pane_id",
  "pane_width",
  "pane_height",
  "cursor_x",
  "cursor_y",
  "cursor_flag",
  "alternate_on",
  "pane_in_mode",
  "pane_mode",
  "pane_current_command",
] as const;

/** A pane's styled screen. */
export interface StyledScreen {
  /** The pane. */
  pane_id: string;
  /** Its cells, cursor and size. */
  grid: Grid;
  /** A full-screen program owns the screen. */
  alternate_on: boolean;
  /** A mode (copy-mode...) covers the pane; the screen is the pane's own, under it. */
  in_mode: boolean;
  /** That mode's name, or empty. */
  mode: string;
  /** The foreground program's name. */
  current_command: string;
}

/** A pane's screen as `capture-pane -e` prints it, with its size and cursor. */
export interface StyledRows {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** The cursor's column, row, and whether it shows. */
  cursor: { x: number; y: number; visible: boolean };
  /** The rows, top first, with their SGR sequences (a style holds from row to row). */
  rows: string[];
  /** A full-screen program owns the screen. */
  alternate_on: boolean;
  /** A mode (copy-mode...) covers the pane. */
  in_mode: boolean;
  /** That mode's name, or empty. */
  mode: string;
  /** The foreground program's name. */
  current_command: string;
}

/** Reads a pane's visible rows with their SGR sequences, and its size and cursor. */
export async function styledRows(socket: TmuxSocket, paneId: string): Promise<StyledRows> {
  const output = await runTmux(socket, [
    ...["display-message", "-p", "-t", paneId, formatOf(FIELDS), THEN],
    ...["capture-pane", "-p", "-e", "-N", "-t", paneId],
  ]);
  const { records, rest } = splitRecords(output, { count: 1 });
  const record = records[0] === undefined ? undefined : recordOf(records[0], FIELDS);
  if (record?.pane_id !== paneId) throw new TmuxError("not_found", `can't find pane: ${paneId}`);
  const height = Number(record.pane_height);
  return {
    width: Number(record.pane_width),
    height,
    cursor: {
      x: Number(record.cursor_x),
      y: Number(record.cursor_y),
      visible: record.cursor_flag === "1",
    },
    rows: splitCapture(rest).slice(0, height),
    alternate_on: record.alternate_on === "1",
    in_mode: record.pane_in_mode === "1",
    mode: record.pane_mode,
    current_command: record.pane_current_command,
  };
}

/** Reads a pane's visible screen with its styles, as cells. */
export async function styledScreen(socket: TmuxSocket, paneId: string): Promise<StyledScreen> {
  const { rows, width, height, cursor, ...state } = await styledRows(socket, paneId);
  return { pane_id: paneId, grid: parseGrid(rows, { width, height, cursor }), ...state };
}
