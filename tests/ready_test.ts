// A shell the server starts (a new session, window or split, a respawn) may still be reading its
// startup files when the next call comes: the call waits for it within its time, and runs then,
// exactly (zsh whose .zshrc runs a program was refused as running it).

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { type TestTmux, until } from "./helpers/tmux.ts";
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

/**
 * Runs `fn` with a server (every tool, every tier) and the command that starts the shell with
 * startup files that take 2 s.
 */
async function withStartupFiles(
  command: (dir: string) => string,
  fn: (conn: Connection, tmux: TestTmux, shellCommand: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-rc-" });
  await Deno.writeTextFile(`${dir}/bashrc`, "sleep 2\nPS1='$ '\n");
  await Deno.writeTextFile(`${dir}/.zshrc`, "sleep 2\nPS1='$ '\n");
  const extraArgs = ["--toolsets", "all", "--safety", "destructive"];
  try {
    await withServer("stdio", { extraArgs }, (conn, tmux) => fn(conn, tmux, command(dir)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (const { shell, command } of SHELLS) {
  testNeeding(
    [shell],
    `a ${shell} the server started is waited for while it reads its startup files`,
    async () => {
      await withStartupFiles(command, async (conn, tmux, shellCommand) => {
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
    },
  );
}

for (const { shell, command } of SHELLS) {
  testNeeding(
    [shell],
    `keys and text typed into a ${shell} the server started wait for its line editor`,
    async () => {
      await withStartupFiles(command, async (conn, tmux, shellCommand) => {
        // Typed while the startup file ran, the terminal echoed the keys above the prompt
        // (a row of their own), and a paste ran as typed commands: the shell had not asked
        // for bracketed paste yet.
        const typedInto = async (tool: string, args: Json, word: string): Promise<string[]> => {
          const made = await call(conn, "create_session", {
            name: `${tool}-${shell}`,
            command: shellCommand,
          });
          const pane = String(made.pane_id);
          await call(conn, tool, { pane_id: pane, ...args });
          await call(conn, "send_keys", { pane_id: pane, keys: ["Enter"] });
          await until(`${word} ran`, async () => (await rows(tmux, pane)).includes(word));
          return await rows(tmux, pane);
        };
        for (
          const [tool, args] of [["send_keys", { text: "echo keys-early" }], [
            "paste_text",
            { text: "echo pasted-early" },
          ]] as const
        ) {
          const word = String(args.text).slice(5);
          const screen = await typedInto(tool, args, word);
          const typed = screen.filter((row) => row.includes(`echo ${word}`));
          assertEquals(typed.length, 1, `${tool}:\n${screen.join("\n")}`);
          assert(!typed[0].startsWith("echo"), `${tool}: typed above the prompt:\n${screen}`);
        }
        // wait_ready: the verbs that start a shell return once it reads.
        const made = await call(conn, "create_window", {
          command: shellCommand,
          wait_ready: 15,
        });
        assertEquals(made.ready, true, JSON.stringify(made));
        const front = async (pane: string) =>
          (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}"))
            .trim();
        assertEquals(await front(String(made.pane_id)), shell);
        const respawned = await call(conn, "respawn_pane", {
          pane_id: made.pane_id,
          kill: true,
          command: shellCommand,
          wait_ready: 15,
        });
        assertEquals(respawned.ready, true, JSON.stringify(respawned));
        assertEquals(await front(String(made.pane_id)), shell);
        const waitedTooLittle = await call(conn, "split_window", {
          pane_id: made.pane_id,
          command: shellCommand,
          wait_ready: 0.5,
        });
        assertEquals(waitedTooLittle.ready, false, JSON.stringify(waitedTooLittle));
      });
    },
  );
}

/** The pane's rows, trailing blanks dropped. */
async function rows(tmux: TestTmux, pane: string): Promise<string[]> {
  return (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().split("\n");
}
