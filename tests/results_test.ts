// Results a model can use: however much a command prints, its result is bounded, says how the run
// went before the output, carries the same excerpt in both halves, and the rest is one call away.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import type { RunResult } from "../src/tmux/mod.ts";
import {
  type Connection,
  INITIALIZE_REQUEST,
  serverCommand,
  textOf,
  withServer,
} from "./helpers/mcp.ts";
import { readPage } from "./helpers/output.ts";
import { startTmux, until } from "./helpers/tmux.ts";
import { RUN_DEFAULTS } from "../src/tools/define/run_defaults.ts";

/** What a client of the SDK caps at (it closes the connection beyond 10 MiB); ours are far below. */
const MESSAGE_MAX = 32 * 1024;

async function run(
  conn: Connection,
  pane: string,
  command: string,
  extra: Record<string, unknown> = {},
): Promise<{ result: CallToolResult; out: RunResult; bytes: number }> {
  conn.takeLargestMessage();
  const result = await conn.client.callTool({
    name: "run_command",
    arguments: { command, pane_id: pane, timeout: 120, ...extra },
  }) as CallToolResult;
  assert(result.structuredContent, textOf(result));
  return {
    result,
    out: result.structuredContent as unknown as RunResult,
    bytes: conn.takeLargestMessage() ?? 0,
  };
}

Deno.test("floods come back in small messages with exact counts, and the connection stays", async () => {
  await withServer("stdio", { extraArgs: ["--wait-max-seconds", "120"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const cases: Array<[string, number, number]> = [
      ["yes abcdefghij | head -n 1000000", 1_000_000, 11_000_000],
      ["seq 1 200000", 200_000, 1_288_895],
      ["head -c 20000000 /dev/zero | tr '\\0' x; echo", 1, 20_000_001],
      // Escape sequences, a flood of them and one endless: no output at all.
      ["yes $'\\e[1m' | tr -d '\\n' | head -c 30000000", 0, 0],
      ["printf '\\e['; head -c 30000000 /dev/zero | tr '\\0' 1; printf 'm'", 0, 0],
    ];
    for (const [command, lines, bytes] of cases) {
      const { out, bytes: message } = await run(conn, pane, command);
      assert(message < MESSAGE_MAX, `${command}: a message of ${message} bytes`);
      assertEquals(
        [out.exit_status, out.output_total_lines, out.output_total_bytes],
        [0, lines, bytes],
        command,
      );
      assertEquals(out.lines_missed, false, command);
      const next = await run(conn, pane, "echo next");
      assertEquals(
        [next.out.exit_status, next.out.output],
        [0, ["next"]],
        `after ${command}: ${textOf(next.result)}`,
      );
    }
  });
});

Deno.test("the rest of a long output is read exactly, by line: the first, the middle, the last", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const { out } = await run(conn, pane, "seq 1 1000000");
    assertEquals([out.output_total_lines, out.output.at(-1)], [1_000_000, "1000000"]);
    assertEquals(out.output_more?.from_line, 101);
    for (const [from, first] of [[1, "1"], [500_000, "500000"], [-1, "1000000"]] as const) {
      const page = await readPage(conn, out.run_id, from);
      assertEquals([page.lines[0], page.missing], [first, null], `from ${from}`);
    }
    const last = await readPage(conn, out.run_id, 999_990);
    assertEquals([last.lines.length, last.next_line], [11, null]);
  });
});

Deno.test("a test report: its first failure and its closing summary are in both halves", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    // 60 lines of 300 characters: more than a result shows.
    const script = "i=1; while [ $i -le 60 ]; do " +
      "if [ $i -eq 5 ]; then s=FAIL; else s=ok; fi; " +
      "printf 'test_%02d %s %s\\n' $i $s \"$(printf '%280s' '' | tr ' ' .)\"; i=$((i+1)); done; " +
      "echo 'SUMMARY: 60 tests, 1 failed (test_05)'";
    const { result, out } = await run(conn, pane, script);
    assert(out.output_truncated, "the report was not cut: the test proves nothing");
    const failure = out.output_head.find((line) => line.startsWith("test_05 FAIL"));
    assert(failure !== undefined, "the first failure is not in structuredContent");
    assertEquals(out.output.at(-1), "SUMMARY: 60 tests, 1 failed (test_05)");
    const text = textOf(result);
    assert(text.includes("test_05 FAIL"), "the first failure is not in the text block");
    assert(text.includes("SUMMARY: 60 tests, 1 failed"), "the summary is not in the text block");
  });
});

Deno.test("a result says how the run went before its output, and its text carries the same lines", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const { result, out } = await run(conn, pane, "seq 1 1000; exit 2");
    const keys = Object.keys(out);
    for (const field of ["exit_status", "timed_out", "started", "run_id", "output_total_lines"]) {
      assert(keys.indexOf(field) < keys.indexOf("output_head"), `${field} after the output`);
    }
    assertEquals(keys.at(-1), "output");
    const [summary, ...rest] = textOf(result).split("\n");
    assertMatch(summary, /^exit 2 in %\d+ \(bash\) .*1,000 lines.*read_command_output run_id=/);
    assertEquals(out.shell, "bash");
    assertEquals(rest, [
      ...out.output_head,
      `... [600 lines (2.3 KB) left out: read_command_output run_id=${out.run_id} from_line=101] ...`,
      ...out.output,
    ]);
  });
});

Deno.test("capture_pane's text shows what its structured half shows, and says what it left out", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    await tmux.run("send-keys", "-t", pane, "clear; seq 1 82", "Enter");
    await until(
      "the output",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).includes("\n82\n"),
    );
    const whole = await conn.client.callTool({
      name: "capture_pane",
      arguments: { pane_id: pane, scrollback: true },
    }) as CallToolResult;
    const structured = whole.structuredContent as { lines: string[]; total_lines: number };
    assertEquals(textOf(whole).split("\n").slice(1), structured.lines);
    const cut = await conn.client.callTool({
      name: "capture_pane",
      arguments: { pane_id: pane, scrollback: true, max_lines: 10 },
    }) as CallToolResult;
    const [summary, ...lines] = textOf(cut).split("\n");
    assertMatch(summary, new RegExp(`${structured.total_lines - 10} lines .* not shown`));
    assertEquals(lines, (cut.structuredContent as { lines: string[] }).lines);
  });
});

Deno.test("eight panes printing as fast as they can: a million-line run is still exact", async () => {
  await withServer("stdio", { extraArgs: ["--wait-max-seconds", "120"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const floods: string[] = [];
    for (let i = 0; i < 8; i++) floods.push(await tmux.newPane(`yes flood${i}`));
    try {
      const { out } = await run(conn, pane, "seq 1 1000000");
      assertEquals(
        [out.exit_status, out.lines_missed, out.output_source, out.output_total_lines],
        [0, false, "stream", 1_000_000],
      );
      assertEquals(out.output.at(-1), "1000000");
    } finally {
      for (const flood of floods) await tmux.run("kill-pane", "-t", flood);
    }
  });
});

Deno.test("a timed-out run's output is read while it still runs, and wait_for_command adds only what is new", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const { out } = await run(
      conn,
      pane,
      "seq 1 500; sleep 1; seq 501 1000; sleep 0.5; echo end",
      { timeout: 0.5 },
    );
    assertEquals([out.timed_out, out.output_total_lines], [true, 500]);
    const early = await readPage(conn, out.run_id, 1, { max_lines: 1000 });
    assertEquals([early.ended, early.lines.length, early.lines.at(-1)], [false, 500, "500"]);
    await until("the second half", async () => {
      const page = await readPage(conn, out.run_id, 501, { max_lines: 1000 });
      return page.lines[499] === "1000";
    });
    const collected = await conn.client.callTool({
      name: "wait_for_command",
      arguments: { run_id: out.run_id, timeout: 10 },
    }) as CallToolResult;
    const done = collected.structuredContent as unknown as RunResult;
    assertEquals(
      [done.exit_status, done.output_from_line, done.output_total_lines, done.output.at(-1)],
      [0, 501, 1001, "end"],
    );
    assertEquals([done.output_head[0], done.output_omitted?.after_line], ["501", 600]);
    const all = await readPage(conn, out.run_id, -1);
    assertEquals([all.ended, all.lines], [true, ["end"]]);
  });
});

Deno.test("a small run's structured half leaves out the fields at their default or told by the rest (10x its text before, 2x now)", async () => {
  const tmux = await startTmux();
  // The wire, not the test client (which fills in what results leave out).
  const [program, ...args] = serverCommand("stdio", { socketName: tmux.socketName });
  const child = new Deno.Command(program, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const reply = async (id: number): Promise<Record<string, unknown>> => {
    while (true) {
      const newline = pending.indexOf("\n");
      if (newline >= 0) {
        const message = JSON.parse(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the server closed");
      pending += value;
    }
  };
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  try {
    await send(JSON.parse(INITIALIZE_REQUEST));
    await reply(1);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const listed = (await reply(2)).result as { tools: Array<Record<string, unknown>> };
    const schema = listed.tools.find((tool) => tool.name === "run_command")!.outputSchema as {
      properties: Record<string, { default?: unknown }>;
      required: string[];
    };
    for (const [field, value] of Object.entries(RUN_DEFAULTS)) {
      assertEquals(schema.properties[field]?.default, value, field);
      assert(!schema.required.includes(field), `${field} is required`);
    }
    const ratios: number[] = [];
    for (const [i, command] of ["true", "echo hi", "seq 1 3; exit 2"].entries()) {
      await send({
        jsonrpc: "2.0",
        id: 10 + i,
        method: "tools/call",
        params: { name: "run_command", arguments: { command, pane_id: tmux.paneId } },
      });
      const result = (await reply(10 + i)).result as CallToolResult;
      const structured = result.structuredContent as Record<string, unknown>;
      for (const field of ["timed_out", "started", "output_more", "lines_missed", "output_head"]) {
        assert(!(field in structured), `${field} at its default was sent`);
      }
      // Nothing of the run is left to read, and output holds all of it: no id, no totals.
      for (const field of ["run_id", "output_total_lines", "output_total_bytes"]) {
        assert(!(field in structured), `${field} was sent`);
      }
      assertEquals(Object.keys(structured).slice(0, 3), ["pane_id", "shell", "exit_status"]);
      ratios.push(JSON.stringify(structured).length / textOf(result).length);
    }
    assert(Math.max(...ratios) <= 2, `structured / text: ${ratios.map((r) => r.toFixed(2))}`);
    // A run cut short keeps both: its id to read the rest by, its totals.
    await send({
      jsonrpc: "2.0",
      id: 20,
      method: "tools/call",
      params: {
        name: "run_command",
        arguments: { command: "seq 1 500", pane_id: tmux.paneId, max_lines: 10 },
      },
    });
    const cut = ((await reply(20)).result as CallToolResult).structuredContent as Record<
      string,
      unknown
    >;
    assertEquals([typeof cut.run_id, cut.output_total_lines], ["string", 500]);
  } finally {
    await writer.close();
    await child.status;
    await tmux.close();
  }
});
