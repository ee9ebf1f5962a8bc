// Nothing of ours outlives us: a server killed by SIGKILL (no code of its own runs after) leaves
// no control client in tmux and no pane frozen, even while a pane floods our watcher with output.
// Before tmux 3.7 frees a control client only once its queued output is written, and output to
// a dead reader is never written: the client stayed, and a pane it alone followed stopped.

import { startServer } from "./helpers/mcp.ts";
import { commandStarted, startTmux, until } from "./helpers/tmux.ts";

/**
 * Kills, each once a flood has started. Without the guard every run failed: on 3.3a a client
 * stayed (3 runs of 3), on 3.7c the pane showed nothing more until it was typed in (1 of 1).
 */
const ROUNDS = 5;

const FLOOD = "while :; do echo 'a line of flood output, long enough to fill pipes quickly'; done";

Deno.test("a server killed (SIGKILL) during a flood of output leaves no client attached and no pane frozen", async () => {
  const tmux = await startTmux();
  try {
    const pane = tmux.paneId;
    for (let round = 0; round < ROUNDS; round++) {
      const conn = await startServer("stdio", { socketName: tmux.socketName });
      const call = conn.client.callTool({
        name: "run_command",
        arguments: { command: FLOOD, pane_id: pane, timeout: 30 },
      }).catch(() => null);
      await until("the flood started", () => commandStarted(tmux, pane));
      Deno.kill(conn.serverPid, "SIGKILL");
      await call;
      await conn.close();
      await until(
        "the killed server's clients left",
        async () => (await tmux.run("list-clients", "-F", "#{client_pid}")).trim() === "",
      );
      // The pane is read again: the flood ends by C-c and the prompt shows.
      await tmux.run("send-keys", "-t", pane, "C-c");
      await until("the prompt after the flood", async () => {
        const screen = await tmux.run("capture-pane", "-p", "-t", pane);
        return screen.trimEnd().endsWith("$");
      });
    }
  } finally {
    await tmux.close();
  }
});
