// A pane's shell that cannot reach what a run needs (tmux, a SHA-256 tool) is refused at once,
// the cause said, and nothing runs: the check comes before the command, in every kind of shell.

import { assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { withServer } from "./helpers/mcp.ts";
import { until } from "./helpers/tmux.ts";
import { testNeeding } from "./helpers/prerequisites.ts";

/** An absolute path for a program on this machine's PATH. */
async function which(program: string): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", `command -v ${program}`],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

const SHELLS: [program: string, args: string, shown: string][] = [
  ["bash", "--norc --noprofile", "bash"],
  ["zsh", "-f", "zsh"],
  ["fish", "--no-config", "fish"],
  ["tcsh", "-f", "csh"],
];

testNeeding(
  ["zsh", "fish", "tcsh"],
  "a shell without tmux on its PATH is refused at once, the cause said, in every kind of shell",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const empty = await Deno.makeTempDir({ prefix: "tmux-mcp-path-" });
      const marker = `${empty}/ran`;
      try {
        for (const [program, args, shown] of SHELLS) {
          const pane = await tmux.newPane(`env PATH=${empty} ${await which(program)} ${args}`);
          await until(
            `${program} is up`,
            async () =>
              (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}"))
                .trim().endsWith(shown),
          );
          // Twice: the first call brings bash and zsh their function, the second only calls it.
          for (let i = 0; i < 2; i++) {
            const result = await conn.client.callTool({
              name: "run_command",
              arguments: { pane_id: pane, command: `echo x > ${marker}`, timeout: 20 },
            }) as CallToolResult;
            const run = result.structuredContent as Record<string, unknown>;
            assertEquals(
              [run.started, run.timed_out],
              [false, false],
              `${program}: ${JSON.stringify(run)}`,
            );
            assertMatch(
              String(run.not_started_reason),
              /cannot run tmux: it is not on the shell's PATH/,
            );
          }
          assertEquals(
            await Deno.stat(marker).then(() => true, () => false),
            false,
            `${program} ran it`,
          );
        }
        await assertNoLeftovers(tmux, conn.serverPid);
      } finally {
        await Deno.remove(empty, { recursive: true });
      }
    });
  },
);

testNeeding(
  ["fish"],
  "a launched shell without a SHA-256 tool on its PATH is refused at once, the cause said",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-path-" });
      try {
        await Deno.symlink(await which("tmux"), `${dir}/tmux`);
        const pane = await tmux.newPane(`env PATH=${dir} ${await which("fish")} --no-config`);
        await until(
          "fish is up",
          async () =>
            (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}"))
              .trim() === "fish",
        );
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command: "echo hi", timeout: 20 },
        }) as CallToolResult;
        const run = result.structuredContent as Record<string, unknown>;
        assertEquals([run.started, run.timed_out], [false, false], JSON.stringify(run));
        assertMatch(String(run.not_started_reason), /no SHA-256 tool \(sha256sum or shasum\)/);
        await assertNoLeftovers(tmux, conn.serverPid);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  },
);
