// What a pane shows of a call: the first run_command in a shell types at most three rows at 80
// columns (the run function is fetched by a short checked line, not typed whole), and never the
// tmux socket's path.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { withServer } from "./helpers/mcp.ts";
import { needs } from "./helpers/prerequisites.ts";
import { waitForPrompt } from "./helpers/tmux.ts";

for (const shell of ["bash --norc --noprofile", "zsh -f", "dash"]) {
  const program = shell.split(" ")[0];
  const test = `a first call in ${program} types at most three rows, no socket path`;
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
        assert(typed.length <= 3, `${typed.length} rows typed:\n${typed.join("\n")}`);
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
