/**
 * The bench's figures for many agents in many panes: `list_panes` with `state` over 24 panes (one
 * tmux command to list them, one look at all their terminals), and how soon `wait_for_panes`
 * answers once an agent's hook line ran in one of them.
 *
 * @module
 */

import { type Connection, startServer } from "../tests/helpers/mcp.ts";
import type { TestTmux } from "../tests/helpers/tmux.ts";
import type { Report } from "./bench_fanout_flood.ts";
import { median } from "./stats.ts";

/** Options for {@linkcode paneStateFigures}. */
export interface PaneStateFiguresOptions {
  /** How to start the server. */
  program: string[];
  /** Calls timed, each figure. */
  calls: number;
}

/** The time, then a docs/agents.md line (a shell's `$$` stands for the agent's process). */
const HOOK_LINE = "echo MARK $(date +%s%N); " +
  'tmux set -pF -t "$TMUX_PANE" @tmux_mcp_agent "waiting $$ #{T:#{l:%s}} permission" ' +
  "\\; wait-for -S tmux_mcp_agent";

/** Times the state of 24 panes, and a wait woken by a hook line, on a server of its own. */
export async function paneStateFigures(
  tmux: TestTmux,
  report: Report,
  options: PaneStateFiguresOptions,
): Promise<void> {
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    program: options.program,
    extraArgs: ["--toolsets", "core,agents"],
  });
  try {
    await figures(tmux, conn.client, report, options.calls);
  } finally {
    await conn.close();
  }
}

async function figures(
  tmux: TestTmux,
  client: Connection["client"],
  report: Report,
  calls: number,
): Promise<void> {
  const listed = await client.callTool({ name: "list_panes", arguments: {} });
  const panes = (listed.structuredContent as { panes: Array<{ pane_id: string }> }).panes
    .map((pane) => pane.pane_id);
  while (panes.length < 24) panes.push(await tmux.newPane());
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await client.callTool({ name: "list_panes", arguments: { state: true } });
    times.push(performance.now() - started);
  }
  report("pane_states_24_ms", "list_panes state, 24 panes, median", median(times), {
    unit: " ms",
  });
  const woken: number[] = [];
  const pane = panes.at(-1)!;
  for (let i = 0; i < calls; i++) {
    await tmux.run("set-option", "-p", "-u", "-t", pane, "@tmux_mcp_agent");
    const waiting = client.callTool({
      name: "wait_for_panes",
      arguments: { pane_ids: panes.slice(-24), only_new: true, timeout: 30 },
    });
    // The wait's first look, then the line.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await tmux.run("send-keys", "-t", pane, HOOK_LINE, "Enter");
    const answer = await waiting;
    const answered = Date.now();
    const printed = (await tmux.run("capture-pane", "-p", "-t", pane)).match(/MARK (\d+)/g)?.at(-1);
    if (printed === undefined) throw new Error(`no mark: ${JSON.stringify(answer)}`);
    woken.push(answered - Number(printed.split(" ")[1]) / 1e6);
    await tmux.run("send-keys", "-t", pane, "clear", "Enter");
  }
  report(
    "wait_for_panes_woken_ms",
    "wait_for_panes, a hook line to its answer, median",
    median(woken),
    {
      unit: " ms",
      target: { text: "target < 100 ms", met: median(woken) < 100 },
    },
  );
}
