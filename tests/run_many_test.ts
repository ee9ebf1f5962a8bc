// run_command_many: one command in many panes, one result per pane in order, identical outputs
// shown once; a busy, missing or hung pane is a result, never an error of the whole call.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { sleepingPane, until } from "./helpers/tmux.ts";

interface PaneResult {
  pane_id: string;
  state: string;
  exit_status: number | null;
  run_id: string | null;
  reason: string | null;
  output_group: number | null;
  output_total_lines: number;
}

interface Many {
  summary: Record<string, number>;
  results: PaneResult[];
  groups: Array<{ panes: string[]; output: string[] }>;
}

async function many(conn: Connection, args: Record<string, unknown>): Promise<CallToolResult> {
  return await conn.client.callTool({
    name: "run_command_many",
    arguments: args,
  }) as CallToolResult;
}

const structured = (result: CallToolResult) => result.structuredContent as unknown as Many;

Deno.test("run_command_many: results in order, outputs grouped, failures per pane", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const panes = [tmux.paneId, await tmux.newPane(), await tmux.newPane()];
    const sleeping = await sleepingPane(tmux);

    // Three panes alike, one not at a shell, one that does not exist: all answered, in order.
    const mixed = await many(conn, {
      command: "echo same; echo line2",
      pane_ids: [...panes, sleeping, "%99999"],
    });
    assertEquals(mixed.isError, false);
    const out = structured(mixed);
    assertEquals(out.results.map((r) => [r.pane_id, r.state]), [
      [panes[0], "ok"],
      [panes[1], "ok"],
      [panes[2], "ok"],
      [sleeping, "not_started"],
      ["%99999", "error"],
    ]);
    assertEquals(out.groups, [{ panes, output: ["same", "line2"] }]);
    assertEquals(out.results.slice(0, 3).map((r) => r.output_group), [0, 0, 0]);
    assertMatch(out.results[3].reason ?? "", /not an idle shell/);
    assertMatch(out.results[4].reason ?? "", /^not_found: /);
    assertEquals([out.summary.panes, out.summary.ok, out.summary.not_started, out.summary.error], [
      5,
      3,
      1,
      1,
    ]);
    // The text leads with the counts and names each pane that did not go well.
    const text = textOf(mixed);
    assertMatch(text.split("\n")[0], /^5 panes: 3 ok, 1 not started, 1 error; /);
    assert(text.includes(`${sleeping} not_started: `), text);

    // Different outputs are groups of their own; every pane of a window, in tmux's order.
    await tmux.run("split-window", "-t", panes[1], "env PS1='$ ' bash --norc --noprofile");
    const window = (await tmux.run("display-message", "-p", "-t", panes[1], "#{window_id}")).trim();
    const windowPanes = (await tmux.run("list-panes", "-t", window, "-F", "#{pane_id}")).trim()
      .split("\n");
    await until(
      "the new pane's prompt",
      async () => (await tmux.run("capture-pane", "-p", "-t", windowPanes[1])).includes("$"),
    );
    const each = structured(
      await many(conn, { command: 'echo "at $TMUX_PANE"', window_id: window }),
    );
    assertEquals(each.results.map((r) => r.pane_id), windowPanes);
    assertEquals(
      each.groups,
      windowPanes.map((pane) => ({ panes: [pane], output: [`at ${pane}`] })),
    );

    // Timed out: each pane's run is collected later by its run_id.
    const slow = structured(
      await many(conn, {
        command: "sleep 30",
        pane_ids: panes.slice(0, 2),
        timeout: 1,
      }),
    );
    assertEquals(slow.results.map((r) => r.state), ["timed_out", "timed_out"]);
    for (const result of slow.results) {
      await conn.client.callTool({
        name: "send_keys",
        arguments: { pane_id: result.pane_id, keys: ["C-c"] },
      });
      const collected = (await conn.client.callTool({
        name: "wait_for_command",
        arguments: { run_id: result.run_id, timeout: 10 },
      }) as CallToolResult).structuredContent as { timed_out: boolean; exit_status: number };
      assertEquals([collected.timed_out, collected.exit_status], [false, 130]);
    }

    // stop_on_failure: after the first failure, no more panes start.
    const stopped = structured(
      await many(conn, {
        command: "exit 4",
        pane_ids: panes,
        concurrency: 1,
        stop_on_failure: true,
      }),
    );
    assertEquals(stopped.results.map((r) => [r.state, r.exit_status]), [
      ["nonzero", 4],
      ["not_started", null],
      ["not_started", null],
    ]);
    assertMatch(stopped.results[1].reason ?? "", /stop_on_failure/);

    // Nothing ran at all: an error result.
    const none = await many(conn, { command: "true", pane_ids: [sleeping] });
    assertEquals(none.isError, true);

    await tmux.run("kill-pane", "-t", sleeping);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("run_command_many: bad requests are clear errors, nothing run", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ command: "true" }, /give pane_ids, window_id or session_id/],
      [{ command: "true", pane_ids: [tmux.paneId, tmux.paneId] }, /named twice/],
      [{ command: "true", pane_ids: ["3"] }, /pane_id must look like %3/],
      [{ command: "true", window_id: "@9999" }, /^not_found: /],
    ];
    for (const [args, message] of cases) {
      const result = await many(conn, args);
      assertEquals(result.isError, true, JSON.stringify(args));
      assertMatch(textOf(result), message);
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("run_command_many: many panes' output fits one budget, identical output shown once", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const panes = [tmux.paneId];
    for (let i = 0; i < 7; i++) panes.push(await tmux.newPane());
    const result = await many(conn, { command: "seq 1 5000", pane_ids: panes });
    const out = structured(result);
    assertEquals(out.summary.ok, 8);
    assertEquals(out.groups.length, 1);
    assertEquals(out.groups[0].panes, panes);
    assertEquals(out.results.map((r) => r.output_total_lines), panes.map(() => 5000));
    // The group shows the first and last lines and where to read the rest.
    assertEquals(out.groups[0].output.at(-1), "5000");
    assertMatch(
      out.groups[0].output.join("\n"),
      new RegExp(
        `left out: read_command_output run_id=${
          out.results[0].run_id!.replace(".", "\\.")
        } from_line=`,
      ),
    );
    assert(textOf(result).length < 16 * 1024, `${textOf(result).length} characters of text`);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("run_command_many: a progress notification as each pane ends", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const panes = [tmux.paneId, await tmux.newPane(), await tmux.newPane()];
    // The panes end 0.4 s apart, in order.
    const command = `case $TMUX_PANE in ${panes[0]}) ;; ${panes[1]}) sleep 0.4 ;; ` +
      "*) sleep 0.8 ;; esac; exit 2";
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await conn.client.callTool(
      { name: "run_command_many", arguments: { command, pane_ids: panes } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    ) as CallToolResult;
    assertEquals(structured(result).summary.nonzero, 3);
    // The SDK client drops a notification that it reads together with the result (it handles
    // notifications a moment later than responses): the last one may be missing.
    const expected = panes.map((pane, i) => [i + 1, 3, `${pane}: nonzero`]);
    const got = progress.map((p) => [p.progress, p.total, p.message]);
    assertEquals(got, expected.slice(0, Math.max(2, got.length)));
  });
});

Deno.test("run_command_many: listed panes and a window's together, each pane once, listed first", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const other = await tmux.newPane();
    const window = (await tmux.run("display-message", "-p", "-t", tmux.paneId, "#{window_id}"))
      .trim();
    const second = await tmux.splitPane(tmux.paneId);
    // The window's first pane is listed too: it runs once, in the listed place.
    const result = await many(conn, {
      command: "echo hi",
      pane_ids: [other, tmux.paneId],
      window_id: window,
    });
    const out = structured(result);
    assertEquals(out.results.map((r) => [r.pane_id, r.state]), [
      [other, "ok"],
      [tmux.paneId, "ok"],
      [second, "ok"],
    ]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
