/**
 * Waiting on a pane: for text to appear in output new since the wait began, for the program to
 * wait for input again at a known prompt, for the pane to go quiet (no output for a settle time:
 * told by the output notifications the watcher follows, not by reading the screen), or for the
 * program that had the pane to exit.
 *
 * @module
 */

import { captureSince, screenRows } from "../capture/mod.ts";
import {
  compilePatterns,
  DEFAULT_BUDGET,
  type Excerpt,
  ExcerptBuilder,
  excerptOf,
  knownPrompt,
  MatchClock,
  type OutputBudget,
  type SourcePattern,
} from "../text/mod.ts";
import { classifyProcess } from "../../shells.ts";
import { queryPane } from "../../objects/target.ts";
import { watchOutput } from "../../transport/watch/watch.ts";
import { TmuxError } from "../../errors.ts";
import { Alarm } from "../../../util/mod.ts";
import { cursorScreen, promptOf, untilProgramWaits } from "./program_turn.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import type { AgentMark } from "../agent_report.ts";
import type { AgentReport } from "../pane_states.ts";
import { untilAgentReports } from "./any_pane.ts";

/** Options for {@linkcode waitForText}. */
export interface WaitTextOptions {
  /**
   * End as "agent" once the agent in the pane reports waiting or done through its hook lines
   * (docs/agents.md) with a mark other than `before` (read before the caller typed).
   */
  agent?: { before: AgentMark | null };
  /** What to wait for: any one of them ends the wait as "matched" (none: only the ends below). */
  patterns: string[];
  /**
   * End as "quiet" once the pane has written nothing for this long (ms); on the alternate screen
   * the rows that changed are reported. Null or absent: no such end.
   */
  quietMs?: number | null;
  /**
   * End as "prompt" once the program waits for input again: as the kernel tells it (see
   * program_turn.ts), or, once output came, when the cursor's row shows a known prompt
   * (prompts.ts).
   */
  prompt?: boolean;
  /**
   * With `prompt`, where the kernel cannot be asked (no /proc and no `ps`): end as "quiet" after
   * this long without output (ms), as waits did before the kernel was asked. Null or absent: none.
   */
  fallbackQuietMs?: number | null;
  /** Lines the answer begins with: written before the input, after an earlier answer stopped. */
  earlier?: string[];
  /** The screen's rows when the input the wait answers was typed (default: as the wait begins). */
  screenBefore?: string[];
  /**
   * The pane's foreground program (`#{pane_current_command}`) when the input the wait answers was
   * typed (default: as the wait begins): a shell's, then what its line runs are one exchange.
   */
  typedTo?: string;
  /** Patterns that end the wait early as "stopped" (e.g. an error message). */
  stopPatterns: string[];
  /** Read the patterns as RE2 regular expressions. */
  regex: boolean;
  /** Match case exactly. */
  caseSensitive: boolean;
  /** Seconds, already clamped. */
  timeout: number;
  /** How often the pane is read when it reports no output, in milliseconds. */
  intervalMs: number;
  /** Cancels the wait. */
  signal?: AbortSignal;
  /** Count output since this capture_since cursor (e.g. from send_keys) instead of since now. */
  cursor?: string | null;
  /** With no cursor: the one made as text was last typed into the pane (its late echo is old). */
  echoFrom?: string | null;
  /** How much of the new output the result shows. */
  budget: OutputBudget;
  /** Called about once a second with the seconds waited so far. */
  onProgress?: (elapsed: number) => void;
}

/** How a wait ended. */
export interface WaitTextResult {
  /** How the wait ended. */
  outcome: WaitOutcome;
  /** The pattern that matched or stopped it. */
  pattern: string | null;
  /** The line it matched. */
  line: string | null;
  /** Seconds spent waiting. */
  elapsed_seconds: number;
  /** The timeout enforced, in seconds. */
  effective_timeout: number;
  /** tmux's history dropped lines before they were read. */
  lines_missed: boolean;
  /** The new output read, up to the row the wait ended on (which may still be written). */
  output: Excerpt;
  /** A capture_since cursor after the last complete line read. */
  cursor: string;
  /** The prompt row that ended the wait (`>>>`, `sqlite>`...), else null. */
  prompt: string | null;
  /** What the agent reported that ended the wait (outcome "agent"), else null. */
  agent: AgentReport | null;
  /** Quiet on the alternate screen: its rows that differ from when the wait began. */
  changed_rows: Array<{ row: number; text: string }> | null;
}

/** The ways a wait ends. */
export const WAIT_OUTCOMES = [
  "matched",
  "stopped",
  "prompt",
  "quiet",
  "exited",
  "timeout",
  "alternate_screen",
  "agent",
] as const;

/** How a wait ends. */
export type WaitOutcome = typeof WAIT_OUTCOMES[number];

/** How long the pane must be still before the cursor's row is taken for a prompt. */
const PROMPT_SETTLE_MS = 150;

/**
 * Waits until a pattern shows up in new output, a stop pattern does, a known prompt is back, the
 * pane is quiet, the program exits, or the timeout passes. The pane is read again whenever it
 * reports output (see watch.ts), and every `intervalMs` anyway.
 */
export async function waitForText(
  socket: TmuxSocket,
  paneId: string,
  options: WaitTextOptions,
): Promise<WaitTextResult> {
  const started = Date.now();
  const flags = { regex: options.regex, caseSensitive: options.caseSensitive };
  const wanted = await compilePatterns(options.patterns, flags);
  const stops = await compilePatterns(options.stopPatterns, flags);
  const output = new ExcerptBuilder(options.budget);
  for (const line of options.earlier ?? []) output.push(line);
  const alarm = new Alarm();
  const clock = new MatchClock();
  // What the result says of what was read so far.
  const read: ReadSoFar = { output, cursor: options.cursor ?? "", current: "", missed: false };
  const end = (
    outcome: WaitOutcome,
    match: { source: string; line: string } | null = null,
    more: {
      prompt?: string;
      changed?: Array<{ row: number; text: string }>;
      screenOnly?: boolean;
      agent?: AgentReport;
    } = {},
  ): WaitTextResult =>
    resultOf(read, { outcome, match, ...more, started, timeout: options.timeout });
  // A pane that closed as its program ended: what was read is the answer.
  const gone = (error: unknown): WaitTextResult => {
    if (error instanceof TmuxError && error.code === "not_found") return end("exited");
    throw error;
  };
  let front: { session_id: string; pane_current_command: string };
  try {
    front = await queryPane(socket, paneId, ["session_id", "pane_current_command"]);
  } catch (error) {
    return gone(error);
  }
  let quietMs = options.quietMs ?? null;
  // Talking to a program (a prompt or quiet to wait for): its end ends the wait. A wait for text
  // alone outlasts the programs a shell runs meanwhile (a prompt's own, say).
  const talking = options.prompt === true || quietMs !== null || options.agent !== undefined;
  const talkingTo = options.typedTo ?? front.pane_current_command;
  const program = talking && classifyProcess(talkingTo) === "other" ? talkingTo : null;
  let lastOutput = Date.now();
  let outputCame = false;
  const unwatch = await watchOutput(socket, { sessionId: front.session_id, paneId }, () => {
    lastOutput = Date.now();
    outputCame = true;
    alarm.ring();
  });
  // The program's turn, as the kernel tells it: looked for while the wait lasts.
  const stopTurn = new AbortController();
  let turn: "unknown" | "waiting" | null = null;
  let turning: Promise<void> | undefined;
  if (options.prompt === true) {
    const signal = options.signal
      ? AbortSignal.any([options.signal, stopTurn.signal])
      : stopTurn.signal;
    const looked = untilProgramWaits(socket, paneId, { signal, lastOutput: () => lastOutput });
    turning = looked.then((look) => {
      if (stopTurn.signal.aborted) return;
      turn = look === null ? "unknown" : "waiting";
      alarm.ring();
    });
  }
  // The agent's report, as its hook lines make it: looked for while the wait lasts.
  let reported: AgentReport | null = null;
  let reporting: Promise<void> | undefined;
  if (options.agent !== undefined) {
    const signal = options.signal
      ? AbortSignal.any([options.signal, stopTurn.signal])
      : stopTurn.signal;
    reporting = untilAgentReports(socket, paneId, { before: options.agent.before, signal })
      .then((report) => {
        reported = report;
        alarm.ring();
      }, () => {});
  }
  try {
    let since = await captureSince(socket, paneId, options.cursor ?? null, {
      echoFrom: options.echoFrom,
    });
    // A full-screen program has no lines to tell its changes by: its rows are compared.
    const screenBefore = quietMs === null && options.prompt !== true &&
        options.fallbackQuietMs == null
      ? null
      : options.screenBefore ?? await screenRows(socket, paneId);
    // Without a cursor, what the cursor's row shows now is old.
    read.current = options.cursor == null ? "" : since.current_line;
    let lastProgress = 0;
    let exited = false;
    while (true) {
      read.missed ||= since.lines_missed;
      read.cursor = since.cursor;
      if (options.signal?.aborted) throw new TmuxError("cancelled", "wait_for_text was cancelled");
      // The row under the cursor counts once it shows something new.
      const lines = read.current === "" ? since.lines : [...since.lines, read.current];
      const match = await firstMatch(lines, { stops, wanted, clock });
      // A full-screen program's rows are its screen, not lines it wrote: its answer is the rows
      // that changed, and what follows once it leaves the screen.
      if (!since.alternate_on) { for (const line of since.lines) output.push(line); }
      if (match) return end(match.outcome, match);
      // What the pane wrote before the agent's hook line ran is read above: the answer is whole.
      if (reported !== null) return end("agent", null, { agent: reported });
      // New lines, or a new row under the cursor: the program answered (even if the notice of
      // its output came before this wait subscribed).
      outputCame ||= since.lines.length > 0 || read.current !== "";
      const still = Date.now() - lastOutput;
      // A known prompt's text is the cross-check where the kernel cannot be asked.
      const prompt = options.prompt && turn === "unknown" && outputCame &&
          still >= PROMPT_SETTLE_MS && !since.alternate_on
        ? knownPrompt(read.current)
        : null;
      if (prompt !== null) return end("prompt", null, { prompt });
      if (turn === "waiting") {
        if (!since.alternate_on) return end("prompt", null, { prompt: read.current.trimEnd() });
        // A full-screen program's answer is its rows that changed, once: not its lines too.
        const screen = await cursorScreen(socket, paneId);
        const changed = changedRows(screenBefore ?? [], screen.rows);
        return end("prompt", null, { prompt: promptOf(screen).prompt, changed, screenOnly: true });
      }
      if (turn === "unknown" && quietMs === null) quietMs = options.fallbackQuietMs ?? null;
      // On a full-screen program, a wait for its turn goes on while the kernel can tell it.
      const turnTold = options.prompt === true && turn !== "unknown";
      if (since.alternate_on && quietMs === null && !turnTold) return end("alternate_screen");
      if (exited) return end("exited");
      exited = talking && await programEnded(socket, paneId, program);
      // An exit is told once what the program wrote as it ended is read (and matched): at once.
      if (!exited) {
        if (quietMs !== null && still >= quietMs) {
          const changed = since.alternate_on
            ? changedRows(screenBefore ?? [], await screenRows(socket, paneId))
            : undefined;
          return end("quiet", null, { changed, screenOnly: changed !== undefined });
        }
        const waited = Date.now() - started;
        if (waited >= options.timeout * 1000) return end("timeout");
        if (options.onProgress && waited - lastProgress >= 1000) {
          lastProgress = waited;
          options.onProgress(waited / 1000);
        }
        // Woken by output; else when the pane may have gone quiet, or a prompt settled.
        const settles = options.prompt === true && turn === "unknown" && outputCame;
        await alarm.pause(
          pauseMs({ ...options, quietMs }, { waited, still, settles }),
          options.signal,
        );
      }
      since = await captureSince(socket, paneId, since.cursor);
      read.current = since.current_line;
    }
  } catch (error) {
    return gone(error);
  } finally {
    stopTurn.abort();
    await turning;
    await reporting;
    unwatch();
  }
}

/** What a wait has read so far: what its result shows of it. */
interface ReadSoFar {
  output: ExcerptBuilder;
  /** The cursor to pass to the next read. */
  cursor: string;
  /** The row under the cursor, once it shows something new. */
  current: string;
  /** tmux's history-limit dropped lines before they were read. */
  missed: boolean;
}

/** A wait's result, once it ended as `end.outcome` says. */
function resultOf(
  read: ReadSoFar,
  end: {
    outcome: WaitOutcome;
    match: { source: string; line: string } | null;
    prompt?: string;
    changed?: Array<{ row: number; text: string }>;
    /** The answer is the changed rows: the lines read off a full-screen program are left out. */
    screenOnly?: boolean;
    agent?: AgentReport;
    started: number;
    timeout: number;
  },
): WaitTextResult {
  return {
    outcome: end.outcome,
    pattern: end.match?.source ?? null,
    line: end.match?.line ?? null,
    elapsed_seconds: Math.round(Date.now() - end.started) / 1000,
    effective_timeout: end.timeout,
    lines_missed: read.missed,
    output: end.screenOnly
      ? excerptOf([], DEFAULT_BUDGET)
      : read.output.finish(read.current === "" ? undefined : read.current),
    cursor: read.cursor,
    prompt: end.prompt ?? null,
    changed_rows: end.changed ?? null,
    agent: end.agent ?? null,
  };
}

/** The first line a stop pattern or a wanted one matches (stops first), within the clock's budget. */
export async function firstMatch(
  lines: readonly string[],
  patterns: {
    stops: readonly SourcePattern[];
    wanted: readonly SourcePattern[];
    clock: MatchClock;
  },
): Promise<{ outcome: "matched" | "stopped"; source: string; line: string } | null> {
  const { stops, wanted, clock } = patterns;
  clock.start();
  for (const line of lines) {
    if (clock.due()) await clock.pause();
    const stop = stops.find((p) => clock.test(p, line));
    const hit = stop ?? wanted.find((p) => clock.test(p, line));
    if (hit) return { outcome: stop ? "stopped" : "matched", source: hit.source, line };
  }
  return null;
}

/**
 * How long a wait pauses before it looks again, unless output wakes it: the interval, and no
 * later than the timeout, the moment the pane has been quiet long enough, or a prompt settled.
 */
function pauseMs(
  options: Pick<WaitTextOptions, "intervalMs" | "timeout" | "quietMs">,
  now: { waited: number; still: number; settles: boolean },
): number {
  const quietIn = options.quietMs == null ? Infinity : options.quietMs - now.still;
  const settleIn = now.settles ? PROMPT_SETTLE_MS - now.still : Infinity;
  const until = Math.min(
    options.intervalMs,
    options.timeout * 1000 - now.waited,
    quietIn,
    settleIn > 0 ? settleIn : Infinity,
  );
  return Math.max(1, until);
}

/** Whether the program that had the pane when the wait began (null: a shell) is gone from it. */
async function programEnded(
  socket: TmuxSocket,
  paneId: string,
  program: string | null,
): Promise<boolean> {
  let now: { pane_dead: string; pane_current_command: string };
  try {
    now = await queryPane(socket, paneId, ["pane_dead", "pane_current_command"]);
  } catch (error) {
    // The pane closed with its program.
    if (error instanceof TmuxError && error.code === "not_found") return true;
    throw error;
  }
  return now.pane_dead === "1" || (program !== null && now.pane_current_command !== program);
}

/** The rows of `after` that differ from `before` (bounded by the screen's height). */
function changedRows(before: string[], after: string[]): Array<{ row: number; text: string }> {
  const changed: Array<{ row: number; text: string }> = [];
  for (let row = 0; row < Math.max(before.length, after.length) && row < 1000; row++) {
    if ((before[row] ?? "") !== (after[row] ?? "")) changed.push({ row, text: after[row] ?? "" });
  }
  return changed;
}
