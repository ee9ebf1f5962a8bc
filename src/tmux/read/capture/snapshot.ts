/**
 * A pane's visible screen with its cursor, size, mode and alternate-screen state.
 *
 * @module
 */

import type { TmuxSocket } from "../../transport/socket.ts";
import { capturePane } from "./capture.ts";
import { getPane } from "../../objects/objects.ts";

/** What a snapshot holds. */
export interface Snapshot {
  /** The pane. */
  pane_id: string;
  /** The visible screen's rows, top first. */
  lines: string[];
  /** Cursor column, from 0. */
  cursor_x: number;
  /** Cursor row, from 0 at the top of the screen. */
  cursor_y: number;
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** A mode (copy-mode, choose-tree...) covers the pane. */
  in_mode: boolean;
  /** That mode's name, or empty. */
  mode: string;
  /** A full-screen program owns the screen. */
  alternate_on: boolean;
  /** The foreground program's name. */
  current_command: string;
  /** The pane's title. */
  title: string;
}

/** The pane's fields and its screen's rows (not joined: one row a line). */
export async function snapshotPane(socket: TmuxSocket, paneId: string): Promise<Snapshot> {
  const pane = await getPane(socket, paneId);
  const lines = await capturePane(socket, paneId, { start: 0, end: null, join: false });
  return {
    pane_id: paneId,
    lines,
    cursor_x: pane.cursor_x,
    cursor_y: pane.cursor_y,
    width: pane.pane_width,
    height: pane.pane_height,
    in_mode: pane.pane_in_mode,
    mode: pane.pane_mode,
    alternate_on: pane.alternate_on,
    current_command: pane.pane_current_command,
    title: pane.pane_title,
  };
}
