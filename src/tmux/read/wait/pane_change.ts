/**
 * Whether a pane changed since it was last looked at, in one tmux command and without reading its
 * text: its window's last activity (whole seconds, by tmux's clock, read in the same command), its
 * cursor and history, its screen, its program.
 *
 * @module
 */

import { TmuxError } from "../../errors.ts";
import { formatOf, recordOf, splitRecords } from "../../format.ts";
import { runTmux } from "../../transport/control/command.ts";
import type { TmuxSocket } from "../../transport/socket.ts";

/** One look at a pane. */
export interface PaneChange {
  /** When its window last had output, in seconds by tmux's clock. */
  activity: number;
  /** tmux's clock as it answered, in seconds. */
  now: number;
  /** Its history size, cursor and screen, as one value. */
  position: string;
  /** Its foreground program (`pane_current_command`). */
  command: string;
  /** Its program exited and the pane stays. */
  dead: boolean;
  /** Its cursor, history, screen or program differ from the look before (false for a first). */
  moved: boolean;
  /**
   * Its window had output in or after the second the look before was taken (a second is all the
   * clock tells): this pane, or another of its window, may have written.
   */
  active: boolean;
}

const FIELDS = [
  "pane_id",
  "window_activity",
  "history_size",
  "cursor_x",
  "cursor_y",
  "alternate_on",
  "pane_current_command",
  "pane_dead",
] as const;

/**
 * Looks at a pane once; `before` is the look before (null: a first look). Throws `not_found` once
 * the pane is gone.
 */
export async function paneChange(
  socket: TmuxSocket,
  paneId: string,
  before: PaneChange | null,
): Promise<PaneChange> {
  // display-message runs the format through strftime first: `%s` is tmux's clock.
  const output = await runTmux(socket, [
    ...["display-message", "-p", "-t", paneId, `${formatOf(FIELDS)}%s`],
  ]);
  const { records, rest } = splitRecords(output, { count: 1 });
  const pane = records.length === 1 ? recordOf(records[0], FIELDS) : null;
  if (pane === null || pane.pane_id !== paneId) {
    throw new TmuxError("not_found", `can't find pane: ${paneId}`);
  }
  const look = {
    activity: Number(pane.window_activity) || 0,
    now: Number(rest.trim()) || 0,
    position: [pane.history_size, pane.cursor_x, pane.cursor_y, pane.alternate_on].join(","),
    command: pane.pane_current_command,
    dead: pane.pane_dead === "1",
  };
  const moved = before !== null && (look.position !== before.position ||
    look.command !== before.command || look.dead !== before.dead);
  return { ...look, moved, active: before !== null && look.activity >= before.now };
}
