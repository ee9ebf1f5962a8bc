// A pane that changes session, window or index while a run goes on keeps its run: the answer is
// exact (exit status and all output), whichever stream or screen the rest is read from.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { textOf, withServer } from "./helpers/mcp.ts";
import { type TestTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

/** Waits until the pane shows `text` on a line of its own. */
async function shows(tmux: TestTmux, pane: string, text: string): Promise<void> {
  await until(
    `${pane} shows ${text}`,
    async () => (await tmux.run("capture-pane", "-p", "-t", pane)).split("\n").includes(text),
  );
}

const MOVES: [string, (tmux: TestTmux, pane: string) => Promise<unknown>][] = [
  ["to another session", (tmux, pane) => tmux.run("join-pane", "-d", "-s", pane, "-t", "other:")],
  ["its window to another session", async (tmux, pane) => {
    const window = (await tmux.run("display-message", "-p", "-t", pane, "#{window_id}")).trim();
    return tmux.run("move-window", "-d", "-s", window, "-t", "other:");
  }],
  ["to another window of its session", (tmux, pane) => tmux.run("break-pane", "-d", "-s", pane)],
  ["its window to another index", async (tmux, pane) => {
    const window = (await tmux.run("display-message", "-p", "-t", pane, "#{window_id}")).trim();
    return tmux.run("move-window", "-d", "-s", window, "-t", "main:7");
  }],
];

Deno.test("a pane moved while its run goes on gets the exact answer", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    await tmux.run("new-session", "-d", "-s", "other");
    for (const [move, apply] of MOVES) {
      const pane = await tmux.splitPane(await tmux.newPane());
      const running = conn.client.callTool({
        name: "run_command",
        arguments: { pane_id: pane, command: "seq 1 3; sleep 1.5; seq 4 6; exit 5", timeout: 20 },
      }) as Promise<CallToolResult>;
      await shows(tmux, pane, "3");
      await apply(tmux, pane);
      const result = await running;
      const run = result.structuredContent as Json;
      assertEquals(
        [run.exit_status, run.output, run.timed_out, run.no_status_reason],
        [5, ["1", "2", "3", "4", "5", "6"], false, null],
        `${move}: ${textOf(result)}`,
      );
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a pane moved to another session just before its run ends: exact, or the status said lost and the output whole", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    await tmux.run("new-session", "-d", "-s", "other");
    const pane = await tmux.splitPane(await tmux.newPane());
    // Held by a file, not by a read of the terminal: a command waiting for input ends the call.
    const flag = await Deno.makeTempFile();
    await Deno.remove(flag);
    const running = conn.client.callTool({
      name: "run_command",
      arguments: {
        pane_id: pane,
        command: `seq 1 3; until [ -e ${flag} ]; do sleep 0.01; done; seq 4 6; exit 5`,
        timeout: 20,
      },
    }) as Promise<CallToolResult>;
    await shows(tmux, pane, "3");
    // The run ends at once, before the server has looked at the pane again (most often).
    await tmux.run("join-pane", "-d", "-s", pane, "-t", "other:");
    await Deno.writeTextFile(flag, "");
    const result = await running;
    await Deno.remove(flag);
    const run = result.structuredContent as Json;
    const lost = "the pane moved to another session while the command ran, and the command ended " +
      "before the server saw the move: its status did not arrive (the output is read from the pane)";
    const answer = JSON.stringify([run.exit_status, run.no_status_reason]);
    const allowed = [JSON.stringify([5, null]), JSON.stringify([null, lost])];
    assert(allowed.includes(answer), textOf(result));
    assertEquals([run.output, run.timed_out], [["1", "2", "3", "4", "5", "6"], false]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
