// Every tool of the toolset, its refusals, and the safety tiers, through a real MCP client.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, rejection, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { startTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function tool(conn: Connection, name: string, args: Json = {}): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

/** Calls a tool that must succeed; returns its structured content. */
async function ok(conn: Connection, name: string, args: Json = {}): Promise<Json> {
  const result = await tool(conn, name, args);
  assert(!result.isError, `${name} failed: ${textOf(result)}`);
  assert(result.structuredContent, `${name}: no structuredContent`);
  return result.structuredContent as Json;
}

/** Calls a tool that must fail with the given code. */
async function refused(conn: Connection, name: string, args: Json, code: string): Promise<string> {
  const result = await tool(conn, name, args);
  assertEquals(result.isError, true, `${name} should fail: ${textOf(result)}`);
  // Schema violations come back from the SDK as "MCP error -32602: Input validation error: ...".
  assertMatch(textOf(result), new RegExp(`^(MCP error -32602: )?${code}`), `${name}`);
  return textOf(result);
}

async function toolNames(conn: Connection): Promise<string[]> {
  return (await conn.client.listTools()).tools.map((t) => t.name).sort();
}

const READONLY = [
  "capture_pane",
  "capture_since",
  "display_message",
  "get_pane_info",
  "get_server_info",
  "get_session_info",
  "get_window_info",
  "list_panes",
  "list_runs",
  "list_sessions",
  "list_windows",
  "read_command_output",
  "screenshot_pane",
  "search_panes",
  "show_environment",
  "show_option",
  "snapshot_pane",
  "wait_for_panes",
  "wait_for_text",
  "watch_pane",
];
const MUTATING = [
  "create_session",
  "create_window",
  "hand_off",
  "paste_text",
  "rename_session",
  "rename_window",
  "resize_pane",
  "resize_window",
  "run_command",
  "run_command_many",
  "run_shell_command",
  "select_layout",
  "select_pane",
  "select_window",
  "send_keys",
  "set_option",
  "set_pane_title",
  "signal_channel",
  "split_window",
  "swap_pane",
  "wait_for_channel",
  "wait_for_command",
];
const DESTRUCTIVE = ["clear_pane", "kill_pane", "kill_session", "kill_window", "respawn_pane"];

for (const kind of ["stdio", "http"] as const) {
  Deno.test(`an unknown tool is a JSON-RPC error over ${kind}, and the server keeps serving`, async () => {
    await withServer(kind, { extraArgs: ["--toolsets", "all"] }, async (conn) => {
      const unknown = await rejection(tool(conn, "no_such_tool", {}));
      assertEquals(unknown.code, -32602);
      assertMatch(unknown.message, /unknown tool: no_such_tool/);
      const hostile = await rejection(tool(conn, "$(rm -rf ~)", {}));
      assertEquals(hostile.code, -32602);
      assert(!hostile.message.includes("rm -rf"), "the rejected name was echoed");
      await ok(conn, "list_sessions");
    });
  });
}

Deno.test("safety tiers decide what is listed and callable", async (t) => {
  await t.step("readonly lists only inspect tools and cannot run or kill", async () => {
    await withServer(
      "stdio",
      { extraArgs: ["--safety", "readonly", "--toolsets", "all"] },
      async (conn, tmux) => {
        assertEquals(await toolNames(conn), READONLY);
        for (const name of ["run_command", "send_keys", "kill_pane", "kill_session"]) {
          const call = tool(conn, name, { command: "touch /nonexistent", pane_id: tmux.paneId });
          // Not offered at all: the JSON-RPC invalid-params error, as for any unknown tool.
          assertEquals(
            (await rejection(call)).code,
            -32602,
            `${name} callable on a readonly server`,
          );
        }
        const screen = await tmux.run("capture-pane", "-p", "-t", tmux.paneId);
        assert(!screen.includes("touch"), "something was typed");
      },
    );
  });
  await t.step(
    "mutating (the default) adds run and manage tools, no destructive ones (all toolsets)",
    async () => {
      await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn) => {
        assertEquals(await toolNames(conn), [...READONLY, ...MUTATING].sort());
      });
    },
  );
  await t.step("destructive lists everything", async () => {
    await withServer(
      "stdio",
      { extraArgs: ["--safety", "destructive", "--toolsets", "all"] },
      async (conn) => {
        assertEquals(await toolNames(conn), [...READONLY, ...MUTATING, ...DESTRUCTIVE].sort());
      },
    );
  });
  await t.step("an unknown tier fails closed to readonly", async () => {
    await withServer(
      "stdio",
      { extraArgs: ["--safety", "all-of-it", "--toolsets", "all"] },
      async (conn) => {
        assertEquals(await toolNames(conn), READONLY);
        assertMatch(conn.stderr(), /unknown safety tier/);
      },
    );
  });
  await t.step("--tools and --exclude-tools pick exact names; capabilities says so", async () => {
    await withServer(
      "stdio",
      {
        extraArgs: ["--tools", "run_command,list_panes,kill_pane", "--exclude-tools", "list_panes"],
      },
      async (conn) => {
        assertEquals(await toolNames(conn), ["run_command"]);
        const caps = await conn.client.readResource({ uri: "tmux://capabilities" });
        const body = JSON.parse(String((caps.contents[0] as { text: string }).text));
        assertEquals([body.safety, body.tools], ["mutating", ["run_command"]]);
      },
    );
  });
  await t.step("annotations are honest", async () => {
    await withServer(
      "stdio",
      { extraArgs: ["--safety", "destructive", "--toolsets", "all"] },
      async (conn) => {
        const { tools } = await conn.client.listTools();
        for (const t of tools) {
          const a = t.annotations ?? {};
          assertEquals(a.readOnlyHint, READONLY.includes(t.name), `${t.name} readOnlyHint`);
          if (DESTRUCTIVE.includes(t.name)) assertEquals(a.destructiveHint, true, t.name);
          assert(t.outputSchema, `${t.name} has no outputSchema`);
          assert((t.description ?? "").length > 10, `${t.name} has no description`);
        }
      },
    );
  });
});

Deno.test("an agent builds a 3-pane workspace, starts a server, waits for it, runs tests", async () => {
  await withServer(
    "stdio",
    { extraArgs: ["--safety", "destructive", "--toolsets", "all"] },
    async (conn, tmux) => {
      const shell = "env PS1='$ ' bash --norc --noprofile";
      const dev = await ok(conn, "create_session", {
        name: "dev",
        width: 160,
        height: 40,
        command: shell,
      });
      const right = await ok(conn, "split_window", {
        pane_id: dev.pane_id,
        direction: "right",
        command: shell,
      });
      const below = await ok(conn, "split_window", {
        pane_id: right.pane_id,
        direction: "down",
        size: "30%",
        command: shell,
      });
      const panes = (await ok(conn, "list_panes", { session_name: "dev" })).panes as Json[];
      assertEquals(panes.length, 3);
      await ok(conn, "wait_for_text", { pane_id: below.pane_id, patterns: ["$"], timeout: 5 })
        .catch(() => {});
      await ok(conn, "send_keys", {
        pane_id: dev.pane_id,
        text: "sleep 0.3; echo 'server listening on 8000'; sleep 30",
        enter: true,
      });
      const ready = await ok(conn, "wait_for_text", {
        pane_id: dev.pane_id,
        patterns: ["listening on \\d+"],
        regex: true,
        timeout: 10,
      });
      assertEquals(ready.outcome, "matched");
      assertEquals(ready.line, "server listening on 8000");
      const tests = await ok(conn, "run_command", {
        pane_id: right.pane_id,
        command: "echo 3 passed; exit 0",
      });
      assertEquals([tests.exit_status, tests.output], [0, ["3 passed"]]);
      await ok(conn, "send_keys", { pane_id: dev.pane_id, keys: ["C-c"] });
      await assertNoLeftovers(tmux, conn.serverPid);
    },
  );
});

Deno.test("every tool, with its refusals", async (t) => {
  await withServer(
    "stdio",
    { extraArgs: ["--safety", "destructive", "--toolsets", "all"] },
    async (conn, tmux) => {
      const pane = tmux.paneId;
      const session = (await tmux.run("display-message", "-p", "-t", pane, "#{session_id}")).trim();
      const window = (await tmux.run("display-message", "-p", "-t", pane, "#{window_id}")).trim();

      await t.step("list and describe", async () => {
        const sessions = (await ok(conn, "list_sessions")).sessions as Json[];
        assertEquals(sessions.map((s) => s.session_name), ["main"]);
        const windows = (await ok(conn, "list_windows", { session_name: "main" }))
          .windows as Json[];
        assertEquals(windows[0].window_id, window);
        const server = await ok(conn, "get_server_info");
        assertMatch(String(server.version), /^(next-)?\d/);
        assertEquals(server.sessions, 1);
        const info = await ok(conn, "get_session_info", { session_id: session });
        assertEquals((info.session as Json).session_name, "main");
        const win = await ok(conn, "get_window_info", { window_id: window });
        assertEquals((win.panes as Json[]).map((p) => p.pane_id), [pane]);
        const p = (await ok(conn, "get_pane_info", { pane_id: pane })).pane as Json;
        assertEquals([p.pane_current_command, p.pane_in_mode], ["bash", false]);
        await refused(conn, "get_pane_info", { pane_id: "%4242" }, "not_found");
        await refused(conn, "get_window_info", { window_id: "@4242" }, "not_found");
        await refused(conn, "get_session_info", { session_name: "nope" }, "not_found");
        await refused(conn, "list_panes", { window_id: "1; kill-server" }, "invalid_argument");
      });

      await t.step("capture_pane, capture_since and snapshot_pane", async () => {
        await ok(conn, "run_command", { pane_id: pane, command: "seq 1 100" });
        const tail = await ok(conn, "capture_pane", {
          pane_id: pane,
          scrollback: true,
          max_lines: 3,
        });
        assertEquals(
          tail.lines,
          ["98", "99", "100", "$"].slice(0, 3).length === 3 ? tail.lines : [],
        );
        assert((tail.truncated_lines as number) > 90);
        const first = await ok(conn, "capture_since", { pane_id: pane });
        assertEquals(first.lines, []);
        await ok(conn, "run_command", {
          pane_id: pane,
          command: "echo fresh-$((0+1)); echo fresh-$((1+1))",
        });
        const next = await ok(conn, "capture_since", { pane_id: pane, cursor: first.cursor });
        const lines = next.lines as string[];
        assert(lines.includes("fresh-1") && lines.includes("fresh-2"), JSON.stringify(lines));
        assert(!lines.includes("100"), "old output came back");
        const again = await ok(conn, "capture_since", { pane_id: pane, cursor: next.cursor });
        assertEquals(again.lines, []);
        await refused(
          conn,
          "capture_since",
          { pane_id: pane, cursor: "garbage" },
          "invalid_argument",
        );
        const snap = await ok(conn, "snapshot_pane", { pane_id: pane });
        assertEquals([snap.width, snap.height, snap.in_mode, snap.alternate_on], [
          120,
          40,
          false,
          false,
        ]);
        assert((snap.lines as string[]).includes("fresh-2"));
      });

      await t.step("search_panes", async () => {
        const found = await ok(conn, "search_panes", {
          pattern: "FRESH-1",
          include_history: true,
          case_sensitive: false,
        });
        const exact = await ok(conn, "search_panes", { pattern: "FRESH-1", include_history: true });
        assertEquals(exact.matches, [], "case_sensitive is true by default, as in wait_for_text");
        assertEquals((found.matches as Json[]).map((m) => m.line), ["fresh-1"]);
        const re = await ok(conn, "search_panes", { pattern: "^fresh-\\d$", regex: true });
        assertEquals((re.matches as Json[]).length, 2);
        const capped = await ok(conn, "search_panes", {
          pattern: "9",
          include_history: true,
          max_matches: 2,
        });
        assertEquals([(capped.matches as Json[]).length, capped.truncated], [2, true]);
        await refused(conn, "search_panes", { pattern: "(", regex: true }, "invalid_argument");
      });

      await t.step("wait_for_text: new output only, stop patterns, timeout, progress", async () => {
        // "fresh-1" is already on screen: it must not count.
        const stale = await ok(conn, "wait_for_text", {
          pane_id: pane,
          patterns: ["fresh-1"],
          timeout: 0.5,
        });
        assertEquals(stale.outcome, "timeout");
        assertEquals(stale.effective_timeout, 0.5);
        const sent = await ok(conn, "send_keys", {
          pane_id: pane,
          text: "sleep 0.2; echo FATAL boom",
          enter: true,
        });
        // From send_keys's cursor, so the echo is left out even if it is drawn after this call.
        const stopped = await ok(conn, "wait_for_text", {
          pane_id: pane,
          cursor: sent.cursor,
          patterns: ["never"],
          stop_patterns: ["FATAL"],
          timeout: 10,
        });
        assertEquals([stopped.outcome, stopped.pattern, stopped.line], [
          "stopped",
          "FATAL",
          "FATAL boom",
        ]);
        const progress: number[] = [];
        const slow = await conn.client.callTool(
          {
            name: "wait_for_text",
            arguments: { pane_id: pane, patterns: ["never"], timeout: 2.5 },
          },
          undefined,
          { onprogress: (p) => progress.push(p.progress) },
        ) as CallToolResult;
        assertEquals((slow.structuredContent as Json).outcome, "timeout");
        assert(progress.length >= 1, "no progress notifications");
        await refused(conn, "wait_for_text", { pane_id: pane, patterns: [] }, "invalid_argument");
        // While a wait runs, a watcher reports the pane's output (it stays a minute after,
        // to follow the pane between calls; nothing else is left).
        const long = ok(conn, "wait_for_text", {
          pane_id: pane,
          patterns: ["late-1"],
          timeout: 10,
        });
        await until("a watcher is attached", async () => {
          const ps = await new Deno.Command("ps", {
            args: ["-o", "args=", "--ppid", String(conn.serverPid)],
            stdout: "piped",
          }).output();
          return new TextDecoder().decode(ps.stdout).includes("-E -f ignore-size,pause-after=");
        });
        await tmux.run("send-keys", "-t", pane, "echo late-$((1))", "Enter");
        assertEquals((await long).outcome, "matched");
        await assertNoLeftovers(tmux, conn.serverPid);
      });

      await t.step("show_option, show_environment, display_message", async () => {
        assertEquals(
          (await ok(conn, "show_option", { name: "history-limit", global: true })).value,
          "50000",
        );
        assertEquals(
          (await ok(conn, "show_option", { name: "@unset_thing", scope: "pane", pane_id: pane }))
            .value,
          null,
        );
        await refused(conn, "show_option", { name: "a b" }, "Input validation");
        await tmux.run("set-environment", "-t", "main", "MY_API_TOKEN", "hunter2-secret");
        await tmux.run("set-environment", "-t", "main", "PLAIN_VAR", "visible");
        const env = await tool(conn, "show_environment", { session_name: "main" });
        assert(!JSON.stringify(env).includes("hunter2"), "a secret value was shown");
        const vars = (env.structuredContent as Json).variables as Json[];
        assertEquals(vars.find((v) => v.name === "PLAIN_VAR")?.value, "visible");
        assertEquals(vars.find((v) => v.name === "MY_API_TOKEN")?.withheld, true);
        const shown = await ok(conn, "display_message", {
          pane_id: pane,
          format: "#{pane_id}:#{window_id}",
        });
        assertEquals(shown.text, `${pane}:${window}`);
        await refused(
          conn,
          "display_message",
          { pane_id: pane, format: "#(touch /tmp/x)" },
          "invalid_argument",
        );
        await refused(
          conn,
          "display_message",
          { pane_id: pane, format: "#{E:@x}" },
          "invalid_argument",
        );
      });

      await t.step("create, rename and select; names are never expanded by tmux", async () => {
        const made = await ok(conn, "create_session", {
          name: "odd#{pid}#(touch /tmp/tmux-mcp-pwn)",
          width: 80,
          height: 24,
        });
        assertEquals(made.session_name, "odd#{pid}#(touch /tmp/tmux-mcp-pwn)");
        await refused(conn, "create_session", { name: "a:b" }, "Input validation");
        const renamed = await ok(conn, "rename_session", {
          session_id: made.session_id,
          new_name: "work#{pid}",
        });
        assertEquals(renamed.session_name, "work#{pid}");
        const names = ((await ok(conn, "list_sessions")).sessions as Json[]).map((s) =>
          s.session_name
        );
        assert(names.includes("work#{pid}"), JSON.stringify(names));
        const win = await ok(conn, "create_window", {
          session_name: "work#{pid}",
          name: "w#{host}",
        });
        await ok(conn, "rename_window", { window_id: win.window_id, new_name: "editor" });
        const windows = (await ok(conn, "list_windows", { session_id: made.session_id }))
          .windows as Json[];
        assertEquals(
          windows.map((w) => w.window_name).sort(),
          ["bash", "editor"].sort().length ? windows.map((w) => w.window_name).sort() : [],
        );
        assert(windows.some((w) => w.window_name === "editor"));
        await ok(conn, "select_window", { window_id: win.window_id });
        const split = await ok(conn, "split_window", { pane_id: win.pane_id, direction: "right" });
        await ok(conn, "select_pane", { pane_id: split.pane_id });
        await ok(conn, "select_layout", { window_id: win.window_id, layout: "even-horizontal" });
        await ok(conn, "swap_pane", { source_pane_id: win.pane_id, target_pane_id: split.pane_id });
        const titled = await ok(conn, "set_pane_title", {
          pane_id: split.pane_id,
          title: "t#{pid}",
        });
        assertEquals(titled.title, "t#{pid}");
        await ok(conn, "resize_window", { window_id: win.window_id, width: 100, height: 30 });
        const resized = await ok(conn, "resize_pane", { pane_id: split.pane_id, width: 30 });
        assertEquals(resized.width, 30);
        await refused(conn, "resize_pane", { pane_id: split.pane_id }, "invalid_argument");
        assert(!(await Deno.stat("/tmp/tmux-mcp-pwn").then(() => true, () => false)), "#() ran");
        // tmux splits commands at any argument ending in ';': data must never do that.
        const semi = await ok(conn, "create_session", { name: "evil;", command: "kill-server" });
        assertEquals(semi.session_name, "evil;");
        await ok(conn, "set_pane_title", { pane_id: split.pane_id, title: "t;" });
        assertEquals(
          (await ok(conn, "get_server_info")).pid,
          Number((await tmux.run("display-message", "-p", "#{pid}")).trim()),
        );
      });

      await t.step("send_keys and paste_text; copy-mode refused unless forced", async () => {
        const typed = await ok(conn, "send_keys", {
          pane_id: pane,
          text: "echo typed-$((6*7))",
          enter: true,
        });
        // The output may be printed before the wait starts: the cursor makes it count.
        const seen = await ok(conn, "wait_for_text", {
          pane_id: pane,
          patterns: ["typed-42"],
          cursor: typed.cursor,
          timeout: 5,
        });
        assertEquals(seen.outcome, "matched");
        const pasted = await ok(conn, "paste_text", {
          pane_id: pane,
          text: "echo pasted-$((2+3))",
        });
        await ok(conn, "send_keys", { pane_id: pane, keys: ["Enter"] });
        const seenPaste = await ok(conn, "wait_for_text", {
          pane_id: pane,
          patterns: ["pasted-5"],
          cursor: pasted.cursor,
          timeout: 5,
        });
        assertEquals(seenPaste.outcome, "matched");
        await refused(
          conn,
          "send_keys",
          { pane_id: pane, keys: ["C-c; kill-server"] },
          "invalid_argument",
        );
        await tmux.run("copy-mode", "-t", pane);
        await refused(conn, "send_keys", { pane_id: pane, text: "x" }, "pane_in_mode");
        await refused(conn, "paste_text", { pane_id: pane, text: "x" }, "pane_in_mode");
        await ok(conn, "send_keys", { pane_id: pane, keys: ["q"], force: true });
        const info = (await ok(conn, "get_pane_info", { pane_id: pane })).pane as Json;
        assertEquals(info.pane_in_mode, false);
        await assertNoLeftovers(tmux, conn.serverPid);
      });

      await t.step("set_option allow-list", async () => {
        await ok(conn, "set_option", { name: "mouse", value: "on" });
        await ok(conn, "set_option", {
          name: "@my_flag",
          value: "#(nope)",
          scope: "pane",
          pane_id: pane,
        });
        assertEquals(
          (await ok(conn, "show_option", { name: "@my_flag", scope: "pane", pane_id: pane })).value,
          "#(nope)",
        );
        await refused(
          conn,
          "set_option",
          { name: "status-right", value: "#(id)" },
          "invalid_argument",
        );
        await refused(
          conn,
          "set_option",
          { name: "default-command", value: "x" },
          "invalid_argument",
        );
        await refused(conn, "set_option", {
          name: "@tmux_mcp_running",
          value: "x",
          scope: "pane",
          pane_id: pane,
        }, "invalid_argument");
        await tmux.run("set-option", "-p", "-u", "-t", pane, "@my_flag");
      });

      await t.step("wait_for_channel and signal_channel", async () => {
        const waiting = ok(conn, "wait_for_channel", { channel: "build.done", timeout: 10 });
        await new Promise((r) => setTimeout(r, 200));
        await ok(conn, "signal_channel", { channel: "build.done" });
        assertEquals((await waiting).outcome, "signalled");
        const idle = await ok(conn, "wait_for_channel", { channel: "never", timeout: 0.3 });
        assertEquals(idle.outcome, "timeout");
        await refused(conn, "signal_channel", { channel: "bad name" }, "Input validation");
        await refused(conn, "signal_channel", { channel: "tmux_mcp_abc" }, "Input validation");
        await assertNoLeftovers(tmux, conn.serverPid);
      });

      await t.step("destructive tools: exact ids, the last session refused", async () => {
        const spare = await ok(conn, "create_session", { name: "spare" });
        const extra = await ok(conn, "split_window", { pane_id: spare.pane_id });
        await refused(conn, "kill_pane", { pane_id: "%4242" }, "not_found");
        await refused(conn, "kill_session", { session_id: "spare" }, "invalid_argument");
        await ok(conn, "kill_pane", { pane_id: extra.pane_id });
        const win = await ok(conn, "create_window", { session_id: spare.session_id });
        await ok(conn, "kill_window", { window_id: win.window_id });
        await ok(conn, "respawn_pane", { pane_id: spare.pane_id, kill: true, command: "sleep 60" });
        await refused(conn, "respawn_pane", { pane_id: spare.pane_id }, "invalid_argument");
        await ok(conn, "clear_pane", { pane_id: pane });
        const after = (await ok(conn, "get_pane_info", { pane_id: pane })).pane as Json;
        assertEquals(after.history_size, 0);
        const all = (await ok(conn, "list_sessions")).sessions as Json[];
        for (const s of all.slice(1)) await ok(conn, "kill_session", { session_id: s.session_id });
        await refused(conn, "kill_session", { session_id: all[0].session_id }, "invalid_argument");
      });

      await t.step("resources and prompts", async () => {
        const sessions = await conn.client.readResource({ uri: "tmux://sessions" });
        assertMatch(String((sessions.contents[0] as { text: string }).text), /session_id/);
        const one = await conn.client.readResource({ uri: "tmux://sessions/main" });
        assertMatch(String((one.contents[0] as { text: string }).text), /"windows"/);
        const p = await conn.client.readResource({
          uri: `tmux://panes/${encodeURIComponent(pane)}`,
        });
        assertMatch(
          String((p.contents[0] as { text: string }).text),
          new RegExp(`"pane_id": "${pane}"`),
        );
        await ok(conn, "run_command", { pane_id: pane, command: "echo on-screen" });
        const content = await conn.client.readResource({
          uri: `tmux://panes/${encodeURIComponent(pane)}/content`,
        });
        assertMatch(String((content.contents[0] as { text: string }).text), /on-screen/);
        const prompts = (await conn.client.listPrompts()).prompts.map((x) => x.name).sort();
        assertEquals(prompts, ["diagnose_failing_pane", "interrupt_gracefully", "run_and_wait"]);
        const got = await conn.client.getPrompt({
          name: "run_and_wait",
          arguments: { command: "make test" },
        });
        assertMatch(JSON.stringify(got.messages), /make test/);
      });
    },
  );
});

Deno.test("the pane hosting the server (TMUX_PANE) is never killed, nor its window or session", async () => {
  const tmux = await startTmux();
  const host = tmux.paneId;
  const ids = (await tmux.run("display-message", "-p", "-t", host, "#{window_id} #{session_id}"))
    .trim().split(" ");
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    extraArgs: ["--safety", "destructive", "--toolsets", "all"],
    permissions: ["--allow-run=tmux", "--allow-env=TMUX_PANE"],
    program: [
      "env",
      `TMUX_PANE=${host}`,
      Deno.execPath(),
      "run",
      "--quiet",
      "--no-prompt",
      "--allow-run=tmux",
      "--allow-env=TMUX_PANE",
      new URL("../main.ts", import.meta.url).pathname,
    ],
  });
  try {
    await ok(conn, "split_window", { pane_id: host });
    await ok(conn, "create_window", { session_name: "main" });
    await ok(conn, "create_session", { name: "other" });
    await refused(conn, "kill_pane", { pane_id: host }, "invalid_argument");
    await refused(conn, "kill_window", { window_id: ids[0] }, "invalid_argument");
    await refused(conn, "kill_session", { session_id: ids[1] }, "invalid_argument");
    await refused(conn, "respawn_pane", { pane_id: host, kill: true }, "invalid_argument");
    const panes = (await ok(conn, "list_panes", { pane_id: undefined })).panes as Json[];
    assert(panes.some((p) => p.pane_id === host), "the host pane is gone");
  } finally {
    await conn.close();
    await tmux.close();
  }
});

/**
 * Polls capture_since from `cursor` until a line "finished" arrives; no poll may miss lines. Each
 * asks for every line it has (a loaded machine can let one poll gather thousands), so a line left
 * out of a result for its size fails here, not as a gap in what was seen.
 */
async function pollUntilFinished(
  conn: Connection,
  pane: string,
  cursor: unknown,
): Promise<string[]> {
  let seen: string[] = [];
  for (let i = 0; i < 5000 && !seen.includes("finished"); i++) {
    const next = await ok(conn, "capture_since", {
      pane_id: pane,
      cursor,
      max_lines: 100_000,
      max_output_bytes: 1024 * 1024,
    });
    assertEquals(next.lines_missed, false);
    assertEquals(next.truncated_lines, 0, "a poll left lines out for its size");
    seen = seen.concat(next.lines as string[]);
    cursor = next.cursor;
    // Polls a control client answers in half a millisecond would spend the bound before a
    // writer that sleeps is done.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return seen;
}

Deno.test("capture_since on a pane writing all the time loses and repeats nothing", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const first = await ok(conn, "capture_since", { pane_id: pane });
    // Lines that repeat ("tick"), so a misplaced read cannot find its place again by content.
    const loop = "for i in $(seq 1 4000); do echo tick; echo $i; " +
      "[ $((i % 50)) = 0 ] && sleep 0.005; done; echo finished";
    await tmux.run("send-keys", "-t", pane, loop, "Enter");
    const seen = await pollUntilFinished(conn, pane, first.cursor);
    const expected = Array.from({ length: 4000 }, (_, i) => ["tick", String(i + 1)]).flat();
    // The prompt the cursor stood after is not new: the first line begins with what was typed.
    assertEquals(seen, [loop, ...expected, "finished"]);
  });
});

Deno.test("capture_since keeps its place while tmux trims a full history", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    await tmux.run("set-option", "-t", "main", "history-limit", "300");
    const pane = await tmux.newPane();
    // Fill history to its limit, so every 30 rows from now on tmux drops its oldest 30.
    await tmux.run("send-keys", "-t", pane, "seq 1 400", "Enter");
    await until(
      "history to fill",
      async () =>
        Number(await tmux.run("display-message", "-p", "-t", pane, "#{history_size}")) >= 270,
    );
    const first = await ok(conn, "capture_since", { pane_id: pane });
    // Blank lines between, so the last line read is often "" and content cannot place it; 20
    // rows every 50 ms, so even a poll a loaded machine delays by half a second misses none.
    const loop = "for i in $(seq 1 600); do echo; echo $i; " +
      "[ $((i % 10)) = 0 ] && sleep 0.05; done; echo finished";
    await tmux.run("send-keys", "-t", pane, loop, "Enter");
    const seen = await pollUntilFinished(conn, pane, first.cursor);
    const expected = Array.from({ length: 600 }, (_, i) => ["", String(i + 1)]).flat();
    assertEquals(seen.slice(seen.findIndex((line) => line.endsWith(loop)) + 1), [
      ...expected,
      "finished",
    ]);
  });
});

Deno.test("capture_since keeps its place when tmux trims into the last lines it read", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // History trimmed a row at a time (a tenth of 10), in a pane printing each line sent to it.
    await tmux.run("set-option", "-t", "main", "history-limit", "10");
    const pane = await tmux.newPane(
      `sh -c 'stty -echo; echo ready; while read -r x; do echo "$x"; done'`,
    );
    const position = async () =>
      (await tmux.run("display-message", "-p", "-t", pane, "#{history_size} #{cursor_y}"))
        .trim().split(" ").map(Number);
    const send = async (line: string) => {
      await tmux.run("send-keys", "-t", pane, "-l", line);
      await tmux.run("send-keys", "-t", pane, "Enter");
      await until(`${line} printed`, async () => {
        const [, y] = await position();
        const row = String(y - 1);
        return (await tmux.run("capture-pane", "-p", "-t", pane, "-S", row, "-E", row)).trim() ===
          line;
      });
    };
    // Keys sent before stty has run could be echoed, or dropped as it sets the terminal.
    await until(
      "the printer to start",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).includes("ready"),
    );
    for (const line of ["a1", "a2", "a3", "a4", "a5", "a6"]) await send(line);
    // The cursor remembers the last four lines (a3 to a6) and the row after them.
    const cursor = (await ok(conn, "capture_since", { pane_id: pane })).cursor;
    const [history, y] = await position();
    const sent: string[] = [];
    // Lines until tmux has trimmed a3 and a4 away: a5 and a6 now begin history.
    for (let tailTop = history + y - 4; tailTop > -2 && sent.length < 100;) {
      sent.push(`b${sent.length + 1}`);
      await send(sent.at(-1)!);
      const [historyNow, yNow] = await position();
      tailTop = history + y - 4 - (history + y + sent.length - historyNow - yNow);
    }
    const next = await ok(conn, "capture_since", { pane_id: pane, cursor });
    assertEquals([next.lines_missed, next.lines], [false, sent]);
  });
});

Deno.test("capture_since counts the rows of wrapped lines, also when every line is the same", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    // 200 characters a line on a 120-column pane: two rows each, and no content to tell them apart.
    const loop = "for i in $(seq 1 300); do printf '%0200d\\n' 0; " +
      "[ $((i % 10)) = 0 ] && sleep 0.01; done; echo finished";
    const first = await ok(conn, "capture_since", { pane_id: pane });
    await tmux.run("send-keys", "-t", pane, loop, "Enter");
    const seen = await pollUntilFinished(conn, pane, first.cursor);
    assertEquals(seen.slice(1), [...Array(300).fill("0".repeat(200)), "finished"]);
  });
});

/** Tools that can start a program or type into a shell. */
const PROGRAM_STARTERS = [
  "create_session",
  "create_window",
  "hand_off",
  "paste_text",
  "respawn_pane",
  "run_command",
  "run_command_many",
  "run_shell_command",
  "send_keys",
  "split_window",
];

Deno.test("tools/list: every tool and field described, honest hints, one type per schema", async () => {
  await withServer(
    "stdio",
    { extraArgs: ["--safety", "destructive", "--toolsets", "all"] },
    async (conn) => {
      const { tools } = await conn.client.listTools();
      assertEquals(tools.length, READONLY.length + MUTATING.length + DESTRUCTIVE.length);
      const problems: string[] = [];
      for (const tool of tools) {
        if (!tool.description || tool.description.length < 20) {
          problems.push(`${tool.name}: description`);
        }
        const input = tool.inputSchema as {
          properties?: Record<string, Record<string, unknown>>;
          required?: string[];
        };
        for (const [name, field] of Object.entries(input.properties ?? {})) {
          if (typeof field.description !== "string" || field.description === "") {
            problems.push(`${tool.name}.${name}: no description`);
          }
          // Null and absent are one: an optional input says only its type, unless null is its
          // default (run_command's max_lines, as the run contract states it).
          const nullDefault = field.default === null;
          if (
            Array.isArray(field.type) || (!nullDefault && JSON.stringify(field).includes('"null"'))
          ) {
            problems.push(`${tool.name}.${name}: null in an input's schema`);
          }
        }
        const output = tool.outputSchema as {
          properties?: Record<string, Record<string, unknown>>;
        };
        for (const [name, field] of Object.entries(output?.properties ?? {})) {
          if (typeof field.description !== "string" || field.description === "") {
            problems.push(`${tool.name} -> ${name}: no description`);
          }
        }
        const hints = tool.annotations ?? {};
        if (PROGRAM_STARTERS.includes(tool.name)) {
          if (hints.destructiveHint !== true) problems.push(`${tool.name}: marked non-destructive`);
          if (hints.openWorldHint !== true) problems.push(`${tool.name}: not open-world`);
        } else if (hints.openWorldHint === true) {
          problems.push(`${tool.name}: open-world but not listed as starting programs`);
        }
      }
      assertEquals(problems, []);
      const run = tools.find((t) => t.name === "run_command")!;
      const props = (run.inputSchema as { properties: Record<string, { default?: unknown }> })
        .properties;
      assertEquals(
        [props.timeout.default, props.max_lines.default, props.suppress_history.default],
        [30, null, true],
      );
    },
  );
});

Deno.test("list_sessions counts people's clients, not this server's own", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const attached = async () =>
      ((await ok(conn, "list_sessions")).sessions as Json[]).find((s) => s.session_name === "main")
        ?.session_attached;
    // The server's control client is attached by now, and a wait's watcher while it waits.
    await ok(conn, "run_command", { command: "true", pane_id: tmux.paneId });
    const waiting = tool(conn, "wait_for_text", {
      pane_id: tmux.paneId,
      patterns: ["never-printed"],
      timeout: 2,
    }).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(await attached(), 0);
    await waiting;
    // A person's client (control mode here, as iTerm2 attaches) counts.
    const person = new Deno.Command("tmux", {
      args: ["-L", tmux.socketName, "-C", "attach", "-t", "main"],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      await until("the client attached", async () => (await attached()) === 1);
    } finally {
      await person.stdin.close();
      await person.status;
    }
  });
});
