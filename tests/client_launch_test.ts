// The server launched the way MCP clients launch it: the SDK's StdioClientTransport with its
// default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER: no LANG, no LC_*).

import { assert, assertEquals, type CallToolResult, Client, StdioClientTransport } from "./deps.ts";
import { textOf } from "./helpers/mcp.ts";
import { startTmux } from "./helpers/tmux.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const TEXT = "héllo wörld 日本語 ✓";

Deno.test("launched with a client's default environment, every tool family works with non-ASCII text", async () => {
  const tmux = await startTmux();
  const client = new Client({ name: "tmux-mcp-launch-test", version: "0" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--allow-run=tmux",
      MAIN,
      "--socket-name",
      tmux.socketName,
    ],
    stderr: "pipe",
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
    const sent = await call("send_keys", { pane_id: pane, keys: `echo ${TEXT}x`, enter: true });
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
  } finally {
    await client.close().catch(() => {});
    await tmux.close();
  }
});
