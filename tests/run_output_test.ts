// A run's output as results and reads show it: read_command_output with a pattern finds an error
// in the middle of a long output in one call, with the lines around it and its line number, the
// matches counted exactly; a line shown while still being written comes back whole.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<Json> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assert(!result.isError, `${name}: ${textOf(result)}`);
  return result.structuredContent as Json;
}

Deno.test("read_command_output finds lines by pattern, with context and exact counts", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    // 5,001 lines, one error at line 2,501: the result shows the first and last lines only.
    const run = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "for i in $(seq 1 5001); do if [ $i = 2501 ]; then echo 'ERROR: disk full'; " +
        'else echo "step $i ok"; fi; done',
    });
    assertEquals(run.exit_status, 0);
    const runId = run.run_id as string;
    const found = await call(conn, "read_command_output", {
      run_id: runId,
      pattern: "error",
      case_sensitive: false,
    });
    assertEquals(found.match_count, 1);
    assertEquals(found.lines, [
      "2499-step 2499 ok",
      "2500-step 2500 ok",
      "2501:ERROR: disk full",
      "2502-step 2502 ok",
      "2503-step 2503 ok",
    ]);
    assertEquals(found.next_line, null);
    // Every line matches: the page holds what the budget allows, the count is exact, and
    // next_line goes on from the first match not shown.
    const all = await call(conn, "read_command_output", {
      run_id: runId,
      pattern: "^step \\d+ ok$",
      regex: true,
      context: 0,
      max_lines: 100,
    });
    assertEquals(all.match_count, 5000);
    assertEquals((all.lines as string[]).length, 100);
    assertEquals((all.lines as string[])[0], "1:step 1 ok");
    assertEquals(all.next_line, 101);
    const on = await call(conn, "read_command_output", {
      run_id: runId,
      pattern: "ok",
      from_line: 2500,
      context: 0,
      max_lines: 2,
    });
    assertEquals([on.match_count, on.lines], [2501, [
      "2500:step 2500 ok",
      "--",
      "2502:step 2502 ok",
    ]]);
    // from_line counts from the end when negative, as for a page.
    const last = await call(conn, "read_command_output", {
      run_id: runId,
      pattern: "ok",
      from_line: -2,
      context: 0,
    });
    assertEquals([last.match_count, last.lines], [2, ["5000:step 5000 ok", "5001:step 5001 ok"]]);
    // Groups apart are marked; a pattern RE2 cannot take is refused.
    const two = await call(conn, "read_command_output", {
      run_id: runId,
      pattern: "^step (10|4000) ok$",
      regex: true,
      context: 1,
    });
    assertEquals(two.lines, [
      "9-step 9 ok",
      "10:step 10 ok",
      "11-step 11 ok",
      "--",
      "3999-step 3999 ok",
      "4000:step 4000 ok",
      "4001-step 4001 ok",
    ]);
    const bad = await conn.client.callTool({
      name: "read_command_output",
      arguments: { run_id: runId, pattern: "(a)\\1", regex: true },
    }) as CallToolResult;
    assertEquals(bad.isError, true);
    assert(textOf(bad).startsWith("invalid_argument"), textOf(bad));
  });
});

Deno.test("a line shown while still being written is shown again, whole, by the next wait", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const run = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "printf 'downloading 45%%'; sleep 1.5; printf '\\r\\033[Kdownload complete\\n'",
      timeout: 1,
    });
    assertEquals([run.timed_out, run.output], [true, ["downloading 45%"]]);
    const done = await call(conn, "wait_for_command", { run_id: run.run_id, timeout: 10 });
    assertEquals([done.exit_status, done.output], [0, ["download complete"]]);
  });
});

Deno.test("lines shown and then rewritten from below (docker pull's layers) are shown again, as they end", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const run = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "printf 'a1b2: Waiting\\nc3d4: Waiting\\n'; sleep 1.5; " +
        "printf '\\033[2A\\033[2K\\ra1b2: Pull complete\\r\\033[2B'; " +
        "printf '\\033[1A\\033[2K\\rc3d4: Pull complete\\r\\033[1B'; echo 'Status: done'",
      timeout: 1,
    });
    assertEquals([run.timed_out, run.output], [true, ["a1b2: Waiting", "c3d4: Waiting"]]);
    const done = await call(conn, "wait_for_command", { run_id: run.run_id, timeout: 10 });
    assertEquals([done.exit_status, done.output], [0, [
      "a1b2: Pull complete",
      "c3d4: Pull complete",
      "Status: done",
    ]]);
    // Read whole, the log holds each line once, as the terminal shows it.
    const read = await call(conn, "read_command_output", { run_id: run.run_id, from_line: 1 });
    assertEquals(read.lines, ["a1b2: Pull complete", "c3d4: Pull complete", "Status: done"]);
  });
});

Deno.test("a timed-out run's output after its call is read from the screen, going on where the stream stopped", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const run = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "for i in $(seq 1 60); do echo line-$i; sleep 0.02; done",
      timeout: 0.4,
    });
    assertEquals(run.timed_out, true);
    const first = [...(run.output_head as string[] ?? []), ...(run.output as string[])];
    assert(first.length > 0 && first.length < 60, JSON.stringify(run));
    // While it goes on, read_command_output reads what the screen has since.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const partway = await call(conn, "read_command_output", { run_id: run.run_id, from_line: 1 });
    const seen = partway.lines as string[];
    assert(seen.length > first.length, JSON.stringify(partway));
    assertEquals(seen, seen.map((_, i) => `line-${i + 1}`));
    const done = await call(conn, "wait_for_command", { run_id: run.run_id, timeout: 10 });
    assertEquals(done.exit_status, 0);
    assertEquals(done.output_from_line, first.length + 1);
    assertEquals(
      [...first, ...(done.output as string[])],
      Array.from({ length: 60 }, (_, i) => `line-${i + 1}`),
    );
    assertEquals(done.lines_missed ?? false, false);
    const whole = await call(conn, "read_command_output", { run_id: run.run_id, from_line: 1 });
    assertEquals(whole.lines, Array.from({ length: 60 }, (_, i) => `line-${i + 1}`));
    assertEquals(whole.total_lines, 60);
  });
});

Deno.test("a timed-out run whose lines tmux's history dropped before they were read says so", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    await tmux.run("set-option", "-g", "history-limit", "50");
    const pane = await tmux.newPane();
    const run = await call(conn, "run_command", {
      pane_id: pane,
      command: "seq 1 20; sleep 0.6; seq 1001 1400",
      timeout: 0.3,
    });
    assertEquals(run.timed_out, true);
    const done = await call(conn, "wait_for_command", { run_id: run.run_id, timeout: 10 });
    assertEquals([done.exit_status, done.lines_missed], [0, true]);
    // The last lines are there, none twice.
    const whole = await call(conn, "read_command_output", { run_id: run.run_id, from_line: -3 });
    assertEquals(whole.lines, ["1398", "1399", "1400"]);
  });
});
