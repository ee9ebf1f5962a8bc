// What our control clients do to the sessions they attach to: nothing a person would notice.

import { assertEquals, type CallToolResult } from "./deps.ts";
import { textOf, withServer } from "./helpers/mcp.ts";
import { waitForPrompt } from "./helpers/tmux.ts";

Deno.test("attaching and switching our clients leaves a session's environment as it was", async () => {
  await withServer("stdio", { extraArgs: ["--safety", "destructive"] }, async (conn, tmux) => {
    // update-environment names SSH_AUTH_SOCK: a client attaching without it would remove it.
    const sessions = ["main", "other"];
    await tmux.run("new-session", "-d", "-s", "other", "env PS1='$ ' bash --norc --noprofile");
    await waitForPrompt(tmux.socketName, "other");
    for (const session of sessions) {
      await tmux.run("set-environment", "-t", session, "SSH_AUTH_SOCK", "/tmp/agent.sock");
    }
    for (const session of sessions) {
      const pane = (await tmux.run("display-message", "-p", "-t", session, "#{pane_id}")).trim();
      const result = await conn.client.callTool({
        name: "run_command",
        arguments: { pane_id: pane, command: "true" },
      }) as CallToolResult;
      assertEquals(result.isError ?? false, false, textOf(result));
    }
    for (const session of sessions) {
      assertEquals(
        (await tmux.run("show-environment", "-t", session, "SSH_AUTH_SOCK")).trim(),
        "SSH_AUTH_SOCK=/tmp/agent.sock",
        session,
      );
    }
  });
});
