/**
 * The runs a server keeps, listed (list_runs, `tmux://runs`, `tmux://runs/{run_id}`), and told
 * when they end without a call (push.ts): an update of the run's resource to a client that
 * subscribed to it, and a Claude Code channel event for a run whose end no result told.
 *
 * @module
 */

import { type McpServer, resourceTemplate, z } from "../../deps.ts";
import type { ListedRun, RunEndEvent } from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  count,
  defineTool,
  jsonContents,
  type SessionPush,
  size,
  socketNameSchema,
  socketOf,
  templateValue,
  type ToolContext,
} from "../define/mod.ts";
import { digest } from "../../util/mod.ts";

/** A run as a result shows it: its command only as the audit log does (length and digest). */
export interface ShownRun {
  /** As run_command returned it. */
  run_id: string;
  /** Its pane. */
  pane_id: string;
  /** Its command's length and digest. */
  command: { length: number; sha256: string };
  /** Where it stands. */
  state: ListedRun["state"];
  /** Once ended, its status (null: none). */
  exit_status: number | null;
  /** When its call began. */
  started_at: string;
  /** When this server saw it end. */
  ended_at: string | null;
  /** A result told its end. */
  collected: boolean;
  /** Its output so far. */
  output_bytes: number;
}

async function shown(run: ListedRun): Promise<ShownRun> {
  return {
    run_id: run.run_id,
    pane_id: run.pane_id,
    command: { length: run.command.length, sha256: await digest(run.command) },
    state: run.state,
    exit_status: run.exit_status,
    started_at: new Date(run.started_at).toISOString(),
    ended_at: run.ended_at === null ? null : new Date(run.ended_at).toISOString(),
    collected: run.collected,
    output_bytes: run.output_bytes,
  };
}

const runOutput = z.object({
  run_id: z.string(),
  pane_id: z.string(),
  command: z.object({ length: z.number().int(), sha256: z.string() }).describe(
    "as the audit log shows it: its length and the first 16 hex digits of its SHA-256",
  ),
  state: z.enum(["running", "waiting_for_input", "may_start", "ended"]).describe(
    "waiting_for_input: its program waits on the terminal (the kernel says so); may_start: " +
      "typed, not yet run",
  ),
  exit_status: z.number().int().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable().describe("when this server saw it end"),
  collected: z.boolean().describe("a result told its end (else wait_for_command tells it)"),
  output_bytes: z.number().int(),
});

/** What a run is, in a line. */
function runLine(run: ShownRun): string {
  const state = run.state === "ended"
    ? `ended, exit ${run.exit_status ?? "unknown"}${run.collected ? "" : ", not collected"}`
    : run.state.replaceAll("_", " ");
  return `${run.run_id} ${run.pane_id} ${state}, since ${run.started_at}, ` +
    `${size(run.output_bytes)}, command of ${run.command.length} characters ` +
    `(sha256 ${run.command.sha256})`;
}

/** The run tools beyond run_command's own. */
export const RUN_LIST_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "list_runs",
    target: "none",
    tier: "readonly",
    title: "List the server's runs",
    description: "The runs this server started (newest first): pane, state (running, " +
      "waiting_for_input as the kernel tells it, may_start, ended with its exit status), " +
      "whether a result told the end (collected), start time and output bytes. Commands show " +
      "as the audit log shows them. For finding a background job again; wait_for_command " +
      "collects one.",
    input: { socket_name: socketNameSchema },
    output: {
      runs: z.array(runOutput).describe("newest first"),
      total: z.number().int().describe("runs listed"),
    },
    async run(_args, { socket, context }) {
      const runs = await context.tmux.listRuns(socket, context.owner);
      return { runs: await Promise.all(runs.map(shown)), total: runs.length };
    },
    text: (r) =>
      [`${count(r.total)} ${r.total === 1 ? "run" : "runs"}`, ...r.runs.map(runLine)].join("\n"),
  }),
];

/** The resource of every run, and the prefix of one run's. */
const RUNS_URI = "tmux://runs";

/**
 * Registers the runs' resources on one session's server, and tells that session of their ends
 * as it asked (see push.ts), until it closes.
 */
export function registerRunResources(server: McpServer, context: ToolContext): void {
  const socket = socketOf(context, {});
  server.registerResource("runs", RUNS_URI, {
    title: "Runs",
    description: "The runs this server started on the default socket, as list_runs shows them. " +
      "Subscribe to be told as one ends.",
    mimeType: "application/json",
  }, async (uri) => {
    const runs = await context.tmux.listRuns(socket, context.owner);
    return jsonContents(uri, await Promise.all(runs.map(shown)));
  });
  server.registerResource("run", resourceTemplate(`${RUNS_URI}/{run_id}`), {
    title: "A run",
    description: "One run by its run_id, as list_runs shows it. Subscribe to be told as it ends.",
    mimeType: "application/json",
  }, async (uri, variables) => {
    const id = templateValue(variables.run_id);
    const run = context.tmux.listedRun(id, context.owner);
    return jsonContents(uri, run === undefined ? null : await shown(run));
  });
  const push = context.push;
  if (push === null) return;
  const stop = context.tmux.onRunEnd((event) => {
    if (context.tmux.listedRun(event.run.run_id, context.owner) === undefined) return;
    tellEnd(push, event).catch(() => {});
  });
  push.closed.addEventListener("abort", stop);
}

/**
 * Tells a session that a run ended: its resource and the list updated, and, for an end no
 * result told, a channel event.
 */
async function tellEnd(push: SessionPush, event: RunEndEvent): Promise<void> {
  const { run } = event;
  await push.updated(`${RUNS_URI}/${run.run_id}`);
  await push.updated(RUNS_URI);
  if (!event.unanswered) return;
  const status = run.exit_status === null ? "no exit status" : `exit status ${run.exit_status}`;
  await push.event(
    `run ${run.run_id} in pane ${run.pane_id} ended (${status}, ` +
      `${size(run.output_bytes)} of output); wait_for_command with its run_id collects it`,
    {
      run_id: run.run_id,
      pane_id: run.pane_id,
      exit_status: run.exit_status === null ? "" : String(run.exit_status),
    },
  );
}
