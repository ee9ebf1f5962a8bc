/**
 * The bench's cost of watches while nothing happens: 16 watch_pane calls (one session's cap) on a
 * pane whose program runs quietly, for a pattern and the program's end, and the CPU the tmux
 * server, the MCP server and every process either started takes over the next 30 s.
 *
 * @module
 */

import { startServer } from "../tests/helpers/mcp.ts";
import type { TestTmux } from "../tests/helpers/tmux.ts";
import type { Report } from "./bench_fanout_flood.ts";

/** Options for {@linkcode quietWatches}. */
export interface QuietWatchesOptions {
  /** How to start the server. */
  program: string[];
  /** How long the CPU is counted, in ms. */
  measureMs: number;
}

/** CPU time of a process and its children that ended, in ms (/proc's ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stdout: "piped" })
    .output();
  const fields = new TextDecoder().decode(out.stdout).split(") ")[1].split(" ");
  // utime, stime, cutime, cstime: fields 14 to 17 of the whole line.
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
}

/** Measures the CPU 16 quiet watches cost, as a share of one CPU, with its target. */
export async function quietWatches(
  tmux: TestTmux,
  report: Report,
  options: QuietWatchesOptions,
): Promise<void> {
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    program: options.program,
    extraArgs: ["--toolsets", "all"],
  });
  try {
    const pane = await tmux.newPane();
    await tmux.run("send-keys", "-t", pane, "sleep 600", "Enter");
    const tmuxPid = Number((await tmux.run("display-message", "-p", "#{pid}")).trim());
    for (let i = 0; i < 16; i++) {
      await conn.client.callTool({
        name: "watch_pane",
        arguments: { pane_id: pane, pattern: "never printed", program_end: true, seconds: 600 },
      });
    }
    const before = await cpuMs(tmuxPid) + await cpuMs(conn.serverPid);
    await new Promise((resolve) => setTimeout(resolve, options.measureMs));
    const used = await cpuMs(tmuxPid) + await cpuMs(conn.serverPid) - before;
    const share = used / options.measureMs * 100;
    report("quiet_watches_cpu_pct", "16 quiet watches, CPU (tmux, server, their children)", share, {
      unit: " % of a CPU",
      target: { text: "target < 3 %", met: share < 3 },
    });
    await tmux.run("send-keys", "-t", pane, "C-c");
  } finally {
    await conn.close();
  }
}
