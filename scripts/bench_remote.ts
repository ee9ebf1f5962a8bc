/**
 * The bench's remote figures: run_command's latency and a 24-pane run_command_many on a host
 * reached over ssh (a test sshd on 127.0.0.1), directly and through a proxy adding 10 ms of round
 * trip, beside the same on this machine's tmux.
 *
 * @module
 */

import type { Client } from "../tests/deps.ts";
import { startServer } from "../tests/helpers/mcp.ts";
import { startSshd } from "../tests/helpers/sshd.ts";
import { startTmux, type TestTmux } from "../tests/helpers/tmux.ts";
import { startDelayProxy } from "./delay_proxy.ts";
import { countingProgram, median, time } from "./stats.ts";

/** How the bench records a figure (see bench.ts `report`). */
export type Report = (key: string, label: string, value: number, unit: string) => void;

/** Panes the fan-out runs in. */
const FAN_OUT = 24;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  const value = result.structuredContent as Record<string, unknown> | undefined;
  const failed = name === "run_command"
    ? value?.exit_status !== 0
    : (value?.summary as Record<string, number> | undefined)?.ok !== FAN_OUT;
  if (result.isError || failed) throw new Error(`${name} failed: ${JSON.stringify(result)}`);
}

async function panesOf(tmux: TestTmux): Promise<string[]> {
  const panes = [tmux.paneId];
  while (panes.length < FAN_OUT) panes.push(await tmux.newPane());
  return panes;
}

/**
 * Measures, for this machine's tmux and a remote one at 0 and +10 ms round trip: the median
 * warm run_command (`true`) over `runs` calls, and the median of three 24-pane fan-outs.
 * `program`: how to start the server (its permissions must include running ssh).
 */
export async function remoteBench(
  report: Report,
  options: { runs: number; program: string[] },
): Promise<void> {
  const sshd = await startSshd();
  const proxy = startDelayProxy(sshd.port, 5);
  const counting = await countingProgram("ssh");
  const local = await startTmux();
  const remote = await startTmux();
  try {
    await sshd.addAlias("lab10", proxy.port);
    const conn = await startServer("stdio", {
      socketName: local.socketName,
      program: ["env", `PATH=${counting.dir}:${Deno.env.get("PATH") ?? ""}`, ...options.program],
      extraArgs: [
        ...["--ssh-config", sshd.configFile, "--toolsets", "all"],
        ...["--remote", `lab=ssh:${sshd.aliases.ok}?socket=${remote.socketName}`],
        ...["--remote", `lab10=ssh:lab10?socket=${remote.socketName}`],
      ],
    });
    try {
      const localPanes = await panesOf(local);
      const remotePanes = await panesOf(remote);
      for (
        const [host, label] of [["local", "local"], ["lab", "ssh"], ["lab10", "ssh +10 ms RTT"]]
      ) {
        const panes = host === "local" ? localPanes : remotePanes;
        const one = { host, pane_id: panes[0], command: "true" };
        for (let i = 0; i < 3; i++) await call(conn.client, "run_command", one);
        const each: number[] = [];
        const spawned = counting.count();
        for (let i = 0; i < options.runs; i++) {
          each.push(await time(() => call(conn.client, "run_command", one)));
        }
        report(`remote_run_ms_${host}`, `run_command p50, ${label}`, median(each), " ms");
        if (host !== "local") {
          const perRun = (counting.count() - spawned) / options.runs;
          report(`ssh_spawns_per_run_${host}`, "  ssh processes started per run", perRun, "");
        }
        const many = {
          pane_ids: panes.map((pane) => host === "local" ? pane : `${host}:${pane}`),
          command: "true",
        };
        await call(conn.client, "run_command_many", many);
        const fans: number[] = [];
        for (let i = 0; i < 3; i++) {
          fans.push(await time(() => call(conn.client, "run_command_many", many)));
        }
        report(
          `fanout_${FAN_OUT}_ms_${host}`,
          `  ${FAN_OUT}-pane run_command_many`,
          median(fans),
          " ms",
        );
      }
    } finally {
      await conn.close();
    }
  } finally {
    await remote.close();
    await local.close();
    await proxy.close();
    await sshd.close();
    await Deno.remove(counting.dir, { recursive: true });
  }
}
