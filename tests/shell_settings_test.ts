// The pane's own shell survives its own settings: errexit, nounset, an ERR trap. A run's function
// returns the command's failure to the shell that called it, which set -e would take as its own.

import { assertEquals, type CallToolResult } from "./deps.ts";
import { withServer } from "./helpers/mcp.ts";
import { needs } from "./helpers/prerequisites.ts";
import { waitForPrompt } from "./helpers/tmux.ts";

const SHELLS: Record<string, string> = {
  bash: "env PS1='$ ' bash --norc --noprofile",
  dash: "env PS1='$ ' dash",
  zsh: "env PS1='$ ' zsh -f",
};

/** Typed at the prompt before the runs, as a user (or a sourced script) would. */
const SETTINGS: Record<string, string> = {
  bash: "set -euo pipefail; trap 'echo ERR-TRAP' ERR",
  dash: "set -eu",
  zsh: "set -euo pipefail; setopt err_return; trap 'echo ERR-TRAP' ERR",
};

for (const [name, command] of Object.entries(SHELLS)) {
  const test = `a ${name} with set -e (and -u, an ERR trap) survives failing runs`;
  Deno.test({
    name: test,
    ...needs(test, name),
    async fn() {
      await withServer("stdio", {}, async (conn, tmux) => {
        const pane = await tmux.newPane(command);
        await waitForPrompt(tmux.socketName, pane);
        const shell = await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}");
        await tmux.run("send-keys", "-t", pane, SETTINGS[name], "Enter");
        await waitForPrompt(tmux.socketName, pane);
        const run = async (line: string) => {
          const result = await conn.client.callTool({
            name: "run_command",
            arguments: { pane_id: pane, command: line, timeout: 10 },
          }) as CallToolResult;
          return result.structuredContent as { exit_status: number; output: string[] };
        };
        // pipefail: dash has none.
        const failing = { "false": 1, "exit 3": 3, "false | true": name === "dash" ? 0 : 1 };
        for (const [line, status] of Object.entries(failing)) {
          const failed = await run(line);
          assertEquals(failed.exit_status, status, line);
          const alive = await run("echo alive");
          assertEquals([alive.exit_status, alive.output], [0, ["alive"]], `after ${line}`);
        }
        assertEquals(
          await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}"),
          shell,
          "the same shell",
        );
      });
    },
  });
}
