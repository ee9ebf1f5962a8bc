// Fit every client (issue 20): a lean default tool list, toolsets for the rest, a tmux under its
// own TMUX_TMPDIR found when a client passes it, and protocol probes answered before any session
// is made or evicted.

import {
  assert,
  assertEquals,
  assertMatch,
  Client,
  getDefaultEnvironment,
  StdioClientTransport,
} from "./deps.ts";
import {
  modelVisibleBytes,
  postMcp,
  serverCommand,
  startServer,
  withServer,
} from "./helpers/mcp.ts";
import { startTmux } from "./helpers/tmux.ts";
import { ALL_TOOLS } from "../src/tools/mod.ts";

Deno.test("the default tool list is lean; --toolsets all offers every tool there is", async (t) => {
  await t.step("default: at most 16 tools, under 9 KB, no socket_name, warnings kept", async () => {
    await withServer("stdio", {}, async (conn) => {
      const { tools } = await conn.client.listTools();
      assert(tools.length <= 16, `${tools.length} tools`);
      const bytes = modelVisibleBytes(tools);
      assert(bytes < 9 * 1024, `the default tool list is ${bytes} bytes`);
      for (const tool of tools) {
        const properties = (tool.inputSchema as { properties?: object }).properties ?? {};
        assert(!("socket_name" in properties), `${tool.name} takes socket_name`);
      }
      const run = tools.find((tool) => tool.name === "run_command")!.description ?? "";
      assertMatch(run, /MAY STILL BE RUNNING/);
      assertMatch(run, /only if started is false \(it never ran\)/);
      const caps = await conn.client.readResource({ uri: "tmux://capabilities" });
      const body = JSON.parse(String((caps.contents[0] as { text: string }).text));
      assertEquals(body.toolsets, ["core"]);
      assertEquals(body.toolsets_available.layout.includes("rename_window"), true);
      assertEquals(body.toolsets_available.recovery, [], "above the tier: nothing to add");
    });
  });
  await t.step("all, at the top tier: every tool, none over 1 KB of description", async () => {
    await withServer("stdio", {
      extraArgs: ["--toolsets", "all", "--safety", "destructive"],
    }, async (conn) => {
      const { tools } = await conn.client.listTools();
      assertEquals(tools.map((tool) => tool.name).sort(), ALL_TOOLS.map((s) => s.name).sort());
      for (const tool of tools) {
        const size = new TextEncoder().encode(tool.description ?? "").length;
        assert(size <= 1024, `${tool.name}: a ${size}-byte description`);
      }
    });
  });
  await t.step("--any-socket lets calls name another tmux server", async () => {
    await withServer("stdio", { extraArgs: ["--any-socket"] }, async (conn) => {
      const { tools } = await conn.client.listTools();
      const run = tools.find((tool) => tool.name === "run_command")!;
      assert("socket_name" in (run.inputSchema as { properties: object }).properties);
    });
  });
});

/** A tmux server whose socket lives under `dir` (as TMUX_TMPDIR puts it), session "main". */
async function tmuxUnder(dir: string, socketName: string): Promise<() => Promise<void>> {
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", {
      args: ["-L", socketName, ...args],
      env: { TMUX_TMPDIR: dir },
      stdout: "null",
      stderr: "null",
    }).output();
  const started = await tmux("-f", "/dev/null", "new-session", "-d", "-s", "main");
  assert(started.success, "tmux under its own TMUX_TMPDIR");
  return async () => {
    await tmux("kill-server");
  };
}

Deno.test("a tmux under its own TMUX_TMPDIR: found through the env entry or --tmux-tmpdir", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-tmpdir-" });
  const socketName = `tmux-mcp-test-${Deno.pid}-tmpdir`;
  const stop = await tmuxUnder(dir, socketName);
  try {
    const launches = [
      // What a client's configuration passes: its default environment plus the entry.
      { env: { ...getDefaultEnvironment(), TMUX_TMPDIR: dir }, extraArgs: [] },
      { env: getDefaultEnvironment(), extraArgs: ["--tmux-tmpdir", dir] },
    ];
    for (const launch of launches) {
      const [command, ...args] = serverCommand("stdio", {
        socketName,
        extraArgs: launch.extraArgs,
      });
      const client = new Client({ name: "tmux-mcp-tmpdir-test", version: "0" });
      await client.connect(new StdioClientTransport({ command, args, env: launch.env }));
      try {
        const listed = await client.callTool({ name: "list_sessions", arguments: {} });
        const sessions = (listed.structuredContent as { sessions: { session_name: string }[] })
          .sessions;
        assertEquals(sessions.map((s) => s.session_name), ["main"], JSON.stringify(launch));
      } finally {
        await client.close();
      }
    }
  } finally {
    await stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("at the session cap, a protocol probe is refused without touching a session", async () => {
  const tmux = await startTmux();
  const conn = await startServer("http", { socketName: tmux.socketName });
  const url = conn.url!;
  const auth = { authorization: `Bearer ${conn.token}` };
  const post = (headers: Record<string, string>, body?: string) =>
    postMcp(url, { ...auth, ...headers }, body);
  try {
    const ids: string[] = [];
    // The test's own client holds one session: 63 more reach the cap of 64.
    for (let i = 0; i < 63; i++) {
      const response = await post({});
      assertEquals(response.status, 200, `session ${i + 1}`);
      ids.push(response.headers.get("mcp-session-id") ?? "");
      await response.body?.cancel();
    }
    const probe = await post({ "mcp-protocol-version": "2099-01-01" });
    assertEquals(probe.status, 400);
    assertMatch(await probe.text(), /unsupported protocol version/);
    const stray = await post(
      {},
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    );
    assertEquals(stray.status, 400);
    await stray.body?.cancel();
    // Every session is still there: the oldest (idle, first to go at the cap) answers.
    const oldest = await post(
      { "mcp-session-id": ids[0], "mcp-protocol-version": "2025-06-18" },
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    );
    assertEquals(oldest.status, 200);
    await oldest.body?.cancel();
    const tools = await conn.client.listTools();
    assert(tools.tools.length > 0);
  } finally {
    await conn.close();
    await tmux.close();
  }
});
