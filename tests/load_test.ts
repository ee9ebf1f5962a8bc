// Load: 200 run_command calls across 8 panes, 20 in flight, over HTTP. Every answer must carry its
// own pane's exit status and output, and nothing may be left behind.

import { assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { withServer } from "./helpers/mcp.ts";

Deno.test("200 calls over 8 panes, 20 in flight, through HTTP", async () => {
  await withServer("http", {}, async (conn, tmux) => {
    const panes = [tmux.paneId];
    for (let i = 0; i < 7; i++) panes.push(await tmux.newPane());
    const total = 200;
    let next = 0;
    const wrong: string[] = [];
    const worker = async (): Promise<void> => {
      while (next < total) {
        const i = next++;
        const pane = panes[i % panes.length];
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: {
            command: `echo "$TMUX_PANE call ${i}"; seq 1 ${i % 50}; exit ${i % 7}`,
            pane_id: pane,
          },
        }) as CallToolResult;
        const out = result.structuredContent as { exit_status: number; output: string[] };
        const expected = [
          `${pane} call ${i}`,
          ...Array.from({ length: i % 50 }, (_, k) => String(k + 1)),
        ];
        if (out?.exit_status !== i % 7 || JSON.stringify(out.output) !== JSON.stringify(expected)) {
          wrong.push(`call ${i} on ${pane}: ${JSON.stringify(out)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    assertEquals(wrong, []);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
