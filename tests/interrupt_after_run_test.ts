// An agent's habit: a C-c to be sure, right after a run. The run's bookkeeping (the tmux that clears
// its running mark, after the end marker) must not be killable by it, in any shell, or every later
// call is refused for a run that no longer exists.

import { assert, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { until } from "./helpers/tmux.ts";
import { testNeeding } from "./helpers/prerequisites.ts";

/** Program, the name tmux shows for it, and a command that fails at once. */
const SHELLS: Record<string, [string, string, string]> = {
  bash: ["bash --norc --noprofile", "bash", "false"],
  tcsh: ["tcsh -f", "csh", "false"],
  fish: ["fish --no-config", "fish", "false"],
  nu: ["nu --no-config-file", "nu", "error make {msg: boom}"],
  elvish: ["elvish -norc", "elvish", "fail boom"],
};

const ROUNDS = 6;

async function call(conn: Connection, name: string, args: Record<string, unknown>) {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

for (const [name, [program, shown, failing]] of Object.entries(SHELLS)) {
  testNeeding(
    [program.split(" ")[0]],
    `${name}: C-c right after each run never leaves the pane refusing runs`,
    async () => {
      await withServer("stdio", {}, async (conn, tmux) => {
        const home = await Deno.makeTempDir();
        try {
          const pane = await tmux.newPane(
            `env -i HOME=${home} PATH=${
              Deno.env.get("PATH")
            } TERM=tmux-256color PS1='$ ' ${program}`,
          );
          await until(`${name} shows a prompt`, async () => {
            const command = await tmux.run(
              "display-message",
              "-p",
              "-t",
              pane,
              "#{pane_current_command}",
            );
            const screen = await tmux.run("capture-pane", "-p", "-t", pane);
            return command.trim() === shown && screen.trim() !== "";
          });
          for (let round = 0; round < ROUNDS; round++) {
            await call(conn, "run_command", { pane_id: pane, command: failing });
            await call(conn, "send_keys", { pane_id: pane, keys: ["C-c"] });
            // The C-c may still reach the shell with the next line (nu drops a line an interrupt
            // lands on), and that run is honestly not started; the one after must run. Never is
            // the pane held by a run that is over.
            let alive = false;
            for (let attempt = 0; attempt < 2 && !alive; attempt++) {
              const next = await call(conn, "run_command", {
                pane_id: pane,
                command: "echo alive",
              });
              const out = next.structuredContent as Record<string, unknown> | undefined;
              assert(
                !/still running an earlier/.test(textOf(next)),
                `round ${round}: ${textOf(next)}`,
              );
              alive = JSON.stringify(out?.output) === JSON.stringify(["alive"]);
            }
            assert(alive, `round ${round}: no run worked after the C-c`);
          }
        } finally {
          await Deno.remove(home, { recursive: true }).catch(() => {});
        }
      });
    },
  );
}
