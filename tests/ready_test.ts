// A shell the server starts (a new session, window or split, a respawn) may still be reading its
// startup files when the next call comes: the call waits for it within its time, and runs then,
// exactly (zsh whose .zshrc runs a program was refused as running it).

import { assertEquals, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<Json> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assertEquals(result.isError ?? false, false, `${name}: ${textOf(result)}`);
  return result.structuredContent as Json;
}

/** Each shell, started with startup files that take 2 s. */
const SHELLS: Array<{ shell: string; command: (dir: string) => string }> = [
  { shell: "bash", command: (dir) => `bash --rcfile ${dir}/bashrc` },
  { shell: "zsh", command: (dir) => `env ZDOTDIR=${dir} zsh` },
  { shell: "fish", command: () => "fish -C 'sleep 2'" },
];

for (const { shell, command } of SHELLS) {
  testNeeding(
    [shell],
    `a ${shell} the server started is waited for while it reads its startup files`,
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-rc-" });
      await Deno.writeTextFile(`${dir}/bashrc`, "sleep 2\nPS1='$ '\n");
      await Deno.writeTextFile(`${dir}/.zshrc`, "sleep 2\nPS1='$ '\n");
      const extraArgs = ["--toolsets", "all", "--safety", "destructive"];
      try {
        await withServer("stdio", { extraArgs }, async (conn, tmux) => {
          const shellCommand = command(dir);
          const made = [
            await call(conn, "create_session", { name: `rc-${shell}`, command: shellCommand }),
            await call(conn, "split_window", { pane_id: tmux.paneId, command: shellCommand }),
          ];
          for (const [i, { pane_id }] of made.entries()) {
            const ran = await call(conn, "run_command", {
              pane_id,
              command: `echo ready ${i}`,
              timeout: 15,
            });
            assertEquals([ran.exit_status, ran.output], [0, [`ready ${i}`]], JSON.stringify(ran));
          }
          const pane = String(made[0].pane_id);
          await call(conn, "respawn_pane", { pane_id: pane, kill: true, command: shellCommand });
          const again = await call(conn, "run_command", {
            pane_id: pane,
            command: "echo respawned",
            timeout: 15,
          });
          assertEquals(
            [again.exit_status, again.output],
            [0, ["respawned"]],
            JSON.stringify(again),
          );
        });
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
}
