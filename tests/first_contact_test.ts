// What a newcomer and a client meet first: the server on a terminal says what it waits for; bad
// tool names stop it, naming the good ones; --help lists every toolset; settings it may not read
// are said to be ignored; `initialize` and tools/list carry what clients shape the model's view
// with; error replies name the request they answer.

import { assert, assertEquals, assertMatch } from "./deps.ts";
import { maxResultChars } from "../src/tools/define/define.ts";
import { TOOLSET_NAMES, TOOLSETS } from "../src/tools/define/toolsets.ts";
import manifest from "../deno.json" with { type: "json" };
import { postMcp, runServerToExit, withServer } from "./helpers/mcp.ts";
import { startTmux, until, untilRunning } from "./helpers/tmux.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

Deno.test("on a terminal the server says it waits for a client; on a pipe it says nothing", async () => {
  const tmux = await startTmux();
  try {
    const pane = await tmux.newPane(
      `${Deno.execPath()} run --quiet --no-prompt --allow-run=tmux ${MAIN}; sleep 60`,
    );
    await until("the server's first words", async () => {
      const screen = await tmux.run("capture-pane", "-p", "-J", "-t", pane);
      return screen.includes("waiting for an MCP client");
    });
    const screen = await tmux.run("capture-pane", "-p", "-J", "-t", pane);
    assertMatch(screen, /npx @modelcontextprotocol\/inspector/);
    assertMatch(screen, /--help lists the flags/);
    assertMatch(screen, /not permitted to read the environment: TMUX_MCP_\* settings/);
    await tmux.run("send-keys", "-t", pane, "C-c");
    // The server ends on C-c, and the pane's sleep comes to the front.
    await untilRunning(tmux, pane, "sleep");
  } finally {
    await tmux.close();
  }
  // stdin is not a terminal here (it is /dev/null): not a word beyond the permission notice.
  const piped = await runServerToExit(["--allow-run=tmux", "--allow-env"], []);
  assertEquals([piped.code, piped.stderr], [0, ""]);
});

Deno.test("unknown tool and toolset names stop the server at start, naming the good ones", async () => {
  for (const flag of ["--tools", "--exclude-tools", "--with-tools"]) {
    const out = await runServerToExit(["--allow-run=tmux"], [flag, "run_command,nope"]);
    assertEquals(out.code, 2, out.stderr);
    assertMatch(out.stderr, new RegExp(`${flag}: unknown tool "nope"; the tools are run_command,`));
    assertMatch(out.stderr, /run_shell_command \(compat\)/);
  }
  const sets = await runServerToExit(["--allow-run=tmux"], ["--toolsets", "core,nope"]);
  assertEquals(sets.code, 2);
  assertMatch(sets.stderr, /unknown toolset "nope": use core, fanout, read/);
});

Deno.test("--help lists every toolset and every tool", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", MAIN, "--help"],
    stdout: "piped",
  }).output();
  const help = new TextDecoder().decode(out.stdout);
  for (const set of TOOLSET_NAMES) {
    assertMatch(help, new RegExp(`^  ${set} +\\S`, "m"), `toolset ${set}`);
    for (const tool of TOOLSETS[set]) assert(help.includes(tool), `tool ${tool}`);
  }
});

Deno.test("settings that may not be read are said to be ignored, once", async () => {
  const denied = await runServerToExit(["--allow-run=tmux"], []);
  assertEquals(denied.stderr.match(/not permitted to read the environment/g)?.length, 1);
  assertMatch(denied.stderr, /--allow-env=TMUX_MCP_\*,TMUX_PANE/);
  const granted = await runServerToExit(["--allow-run=tmux", "--allow-env=TMUX_MCP_*"], []);
  assertEquals(granted.stderr, "");
});

/** Every `type` that is an array, anywhere in a schema, by its path. */
function typeArrays(schema: unknown, path: string, found: string[] = []): string[] {
  if (schema === null || typeof schema !== "object") return found;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type" && Array.isArray(value)) found.push(path);
    typeArrays(value, `${path}.${key}`, found);
  }
  return found;
}

Deno.test("initialize and tools/list carry what clients shape the model's view with", async () => {
  const args = ["--toolsets", "all", "--safety", "destructive", "--max-output-bytes", "65536"];
  await withServer("stdio", { extraArgs: args }, async (conn) => {
    const info = conn.client.getServerVersion();
    assertEquals(info?.version, manifest.version);
    assertEquals(info?.title, "tmux");
    assertMatch(info?.description ?? "", /exit status/);
    assertMatch(info?.websiteUrl ?? "", /^https:\/\//);
    const instructions = conn.client.getInstructions() ?? "";
    const size = new TextEncoder().encode(instructions).length;
    assert(size > 500 && size <= 2048, `instructions of ${size} bytes`);
    assertMatch(instructions, /Reach for run_command first/);

    const { tools } = await conn.client.listTools();
    const meta = (name: string) => tools.find((tool) => tool.name === name)?._meta ?? {};
    for (const name of ["run_command", "wait_for_command", "send_keys", "capture_pane"]) {
      assertEquals(meta(name)["anthropic/alwaysLoad"], true, name);
    }
    const alwaysLoaded = tools.filter((tool) => tool._meta?.["anthropic/alwaysLoad"]).length;
    assertEquals(alwaysLoaded, 4);
    for (const name of ["run_command", "read_command_output", "capture_pane", "search_panes"]) {
      assertEquals(meta(name)["anthropic/maxResultSizeChars"], maxResultChars(65536), name);
    }
    assertEquals(meta("list_sessions"), {});
    assertEquals(tools.length, 47);

    const arrays = tools.flatMap((tool) => [
      ...typeArrays(tool.inputSchema, `${tool.name}.input`),
      ...typeArrays(tool.outputSchema, `${tool.name}.output`),
    ]);
    assertEquals(arrays, []);
    const windows = tools.find((tool) => tool.name === "list_windows")!;
    assertEquals(windows.inputSchema.properties?.session_id, {
      description: "like $1; or session_name",
      type: "string",
    });
    // An optional input left null still means "absent"; a name told in an id's description is
    // taken.
    const listed = await conn.client.callTool({
      name: "list_windows",
      arguments: { session_id: null, session_name: "main" },
    });
    assert(!listed.isError, JSON.stringify(listed.content));
    const run = tools.find((tool) => tool.name === "run_command")!.inputSchema;
    // The run contract's max_lines: an integer or null, null by default.
    assertEquals(run.properties?.max_lines, {
      default: null,
      description: "only the last N lines",
      anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }],
    });
    assertMatch(
      String((run.properties?.pane_id as { description: string }).description),
      /; or window_id, session_id, session_name$/,
    );
    for (const name of ["window_id", "session_id", "session_name"]) {
      assert(!(name in (run.properties ?? {})), name);
    }
    const bounds = tools.flatMap((tool) =>
      JSON.stringify(tool.inputSchema).match(/"(maxLength|maxItems|additionalProperties)"/g) ?? []
    );
    assertEquals(bounds, []);
    const captured = await conn.client.callTool({
      name: "capture_pane",
      arguments: { session_name: "main" },
    });
    assert(!captured.isError, JSON.stringify(captured.content));
  });
});

Deno.test("error replies name the request they answer whenever its id could be read", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--allow-run=tmux", MAIN],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":7,"method":5}\n{"id":8}\n'));
  await writer.close();
  const lines = new TextDecoder().decode((await child.output()).stdout).trim().split("\n");
  const ids = lines.map((line) => JSON.parse(line)).map((reply) => [reply.id, reply.error?.code]);
  assertEquals(ids, [[7, -32600], [8, -32600]]);

  await withServer("http", {}, async (conn) => {
    const url = conn.url!;
    const auth = { authorization: `Bearer ${conn.token}` };
    const noSession = await postMcp(url, auth, '{"jsonrpc":"2.0","id":9,"method":"tools/list"}');
    assertEquals([noSession.status, (await noSession.json()).id], [400, 9]);
    const gone = await postMcp(
      url,
      { ...auth, "mcp-session-id": "no-such-session" },
      '{"jsonrpc":"2.0","id":"ten","method":"tools/list"}',
    );
    assertEquals([gone.status, (await gone.json()).id], [404, "ten"]);
    const notJson = await postMcp(url, auth, "{");
    assertEquals([notJson.status, (await notJson.json()).id], [400, null]);
  });
});
