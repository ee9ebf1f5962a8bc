/**
 * Typing a run's line into its pane, and taking back what a run that never ran left: the claim
 * on the pane, its record, its buffers.
 *
 * @module
 */

import { activityTitle, restoreText, showActivity } from "../../objects/activity_mark.ts";
import { TmuxError } from "../../errors.ts";
import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { type Position, RUNNING_OPTION } from "../base/mod.ts";
import { noteTypedLine } from "../../read/capture/typed_lines.ts";
import type { PaneCall } from "../turn/mod.ts";
import { NAME_PREFIX } from "../../names.ts";

/**
 * Commands up to this many bytes go to their buffer over the control client, larger ones on a
 * tmux process's standard input.
 */
const SET_BUFFER_MAX = 64 * 1024;

/** C-u: line editors' unix-line-discard, and the terminal's kill character. */
const KILL_LINE = "\x15";

/** What {@linkcode typeLine} returns when the pane changed since the call looked at it. */
export const PANE_CHANGED: unique symbol = Symbol("pane changed");

/** Set, then set again with `-o` (which fails), when the pane changed since the look. */
const CHANGED_OPTION = `@${NAME_PREFIX}changed`;

/**
 * The commands that end the tmux command they start (as a failed `set-option -o` does) when the
 * pane's cursor or history is not where the call saw it as it looked: a person's key pressed in
 * between, or output. tmux runs one client's commands together, with no key handled between.
 */
function unchangedSince(paneId: string, seen: Position): string[] {
  const same = (field: string, value: number) => `#{==:#{${field}},${value}}`;
  const where = `#{&&:${same("cursor_x", seen.x)},` +
    `#{&&:${same("cursor_y", seen.y)},${same("history_size", seen.history)}}}`;
  return [
    ...["set-option", "-p", "-u", "-t", paneId, CHANGED_OPTION, THEN],
    ...["if-shell", "-F", "-t", paneId, `#{?${where},,1}`],
    `set-option -p -t ${paneId} ${CHANGED_OPTION} 1`,
    THEN,
    ...["set-option", "-p", "-o", "-t", paneId, CHANGED_OPTION, "1", THEN],
    ...["set-option", "-p", "-u", "-t", paneId, CHANGED_OPTION, THEN],
  ];
}

/**
 * Types the line into the pane in one tmux command: the running mark is claimed (set only if it
 * is not set: two server processes never type into one run) and shown in the pane's title (see
 * activity_mark.ts), then the command goes to its
 * buffer when it is not inline, and the line is pasted through a private buffer into this pane
 * alone (keys sent with send-keys would reach every pane of a synchronized window). C-u comes
 * first: text someone left unsent at the prompt would otherwise prefix our line (line editors keep
 * it in their kill ring; without one, the terminal's kill character drops it). Returns null, or
 * the mark that was already there.
 */
export async function typeLine(
  call: PaneCall,
  line: TypedLine & {
    mark: string;
    buffered: string | null;
    record: string | null;
    /** The run function's definition, set in its buffer for the line to fetch. */
    definition?: { buffer: string; text: string } | null;
    /** Where the pane's cursor and history were as the call looked: typed only if still so. */
    seen?: Position | null;
    /** The line the screen shows in its place once the shell ran it (see `FirstCall`). */
    onScreen?: string;
  },
): Promise<string | null | typeof PANE_CHANGED> {
  const { socket, paneId, names } = call;
  if (line.onScreen !== undefined && line.onScreen !== line.typed) {
    noteTypedLine(socket, paneId, { typed: line.onScreen, shown: line.shown });
  }
  const claim = [
    ...line.seen ? unchangedSince(paneId, line.seen) : [],
    ...["set-option", "-p", "-o", "-t", paneId, RUNNING_OPTION, line.mark, THEN],
    ...await showActivity(socket, { paneId, title: activityTitle(line.shown) }),
    ...line.record === null
      ? []
      : ["set-option", "-p", "-t", paneId, names.quietRecord, line.record, THEN],
  ];
  const paste = [
    ...line.definition
      ? ["set-buffer", "-b", line.definition.buffer, "--", line.definition.text, THEN]
      : [],
    ...pasteCommands(call, line),
  ];
  try {
    await runTmux(socket, ...withBuffered(call, line.buffered, [claim, paste]));
    return null;
  } catch (error) {
    if (error instanceof TmuxError && error.message.includes(`already set: ${CHANGED_OPTION}`)) {
      await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, CHANGED_OPTION]).catch(
        () => {},
      );
      return PANE_CHANGED;
    }
    if (error instanceof TmuxError && /already set/.test(error.message)) {
      return (await runTmux(socket, [
        ...["display-message", "-p", "-t", paneId, `#{${RUNNING_OPTION}}`],
      ]).catch(() => "")).trim();
    }
    // Cancelled as it was typed, the line may be running: the caller records it.
    if (error instanceof TmuxError && error.code === "cancelled") throw error;
    await releaseClaim(call, line.mark);
    throw error;
  }
}

/**
 * The tmux command that runs `before`, sets the call's command buffer to `buffered` (unless
 * null), then pastes; and its standard input (a large command is loaded from it).
 */
function withBuffered(
  call: PaneCall,
  buffered: string | null,
  [before, paste]: [string[], string[]],
): [string[], { stdin?: string }] {
  const buffer = call.names.commandBuffer;
  if (buffered === null) return [[...before, ...paste], {}];
  if (new TextEncoder().encode(buffered).length > SET_BUFFER_MAX) {
    return [[...before, "load-buffer", "-b", buffer, "-", THEN, ...paste], { stdin: buffered }];
  }
  return [[...before, "set-buffer", "-b", buffer, "--", buffered, THEN, ...paste], {}];
}

/**
 * Types a line again with the command it fetches (the mark is the call's already), its record
 * written anew for it.
 */
export async function typeAgain(
  call: PaneCall,
  line: TypedLine & { buffered: string; record: string | null },
): Promise<void> {
  const record = line.record === null
    ? []
    : ["set-option", "-p", "-t", call.paneId, call.names.quietRecord, line.record, THEN];
  await runTmux(
    call.socket,
    ...withBuffered(call, line.buffered, [record, pasteCommands(call, line)]),
  );
}

/** A line to type into a pane, and how its tmux pastes bytes as they are. */
export interface TypedLine {
  /** The line, without the C-u before it and the CR after it. */
  typed: string;
  /** What readers of the pane see in its place: the command (see read/typed_lines.ts). */
  shown: string;
  /** `paste-buffer` flags from `verbatimPasteFlags` for the pane's tmux. */
  pasteFlags: readonly string[];
}

/**
 * The tmux commands that paste a line into the call's pane alone, after C-u, with a CR; the line
 * is remembered, for what its echo shows, from then on.
 */
function pasteCommands(call: PaneCall, line: TypedLine): string[] {
  const { paneId, names } = call;
  noteTypedLine(call.socket, paneId, line);
  return [
    ...["set-buffer", "-b", names.pasteBuffer, "--", `${KILL_LINE}${line.typed}\r`, THEN],
    ...["paste-buffer", ...line.pasteFlags, "-d", "-b", names.pasteBuffer, "-t", paneId],
  ];
}

/** Types a line again (the mark is the call's already). */
export async function pasteLine(call: PaneCall, line: TypedLine): Promise<void> {
  await runTmux(call.socket, pasteCommands(call, line));
}

/**
 * Clears what a call that ran nothing leaves: its running mark (while still its), the record
 * written as it was typed, its buffers. Whether the command's buffer was still there (see
 * {@linkcode deleteUnfetched}).
 */
export async function releaseClaim(call: PaneCall, mark: string): Promise<boolean> {
  await runTmux(call.socket, [
    ...["set-option", "-p", "-u", "-t", call.paneId, call.names.quietRecord, THEN],
    ...["if-shell", "-F", "-t", call.paneId, `#{==:#{${RUNNING_OPTION}},${mark}}`],
    `set-option -p -u -t ${call.paneId} ${RUNNING_OPTION} ; ${restoreText(call.paneId)}`,
  ]).catch(() => {});
  return await deleteUnfetched(call);
}

/**
 * Deletes the buffers of a call whose shell never fetched them; true when the command's buffer
 * was still there (the shell never fetched it, and finds nothing if it still runs the line).
 */
export async function deleteUnfetched(call: PaneCall): Promise<boolean> {
  const [command] = await deleteBuffers(call.socket, [
    call.names.commandBuffer,
    call.names.pasteBuffer,
  ]);
  return command;
}

/** Deletes each buffer; whether each was there to delete. */
async function deleteBuffers(socket: TmuxSocket, buffers: readonly string[]): Promise<boolean[]> {
  const deleted: boolean[] = [];
  for (const name of buffers) {
    try {
      await runTmux(socket, ["delete-buffer", "-b", name]);
      deleted.push(true);
    } catch {
      // Already fetched and deleted by the shell, or the server is gone.
      deleted.push(false);
    }
  }
  return deleted;
}

/**
 * Deletes the buffer a first call set the run function in for its line to fetch: the shell that
 * evaluated it deleted it already; one that never read the line did not.
 */
export async function deleteFetched(socket: TmuxSocket, buffer: string): Promise<void> {
  await runTmux(socket, ["delete-buffer", "-b", buffer]).catch(() => {});
}
