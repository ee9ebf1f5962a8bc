/**
 * Waiting for a pane's program to wait for input: the end of an exchange as the kernel tells it
 * (see input_wait.ts), once the program has written nothing for a moment and still waits a settle
 * time later, with nothing written between the two looks.
 *
 * @module
 */

import { delay } from "../../../util/mod.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { type InputWait, lookForInputWait } from "./input_wait.ts";
import { queryPane } from "../../objects/target.ts";
import { screenRows } from "../capture/mod.ts";

/** How long the pane must have written nothing before the first look. */
export const TURN_QUIET_MS = 100;

/** How long after a look that saw the program waiting it is looked at again. */
const SETTLE_MS = 150;

/** Looks in a row that cannot tell, after which the kernel is taken as not to be asked here. */
const UNTOLD_MAX = 3;

/** The longest pause between looks while the program is busy (a look costs a tmux command). */
const PAUSE_MAX_MS = 1000;

/** Options for {@linkcode untilProgramWaits}. */
export interface ProgramTurnOptions {
  /** Ends the waiting (it then resolves null). */
  signal: AbortSignal;
  /**
   * When the pane last wrote output (ms since the epoch), from a stream that follows it; absent:
   * only the pane's cursor and history tell that nothing was written between two looks.
   */
  lastOutput?: () => number;
}

/**
 * Resolves with the last look once the pane's program has waited for terminal input for a settle
 * time, its output settled; null when aborted, or when looks in a row cannot tell (no /proc and
 * no `ps` here): the caller then ends as it did without it. It settles only once no look of its
 * own is in flight (a look's answer passes through a pane option the look removes): a caller that
 * aborts it awaits it before it returns.
 */
export async function untilProgramWaits(
  socket: TmuxSocket,
  paneId: string,
  options: ProgramTurnOptions,
): Promise<InputWait | null> {
  const { signal } = options;
  const lastOutput = options.lastOutput ?? (() => 0);
  let pause = TURN_QUIET_MS;
  let untold = 0;
  while (!signal.aborted) {
    const quiet = Date.now() - lastOutput();
    if (quiet < TURN_QUIET_MS) {
      await delay(TURN_QUIET_MS - quiet, { signal });
      continue;
    }
    const at = Date.now();
    const first = await look(socket, paneId);
    if (signal.aborted) return null;
    // A look that could not tell (tmux busy, the pane between programs) is tried again; only
    // looks that never tell mean the kernel cannot be asked here.
    untold = first === null || first.waiting === null ? untold + 1 : 0;
    if (untold >= UNTOLD_MAX) return null;
    if (first === null || !asks(first)) {
      await delay(pause, { signal });
      pause = Math.min(pause * 2, PAUSE_MAX_MS);
      continue;
    }
    pause = TURN_QUIET_MS;
    await delay(SETTLE_MS, { signal });
    if (signal.aborted) return null;
    const second = await look(socket, paneId);
    if (second === null) continue;
    if (asks(second) && second.position === first.position && lastOutput() < at) return second;
  }
  return null;
}

/**
 * Whether the pane's program waits for input now, in one look and, when it does, a second a
 * settle time later with nothing written between: "untold" when the kernel cannot be asked here
 * (or tmux could not be).
 */
export async function programWaitsNow(
  socket: TmuxSocket,
  paneId: string,
): Promise<"waiting" | "busy" | "untold"> {
  const first = await look(socket, paneId);
  if (first === null || first.waiting === null) return "untold";
  if (!asks(first)) return "busy";
  await delay(SETTLE_MS);
  const second = await look(socket, paneId);
  if (second === null) return "untold";
  return asks(second) && second.position === first.position ? "waiting" : "busy";
}

/**
 * Whether a look shows the program asking: it reads the terminal, or it polls it and shows
 * something to answer (text left of the cursor, or a screen of its own). An event loop polls
 * with work pending too (node awaiting a timer, its cursor on an empty row).
 */
function asks(look: InputWait): boolean {
  if (look.waiting !== true) return false;
  return !look.polled || look.alternate || !look.position.startsWith("0,");
}

/** One look; null when tmux could not be asked (the pane closed, the server went). */
async function look(socket: TmuxSocket, paneId: string): Promise<InputWait | null> {
  return await lookForInputWait(socket, paneId).catch(() => null);
}

/** The longest prompt a result shows, in characters. */
const PROMPT_MAX = 200;

/** What a program waiting for input shows: the row under the cursor, and its screen. */
export interface InputPrompt {
  /** The cursor's row, trailing spaces dropped (cut to 200 characters). */
  prompt: string;
  /** The program drew a screen of its own (the alternate screen: an editor, a pager). */
  full_screen: boolean;
}

/** A pane's screen as a look at a program's question needs it. */
export interface CursorScreen {
  /** The screen's rows, trailing spaces dropped. */
  rows: string[];
  /** The cursor's row on it. */
  cursorY: number;
  /** It is the alternate screen. */
  alternate: boolean;
}

/** Reads a pane's screen and where its cursor is on it. */
export async function cursorScreen(socket: TmuxSocket, paneId: string): Promise<CursorScreen> {
  const [place, rows] = await Promise.all([
    queryPane(socket, paneId, ["cursor_y", "alternate_on"]),
    screenRows(socket, paneId),
  ]);
  return { rows, cursorY: Number(place.cursor_y), alternate: place.alternate_on === "1" };
}

/** What a screen shows of a program waiting for input: the row under the cursor. */
export function promptOf(screen: CursorScreen): InputPrompt {
  const row = screen.rows[screen.cursorY] ?? "";
  return { prompt: [...row].slice(0, PROMPT_MAX).join(""), full_screen: screen.alternate };
}

/** The row under the pane's cursor now, as a program waiting for input shows it. */
export async function inputPrompt(socket: TmuxSocket, paneId: string): Promise<InputPrompt> {
  return promptOf(await cursorScreen(socket, paneId));
}
