// Nothing of ours outlives us: a server killed by SIGKILL (no code of its own runs after) leaves
// no control client in tmux and no pane frozen, while a pane writes to our watcher all the time.
// tmux (every release) frees a control client only once its queued output is written, and output
// to a dead reader never is: the client stayed, and a pane it alone followed stopped.
//
// The pane prints a line every 10 ms, not as fast as it can: a reader that dies while tmux holds
// unwritten blocks of a flooding pane can crash tmux itself (fatal "not enough data" in
// control_write_pending; 3.3a to master), which nothing of ours can prevent once it is killed.

import { startServer } from "./helpers/mcp.ts";
import { commandRunning, commandStarted, startTmux, until } from "./helpers/tmux.ts";

/**
 * Kills, each once the loop has started. Without the guard every run failed: on 3.3a a client
 * stayed (3 runs of 3), on 3.7c the pane showed nothing more until it was typed in (1 of 1).
 */
const ROUNDS = 5;

const FLOOD = "while :; do echo 'a line of output, every 10 ms'; sleep 0.01; done";

Deno.test("a server killed (SIGKILL) while a pane prints leaves no client attached and no pane frozen", async () => {
  const tmux = await startTmux();
  try {
    const pane = tmux.paneId;
    for (let round = 0; round < ROUNDS; round++) {
      const conn = await startServer("stdio", { socketName: tmux.socketName });
      // What the call answered, should the loop never start (a refusal says why).
      let answered = "nothing yet";
      const call = conn.client.callTool({
        name: "run_command",
        arguments: { command: FLOOD, pane_id: pane, timeout: 30 },
      }).then((result) => void (answered = JSON.stringify(result).slice(0, 2000)), () => {});
      await until("the loop started", () => commandStarted(tmux, pane)).catch((error) => {
        throw new Error(`${error.message} (round ${round}); run_command answered: ${answered}`);
      });
      Deno.kill(conn.serverPid, "SIGKILL");
      await call;
      await conn.close();
      await until(
        "the killed server's clients left",
        async () => (await tmux.run("list-clients", "-F", "#{client_pid}")).trim() === "",
      );
      // The pane is read: its history keeps growing.
      const lines = async () =>
        Number(await tmux.run("display-message", "-p", "-t", pane, "#{history_size}"));
      const before = await lines();
      await until("the pane's output read on", async () => await lines() > before + 20);
      // A C-c between the loop's commands can go to bash and not end it: sent until it does.
      await until("the loop ended", async () => {
        await tmux.run("send-keys", "-t", pane, "C-c");
        return !(await commandRunning(tmux, pane));
      });
    }
  } finally {
    await tmux.close();
  }
});
