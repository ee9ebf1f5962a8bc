// The server launched the way MCP clients launch it: the SDK's StdioClientTransport with its
// default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER: no LANG, no LC_*).

import {
  assert,
  assertEquals,
  type CallToolResult,
  Client,
  getDefaultEnvironment,
  StdioClientTransport,
} from "./deps.ts";
import { serverCommand, textOf } from "./helpers/mcp.ts";
import { startTmux } from "./helpers/tmux.ts";

const TEXT = "héllo wörld 日本語 ✓";

Deno.test("launched with a client's default environment, every tool family works with non-ASCII text", async () => {
  const tmux = await startTmux();
  const client = new Client({ name: "tmux-mcp-launch-test", version: "0" });
  const [command, ...args] = serverCommand("stdio", {
    socketName: tmux.socketName,
    extraArgs: ["--safety", "destructive", "--toolsets", "all"],
  });
  // A tmux under a TMUX_TMPDIR of its own is found when the client passes the entry, as the
  // docs/clients.md shows; otherwise the environment is the client's default.
  const tmpdir = Deno.env.get("TMUX_TMPDIR");
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: "pipe",
    ...(tmpdir ? { env: { ...getDefaultEnvironment(), TMUX_TMPDIR: tmpdir } } : {}),
  });
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }) as CallToolResult;
    assert(!result.isError, `${name}: ${textOf(result)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  try {
    await client.connect(transport);
    const sessions = await call("list_sessions", {}) as { sessions: { session_name: string }[] };
    assertEquals(sessions.sessions.map((s) => s.session_name), ["main"]);
    const created = await call("create_session", { name: `s ${TEXT}` });
    assertEquals(created.session_name, `s ${TEXT}`);
    const windows = await call("list_windows", { session_name: `s ${TEXT}` }) as {
      windows: unknown[];
    };
    assertEquals(windows.windows.length, 1);
    const pane = tmux.paneId;
    const info = await call("get_pane_info", { pane_id: pane }) as { pane: { pane_id: string } };
    assertEquals(info.pane.pane_id, pane);

    const run = await call("run_command", { command: `echo '${TEXT}'`, pane_id: pane });
    assertEquals(run.exit_status, 0);
    assertEquals(run.output, [TEXT]);

    const captured = await call("capture_pane", { pane_id: pane }) as { lines: string[] };
    assert(captured.lines.includes(TEXT), `capture_pane: ${JSON.stringify(captured.lines)}`);
    const found = await call("search_panes", { pattern: "wörld" }) as { matches: unknown[] };
    assert(found.matches.length > 0, "search_panes found nothing");
    const sent = await call("send_keys", { pane_id: pane, text: `echo ${TEXT}x`, enter: true });
    const waited = await call("wait_for_text", {
      pane_id: pane,
      patterns: [`${TEXT}x$`],
      regex: true,
      cursor: sent.cursor,
      timeout: 10,
    });
    assertEquals(waited.outcome, "matched");
    await call("set_pane_title", { pane_id: pane, title: TEXT });
    const title = await call("display_message", { pane_id: pane, format: "#{pane_title}" });
    assertEquals(title.text, TEXT);
    await call("set_option", { name: "@note", value: TEXT, scope: "pane", pane_id: pane });
    const option = await call("show_option", { name: "@note", scope: "pane", pane_id: pane });
    assertEquals(option.value, TEXT);

    // Windows and panes, made and ended.
    const window = await call("create_window", { session_name: `s ${TEXT}`, name: TEXT });
    const split = await call("split_window", { pane_id: window.pane_id, direction: "right" });
    const panes = await call("list_panes", { window_id: window.window_id }) as { panes: unknown[] };
    assertEquals(panes.panes.length, 2);
    await call("rename_window", { window_id: window.window_id, new_name: `w ${TEXT}` });
    await call("kill_pane", { pane_id: split.pane_id });
    // Reading: new output since a cursor, the screen, the environment.
    const since = await call("capture_since", { pane_id: pane });
    await call("run_command", { command: `printf '%s\\n' '${TEXT}'`, pane_id: pane });
    const fresh = await call("capture_since", { pane_id: pane, cursor: since.cursor }) as {
      lines: string[];
    };
    assert(fresh.lines.includes(TEXT), `capture_since: ${JSON.stringify(fresh.lines)}`);
    const snapshot = await call("snapshot_pane", { pane_id: pane }) as { lines: string[] };
    assert(snapshot.lines.includes(TEXT), "snapshot_pane");
    await call("show_environment", { global: true });
    // Channels.
    const waitChannel = call("wait_for_channel", { channel: "launch-test", timeout: 10 });
    await new Promise((r) => setTimeout(r, 200));
    await call("signal_channel", { channel: "launch-test" });
    assertEquals((await waitChannel).outcome, "signalled");
    // Resources and prompts.
    const resource = await client.readResource({ uri: "tmux://sessions" });
    assert(JSON.stringify(resource.contents).includes(TEXT), "tmux://sessions");
    assert((await client.listPrompts()).prompts.length > 0);
  } finally {
    await client.close().catch(() => {});
    await tmux.close();
  }
});
