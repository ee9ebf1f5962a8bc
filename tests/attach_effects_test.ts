// What our control clients do to the sessions they attach to: nothing a person would notice.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { startServer, textOf, withServer } from "./helpers/mcp.ts";
import { startTmux, waitForPrompt } from "./helpers/tmux.ts";

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

Deno.test("our long-lived clients carry none of our environment; a session we create gets what tmux's own would", async () => {
  const tmux = await startTmux();
  const env = { SSH_AUTH_SOCK: "/tmp/the-servers-agent.sock", TMUX_MCP_TEST_SECRET: "s3cret" };
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    extraArgs: ["--safety", "destructive"],
    env,
  });
  try {
    // Not the machine's own shell and startup files: a known quick one.
    await tmux.run("set-option", "-g", "default-command", "env PS1='$ ' bash --norc --noprofile");
    const made = await conn.client.callTool({
      name: "create_session",
      arguments: { name: "made" },
    }) as CallToolResult;
    assertEquals(made.isError ?? false, false, textOf(made));
    // update-environment names SSH_AUTH_SOCK: tmux copies it from the client that made the session.
    assertEquals(
      (await tmux.run("show-environment", "-t", "made", "SSH_AUTH_SOCK")).trim(),
      `SSH_AUTH_SOCK=${env.SSH_AUTH_SOCK}`,
    );
    const pane = (await tmux.run("display-message", "-p", "-t", "made", "#{pane_id}")).trim();
    const ran = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: pane, command: "true" },
    }) as CallToolResult;
    assertEquals(ran.isError ?? false, false, textOf(ran));
    // A client sends tmux its whole environment as it connects: ours send none.
    const ps = await new Deno.Command("ps", {
      args: ["-o", "pid=,args=", "--ppid", String(conn.serverPid)],
      stdout: "piped",
    }).output();
    const clients = new TextDecoder().decode(ps.stdout).split("\n")
      .filter((line) => / -C /.test(line)).map((line) => line.trim().split(" ")[0]);
    assert(clients.length >= 2, `a command client and a watcher: ${clients}`);
    for (const pid of clients) {
      // ps e: the command, then its environment.
      const shown = await new Deno.Command("ps", {
        args: ["eww", "-o", "args=", "-p", pid],
        stdout: "piped",
      }).output();
      const text = new TextDecoder().decode(shown.stdout);
      assert(text.includes(" -C attach-session "), text);
      assertEquals(text.includes("TMUX_MCP_TEST_SECRET"), false, `client ${pid}: ${text}`);
    }
  } finally {
    await conn.close();
    await tmux.close();
  }
});
