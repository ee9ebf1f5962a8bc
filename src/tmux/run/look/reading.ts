/**
 * The check before anything is typed: whether the pane's shell's line editor is reading a command
 * line, as the watcher following the pane has seen.
 *
 * @module
 */

import type { TmuxSocket } from "../../transport/socket.ts";
import {
  lineEditorReported,
  lineEditorState,
  watcherCaughtUp,
} from "../../transport/watch/watch.ts";

/**
 * How long a line editor's prompt may take to reach the watcher once it has caught up with tmux:
 * the shell may not have drawn it yet. Only a refusal waits this long; on a loaded machine 150 ms
 * was seen to be too short after a flood.
 */
const EDITOR_WAIT_MS = 1000;

/** Whether no watcher has seen if the pane's shell's line editor reads (see below). */
export function lineEditorUnknown(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
): boolean {
  return lineEditorState(socket, target) === "unknown";
}

/**
 * False when the pane's watcher saw its shell's line editor hand the terminal to a program (a
 * script at a `read` prompt, say) and not take it back; true when it reads, or nobody knows (no
 * watcher followed the pane, or the shell never switches bracketed paste). Right after a call the
 * prompt may be drawn but not yet reported (after a large output the watcher can be well behind):
 * the watcher is first brought up to what tmux has read, then given a moment for the rest.
 */
export async function lineEditorReading(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
): Promise<boolean> {
  if (lineEditorState(socket, target) !== "not_reading") return true;
  await watcherCaughtUp(socket, target);
  const signal = AbortSignal.timeout(EDITOR_WAIT_MS);
  while (lineEditorState(socket, target) === "not_reading") {
    if (signal.aborted) return false;
    await lineEditorReported(socket, target, signal);
  }
  return true;
}

/**
 * Whether the pane's shell's line editor reads as a line is typed: false when its terminal was
 * seen canonical (`cooked`: no editor reads, the terminal itself echoes) or the watcher saw the
 * editor hand it over; null when nobody knows.
 */
export function editorReads(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
  options: { cooked: boolean },
): boolean | null {
  if (options.cooked) return false;
  const state = lineEditorState(socket, target);
  return state === "unknown" ? null : state === "reading";
}
