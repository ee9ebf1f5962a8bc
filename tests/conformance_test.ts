// The MCP conformance suite's server scenarios that apply to any server, against our HTTP mode.

import { assertEquals } from "./deps.ts";
import { type Connection, startServer } from "./helpers/mcp.ts";
import { startTmux } from "./helpers/tmux.ts";

const SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

Deno.test("MCP conformance scenarios pass over HTTP", async (t) => {
  const tmux = await startTmux();
  const empty = await Deno.makeTempDir();
  let conn: Connection | null = null;
  try {
    // The conformance tool sends no headers of ours: the server runs without a token.
    conn = await startServer("http", { socketName: tmux.socketName, extraArgs: ["--no-token"] });
    for (const scenario of SCENARIOS) {
      await t.step(scenario, async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--quiet",
            "--no-lock",
            "-A",
            "npm:@modelcontextprotocol/conformance@0.1.16",
            "server",
            "--url",
            conn!.url ?? "",
            "--scenario",
            scenario,
          ],
          cwd: empty,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        assertEquals(out.code, 0, text.slice(-2000));
      });
    }
  } finally {
    await conn?.close();
    await tmux.close();
    await Deno.remove(empty, { recursive: true });
  }
});
