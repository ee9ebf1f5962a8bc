// run_command in the POSIX shells people use: bash (the other suites), dash and zsh here.

import { assertEquals, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { withServer } from "./helpers/mcp.ts";
import { needs } from "./helpers/prerequisites.ts";
import { waitForPrompt } from "./helpers/tmux.ts";

const SHELLS: Record<string, string> = {
  dash: "env PS1='$ ' dash",
  zsh: "env PS1='$ ' zsh -f",
};

for (const [name, command] of Object.entries(SHELLS)) {
  const test = `run_command in ${name}`;
  Deno.test({
    name: test,
    ...needs(test, name),
    async fn() {
      await withServer("stdio", {}, async (conn, tmux) => {
        const pane = await tmux.newPane(command);
        await waitForPrompt(tmux.socketName, pane);
        const run = async (args: Record<string, unknown>) => {
          const result = await conn.client.callTool({
            name: "run_command",
            arguments: { pane_id: pane, ...args },
          }) as CallToolResult;
          return result.structuredContent as { exit_status: number; output: string[] };
        };
        const seq = await run({ command: "seq 1 300; exit 4" });
        assertEquals([seq.exit_status, seq.output.length, seq.output.at(-1)], [4, 300, "300"]);
        const quoted = await run({ command: `printf '%s\\n' "it's" 'a\\b' '$x'` });
        assertEquals(quoted.output, ["it's", "a\\b", "$x"]);
        const unicode = await run({ command: "echo 'héllo 🚀'" });
        assertEquals(unicode.output, ["héllo 🚀"]);
        const noNewline = await run({ command: "printf abc" });
        assertEquals(noNewline.output, ["abc"]);
        const multi = await run({ command: "echo one\necho two", suppress_history: false });
        assertEquals(multi.output, ["one", "two"]);
        await tmux.run("send-keys", "-t", pane, "-l", "echo LEFT_AT_PROMPT; ");
        const unsent = await run({ command: "echo ran" });
        assertEquals(unsent.output, ["ran"]);
        await assertNoLeftovers(tmux, conn.serverPid);
      });
    },
  });
}
