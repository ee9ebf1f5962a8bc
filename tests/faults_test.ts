// Faults: the tmux server or a pane dying mid-call, a client going away mid-wait, no tmux at all.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { startServer, textOf, withServer } from "./helpers/mcp.ts";
import {
  commandRunning,
  startTmux,
  type TestTmux,
  until,
  waitForProcesses,
} from "./helpers/tmux.ts";

async function started(tmux: TestTmux, pane: string): Promise<void> {
  await until("the command started", () => commandRunning(tmux, pane));
}

Deno.test("tmux server killed during run_command and wait_for_text: tmux_unavailable", async () => {
  await withServer("stdio", { extraArgs: ["--any-socket"] }, async (conn, tmux) => {
    const running = conn.client.callTool({
      name: "run_command",
      arguments: { command: "sleep 20", pane_id: tmux.paneId, timeout: 25 },
    }) as Promise<CallToolResult>;
    await started(tmux, tmux.paneId);
    await tmux.run("kill-server");
    const result = await running;
    assertEquals(result.isError, true);
    assertMatch(textOf(result), /^tmux_unavailable: /);
    assertEquals(await waitForProcesses(tmux.socketName), "");

    const again = await startTmux();
    try {
      const waiting = conn.client.callTool({
        name: "wait_for_text",
        arguments: {
          pane_id: again.paneId,
          socket_name: again.socketName,
          patterns: ["never"],
          timeout: 20,
        },
      }) as Promise<CallToolResult>;
      await new Promise((r) => setTimeout(r, 300));
      await again.run("kill-server");
      const waited = await waiting;
      assertEquals(waited.isError, true);
      assertMatch(textOf(waited), /^tmux_unavailable: /);
    } finally {
      await again.close();
    }
    // Still serving.
    const { tools } = await conn.client.listTools();
    assert(tools.length > 0);
  });
});

Deno.test("a pane killed mid-run is a clean not_found, long before the timeout", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const t0 = Date.now();
    const running = conn.client.callTool({
      name: "run_command",
      arguments: { command: "sleep 20", pane_id: pane, timeout: 25 },
    }) as Promise<CallToolResult>;
    await started(tmux, pane);
    await tmux.run("kill-pane", "-t", pane);
    const result = await running;
    assertEquals(result.isError, true);
    assertMatch(textOf(result), /^not_found: pane %\d+ was closed while the command ran/);
    assert(Date.now() - t0 < 15000, "the call waited for its timeout");
    assertEquals(await waitForProcesses(tmux.socketName), "");
  });
});

Deno.test("a stdio client that goes away mid-wait leaves no wait-for child", async () => {
  const tmux = await startTmux();
  const conn = await startServer("stdio", { socketName: tmux.socketName }).catch(async (error) => {
    await tmux.close();
    throw error;
  });
  try {
    const running = conn.client.callTool({
      name: "run_command",
      arguments: { command: "sleep 2", pane_id: tmux.paneId },
    }).catch(() => null);
    await started(tmux, tmux.paneId);
    // What waits is a control client blocked in wait-for (a wait-for child with --no-control).
    const clients = async () => (await tmux.run("list-clients", "-F", "#{client_pid}")).trim();
    assert((await clients()) !== "", "no client of the server while waiting");
    await conn.close();
    await running;
    assertEquals(await waitForProcesses(tmux.socketName), "");
    // tmux drops a client once it notices its socket closed.
    for (let i = 0; i < 20 && (await clients()) !== ""; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assertEquals(await clients(), "", "a tmux client of the server outlived it");
  } finally {
    await tmux.close();
  }
});

Deno.test("without tmux on PATH the server stops at start with a clear message", async () => {
  const empty = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-run=tmux",
        new URL("../main.ts", import.meta.url).pathname,
      ],
      env: { PATH: empty },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 1);
    assertMatch(
      new TextDecoder().decode(out.stderr),
      /tmux-mcp: tmux is not installed or not on PATH/,
    );
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});
