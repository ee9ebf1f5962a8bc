// A run belongs to the MCP session that started it: over HTTP another session (same token) gets
// for it exactly what it gets for a run that never was; --share-runs lets every session at it.

import {
  assert,
  assertEquals,
  assertMatch,
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import type { TestTmux } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function call(client: Client, name: string, args: Json): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

/** A second MCP session on the server's URL. */
async function secondSession(conn: Connection): Promise<Client> {
  const client = new Client({ name: "tmux-mcp-tests-b", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(conn.url!), {
      requestInit: { headers: { authorization: `Bearer ${conn.token}` } },
    }),
  );
  return client;
}

/** A timed-out run and a run whose output was kept, both of session A. */
async function runsOfA(
  conn: Connection,
  tmux: TestTmux,
): Promise<{ waiting: string; kept: string }> {
  const timedOut = await call(conn.client, "run_command", {
    pane_id: tmux.paneId,
    command: "sleep 1.5; echo late",
    timeout: 0.5,
  });
  const waiting = (timedOut.structuredContent as Json).run_id as string;
  assertEquals((timedOut.structuredContent as Json).timed_out, true, textOf(timedOut));
  const long = await call(conn.client, "run_command", {
    pane_id: await tmux.newPane(),
    command: "seq 1 3000",
    max_lines: 10,
  });
  const more = (long.structuredContent as Json).output_more as Json | null;
  assert(more !== null, textOf(long));
  return { waiting, kept: more.run_id as string };
}

/** What a session gets for a run id, with the id itself taken out of the text. */
async function answers(client: Client, runId: string): Promise<string[]> {
  const waited = await call(client, "wait_for_command", { run_id: runId, timeout: 5 });
  const read = await call(client, "read_command_output", { run_id: runId });
  return [waited, read].map((result) =>
    `${result.isError === true} ${textOf(result).replaceAll(runId, "<id>")}`
  );
}

Deno.test("over HTTP another session cannot wait for, collect or read a session's runs", async () => {
  await withServer("http", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    const { waiting, kept } = await runsOfA(conn, tmux);
    const b = await secondSession(conn);
    try {
      // Exactly what an id that never was gets.
      const never = `${pane.slice(1)}.${"0".repeat(16)}`;
      const unknown = await answers(b, never);
      assertMatch(unknown[0], /^true not_found: run <id> is unknown/);
      assertMatch(unknown[1], /^true not_found: run <id>'s output is not kept/);
      assertEquals(await answers(b, waiting), unknown, "B saw A's timed-out run");
      assertEquals(await answers(b, kept), unknown, "B saw A's kept output");
      // A still has both: B's attempts took nothing.
      const collected = await call(conn.client, "wait_for_command", {
        run_id: waiting,
        timeout: 10,
      });
      assertEquals((collected.structuredContent as Json).exit_status, 0, textOf(collected));
      assertEquals((collected.structuredContent as Json).output, ["late"]);
      const page = await call(conn.client, "read_command_output", {
        run_id: kept,
        from_line: 2999,
      });
      assertEquals((page.structuredContent as Json).lines, ["2999", "3000"], textOf(page));
    } finally {
      await b.close();
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("with --share-runs every session may collect and read every run", async () => {
  await withServer("http", { extraArgs: ["--share-runs"] }, async (conn, tmux) => {
    const { waiting, kept } = await runsOfA(conn, tmux);
    const b = await secondSession(conn);
    try {
      const collected = await call(b, "wait_for_command", { run_id: waiting, timeout: 10 });
      assertEquals((collected.structuredContent as Json).exit_status, 0, textOf(collected));
      const page = await call(b, "read_command_output", { run_id: kept, from_line: 3000 });
      assertEquals((page.structuredContent as Json).lines, ["3000"], textOf(page));
    } finally {
      await b.close();
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("over HTTP a pane busy with another session's run says to wait or interrupt, not collect", async () => {
  await withServer("http", {}, async (conn, tmux) => {
    const timedOut = await call(conn.client, "run_command", {
      pane_id: tmux.paneId,
      command: "sleep 2; echo late",
      timeout: 0.5,
    });
    const runId = (timedOut.structuredContent as Json).run_id as string;
    const b = await secondSession(conn);
    try {
      const busy = await call(b, "run_command", { pane_id: tmux.paneId, command: "echo b" });
      const text = textOf(busy);
      assertEquals((busy.structuredContent as Json).started, false, text);
      assertMatch(text, /another client's run_command/);
      assertMatch(text, /interrupt it/);
      assert(!text.includes(runId) && !text.includes("wait_for_command"), text);
      // Its own session is still pointed at the run.
      const own = await call(conn.client, "run_command", { pane_id: tmux.paneId, command: "true" });
      assert(textOf(own).includes(runId), textOf(own));
      await call(conn.client, "wait_for_command", { run_id: runId, timeout: 10 });
    } finally {
      await b.close();
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
