/**
 * Waiting on a pane, as wait_for_text and send_keys' `wait` offer it: the ends a caller may ask
 * for, the result's fields, and its text.
 *
 * @module
 */

import {
  type Infer,
  z,
  type ZodArray,
  type ZodBoolean,
  type ZodDefault,
  type ZodNumber,
  type ZodObject,
  type ZodOptional,
  type ZodString,
} from "../../deps.ts";
import {
  type AgentMark,
  cutLine,
  TmuxError,
  type TmuxSocket,
  WAIT_OUTCOMES,
  waitForText,
} from "../../tmux/mod.ts";
import {
  agentReportSchema,
  budgetOf,
  clampTimeout,
  type Extra,
  paneTextOf,
  paneTextOutput,
  progressNotifier,
  renderPaneText,
  timeoutSchema,
  type ToolContext,
  withoutDefaults,
} from "../define/mod.ts";

/** Patterns a wait ends at: up to 20, each up to 1000 characters. */
export const patternsSchema: ZodArray<ZodString> = z.array(z.string().min(1).max(1000)).max(20);

/** The ends wait_for_text may be asked for (at least one). */
export const waitUntilShape = {
  patterns: patternsSchema.default([]).describe("end when one shows"),
  prompt: z.boolean().default(false).describe("end when the program waits for input"),
  quiet_seconds: z.number().min(0.1).max(600).optional().describe(
    "end after this long quiet",
  ),
};

/** send_keys' `wait`: what to wait for after typing, in the same call. */
export const sendWaitSchema: ZodOptional<
  ZodObject<{
    patterns: ZodDefault<ZodArray<ZodString>>;
    prompt: ZodDefault<ZodBoolean>;
    quiet_seconds: ZodOptional<ZodNumber>;
    timeout: ZodDefault<ZodNumber>;
  }>
> = z.object({
  patterns: patternsSchema.default([]).describe("end when one shows"),
  prompt: z.boolean().default(true).describe("end when the program waits for input"),
  quiet_seconds: z.number().min(0.1).max(600).optional().describe(
    "end after this long quiet",
  ),
  timeout: timeoutSchema,
}).optional().describe(
  "answer in this call: at a prompt, pattern, quiet_seconds, exit or timeout",
);

/**
 * Each field of a wait's result left out when it holds this (most answers match no pattern, miss
 * no line and show every line: spelled out, that was most of a short answer's bytes).
 */
const WAIT_DEFAULTS = {
  pattern: null,
  line: null,
  prompt: null,
  changed_rows: null,
  agent: null,
  effective_timeout: 30,
  lines_missed: false,
  truncated_lines: 0,
  truncated_bytes: 0,
  omitted: null,
  cut_lines: 0,
  head_lines: [],
};

/** The fields of a wait's result; those in WAIT_DEFAULTS are absent when they hold it. */
export const waitOutput = {
  outcome: z.enum(WAIT_OUTCOMES).describe("how the wait ended"),
  pattern: z.string().nullable().optional().describe(
    "the pattern that matched or stopped it (absent: none)",
  ),
  line: z.string().nullable().optional().describe("the line it matched (absent: none)"),
  prompt: z.string().nullable().optional().describe(
    "the row under the cursor where the program waits for input again (absent: it does not)",
  ),
  changed_rows: z.array(z.object({
    row: z.number().int().describe("from 0, the screen's top"),
    text: z.string().describe("what it shows now"),
  })).nullable().optional().describe(
    "a full-screen program's screen: the rows that changed (absent: not one)",
  ),
  agent: agentReportSchema.optional().describe(
    "what the agent reported that ended it (absent: not an agent's report)",
  ),
  elapsed_seconds: z.number().describe("time spent waiting"),
  effective_timeout: z.number().optional().describe(
    "the timeout enforced, after the server's ceiling (absent: 30)",
  ),
  lines_missed: z.boolean().optional().describe(
    "tmux's history dropped lines before they were read (absent: false)",
  ),
  cursor: z.string().describe("for capture_since or the next wait: what follows the lines"),
  ...paneTextOutput,
  truncated_lines: paneTextOutput.truncated_lines.optional(),
  truncated_bytes: paneTextOutput.truncated_bytes.optional(),
  omitted: paneTextOutput.omitted.optional(),
  cut_lines: paneTextOutput.cut_lines.optional(),
  head_lines: paneTextOutput.head_lines.optional(),
};

/** A wait's result, as {@linkcode waitOutput} says. */
export type WaitOutput = Infer<ZodObject<typeof waitOutput>>;

/** What a wait is asked for. */
export interface WaitArgs {
  /** Any one ends the wait as matched. */
  patterns: string[];
  /** Any one ends the wait as stopped. */
  stop_patterns?: string[];
  /** The patterns are RE2 regular expressions. */
  regex?: boolean;
  /** Match case exactly (default true). */
  case_sensitive?: boolean;
  /** End at a known prompt. */
  prompt: boolean;
  /** End once the pane wrote nothing for this long. */
  quiet_seconds?: number;
  /** Seconds, before the server's ceiling. */
  timeout: number;
  /** The result shows only the last N lines. */
  max_lines?: number | null;
  /** The result's pane text, at most. */
  max_output_bytes?: number;
}

/** The call a wait runs in. */
export interface WaitCall {
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane. */
  target: string;
  /** Server settings and the tmux client. */
  context: ToolContext;
  /** The MCP request (cancellation, progress). */
  extra: Extra;
  /** Count output since this cursor (send_keys' own); null: since now. */
  cursor: string | null;
  /** The screen's rows as the input was typed (send_keys'). */
  screen?: string[];
  /** The pane's foreground program as the input was typed (send_keys'). */
  typedTo?: string;
  /** send_keys settled the pane before it typed, in this call. */
  settled?: boolean;
  /** Where the kernel cannot tell the program's turn, end after this much quiet (seconds). */
  fallbackQuietSeconds?: number;
  /** Lines the answer begins with (written after an earlier answer stopped reading). */
  earlier?: string[];
  /** End when the pane's agent reports waiting or done with another mark than this one. */
  agentBefore?: AgentMark | null;
}

/** Waits on a pane as asked; refuses a wait with no end but the timeout. */
export async function waitOnPane(args: WaitArgs, call: WaitCall): Promise<WaitOutput> {
  const { socket, target, context, extra } = call;
  const agent = call.agentBefore === undefined ? undefined : { before: call.agentBefore };
  if (
    args.patterns.length === 0 && !args.prompt && args.quiet_seconds === undefined &&
    agent === undefined
  ) {
    throw new TmuxError("invalid_argument", "give patterns, prompt: true or quiet_seconds");
  }
  const timeout = clampTimeout(context, args.timeout);
  const report = progressNotifier(extra, timeout);
  if (!call.settled) await context.tmux.settled(socket, target);
  const found = await waitForText(socket, target, {
    patterns: args.patterns,
    stopPatterns: args.stop_patterns ?? [],
    regex: args.regex ?? false,
    caseSensitive: args.case_sensitive ?? true,
    prompt: args.prompt,
    agent,
    quietMs: args.quiet_seconds === undefined ? null : args.quiet_seconds * 1000,
    fallbackQuietMs: call.fallbackQuietSeconds === undefined
      ? null
      : call.fallbackQuietSeconds * 1000,
    screenBefore: call.screen,
    typedTo: call.typedTo,
    earlier: call.earlier,
    timeout,
    cursor: call.cursor,
    echoFrom: call.cursor === null ? context.tmux.typedCursor(socket, target) : null,
    budget: budgetOf(context, args),
    intervalMs: 250,
    signal: extra.signal,
    onProgress: report && ((elapsed) => report(elapsed)),
  });
  // An exchange not whole (the program may write on): the next answer in the pane begins here.
  const whole = found.outcome === "prompt" || found.outcome === "exited" ||
    found.outcome === "agent";
  context.tmux.answered(socket, target, whole ? null : found.cursor);
  const { output, ...rest } = found;
  const line = rest.line === null ? null : cutLine(rest.line, 8192).line;
  return withoutDefaults({ ...rest, line, ...paneTextOf(output) }, WAIT_DEFAULTS) as WaitOutput;
}

/** The text of a wait's result. */
export function renderWait(lean: WaitOutput & { pane_id: string }): string {
  const r = { ...WAIT_DEFAULTS, ...lean };
  const agent = r.agent
    ? ` (${r.agent.state}${r.agent.reason ? `: ${r.agent.reason}` : ""}` +
      `${r.agent.message ? `, "${r.agent.message}"` : ""})`
    : "";
  const how = r.pattern !== null ? ` (${r.pattern})` : r.prompt !== null ? ` (${r.prompt})` : agent;
  const changed = r.changed_rows === null ? "" : `\nrows changed: ${r.changed_rows.length}\n` +
    r.changed_rows.map((row) => `${row.row}: ${row.text}`).join("\n");
  return renderPaneText(
    `${r.pane_id}: ${r.outcome}${how} after ${r.elapsed_seconds} s` +
      `${r.lines_missed ? ", lines missed" : ""}; new output`,
    r,
  ) + changed + goOn(r);
}

/**
 * What the text says of going on: nothing once the program waits for input again or exited (the
 * exchange is whole); else the cursor, and for a timeout that the program is still at it.
 */
function goOn(r: { outcome: string; cursor: string; pane_id: string }): string {
  if (r.outcome === "prompt" || r.outcome === "exited" || r.outcome === "agent") return "";
  if (r.outcome !== "timeout") return `\ncursor: ${r.cursor}`;
  return `\nthe program is still at it: wait_for_text {pane_id: ${r.pane_id}, cursor: ` +
    `${r.cursor}, prompt: true} collects the rest; send_keys ['C-c'] interrupts it`;
}
