/**
 * run_command_many: one command in many panes, one result per pane, identical outputs shown once.
 *
 * @module
 */

import { type Infer, z, type ZodObject } from "../../deps.ts";
import {
  MANY_MAX,
  paneLabel,
  type PaneOutcome,
  type PaneTarget,
  type RunResult,
  TmuxError,
  type TmuxSocket,
} from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  budgetOf,
  clampTimeout,
  defineTool,
  ifPersonTypingSchema,
  lines,
  maxLinesSchema,
  maxOutputBytesSchema,
  progressNotifier,
  socketNameSchema,
  socketOf,
  timeoutSchema,
  type ToolContext,
} from "../define/mod.ts";

/** How one pane's run went. */
const STATES = ["ok", "nonzero", "timed_out", "no_status", "not_started", "error"] as const;
type State = (typeof STATES)[number];

const input = {
  command: z.string().min(1, { message: "command must not be empty" }).describe(
    "shell command, the same for every pane",
  ),
  pane_ids: z.array(z.string().max(40)).min(1).max(MANY_MAX).nullable().optional().describe(
    "the panes (like %3, or web1:%3 on a declared host); and/or:",
  ),
  window_id: z.string().nullable().optional().describe("every pane of this window (like @2)"),
  session_id: z.string().nullable().optional().describe("every pane of this session (like $1)"),
  concurrency: z.number().int().min(1).max(64).default(16).describe("runs at once"),
  timeout: timeoutSchema.describe("seconds per pane; clamped to the server's ceiling"),
  deadline: z.number().positive().nullable().default(null).describe(
    "seconds for the whole call (default: the server's ceiling); later panes are not started",
  ),
  stop_on_failure: z.boolean().default(false).describe(
    "start no more panes once one fails",
  ),
  max_lines: maxLinesSchema.describe("per pane: only the last N lines"),
  max_output_bytes: maxOutputBytesSchema.describe("bytes shown for all panes together"),
  suppress_history: z.boolean().nullable().optional().describe(
    "keep the typed line out of shell history (default true)",
  ),
  if_person_typing: ifPersonTypingSchema,
  socket_name: socketNameSchema,
};

const output = {
  summary: z.object({
    panes: z.number().int(),
    ok: z.number().int().describe("exit status 0"),
    nonzero: z.number().int(),
    timed_out: z.number().int().describe("MAY STILL BE RUNNING: wait_for_command collects them"),
    no_status: z.number().int().describe("ended without a status (killed, say)"),
    not_started: z.number().int(),
    error: z.number().int().describe("refused (busy, gone, in a mode...)"),
    elapsed_seconds: z.number(),
  }).describe("counts by state"),
  results: z.array(z.object({
    host: z.string().optional().describe("the pane's remote host (absent: this machine)"),
    pane_id: z.string(),
    state: z.enum(STATES),
    exit_status: z.number().int().nullable(),
    run_id: z.string().nullable().describe(
      "wait_for_command collects a timed-out run; read_command_output reads its output",
    ),
    reason: z.string().nullable().describe("why not ok: not started, error, no status"),
    output_group: z.number().int().nullable().describe("its output: an index into groups"),
    output_total_lines: z.number().int(),
    output_truncated_lines: z.number().int().describe("lines not in its group's output"),
    lines_missed: z.boolean().describe(
      "tmux's history dropped some of its lines before they were read: output_total_lines " +
        "counts only those read",
    ),
    elapsed_seconds: z.number(),
  })).describe("one per pane, in the order given"),
  groups: z.array(z.object({
    panes: z.array(z.string()).describe("the panes whose output this is (host:%N when remote)"),
    output: z.array(z.string()).describe("their output: all of it, or its first and last lines"),
  })).describe("each distinct output once"),
};

type Results = Infer<ZodObject<typeof output>>;
type PaneResult = Results["results"][number];

/** How one pane's part ended, in a word or two. */
function outcomeWord(outcome: PaneOutcome): string {
  switch (outcome.kind) {
    case "ran":
      return stateOf(outcome.result).replace("_", " ");
    case "error":
      return outcome.code;
    case "skipped":
      return "not started";
  }
}

/** The state of a run that ran. */
function stateOf(result: RunResult): State {
  if (result.started === false) return "not_started";
  if (result.timed_out || result.waiting_for_input) return "timed_out";
  if (result.exit_status === null) return "no_status";
  return result.exit_status === 0 ? "ok" : "nonzero";
}

/**
 * The lines a run's result shows, head and tail, with a marker where lines were left out that
 * names this run (panes that wrote the same share it: any of their runs reads the rest).
 */
function shownLines(result: RunResult): string[] {
  const omitted = result.output_omitted;
  if (omitted === null) return [...result.output_head, ...result.output];
  const gap = `... [${lines(omitted.lines)} left out: read_command_output run_id=` +
    `${result.run_id} from_line=${omitted.after_line + 1}] ...`;
  return [...result.output_head, gap, ...result.output];
}

/** What makes two runs' shown output the same, whatever their run ids. */
function outputKey(result: RunResult): string {
  const omitted = result.output_omitted;
  return JSON.stringify([result.output_head, omitted?.lines, omitted?.after_line, result.output]);
}

/** The panes of pane_ids: `%N` on the call's host, `host:%N` on a declared one. */
function targetsOf(
  ids: readonly string[],
  call: { socket: TmuxSocket; context: ToolContext },
): PaneTarget[] {
  return ids.map((id): PaneTarget => {
    const colon = id.indexOf(":");
    if (colon < 0) return { socket: call.socket, paneId: id };
    return {
      socket: socketOf(call.context, { host: id.slice(0, colon) }),
      paneId: id.slice(colon + 1),
    };
  });
}

/** The results, in pane order, with identical outputs gathered into groups. */
function shape(outcomes: PaneOutcome[], started: number): Results {
  const groups: Results["groups"] = [];
  const byOutput = new Map<string, number>();
  const results = outcomes.map((outcome): PaneResult => {
    const base = {
      ...(outcome.host === null ? {} : { host: outcome.host }),
      pane_id: outcome.paneId,
      elapsed_seconds: 0,
      output_total_lines: 0,
      lines_missed: false,
    };
    if (outcome.kind !== "ran") {
      return {
        ...base,
        state: outcome.kind === "error" ? "error" : "not_started",
        exit_status: null,
        run_id: null,
        reason: outcome.kind === "error" ? `${outcome.code}: ${outcome.message}` : outcome.reason,
        output_group: null,
        output_truncated_lines: 0,
      };
    }
    const { result } = outcome;
    let group: number | null = null;
    if (result.output_total_lines > 0) {
      const key = outputKey(result);
      group = byOutput.get(key) ?? null;
      if (group === null) {
        group = groups.push({ panes: [], output: shownLines(result) }) - 1;
        byOutput.set(key, group);
      }
      groups[group].panes.push(paneLabel(outcome.host, outcome.paneId));
    }
    return {
      ...base,
      state: stateOf(result),
      exit_status: result.exit_status,
      run_id: result.started === false ? null : result.run_id,
      reason: result.not_started_reason ?? result.no_status_reason,
      output_group: group,
      output_total_lines: result.output_total_lines,
      output_truncated_lines: result.output_truncated_lines,
      lines_missed: result.lines_missed,
      elapsed_seconds: result.elapsed_seconds,
    };
  });
  const counts = Object.fromEntries(
    STATES.map((state) => [state, results.filter((r) => r.state === state).length]),
  ) as Record<State, number>;
  const summary = {
    panes: results.length,
    ...counts,
    elapsed_seconds: Math.round(Date.now() - started) / 1000,
  };
  return { summary, results, groups };
}

/** A pane's result as the summary names it. */
function describe(result: PaneResult): string {
  const pane = paneLabel(result.host, result.pane_id);
  switch (result.state) {
    case "ok":
      return pane;
    case "nonzero":
      return `${pane} exit ${result.exit_status}`;
    case "timed_out":
      return `${pane} timed out, MAY STILL BE RUNNING (wait_for_command run_id=` +
        `${result.run_id})`;
    default:
      return `${pane} ${result.state}: ${result.reason}`;
  }
}

/** The text: the counts, what did not go well pane by pane, then each distinct output once. */
function render(results: Results): string {
  const { summary } = results;
  const counts = STATES.filter((state) => summary[state] > 0)
    .map((state) => `${summary[state]} ${state.replace("_", " ")}`);
  const head = `${summary.panes} panes: ${counts.join(", ")}; ${summary.elapsed_seconds}s`;
  const failures = results.results.filter((r) => r.state !== "ok").map(describe);
  const missed = results.results.filter((r) => r.lines_missed);
  if (missed.length > 0) {
    failures.push(
      `${missed.map((r) => paneLabel(r.host, r.pane_id)).join(", ")}: lines missed (tmux's ` +
        "history dropped some before they were read)",
    );
  }
  const groups = results.groups.flatMap((group) => {
    const states = group.panes.map((pane) =>
      describe(results.results.find((r) => paneLabel(r.host, r.pane_id) === pane)!)
    );
    return [`--- ${states.join(", ")} ---`, ...group.output];
  });
  return [head, ...failures, ...groups].join("\n");
}

/** The fan-out tool. */
export const RUN_MANY_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "run_command_many",
    paneText: true,
    target: "none",
    tier: "mutating",
    title: "Run one shell command in many panes",
    description: "Runs the same command in many panes (pane_ids, of any declared hosts, and/or " +
      "every pane of a window or session), concurrency at a time, each as run_command would; returns one result per " +
      "pane in order (state, exit status, run_id) and each distinct output once. One busy, " +
      "hung or missing pane never holds up the rest, and is a result, not an error.",
    input,
    output,
    openWorld: true,
    destructive: true,
    async run(args, call) {
      if (args.pane_ids == null && args.window_id == null && args.session_id == null) {
        throw new TmuxError(
          "invalid_argument",
          "give pane_ids, window_id or session_id (or several: their panes, each once)",
        );
      }
      if (args.command.includes("\0")) {
        throw new TmuxError("invalid_argument", "command must not contain NUL characters");
      }
      const { context, extra } = call;
      const started = Date.now();
      let report: ((progress: number, message?: string) => Promise<void>) | null | undefined;
      const notified: Promise<void>[] = [];
      const panes = {
        targets: targetsOf(args.pane_ids ?? [], call),
        windowId: args.window_id ?? null,
        sessionId: args.session_id ?? null,
      };
      await call.guardPanes(panes.targets);
      const outcomes = await context.tmux.runMany({
        socket: call.socket,
        panes,
        command: args.command,
        timeout: clampTimeout(context, args.timeout),
        deadline: clampTimeout(context, args.deadline ?? context.config.waitMaxSeconds),
        concurrency: args.concurrency,
        stopOnFailure: args.stop_on_failure,
        budget: budgetOf(context, args),
        suppressHistory: args.suppress_history ?? context.config.suppressHistory,
        pagers: false,
        person: args.if_person_typing,
        signal: extra.signal,
        owner: context.owner,
        // A progress notification as each pane's part ends, naming it and how it went.
        onPaneDone: (done, total, outcome) => {
          report ??= progressNotifier(extra, total) ?? null;
          const sent = report?.(
            done,
            `${paneLabel(outcome.host, outcome.paneId)}: ${outcomeWord(outcome)}`,
          );
          if (sent !== undefined) notified.push(sent);
        },
      });
      // Every notification goes before the result: after it, the client drops them.
      await Promise.all(notified);
      return shape(outcomes, started);
    },
    text: render,
    // An error only when no pane's command ran at all.
    failed: (result) =>
      result.results.every((r) => r.state === "not_started" || r.state === "error"),
  }),
];
