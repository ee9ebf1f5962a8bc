/**
 * How the run tools show a run: its result shaped for the wire (the reading tool named, the
 * host first) and as text (a summary line first, then the lines), and a page of kept output.
 *
 * @module
 */

import {
  hostName,
  ordered,
  type OutputMore,
  paneLabel,
  type RunPage,
  type RunResult,
  type TmuxSocket,
} from "../../tmux/mod.ts";
import { count, lines, size, withGap } from "../define/mod.ts";

/** The tool that reads what a result left out. */
export const READ_TOOL = "read_command_output";

/** A run result as the tools return it: the tool that reads what it left out named. */
export type ToolRunResult = Omit<RunResult, "output_more"> & {
  host?: string;
  output_more: ({ tool: string } & OutputMore) | null;
};

/**
 * A run result as the tools return it: its host first when remote, its fields in order, the
 * reading tool named.
 */
export function shapeRunResult(result: RunResult, socket: TmuxSocket): ToolRunResult {
  const more = result.output_more;
  const host = hostName(socket);
  return {
    ...(host === null ? {} : { host }),
    ...ordered(result),
    output_more: more === null ? null : { tool: READ_TOOL, ...more },
  };
}

/** How to read the rest, as the text says it. */
function readHint(result: ToolRunResult, fromLine: number): string {
  const more = result.output_more;
  return more === null ? "" : `: ${READ_TOOL} run_id=${more.run_id} from_line=${fromLine}`;
}

/** The line ranges a result shows, as the text says them. */
function shown(result: ToolRunResult): string {
  const from = result.output_from_line;
  const total = result.output_total_lines;
  const range = (a: number, b: number) => a === b ? count(a) : `${count(a)}-${count(b)}`;
  // From the counts: an entry of output may stand for a run of lines that are not text.
  const tailFrom = from + result.output_truncated_lines;
  const headLines = result.output_truncated_lines - (result.output_omitted?.lines ?? 0);
  if (headLines === 0) return `shown: lines ${range(tailFrom, total)}`;
  return `shown: lines ${range(from, from + headLines - 1)} and ${range(tailFrom, total)}`;
}

/** The summary line of a run result. */
function summary(result: ToolRunResult): string {
  const status = result.started === false
    ? `not started: ${result.not_started_reason}`
    : result.started === null
    ? `timed out after ${result.effective_timeout}s, start ${result.not_started_reason} ` +
      `(run_id=${result.run_id})`
    : result.waiting_for_input
    ? `waiting for input${result.full_screen ? " (full screen)" : ""} at ` +
      `${JSON.stringify(result.prompt ?? "")}; the command is STILL RUNNING: answer with ` +
      `send_keys, then wait_for_command run_id=${result.run_id} collects it` +
      (/^(:|\(END\))$/.test(result.prompt ?? "")
        ? "; a pager's ':' or '(END)': send_keys ['q'] quits it"
        : "")
    : result.timed_out
    ? `timed out after ${result.effective_timeout}s; the command MAY STILL BE RUNNING ` +
      `(wait_for_command run_id=${result.run_id} collects it); if it waits for keys (a ` +
      "pager's ':' or '(END)' wants ['q']), send_keys them"
    : result.transport_lost
    ? `link lost: ${result.no_status_reason}`
    : result.exit_status === null
    ? `ended without an exit status (${result.no_status_reason})`
    : `exit ${result.exit_status}`;
  const from = result.output_from_line;
  const total = result.output_total_lines;
  const notes: string[] = [];
  if (total === 0) {
    notes.push("no output");
  } else if (from > total) {
    notes.push(`no new output (${lines(total)} in all)`);
  } else {
    notes.push(
      `${lines(total)} (${size(result.output_total_bytes)})${result.timed_out ? " so far" : ""}`,
    );
    if (from > 1) notes.push(`new since the last call: lines ${count(from)}-${count(total)}`);
    if (result.output_truncated) {
      notes.push(shown(result));
      const more = result.output_more;
      notes.push(
        more === null
          ? "the rest was not kept"
          : `the rest: ${READ_TOOL} run_id=${more.run_id} from_line=${more.from_line} ` +
            `(kept until ${more.expires_at.slice(0, 16)}Z)`,
      );
    }
  }
  if (result.output_cut_lines > 0) {
    notes.push(`${lines(result.output_cut_lines)} cut inside for length`);
  }
  if (result.output_source === "screen") notes.push("read from the screen");
  if (result.person_keys) {
    notes.push("a person typed in the pane meanwhile: their keys may show in the output");
  }
  if (result.recording) notes.push(`recorded in ${result.recording}`);
  if (result.lines_missed) notes.push("some output had already left tmux's history");
  if (result.anchor_lost) notes.push("the screen was reset, output may be incomplete");
  if (result.alternate_screen) notes.push("a full-screen program ran: what it drew is not shown");
  if (result.output_not_text_lines > 0) {
    notes.push(
      `${lines(result.output_not_text_lines)} not text (a binary's bytes), shown as markers`,
    );
  } else if (result.invalid_utf8) notes.push("bytes that are not UTF-8 show as U+FFFD");
  const pane = paneLabel(result.host, result.pane_id);
  const where = result.shell === null ? pane : `${pane} (${result.shell})`;
  return `${status} in ${where} after ${result.elapsed_seconds}s; ${notes.join("; ")}`;
}

/**
 * The text block of a run result: the summary line, then the same lines structuredContent
 * carries, with one marker line where lines were left out.
 */
export function renderRunResult(result: ToolRunResult): string {
  const omitted = result.output_omitted;
  const gap = omitted === null ? null : {
    lines: omitted.lines,
    bytes: omitted.bytes,
    hint: readHint(result, omitted.after_line + 1),
  };
  const before = result.output_head.length === 0 && omitted !== null && omitted.after_line < 1
    ? []
    : result.output_head;
  return [summary(result), ...withGap(before, result.output, gap)].join("\n");
}

/** The text of a page of output. */
export function renderPage(page: RunPage): string {
  const last = page.next_line === null
    ? page.from_line + page.lines.length - 1
    : page.next_line - 1;
  const head = [
    `run ${page.run_id}: ${lines(page.total_lines)} (${size(page.total_bytes)})` +
    (page.ended ? "" : " so far, the run goes on"),
    page.lines.length === 0 ? "no lines here" : `lines ${count(page.from_line)}-${count(last)}`,
    page.next_line === null ? "the end so far" : `next: from_line=${page.next_line}`,
    ...(page.missing === null
      ? []
      : [`lines ${count(page.missing.from_line)}-${count(page.missing.to_line)} were not kept`]),
    `kept until ${page.expires_at.slice(0, 16)}Z`,
  ];
  return [head.join("; "), ...page.lines].join("\n");
}
