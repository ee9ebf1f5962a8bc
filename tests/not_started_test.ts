// "Not started" is a promise: a result that says started: false means the command will never run.
// A shell still busy in its startup files (a builtin loop: the pane's command stays the shell)
// reads the typed line only later; the call times out before. Either the line is withdrawn, or
// the result says it does not know (started: null) and wait_for_command collects the run.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { type Connection, startServer, withServer } from "./helpers/mcp.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
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

// The pending run is settled by what the pane shows, so a server process started later settles
// it too, and a later run that is still going settles it as well as one that ended.
for (const place of ["this", "another"] as const) {
  for (const later of ["ended", "still running"] as const) {
    const name = `a line that may still start is settled by a later run (${later}), in ` +
      `${place} server process: never run, wait_for_command says so`;
    Deno.test(name, async () => {
      await withServer("stdio", {}, async (conn, tmux) => {
        const file = await Deno.makeTempFile();
        await Deno.remove(file);
        const rc = await Deno.makeTempFile();
        await Deno.writeTextFile(rc, SLOW_RC);
        const other = place === "this"
          ? conn
          : await startServer("stdio", { socketName: tmux.socketName });
        const call = async (server: Connection, name: string, args: Json) =>
          (await server.client.callTool({ name, arguments: args }) as CallToolResult)
            .structuredContent as Json;
        try {
          const pane = (await tmux.run(
            ...["new-window", "-d", "-P", "-F", "#{pane_id}"],
            `bash --noprofile --rcfile ${rc}`,
          )).trim();
          const first = await call(conn, "run_command", {
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
          // A later run that ends within its call, or one still running when its call returns.
          const next = await call(other, "run_command", {
            pane_id: pane,
            ...(later === "ended"
              ? { command: "echo next", timeout: 10 }
              : { command: "sleep 3", timeout: 0.5 }),
          });
          assertEquals(
            [next.started, next.timed_out],
            [true, later === "still running"],
            JSON.stringify(next),
          );
          const settled = await call(other, "wait_for_command", {
            run_id: first.run_id,
            timeout: 2,
          });
          assertEquals(
            [settled.started, settled.timed_out, settled.exit_status],
            [false, false, null],
            JSON.stringify(settled),
          );
          assert(String(settled.not_started_reason).includes("later run_command"));
          assertEquals(await Deno.stat(file).then(() => true, () => false), false, "it ran");
          if (later === "still running") {
            const rest = await call(conn, "wait_for_command", { run_id: next.run_id, timeout: 10 });
            assertEquals(rest.exit_status, 0, JSON.stringify(rest));
          }
          // Nothing is left in the pane: the name of its last ended run went with the records.
          await assertNoLeftovers(tmux, conn.serverPid);
        } finally {
          if (other !== conn) await other.close();
          await Deno.remove(file).catch(() => {});
          await Deno.remove(rc);
        }
      });
    });
  }
}

for (
  const [startup, rc] of [
    ["runs a program", "PS1='$ '; sleep 2\n"],
    ["spins in a builtin loop", "PS1='$ '; SECONDS=0; while [ $SECONDS -lt 1 ]; do :; done\n"],
  ]
) {
  Deno.test(`a line typed ahead while the shell ${startup} at its start is read first: the run after it is never called unread, nor run after "not started"`, async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const file = await Deno.makeTempFile();
      const rcFile = await Deno.makeTempFile();
      await Deno.writeTextFile(rcFile, rc);
      try {
        const pane = (await tmux.run(
          ...["new-window", "-d", "-P", "-F", "#{pane_id}"],
          `bash --noprofile --rcfile ${rcFile}`,
        )).trim();
        // The terminal echoes it at once; bash reads it once its line editor starts.
        await tmux.run("send-keys", "-t", pane, "-l", `echo AHEAD >> ${file}`);
        await tmux.run("send-keys", "-t", pane, "Enter");
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command: `echo RAN; echo RAN >> ${file}`, timeout: 10 },
        }) as CallToolResult;
        const out = result.structuredContent as Json;
        await until("the prompt after the line typed ahead", async () => {
          const screen = await tmux.run("capture-pane", "-p", "-t", pane);
          return screen.trimEnd().endsWith("$") && (await Deno.readTextFile(file)) !== "";
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        const lines = (await Deno.readTextFile(file)).trim().split("\n");
        if (out.started === false) {
          assertEquals(lines, ["AHEAD"], `ran after "not started": ${JSON.stringify(out)}`);
        } else {
          assertEquals([out.exit_status, out.output, lines], [0, ["RAN"], ["AHEAD", "RAN"]]);
        }
      } finally {
        await Deno.remove(file);
        await Deno.remove(rcFile);
      }
    });
  });
}
