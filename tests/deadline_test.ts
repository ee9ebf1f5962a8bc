// Nothing of ours waits without end on a tmux client that stopped answering (SIGSTOP: a debugger,
// a machine paging hard). A stopped process takes no SIGTERM until it runs again: ending our own
// clients waited for it for good, and so did the server's own exit.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { startServer, textOf } from "./helpers/mcp.ts";
import { controlClients } from "./helpers/processes.ts";
import { startTmux } from "./helpers/tmux.ts";

/** Beyond its timeout, the most a call may take to answer. */
const MARGIN_MS = 2000;

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

Deno.test("a server whose tmux clients are stopped still exits when asked, ending them", async () => {
  const tmux = await startTmux();
  const conn = await startServer("stdio", { socketName: tmux.socketName });
  let clients: number[] = [];
  try {
    const ran = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: tmux.paneId, command: "echo hello" },
    }) as CallToolResult;
    assertEquals(ran.isError ?? false, false, textOf(ran));
    clients = await controlClients(conn.serverPid);
    assert(clients.length >= 2, `a command client and a watcher: ${clients}`);
    for (const pid of clients) Deno.kill(pid, "SIGSTOP");
    // End of input, then SIGTERM: the server ends its clients and exits. (Bounded only so that a
    // hang fails the test instead of stalling the suite.)
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      conn.close().then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 20_000)),
    ]);
    clearTimeout(timer);
    if (!exited) Deno.kill(conn.serverPid, "SIGKILL");
    assert(exited, "the server did not exit");
    assertEquals(clients.filter(alive), [], "clients left running");
  } finally {
    for (const pid of clients.filter(alive)) Deno.kill(pid, "SIGKILL");
    await tmux.close();
  }
});

Deno.test("with the tmux server stopped, every call answers by its deadline, and works once it runs", async () => {
  const tmux = await startTmux();
  // A call without a timeout of its own is bounded by the ceiling: 5 s here.
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    extraArgs: ["--wait-max-seconds", "5"],
  });
  const server = Number((await tmux.run("display-message", "-p", "#{pid}")).trim());
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const begun = Date.now();
      const result = await conn.client.callTool({ name, arguments: args }, undefined, {
        timeout: 120_000,
      }) as CallToolResult;
      return { result, ms: Date.now() - begun };
    };
    const warm = await call("run_command", { pane_id: tmux.paneId, command: "echo warm" });
    assertEquals(warm.result.isError ?? false, false, textOf(warm.result));
    Deno.kill(server, "SIGSTOP");
    try {
      for (
        const [name, args, seconds] of [
          ["run_command", { pane_id: tmux.paneId, command: "echo hello", timeout: 2 }, 2],
          ["wait_for_text", { pane_id: tmux.paneId, patterns: ["never"], timeout: 2 }, 2],
          ["capture_pane", { pane_id: tmux.paneId }, 5],
        ] as const
      ) {
        const { result, ms } = await call(name, args);
        assert(ms < seconds * 1000 + MARGIN_MS, `${name} answered after ${ms} ms`);
        assertEquals(result.isError, true, `${name}: ${textOf(result)}`);
        assertMatch(textOf(result), /^tmux_unavailable: /, name);
      }
    } finally {
      Deno.kill(server, "SIGCONT");
    }
    const after = await call("run_command", { pane_id: tmux.paneId, command: "echo after" });
    assertEquals(after.result.isError ?? false, false, textOf(after.result));
    assertMatch(textOf(after.result), /after/);
  } finally {
    await conn.close();
    await tmux.close();
  }
});

Deno.test("a run whose time is up while tmux is swamped still answers timed out, and is collected", async () => {
  const tmux = await startTmux();
  const conn = await startServer("stdio", { socketName: tmux.socketName });
  const server = Number((await tmux.run("display-message", "-p", "#{pid}")).trim());
  try {
    const warm = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: tmux.paneId, command: "echo warm" },
    }) as CallToolResult;
    assertEquals(warm.isError ?? false, false, textOf(warm));
    const running = conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: tmux.paneId, command: "sleep 30", timeout: 2 },
    }) as Promise<CallToolResult>;
    // tmux stops answering before the run's time is up and comes back past the call's margin
    // (1.5 s): the record the run needs is written then. A flood of output did the same.
    await new Promise((r) => setTimeout(r, 1200));
    Deno.kill(server, "SIGSTOP");
    await new Promise((r) => setTimeout(r, 3000));
    Deno.kill(server, "SIGCONT");
    const result = await running;
    assertEquals(result.isError ?? false, false, textOf(result));
    const run = result.structuredContent as { timed_out: boolean; run_id: string };
    assertEquals(run.timed_out, true);
    await tmux.run("send-keys", "-t", tmux.paneId, "C-c");
    const collected = await conn.client.callTool({
      name: "wait_for_command",
      arguments: { run_id: run.run_id, timeout: 10 },
    }) as CallToolResult;
    assertEquals(collected.isError ?? false, false, textOf(collected));
    assertEquals((collected.structuredContent as { exit_status: number }).exit_status, 130);
  } finally {
    Deno.kill(server, "SIGCONT");
    await conn.close();
    await tmux.close();
  }
});
