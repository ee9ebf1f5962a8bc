// What a pane shows of a call: the first run_command in a shell leaves the one row a later call
// types at 80 columns (the run function is fetched by a short checked line, not typed whole, and
// the call's line drawn over it), and never the tmux socket's path.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { withServer } from "./helpers/mcp.ts";
import { needs } from "./helpers/prerequisites.ts";
import { until, waitForPrompt } from "./helpers/tmux.ts";

for (const shell of ["bash --norc --noprofile", "zsh -f", "dash"]) {
  const program = shell.split(" ")[0];
  const test = `a first call in ${program} leaves one typed row, no socket path`;
  Deno.test({
    name: test,
    ...needs(test, program),
    async fn() {
      await withServer("stdio", {}, async (conn, tmux) => {
        const pane = await tmux.newPane(`env PS1='$ ' HISTFILE=/dev/null ${shell}`);
        await tmux.run("resize-window", "-t", pane, "-x", "80", "-y", "24");
        await waitForPrompt(tmux.socketName, pane);
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command: "echo hi" },
        }) as CallToolResult;
        assertEquals((result.structuredContent as { output: string[] }).output, ["hi"]);
        const rows = (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().split("\n");
        // From the row the line starts on (a shell may leave a row of its own above, as zsh's
        // PROMPT_SP does when the window is resized) to the command's output.
        const first = rows.findIndex((row) => row.includes("__tm"));
        const typed = rows.slice(first, rows.indexOf("hi"));
        assertEquals(typed.length, 1, `${typed.length} rows typed:\n${typed.join("\n")}`);
        assert(typed[0].startsWith("$  __tmux_mcp_"), typed[0]);
        const socket = (await tmux.run("display-message", "-p", "#{socket_path}")).trim();
        assert(!rows.join("").includes(socket), "the socket path was typed");
        // The buffer the function was fetched from went with the call, and the variable the
        // shell fetched it into (3 KB in the user's shell before).
        await assertNoLeftovers(tmux, conn.serverPid);
        const left = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command: "echo ${__tm-gone}" },
        }) as CallToolResult;
        assertEquals((left.structuredContent as { output: string[] }).output, ["gone"]);
      });
    },
  });
}

Deno.test("a first call at a full screen's last row, or timed out, reads its output exactly", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane("env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile");
    await tmux.run("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await waitForPrompt(tmux.socketName, pane);
    // The prompt on the last row: the fetching line scrolls the screen as it is typed.
    await tmux.run("send-keys", "-t", pane, "seq 1 40", "Enter");
    await until(
      "the prompt at the last row",
      async () =>
        (await tmux.run("display-message", "-p", "-t", pane, "#{cursor_y}")).trim() === "23",
    );
    const timedOut = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: pane, command: "sleep 1;echo ok", timeout: 0.5 },
    }) as CallToolResult;
    const runId = (timedOut.structuredContent as { run_id: string }).run_id;
    const rest = await conn.client.callTool({
      name: "wait_for_command",
      arguments: { run_id: runId, timeout: 10 },
    }) as CallToolResult;
    const out = rest.structuredContent as { exit_status: number; output: string[] };
    assertEquals([out.exit_status, out.output], [0, ["ok"]], JSON.stringify(out));
    const rows = (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().split("\n");
    const typed = rows.findIndex((row) => row.includes("__tm"));
    assertEquals(rows.slice(typed), [rows[typed], "ok", "$"], rows.join("\n"));
    assertEquals(rows[typed - 1], "40", "a row of the screen went with the fetching line");
    const next = await conn.client.callTool({
      name: "capture_pane",
      arguments: { pane_id: pane },
    }) as CallToolResult;
    const lines = (next.structuredContent as { lines: string[] }).lines;
    // tmux 3.2a pads joined lines with blanks, which the server drops (see `unpadJoined`).
    assertEquals(lines.slice(-3).map((line) => line.trimEnd()), ["$ sleep 1;echo ok", "ok", "$"]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

for (const shell of ["bash --norc --noprofile", "zsh -f", "dash"]) {
  const program = shell.split(" ")[0];
  const test =
    `${program} under set -e without $TMUX: the fetch fails, the shell stays, the function comes whole`;
  Deno.test({
    name: test,
    ...needs(test, program),
    async fn() {
      await withServer("stdio", {}, async (conn, tmux) => {
        const pane = await tmux.newPane(
          `env -i PS1='$ ' PATH=${Deno.env.get("PATH")} HISTFILE=/dev/null ${shell}`,
        );
        await waitForPrompt(tmux.socketName, pane);
        const pid = await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}");
        await tmux.run("send-keys", "-t", pane, "set -e", "Enter");
        await waitForPrompt(tmux.socketName, pane);
        for (const word of ["first", "second"]) {
          const result = await conn.client.callTool({
            name: "run_command",
            arguments: { pane_id: pane, command: `echo ${word}` },
          }) as CallToolResult;
          assertEquals((result.structuredContent as { output: string[] }).output, [word]);
        }
        assertEquals(await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}"), pid);
        const left = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command: "echo ${__tm-gone}" },
        }) as CallToolResult;
        assertEquals((left.structuredContent as { output: string[] }).output, ["gone"]);
      });
    },
  });
}
