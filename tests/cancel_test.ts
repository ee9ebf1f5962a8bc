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
