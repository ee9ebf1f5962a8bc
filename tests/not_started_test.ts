// "Not started" is a promise: a result that says started: false means the command will never run.
// A shell still busy in its startup files (a builtin loop: the pane's command stays the shell)
// reads the typed line only later; the call times out before. Either the line is withdrawn, or
// the result says it does not know (started: null) and wait_for_command collects the run.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { withServer } from "./helpers/mcp.ts";
import { until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

/** An rc file that spins for 3 s (bash's own loop: the pane's command stays bash). */
const SLOW_RC = "PS1='$ '; SECONDS=0; while [ $SECONDS -lt 3 ]; do :; done\n";

for (const [kind, command] of [["inline", "echo RAN > "], ["buffered", "echo RAN\\\n > "]]) {
  Deno.test(`a ${kind} command typed into a shell still starting: not started means never runs`, async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const file = await Deno.makeTempFile();
      await Deno.remove(file);
      const rc = await Deno.makeTempFile();
      await Deno.writeTextFile(rc, SLOW_RC);
      try {
        const pane = (await tmux.run(
          ...["new-window", "-d", "-P", "-F", "#{pane_id}"],
          `bash --noprofile --rcfile ${rc}`,
        )).trim();
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command: `${command}${file}`, timeout: 1 },
        }) as CallToolResult;
        const out = result.structuredContent as Json;
        assertEquals(out.timed_out, true, JSON.stringify(out));
        if (out.started === false) {
          // Past the shell's startup, the line would have run by now.
          await until("the prompt", async () => {
            const screen = await tmux.run("capture-pane", "-p", "-t", pane);
            return screen.trimEnd().endsWith("$");
          });
          await new Promise((resolve) => setTimeout(resolve, 500));
          const ran = await Deno.stat(file).then(() => true, () => false);
          assertEquals(ran, false, "a run called not started ran");
          return;
        }
        assertEquals(out.started, null, JSON.stringify(out));
        const collected = await conn.client.callTool({
          name: "wait_for_command",
          arguments: { run_id: out.run_id, timeout: 10 },
        }) as CallToolResult;
        const end = collected.structuredContent as Json;
        assertEquals([end.started, end.exit_status], [true, 0], JSON.stringify(end));
        assert(await Deno.stat(file).then(() => true, () => false), "it ran");
      } finally {
        await Deno.remove(file).catch(() => {});
        await Deno.remove(rc);
      }
    });
  });
}
