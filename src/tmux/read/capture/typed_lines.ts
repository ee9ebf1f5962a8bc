/**
 * The lines run_command typed into panes (a call of its run function, a launcher's line), and
 * what a reader sees in their place: the command. The shell echoes each typed line, so a pane's
 * text holds them; every capture a tool shows goes through {@linkcode showTypedLines}, which puts
 * the command where its line stands, as if a person had typed it. Lines are known for the panes
 * this server typed into (the last {@linkcode LINES_PER_PANE} of each); a line an earlier server
 * typed shows as it is.
 *
 * @module
 */

import { NAME_PREFIX } from "../../names.ts";
import { lockKey } from "../../transport/spawn/exec.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { BoundedMap } from "../../../util/mod.ts";

/** A typed line, and what stands in its place. */
export interface TypedLineShown {
  /** The line as typed (what the shell echoes). */
  typed: string;
  /** What a reader sees instead: the command (its first line, `…` when it has more). */
  shown: string;
}

/** Typed lines kept per pane, newest last. */
const LINES_PER_PANE = 64;
/** Panes whose typed lines are kept. */
const PANES_MAX = 1024;
/** Screen rows one typed line may wrap over. */
const WRAP_ROWS_MAX = 64;

const panes = new BoundedMap<string, TypedLineShown[]>(PANES_MAX);

/** What stands for a command in a pane's text: its first line, `…` when it has more. */
export function shownCommand(command: string): string {
  const lines = command.split("\n");
  return lines.length > 1 ? `${lines[0]} …` : command;
}

/** Remembers a line typed into a pane, and what a reader sees in its place. */
export function noteTypedLine(socket: TmuxSocket, paneId: string, line: TypedLineShown): void {
  const key = lockKey(socket, paneId);
  const lines = (panes.get(key) ?? []).filter((known) => known.typed !== line.typed);
  lines.push(line);
  panes.set(key, lines.slice(-LINES_PER_PANE));
}

/**
 * A pane's text with each line this server typed there replaced by what stands for it. `joined`:
 * the lines are joined (`capture-pane -J`), else they are screen rows, where a typed line wraps
 * over several: the first takes the command, the others are left blank (rows keep their place).
 */
export function showTypedLines(
  socket: TmuxSocket,
  paneId: string,
  lines: string[],
  options: { joined: boolean },
): string[] {
  const known = panes.get(lockKey(socket, paneId));
  if (known === undefined) return lines;
  const longest = Math.max(...known.map((line) => line.typed.length));
  let out: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    // A typed line names something of ours early: its first row holds the name.
    if (!lines[i].includes(NAME_PREFIX)) continue;
    const rows = options.joined ? 1 : Math.min(WRAP_ROWS_MAX, lines.length - i);
    let text = "";
    for (let used = 1; used <= rows && text.length <= lines[i].length + longest; used++) {
      text += lines[i + used - 1];
      const found = known.findLast((line) => text.includes(line.typed));
      if (found === undefined) continue;
      out ??= [...lines];
      const at = text.indexOf(found.typed);
      // A row the line was drawn over keeps the cells it cleared (tmux keeps them for -J).
      const after = text.slice(at + found.typed.length);
      out[i] = text.slice(0, at) + found.shown + (after.trim() === "" ? "" : after);
      for (let row = i + 1; row < i + used; row++) out[row] = "";
      i += used - 1;
      break;
    }
  }
  return out ?? lines;
}
