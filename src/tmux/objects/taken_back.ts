/**
 * What this process sets in a person's tmux (a pane's title, the mark on what it made) is taken
 * back when it ends, however it ends: the setter first has the guard of that tmux server hold the
 * commands that undo it (see transport/control/orphan_guard.ts), and sets nothing it could not take back.
 * Each undoing checks that what it undoes is still this process's, by this process's mark.
 *
 * @module
 */

import { commandText } from "../transport/spawn/command_line.ts";
import { lockKey } from "../transport/spawn/exec.ts";
import { type ClientGates, runWhenWeEnd } from "../transport/control/gate.ts";
import type { TmuxSocket } from "../transport/socket.ts";

/** The gates of the socket's owner, through which its clients and their guard start. */
function gatesOf(socket: TmuxSocket): ClientGates | undefined {
  return socket.controls?.gates ?? socket.watchers?.gates;
}

/** This process's mark (unique to it, as its control clients carry it); null: it attaches nothing. */
export function ourMark(socket: TmuxSocket): string | null {
  return gatesOf(socket)?.orphans.mark ?? null;
}

/** Whether `value` is a mark {@linkcode ourMark} gives (of any process). */
export function isMark(value: string): boolean {
  return /^tmux-mcp-\d{1,10}-[0-9a-f]{8}$/.test(value);
}

/**
 * Has `undo` (THEN-chained tmux commands) run when this process ends, once per `object` (a pane,
 * window or session id) and kind; false when nothing would run it (a remote host's tmux): the
 * caller then sets nothing, or says so.
 */
export async function takenBackWhenGone(
  socket: TmuxSocket,
  entry: { object: string; kind: string; undo: string[] },
): Promise<boolean> {
  const gates = gatesOf(socket);
  if (gates === undefined) return false;
  return await runWhenWeEnd(gates, socket, {
    key: `${entry.kind} ${lockKey(socket, entry.object)}`,
    commands: commandText(entry.undo),
  });
}
