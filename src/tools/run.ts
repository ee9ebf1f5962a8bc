/**
 * The `run_command` tool (contract: docs/run_command.md), and its opt-in camelCase alias.
 *
 * @module
 */

import { z } from "../deps.ts";
import { resolvePane, type RunResult, TmuxError, type TmuxSocket } from "../tmux/mod.ts";
import { clampTimeout, type ToolContext } from "./context.ts";
import { type AnyToolSpec, defineTool, type Extra, progressNotifier } from "./define.ts";
import { maxLinesSchema, paneSpecShape, socketNameSchema, timeoutSchema } from "./schemas.ts";

const input = {
  command: z.string().min(1, { message: "command must not be empty" }).describe(
    "shell command, run in a subshell of the pane's shell",
  ),
  ...paneSpecShape,
  timeout: timeoutSchema,
  max_lines: maxLinesSchema,
  suppress_history: z.boolean().nullable().optional().meta({ default: true }).describe(
    "prefix a space to keep the line out of shell history (default true, false when the " +
      "server runs with --keep-history); multi-line commands need false",
  ),
};

const output = {
  pane_id: z.string().describe("the pane that received the command"),
  run_id: z.string().describe(
    "names this run: when it timed out, wait_for_command collects its result later",
  ),
  exit_status: z.number().int().nullable().describe(
    "the shell's $? for the command; null when it timed out or was not started",
  ),
  timed_out: z.boolean().describe(
    "the wait hit effective_timeout: the command MAY STILL BE RUNNING; do not run it again",
  ),
  started: z.boolean().describe(
    "false: the command never started (see not_started_reason): not typed, or typed but not " +
      "run by the shell (a continuation prompt took it)",
  ),
  not_started_reason: z.string().nullable().describe("why it was not started, when it was not"),
  no_status_reason: z.string().nullable().describe(
    "why exit_status is null although the run ended (its shell was replaced or killed, say)",
  ),
  elapsed_seconds: z.number().describe("time spent in the call"),
  effective_timeout: z.number().describe("the timeout enforced, after the server's ceiling"),
  output: z.array(z.string()).describe("the command's own output lines, tail kept"),
  output_truncated: z.boolean().describe("lines were dropped from the head to honour max_lines"),
  output_truncated_lines: z.number().int().describe("how many lines were dropped"),
  output_truncated_bytes: z.number().int().describe(
    "UTF-8 bytes of the dropped lines, a newline each",
  ),
  lines_missed: z.boolean().describe(
    "tmux's scrollback (history-limit) dropped output before it could be read",
  ),
  anchor_lost: z.boolean().describe(
    "the pane was respawned or its history cleared: output may be incomplete",
  ),
  alternate_screen: z.boolean().describe(
    "the command used the alternate screen (a full-screen program): what it drew there is " +
      "not in output",
  ),
  invalid_utf8: z.boolean().describe(
    "the command wrote bytes that are not UTF-8; they read as U+FFFD in output",
  ),
};

const TEXT_TAIL_LINES = 20;
/** A progress notification carries at most this much of the new output. */
const PROGRESS_LINES = 20;
const PROGRESS_CHARS = 2000;

/** The short text block for clients that ignore structuredContent. */
export function renderRunResult(result: RunResult): string {
  const head = !result.started
    ? `not started: ${result.not_started_reason}`
    : result.timed_out
    ? `timed out after ${result.effective_timeout}s (the command may still be running: ` +
      `wait_for_command run_id ${result.run_id} collects it)`
    : `exit ${result.exit_status}`;
  const notes = [
    `${result.output.length} lines`,
    result.output_truncated ? `${result.output_truncated_lines} earlier lines dropped` : "",
    result.lines_missed ? "some output had already left tmux's history" : "",
    result.anchor_lost ? "the screen was reset, output may be incomplete" : "",
  ].filter((n) => n !== "");
  const tail = result.output.slice(-TEXT_TAIL_LINES);
  const skipped = result.output.length - tail.length;
  return [
    `${head} in ${result.pane_id} (${notes.join("; ")})`,
    ...(skipped > 0 ? [`... ${skipped} more lines in structuredContent.output`] : []),
    ...tail,
  ].join("\n");
}

/** One run request as a tool got it, in either generation's wire names. */
interface ToolRunRequest {
  command: string;
  socket: TmuxSocket;
  /** The pane, resolved. */
  paneId: string;
  timeout: number;
  maxLines: number | null;
  /** null: the server's default. */
  suppressHistory: boolean | null;
}

/** Checks a run request and runs it, with progress when asked for. */
async function runFromTool(
  { context, extra }: { context: ToolContext; extra: Extra },
  request: ToolRunRequest,
): Promise<RunResult> {
  const suppressHistory = request.suppressHistory ?? context.config.suppressHistory;
  if (request.command.includes("\0")) {
    throw new TmuxError("invalid_argument", "command must not contain NUL characters");
  }
  if (suppressHistory && /[\r\n]/.test(request.command)) {
    throw new TmuxError(
      "invalid_argument",
      "multi-line command refused while suppress_history is true (a space prefix only " +
        "keeps the first line out of history); pass suppress_history: false to run it",
    );
  }
  const timeout = clampTimeout(context, request.timeout);
  const report = progressNotifier(extra, timeout);
  return await context.tmux.runCommand({
    socket: request.socket,
    paneId: request.paneId,
    command: request.command,
    timeout,
    maxLines: request.maxLines,
    suppressHistory,
    signal: extra.signal,
    onProgress: report && (({ elapsed, lines }) => {
      const tail = lines.slice(-PROGRESS_LINES).join("\n");
      report(elapsed, tail.length > PROGRESS_CHARS ? tail.slice(-PROGRESS_CHARS) : tail);
    }),
  });
}

/** run_shell_command's output: the libtmux generation's camelCase shape. */
const shellOutput = {
  paneId: z.string().describe("the pane that received the command"),
  exitStatus: z.number().int().nullable().describe(
    "the shell's $? for the command; null when it timed out or was not started",
  ),
  timedOut: z.boolean().describe("the wait hit its timeout: the command MAY STILL BE RUNNING"),
  output: z.object({
    lines: z.array(z.string()).describe("the command's own output lines, tail kept"),
    truncated: z.boolean().describe("lines were dropped from the head to honour maxLines"),
    droppedLines: z.number().int().describe("how many lines were dropped"),
    droppedBytes: z.number().int().describe("UTF-8 bytes of the dropped lines"),
  }).describe("the command's output"),
  elapsedSeconds: z.number().describe("time spent in the call"),
  effectiveTimeoutSeconds: z.number().describe("the timeout enforced, after the ceiling"),
  started: z.boolean().describe("false: the command was never typed"),
  linesMissed: z.boolean().describe("tmux's scrollback dropped output before it was read"),
  anchorLost: z.boolean().describe("the pane was respawned or its history cleared"),
};

/** The run tools: run_command, wait_for_command, and the opt-in run_shell_command alias. */
export const RUN_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "run_command",
    target: "pane",
    tier: "mutating",
    title: "Run a shell command in a pane",
    description: "Runs one shell command in a tmux pane's shell, waits for it to finish (no " +
      "polling), and returns its exit status and its own output (tail kept under max_lines). " +
      "Use it for commands you author and want the result of. The command runs in a subshell: " +
      "cd and export do not persist to the next call (chain them: 'cd dir && make'). A timed-out " +
      "command MAY STILL BE RUNNING: do not retry it unless started is false. For output of " +
      "programs you did not start, use wait_for_text; to type into a running program or a " +
      "synchronized set of panes, use send_keys. With a progress token, new output lines " +
      "arrive as progress messages about once a second. Refuses panes in copy-mode, panes not " +
      "at an idle POSIX shell, and multi-line commands while suppress_history is true.",
    input,
    output,
    openWorld: true,
    destructive: true,
    async run(args, call) {
      return await runFromTool(call, {
        command: args.command,
        socket: call.socket,
        paneId: call.target,
        timeout: args.timeout,
        maxLines: args.max_lines ?? null,
        suppressHistory: args.suppress_history ?? null,
      });
    },
    text: renderRunResult,
    failed: (result) => !result.started,
  }),
  defineTool({
    name: "wait_for_command",
    target: "none",
    tier: "mutating",
    title: "Wait again for a command that timed out",
    description: "Waits again for a run_command that timed out (by the run_id it returned) and, " +
      "once the command has ended, returns its real exit status and output in run_command's " +
      "shape, then forgets the run. Until then it returns timed_out: true with the output so " +
      "far; call it again. Works after the server restarted. Runs not collected expire after " +
      "an hour.",
    input: {
      run_id: z.string().max(64).describe("the run_id of a run_command result that timed out"),
      timeout: timeoutSchema,
      max_lines: maxLinesSchema,
      socket_name: socketNameSchema,
    },
    output,
    async run(args, { socket, context, extra }) {
      return await context.tmux.waitForRun({
        socket,
        runId: args.run_id,
        timeout: clampTimeout(context, args.timeout),
        maxLines: args.max_lines ?? null,
        signal: extra.signal,
      });
    },
    text: renderRunResult,
  }),
  defineTool({
    name: "run_shell_command",
    // Its pane is named by paneId, not by the fields the declared targets read.
    target: "none",
    tier: "mutating",
    optIn: true,
    title: "Run a shell command in a pane (camelCase)",
    description: "run_command for clients written for the libtmux generation's contract, with " +
      "camelCase names; the same machinery and guarantees. A timed-out command MAY STILL BE " +
      "RUNNING: do not retry it unless started is false. Offered only when asked for " +
      "(--with-tools run_shell_command).",
    input: {
      command: input.command,
      paneId: z.string().nullable().optional().describe(
        "pane id like %3; default: the active pane",
      ),
      timeoutSeconds: timeoutSchema,
      maxLines: maxLinesSchema,
      suppressHistory: input.suppress_history,
    },
    output: shellOutput,
    openWorld: true,
    destructive: true,
    async run(args, call) {
      const result = await runFromTool(call, {
        command: args.command,
        socket: call.socket,
        paneId: await resolvePane(call.socket, { pane_id: args.paneId }),
        timeout: args.timeoutSeconds,
        maxLines: args.maxLines ?? null,
        suppressHistory: args.suppressHistory ?? null,
      });
      return {
        paneId: result.pane_id,
        exitStatus: result.exit_status,
        timedOut: result.timed_out,
        output: {
          lines: result.output,
          truncated: result.output_truncated,
          droppedLines: result.output_truncated_lines,
          droppedBytes: result.output_truncated_bytes,
        },
        elapsedSeconds: result.elapsed_seconds,
        effectiveTimeoutSeconds: result.effective_timeout,
        started: result.started,
        linesMissed: result.lines_missed,
        anchorLost: result.anchor_lost,
      };
    },
    failed: (result) => !result.started,
  }),
];
