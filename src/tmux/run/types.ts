/**
 * What a run request and its result are, and the positions the run path works with.
 *
 * @module
 */

import type { TmuxSocket } from "../transport/socket.ts";
import { type PanePosition, parsePosition, POSITION_FIELDS } from "../position.ts";
import { queryPane } from "../target.ts";

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
  /** Keep only the last N output lines; null: all. */
  maxLines: number | null;
  /** Prefix a space to keep the line out of shell history. */
  suppressHistory: boolean;
  /** Cancels the call (a cancelled call ends like a timed-out one). */
  signal?: AbortSignal;
  /** Called about once a second while waiting, with the output lines that are new since. */
  onProgress?: (update: { elapsed: number; lines: string[] }) => void;
}

/** The outcome, in the contract's wire names. */
export interface RunResult {
  /** The pane that received the command. */
  pane_id: string;
  /** Names this run for wait_for_command. */
  run_id: string;
  /** The shell's `$?`; null when it timed out or was not started. */
  exit_status: number | null;
  /** The wait hit effective_timeout: the command may still be running. */
  timed_out: boolean;
  /** False: the command never started (see not_started_reason). */
  started: boolean;
  /** Why the command was not started (when started is false). */
  not_started_reason: string | null;
  /** Why exit_status is null although the run ended (its shell was replaced, say). */
  no_status_reason: string | null;
  /** Seconds spent in the call. */
  elapsed_seconds: number;
  /** The timeout enforced, in seconds. */
  effective_timeout: number;
  /** The command's own output lines, tail kept. */
  output: string[];
  /** Lines were dropped from the head for maxLines. */
  output_truncated: boolean;
  /** How many lines were dropped. */
  output_truncated_lines: number;
  /** UTF-8 bytes of the dropped lines, a newline each. */
  output_truncated_bytes: number;
  /** tmux's history dropped output before it could be read. */
  lines_missed: boolean;
  /** The pane was respawned or its history cleared: output may be incomplete. */
  anchor_lost: boolean;
  /** The command switched to the alternate screen (a full-screen program); what it drew there
   * is not in output. */
  alternate_screen: boolean;
  /** The command wrote bytes that are not UTF-8; they read as U+FFFD in output. */
  invalid_utf8: boolean;
}

/** The position and `#{pane_path}`, which shows the trailer's end marker once tmux parsed it. */
export const CURRENT_FIELDS = [...POSITION_FIELDS, "pane_path"] as const;

/** The output fields of a {@linkcode RunResult}. */
export type OutputFields = Pick<
  RunResult,
  | "output"
  | "output_truncated"
  | "output_truncated_lines"
  | "output_truncated_bytes"
  | "lines_missed"
  | "anchor_lost"
  | "alternate_screen"
  | "invalid_utf8"
>;

/** How output was read, besides its lines: what a reader of the lines cannot tell. */
export interface OutputFlags {
  linesMissed: boolean;
  anchorLost: boolean;
  alternateScreen: boolean;
  invalidUtf8: boolean;
}

/** Shapes kept lines, what was dropped to keep them, and how they were read into output fields. */
export function outputFields(
  kept: { lines: string[]; droppedLines: number; droppedBytes: number },
  flags: OutputFlags,
): OutputFields {
  return {
    output: kept.lines,
    output_truncated: kept.droppedLines > 0,
    output_truncated_lines: kept.droppedLines,
    output_truncated_bytes: kept.droppedBytes,
    lines_missed: flags.linesMissed,
    anchor_lost: flags.anchorLost,
    alternate_screen: flags.alternateScreen,
    invalid_utf8: flags.invalidUtf8,
  };
}

/** Output fields for a run with no output to show. */
export const NO_OUTPUT: OutputFields = outputFields(
  { lines: [], droppedLines: 0, droppedBytes: 0 },
  { linesMissed: false, anchorLost: false, alternateScreen: false, invalidUtf8: false },
);

/** A cursor position: rows of history above the screen plus the cursor on it. */
export interface Position {
  history: number;
  y: number;
  x: number;
}

/** Where a line was typed, and the pane process it was typed into. */
export interface Anchor extends Position {
  pid: number;
}

/** A pane's position now, and its `#{pane_path}` (our OSC 7 markers show there). */
export interface Current extends PanePosition {
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
