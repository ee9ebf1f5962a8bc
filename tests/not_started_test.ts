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

Deno.test("a line that may still start is settled by the next run: never run, wait_for_command says so", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const file = await Deno.makeTempFile();
    await Deno.remove(file);
    const rc = await Deno.makeTempFile();
    await Deno.writeTextFile(rc, SLOW_RC);
    const call = async (name: string, args: Json) =>
      (await conn.client.callTool({ name, arguments: args }) as CallToolResult)
        .structuredContent as Json;
    try {
      const pane = (await tmux.run(
        ...["new-window", "-d", "-P", "-F", "#{pane_id}"],
        `bash --noprofile --rcfile ${rc}`,
      )).trim();
      const first = await call("run_command", {
        pane_id: pane,
        command: `echo RAN > ${file}`,
        timeout: 1,
      });
      assertEquals(first.started, null, JSON.stringify(first));
      // C-c while the startup files still run: the terminal drops the line typed ahead.
      await tmux.run("send-keys", "-t", pane, "C-c");
      await until("the prompt", async () => {
        const screen = await tmux.run("capture-pane", "-p", "-t", pane);
        return screen.trimEnd().endsWith("$");
      });
      const next = await call("run_command", { pane_id: pane, command: "echo next", timeout: 10 });
      assertEquals([next.started, next.output], [true, ["next"]], JSON.stringify(next));
      const settled = await call("wait_for_command", { run_id: first.run_id, timeout: 2 });
      assertEquals(
        [settled.started, settled.timed_out, settled.exit_status],
        [false, false, null],
        JSON.stringify(settled),
      );
      assert(String(settled.not_started_reason).includes("later run_command"));
      assertEquals(await Deno.stat(file).then(() => true, () => false), false, "it ran");
    } finally {
      await Deno.remove(file).catch(() => {});
      await Deno.remove(rc);
    }
  });
});
