// A cancelled call does not end its command: run_command and wait_for_command never contradict
// each other about it. The next call's busy text names the run, and wait_for_command collects it.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { textOf, withServer } from "./helpers/mcp.ts";
import { commandStarted, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

for (const transport of ["stdio", "http"] as const) {
  Deno.test(`a cancelled run_command's run is collected by the run_id the pane's next call names (${transport})`, async () => {
    await withServer(transport, {}, async (conn, tmux) => {
      const pane = tmux.paneId;
      const run = async (args: Json, signal?: AbortSignal) =>
        await conn.client.callTool(
          {
            name: "run_command",
            arguments: { pane_id: pane, ...args },
          },
          undefined,
          { signal },
        ) as CallToolResult;
      const controller = new AbortController();
      const cancelled = run({ command: "sleep 2; echo done", timeout: 30 }, controller.signal)
        .catch(() => null);
      await until("the command started", () => commandStarted(tmux, pane));
      controller.abort();
      await cancelled;
      const busy = await run({ command: "echo no", timeout: 5 });
      const refused = busy.structuredContent as Json;
      assertEquals(refused.started, false, textOf(busy));
      const runId = String(refused.not_started_reason).match(/run_id (\S+)\)/)?.[1];
      assert(runId !== undefined, textOf(busy));
      const collected = await conn.client.callTool({
        name: "wait_for_command",
        arguments: { run_id: runId, timeout: 10 },
      }) as CallToolResult;
      const end = collected.structuredContent as Json;
      assertEquals([end.exit_status, end.output], [0, ["done"]], textOf(collected));
      const after = (await run({ command: "echo after" })).structuredContent as Json;
      assertEquals([after.exit_status, after.output], [0, ["after"]]);
      await assertNoLeftovers(tmux, conn.serverPid);
    });
  });
}

Deno.test("a cancelled run that ends before any call names it leaves no record behind", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    const controller = new AbortController();
    const cancelled = conn.client.callTool(
      { name: "run_command", arguments: { pane_id: pane, command: "sleep 1; echo secret-ish" } },
      undefined,
      { signal: controller.signal },
    ).catch(() => null);
    await until("the command started", () => commandStarted(tmux, pane));
    controller.abort();
    await cancelled;
    // Its answer reached no one, and it ends before any call is refused naming it: nobody can
    // learn its run_id, and its record (the command's text in it) stayed an hour.
    await until(
      "the command ended",
      async () => !(await tmux.run("show-options", "-p", "-t", pane)).includes("@tmux_mcp_running"),
    );
    const next = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: pane, command: "echo next" },
    }) as CallToolResult;
    assertEquals((next.structuredContent as Json).output, ["next"], textOf(next));
    const options = await tmux.run("show-options", "-p", "-t", pane);
    assert(!options.includes("@tmux_mcp_"), options);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
