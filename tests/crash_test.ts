// The user's tmux server must survive whatever agents do in parallel, and whatever a program in a
// pane plants: tmux 3.2 to 3.5a crash when a control client of ours comes or goes at the wrong
// moment, so this drives the patterns that made it crash, checking tmux after every burst.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import type { TestTmux } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function run(conn: Connection, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name: "run_command", arguments: args }) as CallToolResult;
}

async function tmuxAlive(tmux: TestTmux): Promise<boolean> {
  return await tmux.run("list-sessions").then(() => true, () => false);
}

/**
 * Runs one call per pane at once, every third one with a timeout so short that it ends about as
 * the command does (its pane may still be busy at the next burst: a refusal then is fine). Run
 * against tmux 3.3a, this pattern crashed it within two to six bursts when clients were
 * connected and ended per call.
 */
async function burst(conn: Connection, panes: string[], round: number): Promise<string[]> {
  const results = await Promise.all(
    panes.map((pane, i) =>
      run(conn, { pane_id: pane, command: `echo b${round}p${i}`, timeout: i % 3 === 0 ? 0.05 : 20 })
    ),
  );
  const timedOut: string[] = [];
  results.forEach((result, i) => {
    const out = result.structuredContent as Json | undefined;
    assert(out !== undefined, textOf(result));
    if (i % 3 !== 0) assertEquals(out.output, [`b${round}p${i}`], JSON.stringify(out));
    if (out.timed_out && out.started !== false) timedOut.push(String(out.run_id));
  });
  return timedOut;
}

Deno.test("bursts of parallel run_command over 16 panes never crash tmux", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const panes: string[] = [];
    // Panes in several sessions, so output watchers come and go as well as the command client.
    for (let i = 0; i < 16; i++) {
      if (i % 4 === 0) await tmux.run("new-session", "-d", "-s", `s${i}`, "-x", "80", "-y", "20");
      panes.push(await tmux.newPane());
    }
    for (let round = 0; round < 30; round++) {
      await burst(conn, panes, round);
      assert(await tmuxAlive(tmux), `tmux crashed in burst ${round}`);
    }
  });
});

Deno.test("marks planted by a program in the pane cost bounded work and never crash tmux", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const victims = [await tmux.newPane(), await tmux.newPane(), await tmux.newPane()];
    // The program plants a hundred status options and forged records, as any tmux client can.
    const hex = (i: number) => i.toString(16).padStart(16, "0");
    const plant = Array.from({ length: 100 }, (_, i) => [
      ...["set-option", "-p", "-t", pane, `@tmux_mcp_${hex(i)}`, "0:0:0:0:x", ";"],
      ...["set-option", "-p", "-t", pane, `@tmux_mcp_run_${hex(1000 + i)}`, "{}", ";"],
    ]).flat();
    await tmux.run(...plant.slice(0, -1));
    const names = new Set(plant.filter((arg) => arg.startsWith("@tmux_mcp")));
    // Only what was planted: the run's own mark may still be there for a moment after its result
    // (the trailer clears it after writing the end marker the result was read up to).
    const planted = async () =>
      (await tmux.run("show-options", "-p", "-t", pane)).split("\n")
        .filter((line) => names.has(line.split(" ")[0])).length;
    let left = await planted();
    // A victim's run that outlived its 0.05 s is recorded until collected, as an agent would.
    const uncollected: string[] = [];
    for (let round = 0; round < 20; round++) {
      // A stale running mark makes the pane's next call reconcile it.
      await tmux.run("set-option", "-p", "-t", pane, "@tmux_mcp_running", "tmux_mcp_x:1");
      const [own, timedOut] = await Promise.all([
        run(conn, { pane_id: pane, command: `echo r${round}`, timeout: 20 }),
        burst(conn, victims, round),
      ]);
      uncollected.push(...timedOut);
      assertEquals((own.structuredContent as Json).output, [`r${round}`], textOf(own));
      assert(await tmuxAlive(tmux), `tmux crashed in round ${round}`);
      const now = await planted();
      assert(left - now <= 16, `one call removed ${left - now} planted options`);
      left = now;
    }
    assertEquals(left, 0, "planted options were left after 20 calls");
    for (const runId of uncollected) {
      const collected = await conn.client.callTool({
        name: "wait_for_command",
        arguments: { run_id: runId, timeout: 10 },
      }) as CallToolResult;
      assert(!collected.isError, textOf(collected));
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a readonly server attaches nothing: no focus-in to the pane's program, no alert cleared", async () => {
  await withServer("stdio", { extraArgs: ["--safety", "readonly"] }, async (conn, tmux) => {
    // A program that asked for focus events shows each one it gets (cat -v prints ESC [ I as ^[[I).
    await tmux.run(
      "send-keys",
      "-t",
      tmux.paneId,
      "printf '\\033[?1004h\\a'; stty -icanon -echo; cat -v",
      "Enter",
    );
    const bell = () => tmux.run("display-message", "-p", "-t", tmux.paneId, "#{window_bell_flag}");
    for (let i = 0; i < 100 && (await bell()).trim() !== "1"; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assertEquals((await bell()).trim(), "1", "the bell never rang");
    const waited = await conn.client.callTool({
      name: "wait_for_text",
      arguments: { pane_id: tmux.paneId, patterns: ["never shown"], timeout: 1 },
    }) as CallToolResult;
    assertEquals((waited.structuredContent as Json).outcome, "timeout", textOf(waited));
    for (const name of ["capture_pane", "snapshot_pane", "list_panes"]) {
      const result = await conn.client.callTool({
        name,
        arguments: name === "list_panes" ? {} : { pane_id: tmux.paneId },
      }) as CallToolResult;
      assert(!result.isError, textOf(result));
    }
    const screen = await tmux.run("capture-pane", "-p", "-t", tmux.paneId);
    assert(!screen.includes("^[[I"), `the pane's program got a focus event:\n${screen}`);
    assertEquals((await bell()).trim(), "1", "the window's bell flag was cleared");
    const clients = await tmux.run("list-clients", "-F", "#{client_pid}");
    assertEquals(clients.trim(), "", "a client was left attached");
  });
});

Deno.test("a server far behind a flooding pane: tmux pauses the pane, and a person's respawn meets nothing queued", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    // A run follows the pane while it floods; then the server stops reading (SIGSTOP: a
    // debugger, a laptop's lid, a machine out of memory). tmux queues the pane's output for it.
    const running = run(conn, { pane_id: pane, command: "yes flood", timeout: 30 })
      .catch((error) => ({ isError: true, content: [{ type: "text", text: String(error) }] }));
    await new Promise((r) => setTimeout(r, 500));
    Deno.kill(conn.serverPid, "SIGSTOP");
    try {
      // Past pause-after (15 s) tmux has paused the pane for the server and dropped the queue;
      // before it, tmux kept it (for 5 minutes), and the respawn crashed it.
      await new Promise((r) => setTimeout(r, 17_000));
      await tmux.run("respawn-pane", "-k", "-t", pane).catch(() => {});
      assert(await tmuxAlive(tmux), "tmux crashed");
    } finally {
      Deno.kill(conn.serverPid, "SIGCONT");
    }
    // The run lost its stream with the pane's shell: it answers, and the server goes on.
    const result = await running as CallToolResult;
    assert(result.structuredContent !== undefined || result.isError, textOf(result));
    const after = await run(conn, { pane_id: tmux.paneId, command: "echo after" });
    assertEquals((after.structuredContent as Json).output, ["after"], textOf(after));
  });
});
