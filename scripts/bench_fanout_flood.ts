/**
 * The bench's memory figure under a fan-out flood: 16 panes each printing 20 MB at once through
 * one run_command_many, on a fresh server: its peak RSS, and its RSS 30 s after the call beside
 * where it started (read after one run of `true` in every pane, so that the code a first run
 * pages in, and the watcher it starts, do not count as what the flood left).
 *
 * @module
 */

import { startServer } from "../tests/helpers/mcp.ts";
import type { TestTmux } from "../tests/helpers/tmux.ts";
/** How the bench records a figure and its target (bench.ts `report`). */
export type Report = (
  key: string,
  label: string,
  value: number,
  options: { unit: string; target?: { text: string; met: boolean } },
) => void;

/** Options for {@linkcode fanOutFlood}. */
export interface FanOutFloodOptions {
  /** How to start the server. */
  program: string[];
  /** Panes printing at once. */
  panes: number;
  /** How long after the call RSS is read again, in ms. */
  settleMs: number;
}

/**
 * A process's resident memory in MB, from ps: Deno reads /proc only with --allow-all (the bench
 * failed there with NotCapable).
 */
export async function rssMB(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
  })
    .output();
  return Number(new TextDecoder().decode(out.stdout).trim()) / 1024;
}

/**
 * A process's resident memory in MB by kind, from /proc/PID/smaps_rollup (read by cat: see
 * {@linkcode rssMB}): file-backed pages (its program's code among them) and anonymous ones.
 */
async function rssParts(pid: number): Promise<{ file: number; anonymous: number }> {
  const out = await new Deno.Command("cat", {
    args: [`/proc/${pid}/smaps_rollup`],
    stdout: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { file: (kb("Rss") - kb("Anonymous")) / 1024, anonymous: kb("Anonymous") / 1024 };
}

/** Measures peak RSS through the flood and RSS after it, each with its target. */
export async function fanOutFlood(
  tmux: TestTmux,
  report: Report,
  options: FanOutFloodOptions,
): Promise<void> {
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    program: options.program,
    extraArgs: ["--wait-max-seconds", "600", "--with-tools", "run_command_many"],
  });
  try {
    const panes = [await tmux.newPane()];
    while (panes.length < options.panes) panes.push(await tmux.newPane());
    const warm = await conn.client.callTool({
      name: "run_command_many",
      arguments: { pane_ids: panes, command: "true" },
    });
    if ((warm.structuredContent as { summary?: { ok?: number } }).summary?.ok !== panes.length) {
      throw new Error(`the warm-up run failed: ${JSON.stringify(warm)}`);
    }
    const start = await rssMB(conn.serverPid);
    const startParts = await rssParts(conn.serverPid);
    let peak = start;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssMB(conn.serverPid));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const result = await conn.client.callTool(
      {
        name: "run_command_many",
        arguments: {
          pane_ids: panes,
          command: `yes abcdefghij | head -c ${20 * 1000 * 1000}`,
          timeout: 600,
          deadline: 600,
        },
      },
      undefined,
      { timeout: 600_000 },
    );
    sampling = false;
    await sampler;
    const ok = (result.structuredContent as { summary?: { ok?: number } }).summary?.ok;
    if (ok !== options.panes) {
      throw new Error(`the fan-out flood failed: ${JSON.stringify(result)}`);
    }
    await new Promise((r) => setTimeout(r, options.settleMs));
    const after = await rssMB(conn.serverPid);
    const afterParts = await rssParts(conn.serverPid);
    const label = `${options.panes} panes printing 20 MB at once`;
    report("fanout_flood_peak_rss_mb", `${label}: server peak RSS`, peak, {
      unit: " MB",
      target: { text: "target <= 200 MB", met: peak <= 200 },
    });
    const growth = after - start;
    report(
      "fanout_flood_rss_growth_mb",
      `  RSS ${options.settleMs / 1000} s after, over its start`,
      growth,
      {
        unit: " MB",
        target: { text: "target <= 20 MB", met: growth <= 20 },
      },
    );
    // What the growth is made of: pages of the program's own file (code the flood's path ran
    // first, paged in once a process), and anonymous memory (kept output, heaps, allocators).
    report(
      "fanout_flood_file_growth_mb",
      "    of it, the program's own pages",
      afterParts.file - startParts.file,
      {
        unit: " MB",
      },
    );
    report(
      "fanout_flood_anon_growth_mb",
      "    of it, anonymous memory",
      afterParts.anonymous - startParts.anonymous,
      {
        unit: " MB",
      },
    );
  } finally {
    await conn.close();
  }
}
