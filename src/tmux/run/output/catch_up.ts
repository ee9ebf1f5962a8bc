/**
 * The rest of a timed-out run's output, from the screen: once its call ends nothing follows the
 * pane (tmux before 3.8 crashes when a person respawns a pane whose output a control client has
 * not caught up with), so what the run writes after its call is read from the pane's screen and
 * history when a call asks for it, and goes on from where the stream's lines end.
 *
 * @module
 */

import { collectOutput } from "./collect.ts";
import type { ScreenPart, StoredRun } from "./run_output.ts";
import { currentPosition, type Position } from "../base/mod.ts";

/** How many of the log's last lines place it on the screen. */
const TAIL_LINES = 3;

/** A read of a log's last lines: whole, however long. */
const TAIL_BUDGET = { maxBytes: 1024 * 1024, maxLines: TAIL_LINES };

/**
 * Marks a stored run as no longer followed: what it wrote past its log is read from the screen
 * from now on, going on from the log's last lines. Returns what that reading knows.
 */
export function readRestFromScreen(
  stored: StoredRun,
  run: Pick<ScreenPart, "call" | "anchor" | "typed">,
): ScreenPart {
  stored.screen = {
    call: run.call,
    anchor: run.anchor,
    typed: run.typed,
    tail: logTail(stored),
    missed: false,
    anchorLost: false,
    reading: Promise.resolve(),
  };
  return stored.screen;
}

/** The last complete lines of a stored run's log, at most {@linkcode TAIL_LINES}. */
function logTail(stored: StoredRun): string[] {
  const complete = stored.log.lines - (stored.log.endsMidLine ? 1 : 0);
  if (complete === 0) return [];
  const from = Math.max(1, complete - TAIL_LINES + 1);
  return stored.log.read(from, TAIL_BUDGET).lines.slice(0, complete - from + 1);
}

/**
 * Brings a stored run's log up to what the screen shows: the lines after those the log has, up to
 * `end` (where the run's output ended, as its trailer said) or, while it runs, the last complete
 * line. Reads of one run wait for each other. Nothing to do for a run followed to its end.
 */
export async function catchUp(stored: StoredRun, end?: Position): Promise<void> {
  const screen = stored.screen;
  if (screen === undefined) return;
  const read = screen.reading.then(() => readScreen(stored, screen, end ?? screen.end));
  screen.reading = read.catch(() => {});
  await read;
}

async function readScreen(stored: StoredRun, screen: ScreenPart, end?: Position): Promise<void> {
  const { socket, paneId } = screen.call;
  const now = await currentPosition(socket, paneId);
  const cut = await collectOutput({
    ...screen.call,
    anchor: screen.anchor,
    typed: screen.typed,
    end: end ?? now,
    now,
  });
  // While the run goes on, the cursor's row is still being written.
  const lines = end === undefined && now.x !== 0 ? cut.lines.slice(0, -1) : cut.lines;
  const whole = !cut.linesMissed && !cut.anchorLost;
  screen.anchorLost ||= cut.anchorLost;
  let fresh: string[];
  if (whole) fresh = rewritten(stored, lines);
  else {
    const from = continuesAt(lines, screen.tail);
    screen.missed = true;
    fresh = lines.slice(from ?? 0);
  }
  if (fresh.length > 0) {
    // A line the stream left unfinished is the screen's whole one now: the log ends it first.
    if (stored.log.endsMidLine) stored.log.append("\n");
    stored.log.append(fresh.join("\n") + "\n");
  }
  screen.tail = logTail(stored);
  // Read to its end: the log is complete, and the screen moves on without it.
  if (end !== undefined) {
    stored.screen = undefined;
    stored.log.settle();
  }
}

/** How many of the log's last lines the screen may have rewritten (a progress display's). */
const REWRITE_LINES = 64;

/**
 * Where the screen holds the whole run, its lines are the run's: the log's last lines that differ
 * from the screen's (rewritten since the stream saw them, as docker pull's layers are) are taken
 * back, and what the log lacks is returned to follow. Only the last {@linkcode REWRITE_LINES} are
 * compared; a log that cannot take them back keeps them (shown twice, never lost).
 */
function rewritten(stored: StoredRun, lines: readonly string[]): string[] {
  const { log } = stored;
  const complete = log.lines - (log.endsMidLine ? 1 : 0);
  const from = Math.max(1, complete - REWRITE_LINES + 1);
  const kept = complete === 0
    ? []
    : log.read(from, { maxBytes: 16 * 1024 * 1024, maxLines: REWRITE_LINES }).lines
      .slice(0, complete - from + 1);
  let same = 0;
  while (same < kept.length && kept[same] === lines[from - 1 + same]) same++;
  const differ = kept.length - same;
  if (differ > 0 && !log.endsMidLine && log.takeBack(differ)) {
    return lines.slice(from - 1 + same);
  }
  return lines.slice(complete);
}

/**
 * Where the screen's lines go on from the log's last lines, where tmux's history dropped some:
 * after the first place it shows them (some may be shown twice, none lost); null when it shows
 * them nowhere.
 */
function continuesAt(lines: readonly string[], tail: readonly string[]): number | null {
  if (tail.length === 0) return 0;
  const at = (i: number) => tail.every((line, j) => lines[i + j] === line);
  for (let i = 0; i + tail.length <= lines.length; i++) if (at(i)) return i + tail.length;
  return null;
}
