/**
 * Benchmarks, driven through a real MCP client (stdio) on a private tmux socket. Reports medians
 * and ratios measured in the same run, writes bench-results.json and prints a text table.
 *
 * Usage: deno task bench [--quick]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type Connection, startServer } from "../tests/helpers/mcp.ts";
import { startTmux, type TestTmux, tmux } from "../tests/helpers/tmux.ts";

const { values } = parseArgs({ args: Deno.args, options: { quick: { type: "boolean" } } });
const SCALE = values.quick ? 0.2 : 1;
const n = (count: number): number => Math.max(3, Math.round(count * SCALE));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function time<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function runCommand(conn: Connection, paneId: string, command: string) {
  const result = await conn.client.callTool({
    name: "run_command",
    arguments: { command, pane_id: paneId, timeout: 60 },
  });
  return result.structuredContent as { exit_status: number; output: string[] };
}

async function rssKiB(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
  })
    .output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

// Deno only lists /proc/<pid>/fd with --allow-all, so ask ls.
async function openHandles(pid: number): Promise<number> {
  const out = await new Deno.Command("ls", { args: [`/proc/${pid}/fd`], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "").length;
}

/** A PATH directory whose `tmux` logs each start, to count spawns (server and pane alike). */
async function countingTmux(): Promise<{ dir: string; log: string; count(): number }> {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/spawns.log`;
  const real = new TextDecoder().decode(
    (await new Deno.Command("sh", { args: ["-c", "command -v tmux"], stdout: "piped" }).output())
      .stdout,
  ).trim();
  await Deno.writeTextFile(log, "");
  await Deno.writeTextFile(`${dir}/tmux`, `#!/bin/sh\necho x >> '${log}'\nexec '${real}' "$@"\n`);
  await Deno.chmod(`${dir}/tmux`, 0o755);
  return { dir, log, count: () => Deno.readTextFileSync(log).split("\n").length - 1 };
}

/** CPU time the whole machine spent busy so far (user, nice, system, irq, softirq), in ms. */
// Deno reads /proc/stat only with --allow-all, so ask cat.
async function machineCpuMs(): Promise<number> {
  const out = await new Deno.Command("cat", { args: ["/proc/stat"], stdout: "piped" }).output();
  const fields = new TextDecoder().decode(out.stdout).split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq] = fields.slice(1).map(Number);
  // /proc/stat counts in clock ticks of 10 ms on Linux.
  return (user + nice + system + irq + softirq) * 10;
}

const results: Record<string, number | boolean | string> = {};
const rows: Array<[string, string]> = [];
function report(key: string, label: string, value: number | boolean, unit = ""): void {
  results[key] = typeof value === "number" ? Math.round(value * 1000) / 1000 : value;
  rows.push([label, typeof value === "number" ? `${value.toFixed(2)}${unit}` : String(value)]);
}

const env = Deno.env.toObject();
const tmuxServer: TestTmux = await startTmux();
await tmuxServer.run("set-option", "-g", "history-limit", "200000");
const conn = await startServer("stdio", { socketName: tmuxServer.socketName });
try {
  const pane = await tmuxServer.newPane();

  // The floor: one bare tmux spawn answering a query.
  const spawn: number[] = [];
  for (let i = 0; i < n(50); i++) {
    spawn.push(await time(() => tmux(tmuxServer.socketName, "display-message", "-p", "#{pid}")));
  }
  const floor = median(spawn);
  report("tmux_spawn_ms", "one tmux spawn (floor), median", floor, " ms");

  for (let i = 0; i < 5; i++) await runCommand(conn, pane, "true");
  const rt: number[] = [];
  for (let i = 0; i < n(50); i++) rt.push(await time(() => runCommand(conn, pane, "true")));
  report("run_true_p50_ms", 'run_command("true") p50', median(rt), " ms");
  report("run_true_vs_spawn", 'run_command("true") / tmux spawn', median(rt) / floor, "x");

  // The same with one tmux process per command (--no-control), for the control client's share.
  const spawning = await startServer("stdio", {
    socketName: tmuxServer.socketName,
    extraArgs: ["--no-control"],
  });
  try {
    for (let i = 0; i < 5; i++) await runCommand(spawning, pane, "true");
    const rtSpawn: number[] = [];
    for (let i = 0; i < n(50); i++) {
      rtSpawn.push(await time(() => runCommand(spawning, pane, "true")));
    }
    report(
      "run_true_no_control_p50_ms",
      'run_command("true") p50, --no-control',
      median(rtSpawn),
      " ms",
    );
    report(
      "control_speedup",
      "  speed-up from the control client",
      median(rtSpawn) / median(rt),
      "x",
    );
  } finally {
    await spawning.close();
  }

  // Throughput: one pane sequentially vs eight panes in parallel.
  const panes = [pane];
  for (let i = 0; i < 7; i++) panes.push(await tmuxServer.newPane());
  const per = n(40);
  const cpuBefore = await machineCpuMs();
  const one = await time(async () => {
    for (let i = 0; i < per; i++) await runCommand(conn, pane, "true");
  });
  // Every process's CPU (server, tmux, shells, this client): what bounds parallel throughput.
  const cpuPerCall = (await machineCpuMs() - cpuBefore) / per;
  const eight = await time(() =>
    Promise.all(panes.map(async (p) => {
      for (let i = 0; i < per; i++) await runCommand(conn, p, "true");
    }))
  );
  const scaling = (per * 8 / eight) / (per / one);
  report("parallel_8_vs_1", "8 panes in parallel vs 1 (throughput)", scaling, "x");
  report("cpu_ms_per_call", "  machine CPU per run_command (all processes)", cpuPerCall, " ms");
  const cores = navigator.hardwareConcurrency;
  report(
    "parallel_cpu_bound_estimate",
    `  that ratio if CPU-bound on ${cores} cores (cores x wall / CPU)`,
    cores * (one / per) / cpuPerCall,
    "x",
  );

  // Big output.
  const big = await time(async () => {
    const out = await runCommand(conn, pane, "seq 1 100000");
    results.seq_100k_complete = out.output.length === 100000 && out.output[99999] === "100000";
  });
  report("seq_100k_ms", "run_command(seq 1 100000)", big, " ms");
  rows.push(["  all 100000 lines back", String(results.seq_100k_complete)]);

  // wait_for_text: from the moment the line is printed to the moment the call returns.
  const lat: number[] = [];
  for (let i = 0; i < n(10); i++) {
    await tmux(
      tmuxServer.socketName,
      "send-keys",
      "-t",
      pane,
      "sleep 0.3; echo MARK $(date +%s%N)",
      "Enter",
    );
    const r = await conn.client.callTool({
      name: "wait_for_text",
      arguments: { pane_id: pane, patterns: ["MARK \\d+"], regex: true, timeout: 10 },
    });
    const line = String((r.structuredContent as { line: string }).line);
    const printed = Number(line.split(" ")[1]) / 1e6;
    lat.push(Date.now() - printed);
  }
  report("wait_for_text_latency_ms", "wait_for_text print-to-return, median", median(lat), " ms");

  // Memory and handles over 1000 calls.
  const pid = conn.serverPid;
  const fdBefore = await openHandles(pid);
  for (let i = 0; i < n(1000); i++) await runCommand(conn, panes[i % panes.length], "true");
  report(
    "rss_mb_after_calls",
    `server RSS after ${n(1000)} calls`,
    (await rssKiB(pid)) / 1024,
    " MB",
  );
  report("fd_growth", "open handles growth over those calls", (await openHandles(pid)) - fdBefore);

  // Spawns per run_command, counted by a logging tmux on PATH (the pane's trailer included).
  const counting = await countingTmux();
  const countServer = await startTmux();
  const countConn = await startServer("stdio", {
    socketName: countServer.socketName,
    program: [
      "env",
      `PATH=${counting.dir}:${env.PATH ?? ""}`,
      Deno.execPath(),
      "run",
      "--quiet",
      "--allow-run=tmux",
      new URL("../main.ts", import.meta.url).pathname,
    ],
  });
  try {
    const countPane = await countServer.newPane(
      `env PATH=${counting.dir}:${env.PATH ?? ""} PS1='$ ' bash --norc --noprofile`,
    );
    await new Promise((r) => setTimeout(r, 300));
    await runCommand(countConn, countPane, "true");
    const before = counting.count();
    const calls = n(20);
    for (let i = 0; i < calls; i++) await runCommand(countConn, countPane, "true");
    report(
      "spawns_per_run",
      "tmux spawns per run_command (wait-for and trailer included)",
      (counting.count() - before) / calls,
    );
  } finally {
    await countConn.close();
    await countServer.close();
    await Deno.remove(counting.dir, { recursive: true });
  }

  // Cold start: process start to the first tools/list answer.
  const cold: number[] = [];
  for (let i = 0; i < n(5); i++) {
    const t0 = performance.now();
    const c = await startServer("stdio", { socketName: tmuxServer.socketName });
    await c.client.listTools();
    cold.push(performance.now() - t0);
    await c.close();
  }
  report("cold_start_ms", "cold start to first tools/list", median(cold), " ms");
} finally {
  await conn.close();
  await tmuxServer.close();
}

const width = Math.max(...rows.map(([label]) => label.length));
console.log(rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n"));
await Deno.writeTextFile("bench-results.json", JSON.stringify(results, null, 2) + "\n");
console.log("\nwritten: bench-results.json");
