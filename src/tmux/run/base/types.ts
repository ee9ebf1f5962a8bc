/**
 * What a run request and its result are, and the positions the run path works with.
 *
 * @module
 */

import type { PersonPolicy } from "../../read/person.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { DEFAULT_BUDGET, type Excerpt, excerptOf, type OutputBudget } from "../../read/text/mod.ts";
import { type PanePosition, parsePosition, POSITION_FIELDS } from "../../read/capture/position.ts";
import { queryPane } from "../../objects/target.ts";

/** One request, already validated and resolved to a pane. */
export interface RunRequest {
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane, an exact `%N` id. */
  paneId: string;
  /** The shell command, run in a subshell of the pane's shell. */
  command: string;
  /** Seconds, already clamped to the server's ceiling. */
  timeout: number;
  /** How much output the result shows (the rest is kept for read_command_output). */
  budget: OutputBudget;
  /** Keep the typed line out of shell history. */
  suppressHistory: boolean;
  /** Let programs start their pagers (else pagers print straight through: `PAGER=cat`...). */
  pagers: boolean;
  /** Cancels the call (a cancelled call ends like a timed-out one). */
  signal?: AbortSignal;
  /** Called about once a second while waiting, with the output lines that are new since. */
  onProgress?: (update: { elapsed: number; lines: string[] }) => void;
  /** Whose run it is (see owner.ts); null or absent: anyone's. */
  owner?: string | null;
  /** When a person may be typing in the pane; absent: refuse. */
  person?: PersonPolicy;
}

/** Where the rest of a run's output can be read: its log, kept by the server. */
export interface OutputMore {
  /** The run. */
  run_id: string;
  /** The first line the result did not show. */
  from_line: number;
  /** Until when it is kept (ISO 8601). */
  expires_at: string;
}

/** A run's output as a result shows it: counts first, then the lines. */
export interface OutputFields {
  /** The line (1-based) the shown output starts from: 1, or after what an earlier result of the
   * same run showed (wait_for_command). */
  output_from_line: number;
  /** Lines of output in all, so far. */
  output_total_lines: number;
  /** UTF-8 bytes of them, a newline each. */
  output_total_bytes: number;
  /** Lines from output_from_line on are not all in `output`. */
  output_truncated: boolean;
  /** How many of them are not in `output` (output_head lists the first of them). */
  output_truncated_lines: number;
  /** UTF-8 bytes of those, a newline each. */
  output_truncated_bytes: number;
  /** The lines left out between output_head and output. */
  output_omitted: { after_line: number; lines: number; bytes: number } | null;
  /** Shown lines cut inside for length (each says how many bytes it lost). */
  output_cut_lines: number;
  /** Lines that are not text (a binary's bytes), shown as one marker for each run of them. */
  output_not_text_lines: number;
  /** Where to read what was not shown, while it is kept. */
  output_more: OutputMore | null;
  /** What the output was read from: the pane's byte stream, or its screen and scrollback. */
  output_source: "stream" | "screen";
  /** tmux's history dropped output before it could be read. */
  lines_missed: boolean;
  /** The pane was respawned or its history cleared: output may be incomplete. */
  anchor_lost: boolean;
  /** The command switched to the alternate screen (a full-screen program); what it drew there
   * is not in output. */
  alternate_screen: boolean;
  /** The command wrote bytes that are not UTF-8; they read as U+FFFD in output. */
  invalid_utf8: boolean;
  /** The first lines, when lines between them and `output` were left out. */
  output_head: string[];
  /** The command's own output lines: the last ones, or all of them. */
  output: string[];
}

/** The outcome, in the contract's wire names: how the run went first, then its output. */
export interface RunResult extends OutputFields {
  /** The pane that received the command. */
  pane_id: string;
  /**
   * The shell that ran it (bash, zsh, fish, nu...), whose language the command is in; null when
   * not known (no shell was looked at, or the run was collected later).
   */
  shell: string | null;
  /** Names this run for wait_for_command and read_command_output. */
  run_id: string;
  /** The shell's `$?`; null when it timed out or was not started. */
  exit_status: number | null;
  /** The wait hit effective_timeout: the command may still be running. */
  timed_out: boolean;
  /**
   * Present (true) when the call ended because the command waits for terminal input, as the
   * kernel tells it: it is still running; answer with send_keys, then wait_for_command collects it.
   */
  waiting_for_input?: true;
  /** With waiting_for_input: the row under the cursor (the question it asks). */
  prompt?: string;
  /** With waiting_for_input: the command shows a full-screen program (an editor, a pager). */
  full_screen?: boolean;
  /** A remote host's link dropped during the call: the command may still be running. */
  transport_lost?: boolean;
  /**
   * Present (true) when a person's client pressed keys in the pane while the command ran: the
   * terminal echoed them, so they may show in output, and they wait at the shell's prompt.
   */
  person_keys?: true;
  /** The asciicast file its pane is recorded into (`--record-dir`); absent: not recorded. */
  recording?: string;
  /**
   * False: the command never started and never will (see not_started_reason). Null: unknown, the
   * line was typed and may still run (wait_for_command collects it).
   */
  started: boolean | null;
  /** Why the command was not started (started false), or why that is unknown (null). */
  not_started_reason: string | null;
  /** Why exit_status is null although the run ended (its shell was replaced, say). */
  no_status_reason: string | null;
  /** Seconds spent in the call. */
  elapsed_seconds: number;
  /** The timeout enforced, in seconds. */
  effective_timeout: number;
}

/** The fields of a {@linkcode RunResult}, in the order results carry them. */
export const RUN_RESULT_ORDER: ReadonlyArray<keyof RunResult> = [
  "pane_id",
  "shell",
  "run_id",
  "exit_status",
  "timed_out",
  "waiting_for_input",
  "prompt",
  "full_screen",
  "transport_lost",
  "person_keys",
  "recording",
  "started",
  "not_started_reason",
  "no_status_reason",
  "elapsed_seconds",
  "effective_timeout",
  "output_from_line",
  "output_total_lines",
  "output_total_bytes",
  "output_truncated",
  "output_truncated_lines",
  "output_truncated_bytes",
  "output_omitted",
  "output_cut_lines",
  "output_not_text_lines",
  "output_more",
  "output_source",
  "lines_missed",
  "anchor_lost",
  "alternate_screen",
  "invalid_utf8",
  "output_head",
  "output",
];

/**
 * Nothing of a run is left to collect or read once its result came: it ended (or never started)
 * and all its output was shown. Its run_id then names nothing.
 */
export function nothingLeft(
  result: Pick<
    RunResult,
    "timed_out" | "started" | "waiting_for_input" | "output_more" | "transport_lost"
  >,
): boolean {
  return result.timed_out === false && result.started !== null &&
    result.waiting_for_input !== true && result.output_more === null &&
    result.transport_lost !== true;
}

/** A result with its fields in {@linkcode RUN_RESULT_ORDER}: how the run went before its output. */
export function ordered(result: RunResult): RunResult {
  return Object.fromEntries(
    RUN_RESULT_ORDER.map((key) => [key, result[key]]),
  ) as unknown as RunResult;
}

/** The position and `#{pane_path}`, which shows the trailer's end marker once tmux parsed it. */
export const CURRENT_FIELDS = [...POSITION_FIELDS, "pane_path"] as const;

/** How output was read, besides its lines: what a reader of the lines cannot tell. */
export interface OutputFlags {
  /** Read from the byte stream (exact), or from the screen. */
  source: "stream" | "screen";
  /** tmux's scrollback dropped output before it was read. */
  linesMissed: boolean;
  /** The pane was respawned or its history cleared. */
  anchorLost: boolean;
  /** The command used the alternate screen. */
  alternateScreen: boolean;
  /** The command wrote bytes that are not UTF-8. */
  invalidUtf8: boolean;
}

/** Where to point for what a result did not show, given the first line it did not show. */
export type MoreFrom = (firstNotShown: number) => OutputMore | null;

/** Output fields from an excerpt of lines `fromLine` on (default 1), and how they were read. */
export function outputFields(
  excerpt: Excerpt,
  flags: OutputFlags,
  options: { fromLine?: number; more?: MoreFrom } = {},
): OutputFields {
  const from = options.fromLine ?? 1;
  const notShown = excerpt.headLines + (excerpt.omitted?.lines ?? 0);
  const firstNotShown = excerpt.omitted !== null
    ? from + excerpt.omitted.afterLine
    : excerpt.cutLines > 0
    ? from
    : null;
  return {
    output_from_line: from,
    output_total_lines: from - 1 + excerpt.totalLines,
    output_total_bytes: excerpt.totalBytes,
    output_truncated: notShown > 0,
    output_truncated_lines: notShown,
    output_truncated_bytes: excerpt.headBytes + (excerpt.omitted?.bytes ?? 0),
    output_omitted: excerpt.omitted === null ? null : {
      after_line: from - 1 + excerpt.omitted.afterLine,
      lines: excerpt.omitted.lines,
      bytes: excerpt.omitted.bytes,
    },
    output_cut_lines: excerpt.cutLines,
    output_not_text_lines: excerpt.notTextLines,
    output_more: firstNotShown === null ? null : options.more?.(firstNotShown) ?? null,
    output_source: flags.source,
    lines_missed: flags.linesMissed,
    anchor_lost: flags.anchorLost,
    alternate_screen: flags.alternateScreen,
    invalid_utf8: flags.invalidUtf8,
    output_head: excerpt.head,
    output: excerpt.tail,
  };
}

/** Output fields for a run with no output to show. */
export const NO_OUTPUT: OutputFields = outputFields(excerptOf([], DEFAULT_BUDGET), {
  source: "stream",
  linesMissed: false,
  anchorLost: false,
  alternateScreen: false,
  invalidUtf8: false,
});

/** A cursor position: rows of history above the screen plus the cursor on it. */
export interface Position {
  /** Rows of history above the screen. */
  history: number;
  /** The cursor's row on the screen. */
  y: number;
  /** The cursor's column. */
  x: number;
}

/** Where a line was typed, and the pane process it was typed into. */
export interface Anchor extends Position {
  /** The pane's process. */
  pid: number;
}

/** A pane's position now, and its `#{pane_path}` (our OSC 7 markers show there). */
export interface Current extends PanePosition {
  /** The pane's `#{pane_path}`. */
  path: string;
}

/** A {@linkcode Current} from a record of {@linkcode CURRENT_FIELDS}. */
export function parseCurrent(record: Record<(typeof CURRENT_FIELDS)[number], string>): Current {
  return { ...parsePosition(record), path: record.pane_path };
}

/** Reads a pane's {@linkcode Current} position. */
export async function currentPosition(socket: TmuxSocket, paneId: string): Promise<Current> {
  return parseCurrent(await queryPane(socket, paneId, CURRENT_FIELDS));
}
