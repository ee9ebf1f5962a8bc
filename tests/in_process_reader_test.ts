// A shell that reads input itself, with no program of its own running (xonsh's input(), elvish's
// read-line): nothing shows in the process list, yet its line editor is not reading a command
// line, and a line typed then would be the script's answer. run_command must leave it alone,
// whether or not a call has followed the pane before.

import { assertEquals, assertMatch } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { type TestTmux, until } from "./helpers/tmux.ts";

interface RunResult {
  exit_status: number | null;
  output: string[];
  started: boolean;
  not_started_reason: string | null;
}

/** A shell, and a line of its own language that asks `Name? ` and prints `got <answer>`. */
interface Case {
  program: string;
  ask: string;
  /** Prints `back`. */
  back: string;
}

const CASES: Case[] = [
  { program: "xonsh", ask: `x = input("Name? "); print("got " + x)`, back: "print('back')" },
  { program: "elvish", ask: "print 'Name? '; var x = (read-line); echo got $x", back: "echo back" },
];

async function run(conn: Connection, args: Record<string, unknown>): Promise<RunResult> {
  const result = await conn.client.callTool({ name: "run_command", arguments: args });
  return result.structuredContent as unknown as RunResult;
}

async function screen(tmux: TestTmux, pane: string): Promise<string> {
  return (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd();
}

for (const shell of CASES) {
  for (const followed of [true, false]) {
    const when = followed ? "after a call" : "on a pane's first call";
    testNeeding(
      [shell.program],
      `${shell.program} reading input itself is left alone, ${when}`,
      async () => {
        const home = await Deno.makeTempDir({ prefix: "tmux-mcp-reader-" });
        try {
          await withServer("stdio", {}, async (conn, tmux) => {
            const pane = await tmux.newPane(
              `env -i HOME=${home} PATH=${
                Deno.env.get("PATH")
              } TERM=tmux-256color ${shell.program}`,
            );
            if (followed) {
              assertEquals((await run(conn, { command: shell.back, pane_id: pane })).output, [
                "back",
              ]);
            } else {
              await until(`${shell.program} shows a prompt`, async () => {
                const shown = await tmux.run(
                  ...["display-message", "-p", "-t", pane, "#{pane_current_command}"],
                );
                return shown.trim() === shell.program && await screen(tmux, pane) !== "";
              });
            }
            await tmux.run("send-keys", "-t", pane, "-l", shell.ask);
            await tmux.run("send-keys", "-t", pane, "Enter");
            await until("the question", async () => (await screen(tmux, pane)).endsWith("Name?"));
            const refused = await run(conn, { command: shell.back, pane_id: pane, timeout: 5 });
            assertEquals(refused.started, false, JSON.stringify(refused));
            assertMatch(String(refused.not_started_reason), /not reading a command line/);
            // Nothing was typed into the question: it takes its own answer.
            await tmux.run("send-keys", "-t", pane, "alice", "Enter");
            await until("the answer", async () => (await screen(tmux, pane)).includes("got alice"));
            const back = await run(conn, { command: shell.back, pane_id: pane, timeout: 10 });
            assertEquals(back.output, ["back"], JSON.stringify(back));
            await assertNoLeftovers(tmux, conn.serverPid);
          });
        } finally {
          await until(
            "the shell's home is removed",
            () => Deno.remove(home, { recursive: true }).then(() => true, () => false),
          );
        }
      },
    );
  }
}
