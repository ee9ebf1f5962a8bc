/**
 * The `run_command` tool (contract: docs/run_command.md), `wait_for_command`,
 * `read_command_output`, and the opt-in camelCase alias of run_command.
 *
 * @module
 */

import { z } from "../../deps.ts";
import { type PersonPolicy, TmuxError, type TmuxSocket } from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  budgetOf,
  clampTimeout,
  defineTool,
  type Extra,
  ifPersonTypingSchema,
  lastLinesSchema,
  leanRunResult,
  maxLinesSchema,
  maxOutputBytesSchema,
  paneSpecShape,
  progressNotifier,
  RUN_DEFAULTS,
  socketNameSchema,
  timeoutSchema,
  type ToolContext,
} from "../define/mod.ts";
import { READ_OUTPUT_TOOL } from "./read_output.ts";
import { READ_TOOL, renderRunResult, shapeRunResult, type ToolRunResult } from "./run_render.ts";

/** run_command's input fields (run_shell_command takes some of them under other names). */
export const runInput = {
  command: z.string().min(1, { message: "command must not be empty" }).describe(
    "in the pane's shell's language",
  ),
  ...paneSpecShape,
  timeout: timeoutSchema,
  max_lines: maxLinesSchema,
  max_output_bytes: maxOutputBytesSchema,
  suppress_history: z.boolean().nullable().optional().meta({ default: true }).describe(
    "keep it out of shell history",
  ),
  pager: z.boolean().default(false).describe("let programs page"),
  if_person_typing: ifPersonTypingSchema,
};

const outputMore = z.object({
  tool: z.string().describe(`the tool that reads it: ${READ_TOOL}`),
  run_id: z.string().describe("pass it to that tool"),
  from_line: z.number().int().describe("the first line not shown"),
  expires_at: z.string().describe("until when the output is kept (ISO 8601)"),
}).nullable().describe(
  `where to read what was not shown (${READ_TOOL}); null: nothing was left out, or it was not kept`,
);

/** The result fields, in the order results carry them: how the run went, then its output. */
/** Result fields only a server with remote hosts declared lists. */
const remoteOutput = {
  host: z.string().optional().describe("the remote host it ran on (absent: this machine)"),
  transport_lost: z.boolean().optional().describe(
    "the link to the host dropped during the call: the command MAY STILL BE RUNNING; " +
      "wait_for_command collects it",
  ),
};

const output = {
  pane_id: z.string().describe("the pane that received the command"),
  person_keys: z.literal(true).optional().describe(
    "a person's client pressed keys in the pane while the command ran: the terminal echoed " +
      "them (they may show in output) and they wait at the shell's prompt",
  ),
  recording: z.string().optional().describe("the asciicast file its pane is recorded into"),
  shell: z.string().nullable().describe(
    "the shell that ran it (bash, fish, nu...): write commands in its language; null: not known",
  ),
  run_id: z.string().optional().describe(
    "names this run: wait_for_command collects it after a timeout, read_command_output reads " +
      "its output; absent: it is over and all its output is here",
  ),
  exit_status: z.number().int().nullable().describe(
    "the shell's $? for the command; null when it timed out, was not started, or ended " +
      "without a status (see no_status_reason)",
  ),
  timed_out: z.boolean().describe(
    "the wait hit effective_timeout: the command MAY STILL BE RUNNING; do not run it again",
  ),
  waiting_for_input: z.literal(true).optional().describe(
    "the command waits for terminal input (the kernel says so) and is STILL RUNNING: answer " +
      "with send_keys, then wait_for_command collects it",
  ),
  prompt: z.string().optional().describe("with waiting_for_input: the row under the cursor"),
  full_screen: z.boolean().optional().describe(
    "with waiting_for_input: a full-screen program (an editor, a pager) has the pane",
  ),
  started: z.boolean().nullable().describe(
    "false: the command never started and never will (see not_started_reason): not typed, or " +
      "typed, not run by the shell, and withdrawn. null: UNKNOWN, typed but not run yet and it " +
      "may still run: do not retry; wait_for_command collects it",
  ),
  not_started_reason: z.string().nullable().describe(
    "why it was not started (started false), or why that is unknown (started null)",
  ),
  no_status_reason: z.string().nullable().describe(
    "why exit_status is null although the run ended (its shell was replaced or killed, say)",
  ),
  elapsed_seconds: z.number().describe("time spent in the call"),
  effective_timeout: z.number().describe("the timeout enforced, after the server's ceiling"),
  output_from_line: z.number().int().describe(
    "the first line this result covers: 1, or for wait_for_command the first line no earlier " +
      "result of this run showed",
  ),
  output_total_lines: z.number().int().optional().describe(
    "lines of output in all, so far; absent: output holds every one, whole",
  ),
  output_total_bytes: z.number().int().optional().describe(
    "UTF-8 bytes of them, a newline each; absent: those of output",
  ),
  output_truncated: z.boolean().describe("not every line from output_from_line on is in output"),
  output_truncated_lines: z.number().int().describe(
    "how many are not in output (output_head lists the first of them)",
  ),
  output_truncated_bytes: z.number().int().describe(
    "UTF-8 bytes of those lines, a newline each",
  ),
  output_omitted: z.object({
    after_line: z.number().int().describe("the last line shown before the gap"),
    lines: z.number().int().describe("lines left out"),
    bytes: z.number().int().describe("their UTF-8 bytes"),
  }).nullable().describe("the lines left out between output_head and output"),
  output_cut_lines: z.number().int().describe(
    "shown lines cut inside for length, each marked '…[N bytes cut]…'",
  ),
  output_not_text_lines: z.number().int().describe(
    "lines that are not text (a binary's bytes), one entry '…[N lines not text, B bytes]…' " +
      "for each run of them",
  ),
  output_more: outputMore,
  output_source: z.enum(["stream", "screen"]).describe(
    "read from the pane's byte stream (exact), or from its screen and scrollback (up to " +
      "tmux's history-limit)",
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
  output_head: z.array(z.string()).describe(
    "the first lines, when lines between them and output were left out",
  ),
  output: z.array(z.string()).describe("the output lines: all of them, or the last ones"),
};

/** A progress notification carries at most this much of the new output. */
const PROGRESS_LINES = 20;
const PROGRESS_CHARS = 2000;

/** One run request as a tool got it, in either generation's wire names. */
export interface ToolRunRequest {
  /** The command. */
  command: string;
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane, resolved. */
  paneId: string;
  /** Seconds, before the ceiling. */
  timeout: number;
  /** Show only the last lines. */
  max_lines: number | null;
  /** The output budget asked for. */
  max_output_bytes: number | null;
  /** null: the server's default. */
  suppressHistory: boolean | null;
  /** Let programs start their pagers. */
  pager: boolean;
  /** When a person may be typing in the pane. */
  person: PersonPolicy;
}

/** Checks a run request and runs it, with progress when asked for. */
export async function runFromTool(
  { context, extra }: { context: ToolContext; extra: Extra },
  request: ToolRunRequest,
): Promise<ToolRunResult> {
  const suppressHistory = request.suppressHistory ?? context.config.suppressHistory;
  if (request.command.includes("\0")) {
    throw new TmuxError("invalid_argument", "command must not contain NUL characters");
  }
  const timeout = clampTimeout(context, request.timeout);
  return shapeRunResult(
    await context.tmux.runCommand({
      socket: request.socket,
      paneId: request.paneId,
      command: request.command,
      timeout,
      budget: budgetOf(context, request),
      suppressHistory,
      pagers: request.pager,
      person: request.person,
      signal: extra.signal,
      owner: context.owner,
      onProgress: outputProgress(extra, timeout),
    }),
    request.socket,
  );
}

/**
 * Progress notifications carrying the output's last new lines, for a request with a progress
 * token (undefined without one).
 */
function outputProgress(
  extra: Extra,
  timeout: number,
): ((update: { elapsed: number; lines: string[] }) => void) | undefined {
  const report = progressNotifier(extra, timeout);
  return report && (({ elapsed, lines }) => {
    const tail = lines.slice(-PROGRESS_LINES).join("\n");
    report(elapsed, tail.length > PROGRESS_CHARS ? tail.slice(-PROGRESS_CHARS) : tail);
  });
}

/** The run tools: run_command, wait_for_command and read_command_output. */
export const RUN_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "run_command",
    defaults: RUN_DEFAULTS,
    lean: leanRunResult,
    alwaysLoad: true,
    paneText: true,
    target: "pane",
    tier: "mutating",
    title: "Run a shell command in a pane",
    description: "Runs a shell command in a pane's shell and returns its exit status and " +
      "output. A subshell: cd and export do not persist. A timed-out command MAY STILL BE " +
      "RUNNING: collect it with wait_for_command; retry only if started is false (it never ran).",
    input: runInput,
    output,
    remoteOutput,
    openWorld: true,
    destructive: true,
    async run(args, call) {
      return await runFromTool(call, {
        command: args.command,
        socket: call.socket,
        paneId: call.target,
        timeout: args.timeout,
        max_lines: args.max_lines ?? null,
        max_output_bytes: args.max_output_bytes ?? null,
        suppressHistory: args.suppress_history ?? null,
        pager: args.pager,
        person: args.if_person_typing,
      });
    },
    text: renderRunResult,
    failed: (result) => result.started === false,
  }),
  defineTool({
    name: "wait_for_command",
    defaults: RUN_DEFAULTS,
    lean: leanRunResult,
    alwaysLoad: true,
    paneText: true,
    target: "none",
    tier: "mutating",
    title: "Wait again for a command that timed out",
    description: "Waits again for a timed-out run_command; returns it as run_command does, " +
      "with only new output. Works after a server restart.",
    input: {
      run_id: z.string().max(64).describe("from the timed-out result"),
      timeout: timeoutSchema,
      max_lines: lastLinesSchema,
      max_output_bytes: maxOutputBytesSchema,
      socket_name: socketNameSchema,
    },
    output,
    remoteOutput,
    async run(args, { socket, context, extra }) {
      return shapeRunResult(
        await context.tmux.waitForRun({
          socket,
          runId: args.run_id,
          timeout: clampTimeout(context, args.timeout),
          budget: budgetOf(context, args),
          signal: extra.signal,
          owner: context.owner,
          onProgress: outputProgress(extra, clampTimeout(context, args.timeout)),
        }),
        socket,
      );
    },
    text: renderRunResult,
  }),
  READ_OUTPUT_TOOL,
];
