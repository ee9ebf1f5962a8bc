// A confined server (--own-sessions, --sessions) sees and touches only its scope: other sessions
// are missing from every list and refused by every other tool with out_of_scope, over stdio and
// HTTP, fan-out and resources included; a session it creates is its own.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, textOf, type TransportKind, withServer } from "./helpers/mcp.ts";
import type { TestTmux } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

/** A shell without rc files, as the test's tmux starts. */
const SHELL = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile";

async function call(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

/** The ids of a session's first window and pane. */
async function idsOf(tmux: TestTmux, session: string): Promise<{ window: string; pane: string }> {
  const [window, pane] = (await tmux.run(
    "display-message",
    "-p",
    "-t",
    `${session}:`,
    "#{window_id} #{pane_id}",
  )).trim().split(" ");
  return { window, pane };
}

/** Every way a tool can name the user's session "main", its window or its pane. */
function reachingMain(main: { session: string; window: string; pane: string }): [string, Json][] {
  const { session, window, pane } = main;
  return [
    ["run_command", { pane_id: pane, command: "touch /tmp/never" }],
    ["run_command", { session_name: "main", command: "true" }],
    ["send_keys", { pane_id: pane, text: "x" }],
    ["capture_pane", { pane_id: pane }],
    ["get_pane_info", { pane_id: pane }],
    ["get_window_info", { window_id: window }],
    ["get_session_info", { session_id: session }],
    ["list_panes", { session_id: session }],
    ["list_windows", { session_name: "main" }],
    ["kill_pane", { pane_id: pane }],
    ["kill_session", { session_id: session }],
    ["rename_session", { session_id: session, new_name: "x" }],
    ["swap_pane", { source_pane_id: pane, target_pane_id: pane }],
    ["create_window", {}],
    ["run_command_many", { pane_ids: [pane], command: "true" }],
    ["run_command_many", { session_id: session, command: "true" }],
    ["wait_for_command", { run_id: `${pane.slice(1)}.${"0".repeat(16)}` }],
    ["set_option", { name: "status", value: "off", scope: "server" }],
    ["search_panes", { pattern: "x", session_id: session }],
  ];
}

async function confinedServerSeesOnlyItsOwn(kind: TransportKind): Promise<void> {
  await withServer(kind, {
    extraArgs: [
      "--own-sessions",
      "--sessions",
      "ci-*",
      "--toolsets",
      "all",
      "--safety",
      "destructive",
    ],
  }, async (conn, tmux) => {
    // The user's session "main" (the test's tmux made it), and one named in scope.
    await tmux.run("new-session", "-d", "-s", "ci-build", SHELL);
    const main = { session: "$0", ...await idsOf(tmux, "main") };
    const created = await call(conn, "create_session", { name: "agent", command: SHELL });
    assert(!created.isError, textOf(created));
    const own = created.structuredContent as Json;
    // A name that is neither its own (made elsewhere) nor in the globs stays out.
    const refusedName = await call(conn, "rename_session", {
      session_id: own.session_id,
      new_name: "renamed",
    });
    assert(!refusedName.isError, textOf(refusedName));
    const listed = await call(conn, "list_sessions", {});
    const names = ((listed.structuredContent as Json).sessions as Json[]).map((s) =>
      s.session_name
    );
    assertEquals(names.sort(), ["ci-build", "renamed"]);
    const panes = ((await call(conn, "list_panes", {})).structuredContent as Json).panes as Json[];
    assert(panes.every((p) => p.session_name !== "main"), JSON.stringify(panes));
    assertEquals(panes.length, 2);
    const windows = ((await call(conn, "list_windows", {})).structuredContent as Json)
      .windows as Json[];
    assertEquals(windows.length, 2);
    const info = (await call(conn, "get_server_info", {})).structuredContent as Json;
    assertEquals(info.sessions, 2);
    for (const [tool, args] of reachingMain(main)) {
      const result = await call(conn, tool, args);
      assertEquals(result.isError, true, `${tool} ${JSON.stringify(args)}: ${textOf(result)}`);
      // tmux would pick a session for create_window: one must be named.
      const code = tool === "create_window" ? "invalid_argument" : "out_of_scope";
      assertMatch(textOf(result), new RegExp(`^${code}: `), `${tool}`);
    }
    const notMine = await call(conn, "create_session", { name: "main2" });
    assert(!notMine.isError, "--own-sessions: a session it makes is its own, whatever its name");
    const resource = await conn.client.readResource({
      uri: `tmux://panes/${encodeURIComponent(main.pane)}`,
    })
      .then(() => "read", (error) => String(error));
    assertMatch(resource, /outside what this server may touch/);
    // What it may reach works: its own session, and one the globs name.
    const ran = await call(conn, "run_command_many", {
      pane_ids: [own.pane_id, (await idsOf(tmux, "ci-build")).pane],
      command: "echo in",
    });
    assert(!ran.isError, textOf(ran));
    // Nothing was done to main.
    assertEquals(
      (await tmux.run("display-message", "-p", "-t", main.pane, "#{session_name}")).trim(),
      "main",
    );
    await assertNoLeftovers(tmux, conn.serverPid);
  });
}

Deno.test("a confined server (stdio) neither lists nor touches a session outside its scope", async () => {
  await confinedServerSeesOnlyItsOwn("stdio");
});

Deno.test("a confined server (HTTP) neither lists nor touches a session outside its scope", async () => {
  await confinedServerSeesOnlyItsOwn("http");
});

Deno.test("--sessions alone: only names that match can be made", async () => {
  await withServer("stdio", { extraArgs: ["--sessions", "ci-*"] }, async (conn, tmux) => {
    const refused = await call(conn, "create_session", { name: "other" });
    assertMatch(textOf(refused), /^out_of_scope: a session named "other"/);
    const made = await call(conn, "create_session", { name: "ci-1" });
    assert(!made.isError, textOf(made));
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("confinement binds the tools, not the shells: the agent is told so", async () => {
  await withServer("stdio", { extraArgs: ["--own-sessions", "--sessions", "ci-*"] }, async (
    conn,
    tmux,
  ) => {
    const created = await call(conn, "create_session", { name: "agent", command: SHELL });
    const pane = String((created.structuredContent as Json).pane_id);
    // The boundary as it is: a command in the agent's own pane runs as the user, and tmux
    // itself reaches the user's session "main" (a tool naming it is refused).
    const ran = await call(conn, "run_command", {
      pane_id: pane,
      command: "tmux list-sessions -F '#{session_name}' | sort | tr '\\n' ' '",
    });
    assertEquals((ran.structuredContent as Json).output, ["agent main "]);
    const said = /runs as the user and can reach every tmux session/;
    const instructions = conn.client.getInstructions() ?? "";
    assertMatch(instructions, /confined to the sessions it creates and sessions named ci-\*/);
    assertMatch(instructions, said);
    const tools = (await conn.client.listTools()).tools;
    const described = (name: string) => tools.find((tool) => tool.name === name)?.description;
    assertMatch(described("run_command") ?? "", said);
    assertMatch(described("send_keys") ?? "", said);
    // A tool that only reads says nothing of it.
    assert(!said.test(described("capture_pane") ?? ""));
    await tmux.run("kill-session", "-t", "agent");
  });
  await withServer("stdio", {}, (conn) => {
    assert(!/confined/.test(conn.client.getInstructions() ?? ""));
    return Promise.resolve();
  });
});
