// The runs a server keeps, listed (list_runs, tmux://runs), and their ends pushed without a call:
// a resource update to a client that subscribed, a Claude Code channel event to a client that
// declares claude/channel, and nothing to a client that asked for neither.

import {
  assert,
  assertEquals,
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from "./deps.ts";
import { type Connection, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { startTmux, type TestTmux, until, untilRunning } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<Json> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assert(!result.isError, textOf(result));
  return result.structuredContent as Json;
}

/** Every notification the client gets, in order. */
function notifications(conn: Connection): Json[] {
  const seen: Json[] = [];
  conn.client.fallbackNotificationHandler = (notification) => {
    seen.push(notification as Json);
    return Promise.resolve();
  };
  return seen;
}

async function runOf(conn: Connection, runId: string): Promise<Json | undefined> {
  const listed = await call(conn, "list_runs", {});
  return (listed.runs as Json[]).find((run) => run.run_id === runId);
}

const TOOLSETS = ["--toolsets", "core,background"];

/** Two clients of one tmux: one declares claude/channel, the other nothing; what each is told. */
interface Clients {
  tmux: TestTmux;
  channel: Connection;
  plain: Connection;
  toChannel: Json[];
  toPlain: Json[];
}

async function withClients(body: (clients: Clients) => Promise<void>): Promise<void> {
  const tmux = await startTmux();
  const channel = await startServer("stdio", {
    socketName: tmux.socketName,
    extraArgs: TOOLSETS,
    clientCapabilities: { experimental: { "claude/channel": {} } },
  });
  const plain = await startServer("stdio", { socketName: tmux.socketName, extraArgs: TOOLSETS });
  try {
    await body({
      tmux,
      channel,
      plain,
      toChannel: notifications(channel),
      toPlain: notifications(plain),
    });
  } finally {
    await channel.close();
    await plain.close();
    await tmux.close();
  }
}

Deno.test("list_runs: a run as it goes on, waits for input, ends uncollected, and is collected", async () => {
  await withServer("stdio", { extraArgs: TOOLSETS }, async (conn, tmux) => {
    // A run answered whole leaves nothing to list (its result has no run_id).
    const quick = await call(conn, "run_command", { pane_id: tmux.paneId, command: "echo hi" });
    assertEquals("run_id" in quick, false);
    const slow = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "sleep 2; echo done",
      timeout: 1,
    });
    assertEquals(slow.timed_out, true);
    const listed = await call(conn, "list_runs", {});
    const runs = listed.runs as Json[];
    assertEquals(runs.map((run) => run.run_id), [slow.run_id]);
    assertEquals(
      [runs[0].state, runs[0].exit_status, runs[0].collected],
      ["running", null, false],
    );
    // The command shows as the audit log shows it: its length and a digest, never its text.
    assertEquals((runs[0].command as Json).length, "sleep 2; echo done".length);
    assert(!JSON.stringify(listed).includes("sleep 2"), JSON.stringify(listed));
    await until("the slow run is seen to end", async () => {
      return (await runOf(conn, slow.run_id as string))?.state === "ended";
    });
    const ended = await runOf(conn, slow.run_id as string);
    assertEquals([ended?.exit_status, ended?.collected], [0, false]);
    // Collected: the run is forgotten, as wait_for_command says.
    await call(conn, "wait_for_command", { run_id: slow.run_id });
    assertEquals(await runOf(conn, slow.run_id as string), undefined);
    // A program that waits on its terminal is said to, as the kernel tells it.
    const asks = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "read -r answer; echo got $answer",
      timeout: 5,
    });
    assertEquals(asks.waiting_for_input, true);
    assertEquals((await runOf(conn, asks.run_id as string))?.state, "waiting_for_input");
    await tmux.run("send-keys", "-t", tmux.paneId, "yes", "Enter");
    await until("the answered run ends", async () => {
      return (await runOf(conn, asks.run_id as string))?.state === "ended";
    });
    assertEquals((await runOf(conn, asks.run_id as string))?.exit_status, 0);
  });
});

Deno.test("list_runs over HTTP: each session lists its own runs", async () => {
  await withServer("http", { extraArgs: TOOLSETS }, async (conn, tmux) => {
    const other = await startServer("http", { socketName: tmux.socketName, extraArgs: TOOLSETS });
    try {
      const mine = await call(conn, "run_command", {
        pane_id: tmux.paneId,
        command: "sleep 1",
        timeout: 0.2,
      });
      assertEquals(((await call(conn, "list_runs", {})).runs as Json[]).length, 1);
      assertEquals(await runOf(other, mine.run_id as string), undefined);
    } finally {
      await other.close();
    }
  });
});

Deno.test("a run's end is pushed to a client that subscribed, or declared claude/channel, only", async () => {
  await withClients(async ({ tmux, channel, plain, toChannel, toPlain }) => {
    const pane = tmux.paneId;
    const second = await tmux.newPane();
    const slow = await call(channel, "run_command", {
      pane_id: pane,
      command: "sleep 2; exit 3",
      timeout: 1,
    });
    const watched = await call(plain, "run_command", {
      pane_id: second,
      command: "sleep 2; echo done",
      timeout: 1,
    });
    await plain.client.subscribeResource({ uri: `tmux://runs/${watched.run_id}` });
    await until("both ends are pushed", () => {
      return Promise.resolve(
        toChannel.some((n) => n.method === "notifications/claude/channel") &&
          toPlain.some((n) => n.method === "notifications/resources/updated"),
      );
    });
    const event = toChannel.find((n) => n.method === "notifications/claude/channel")!;
    const params = event.params as { content: string; meta: Json };
    assertEquals(params.meta, { run_id: slow.run_id, pane_id: pane, exit_status: "3" });
    assert(params.content.includes(`run ${slow.run_id}`), params.content);
    const updated = toPlain.find((n) => n.method === "notifications/resources/updated")!;
    assertEquals(updated.params, { uri: `tmux://runs/${watched.run_id}` });
    // Each is told only what it asked for, of its own runs.
    assertEquals(toPlain.filter((n) => n.method === "notifications/claude/channel"), []);
    assertEquals(toChannel.filter((n) => n.method === "notifications/resources/updated"), []);
    const resource = await plain.client.readResource({ uri: `tmux://runs/${watched.run_id}` });
    const run = JSON.parse((resource.contents[0] as { text: string }).text) as Json;
    assertEquals([run.state, run.exit_status, run.collected], ["ended", 0, false]);
  });
});

Deno.test("watch_pane: a pattern, or a program's end, told without a call", async () => {
  await withClients(async ({ tmux, channel, plain, toChannel, toPlain }) => {
    const pane = tmux.paneId;
    const watched = await call(channel, "watch_pane", { pane_id: pane, pattern: "BUILD-OK" });
    assertEquals(watched.told_by, "channel");
    await tmux.run("send-keys", "-t", pane, "sleep 1; echo BUILD-''OK", "Enter");
    await until("the match is told", () => {
      return Promise.resolve(toChannel.some((n) => n.method === "notifications/claude/channel"));
    });
    const event = toChannel.find((n) => n.method === "notifications/claude/channel")!;
    assertEquals((event.params as { meta: Json }).meta, {
      watch_id: watched.watch_id,
      pane_id: pane,
      outcome: "matched",
    });
    // A program's end, to a client that subscribed to the watch's resource.
    await tmux.run("send-keys", "-t", pane, "sleep 1", "Enter");
    await untilRunning(tmux, pane, "sleep");
    const ends = await call(plain, "watch_pane", { pane_id: pane, program_end: true });
    assertEquals(ends.told_by, "resource");
    await plain.client.subscribeResource({ uri: ends.uri as string });
    await until("the end is told", () => {
      return Promise.resolve(toPlain.some((n) => n.method === "notifications/resources/updated"));
    });
    const resource = await plain.client.readResource({ uri: ends.uri as string });
    const watch = JSON.parse((resource.contents[0] as { text: string }).text) as Json;
    // The program's end is seen as it exits, or as its shell waits for input: both are its end.
    assertEquals(watch.state, "ended");
    assert(
      ["exited", "prompt"].includes((watch.end as Json).outcome as string),
      JSON.stringify(watch),
    );
    assertEquals(toPlain.filter((n) => n.method === "notifications/claude/channel"), []);
    // Neither pattern nor program_end: nothing to watch for.
    const refused = await plain.client.callTool({
      name: "watch_pane",
      arguments: { pane_id: pane },
    }) as CallToolResult;
    assert(refused.isError && /invalid_argument/.test(textOf(refused)), textOf(refused));
  });
});

Deno.test("watch_pane: at most 16 watches a session and 64 a server, whatever the sessions", async () => {
  await withServer("http", { extraArgs: TOOLSETS }, async (conn, tmux) => {
    const sessions: Client[] = [];
    try {
      const watch = (client: Client) =>
        client.callTool({
          name: "watch_pane",
          arguments: { pane_id: tmux.paneId, pattern: "never printed", seconds: 60 },
        }) as Promise<CallToolResult>;
      for (let i = 0; i < 4; i++) {
        const client = new Client({ name: `watcher-${i}`, version: "0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(conn.url!), {
            requestInit: { headers: { authorization: `Bearer ${conn.token}` } },
          }),
        );
        sessions.push(client);
        for (let j = 0; j < 16; j++) {
          const watched = await watch(client);
          assert(!watched.isError, textOf(watched));
        }
        const seventeenth = await watch(client);
        assert(/16 watches go on already;/.test(textOf(seventeenth)), textOf(seventeenth));
      }
      const past = await watch(conn.client);
      assert(past.isError, textOf(past));
      assert(/64 watches go on already in this server/.test(textOf(past)), textOf(past));
    } finally {
      for (const client of sessions) await client.close();
    }
  });
});

Deno.test("watch_pane: a watch goes on past its call's deadline", async () => {
  const extraArgs = [...TOOLSETS, "--wait-max-seconds", "1"];
  await withServer("stdio", {
    extraArgs,
    clientCapabilities: { experimental: { "claude/channel": {} } },
  }, async (conn, tmux) => {
    const told = notifications(conn);
    const watched = await call(conn, "watch_pane", {
      pane_id: tmux.paneId,
      pattern: "LATE-MARK",
      seconds: 60,
    });
    // The call's deadline is 2.5 s (1 s and its margin): the mark comes after it.
    await tmux.run("send-keys", "-t", tmux.paneId, "sleep 4; echo LATE-''MARK", "Enter");
    await until("the match is told", () => {
      return Promise.resolve(told.some((n) => n.method === "notifications/claude/channel"));
    });
    const event = told.find((n) => n.method === "notifications/claude/channel")!;
    assertEquals((event.params as { meta: Json }).meta, {
      watch_id: watched.watch_id,
      pane_id: tmux.paneId,
      outcome: "matched",
    });
  });
});
