// Panes never wedge: the bookkeeping run_command keeps in tmux is reconciled with what tmux
// reports by any server process, and calls given up on leave nothing behind.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { commandRunning, commandStarted, startTmux, type TestTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function run(conn: Connection, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name: "run_command", arguments: args }) as CallToolResult;
}

/** Runs `echo <word>` and checks it ran, with its exit status and output. */
async function works(conn: Connection, pane: string, word: string): Promise<void> {
  const result = await run(conn, { command: `echo ${word}`, pane_id: pane, timeout: 10 });
  assert(!result.isError, textOf(result));
  const out = result.structuredContent as Json;
  assertEquals([out.started, out.exit_status, out.output], [true, 0, [word]], textOf(result));
}

async function timedOut(conn: Connection, pane: string, command: string): Promise<string> {
  const result = await run(conn, { command, pane_id: pane, timeout: 0.5 });
  const out = result.structuredContent as Json;
  assertEquals(out.timed_out, true, textOf(result));
  return out.run_id as string;
}

async function waitAgain(conn: Connection, runId: string, timeout = 10): Promise<Json> {
  const result = await conn.client.callTool({
    name: "wait_for_command",
    arguments: { run_id: runId, timeout },
  }) as CallToolResult;
  assert(!result.isError, textOf(result));
  return result.structuredContent as Json;
}

async function shellPid(tmux: TestTmux, pane: string): Promise<number> {
  return Number((await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}")).trim());
}

async function prompt(tmux: TestTmux, pane: string): Promise<void> {
  await until(
    "a prompt",
    async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$"),
  );
}

Deno.test("a pane respawned while a timed-out command ran takes commands again", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    await timedOut(conn, pane, "sleep 1000");
    await tmux.run("respawn-pane", "-k", "-t", pane, "env PS1='$ ' bash --norc --noprofile");
    await prompt(tmux, pane);
    await works(conn, pane, "respawned");
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a remain-on-exit pane whose shell died: pane_dead, then usable once respawned", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    await tmux.run("set-option", "-p", "-t", pane, "remain-on-exit", "on");
    await timedOut(conn, pane, "sleep 1000");
    Deno.kill(await shellPid(tmux, pane), "SIGKILL");
    await until(
      "the pane is dead",
      async () =>
        (await tmux.run("display-message", "-p", "-t", pane, "#{pane_dead}")).trim() === "1",
    );
    const dead = await run(conn, { command: "true", pane_id: pane });
    assertMatch(textOf(dead), /^pane_dead: /);
    await tmux.run("respawn-pane", "-t", pane, "env PS1='$ ' bash --norc --noprofile");
    await prompt(tmux, pane);
    await works(conn, pane, "again");
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a server killed mid-call (SIGKILL) leaves a pane the next server can use", async () => {
  const tmux = await startTmux();
  try {
    const pane = tmux.paneId;
    for (const when of ["while the command runs", "after the command ended"]) {
      const first = await startServer("stdio", { socketName: tmux.socketName });
      const call = run(first, { command: "sleep 1; echo late", pane_id: pane, timeout: 30 })
        .catch(() => null);
      await until("the command started", () => commandRunning(tmux, pane));
      Deno.kill(first.serverPid, "SIGKILL");
      await call;
      await first.close();
      // Its control clients (a command client, a watcher) leave with it: its guard ends them.
      await until(
        "the killed server's clients left",
        async () => (await tmux.run("list-clients", "-F", "#{client_pid}")).trim() === "",
      );
      const next = await startServer("stdio", { socketName: tmux.socketName });
      try {
        if (when === "while the command runs") {
          const busy = await run(next, { command: "echo no", pane_id: pane, timeout: 10 });
          const out = busy.structuredContent as Json;
          assertEquals(out.started, false, textOf(busy));
          assertMatch(String(out.not_started_reason), /still running an earlier run_command/);
        }
        // Its trailer holds the shell once the command ends, until released.
        await until("the command ended", async () => !(await commandRunning(tmux, pane)));
        await works(next, pane, "next");
        await works(next, pane, "again");
        await assertNoLeftovers(tmux, next.serverPid);
      } finally {
        await next.close();
      }
    }
  } finally {
    await tmux.close();
  }
});

Deno.test("a server stopped mid-call (SIGTERM, SIGINT, end of input) leaves no option once the command ends", async () => {
  const tmux = await startTmux();
  try {
    const pane = tmux.paneId;
    for (const stop of ["SIGTERM", "SIGINT", "end of input"] as const) {
      const conn = await startServer("stdio", { socketName: tmux.socketName });
      const call = run(conn, { command: "sleep 0.5; echo late", pane_id: pane, timeout: 30 })
        .catch(() => null);
      await until("the command started", () => commandRunning(tmux, pane));
      if (stop !== "end of input") Deno.kill(conn.serverPid, stop);
      await conn.close();
      await call;
      await until("the command ended", async () => !(await commandRunning(tmux, pane)));
      await prompt(tmux, pane);
      await assertNoLeftovers(tmux, conn.serverPid);
    }
  } finally {
    await tmux.close();
  }
});

Deno.test("timeout, then C-c, then the next call: only the run's record stays, until collected", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const runId = await timedOut(conn, pane, "sleep 1000");
    // The next call comes at once: the trailer runs while it waits for the prompt.
    await tmux.run("send-keys", "-t", pane, "C-c");
    await works(conn, pane, "after");
    const options = await tmux.run("show-options", "-p", "-t", pane);
    assertEquals(
      options.split("\n").filter((l) => l.startsWith("@tmux_mcp")).map((l) => l.split(" ")[0])
        .sort(),
      [`@tmux_mcp_${runId.split(".")[1]}`, `@tmux_mcp_run_${runId.split(".")[1]}`],
    );
    const collected = await waitAgain(conn, runId);
    assertEquals([collected.timed_out, collected.exit_status], [false, 130]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a timed-out run is collected later by wait_for_command, then forgotten", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const runId = await timedOut(conn, pane, "echo early; sleep 1.5; echo late; exit 3");
    // Still running: timed_out again, and nothing the first result did not show.
    const running = await waitAgain(conn, runId, 0.3);
    assertEquals([running.timed_out, running.exit_status, running.output], [true, null, []]);
    assertEquals([running.output_from_line, running.output_total_lines], [2, 1]);
    const done = await waitAgain(conn, runId);
    assertEquals(
      [done.timed_out, done.started, done.exit_status, done.output, done.run_id],
      // Over, and all of it shown: nothing is left to collect by its id.
      [false, true, 3, ["late"], undefined],
    );
    assertEquals([done.output_from_line, done.output_total_lines], [2, 2]);
    const again = await conn.client.callTool({
      name: "wait_for_command",
      arguments: { run_id: runId },
    }) as CallToolResult;
    assertMatch(textOf(again), /^not_found: run .* is unknown/);
    await works(conn, pane, "next");
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("wait_for_command collects a timed-out run after the server restarted", async () => {
  const tmux = await startTmux();
  try {
    const pane = tmux.paneId;
    const first = await startServer("stdio", { socketName: tmux.socketName });
    let runId: string;
    try {
      runId = await timedOut(first, pane, "sleep 1; printf 'x\\ty\\n'; exit 5");
    } finally {
      await first.close();
    }
    const next = await startServer("stdio", { socketName: tmux.socketName });
    try {
      const done = await waitAgain(next, runId);
      assertEquals([done.timed_out, done.exit_status, done.output], [false, 5, ["x       y"]]);
      await works(next, pane, "after");
      await assertNoLeftovers(tmux, next.serverPid);
    } finally {
      await next.close();
    }
  } finally {
    await tmux.close();
  }
});

Deno.test("an uncollected run's record expires: past its time, the next timeout in the pane clears it", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const old = await timedOut(conn, pane, "sleep 1");
    const nonce = old.split(".")[1];
    // Its record made two hours ago (the server keeps records for an hour).
    const value = (await tmux.run("show-options", "-p", "-v", "-t", pane, `@tmux_mcp_run_${nonce}`))
      .trim();
    const record = JSON.parse(value);
    record.created -= 2 * 60 * 60 * 1000;
    await tmux.run(
      "set-option",
      "-p",
      "-t",
      pane,
      `@tmux_mcp_run_${nonce}`,
      JSON.stringify(record),
    );
    await until("the first command ended", async () => !(await commandRunning(tmux, pane)));
    const fresh = await timedOut(conn, pane, "sleep 1");
    const options = await tmux.run("show-options", "-p", "-t", pane);
    assert(!options.includes(nonce), `the expired record stayed:\n${options}`);
    await until("the second command ended", async () => !(await commandRunning(tmux, pane)));
    assertEquals((await waitAgain(conn, fresh)).exit_status, 0);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a server killed mid-call leaves no shell waiting for it: the prompt comes back on its own", async () => {
  const tmux = await startTmux();
  try {
    const pane = await tmux.newPane();
    for (const command of ["sleep 0.5; echo late", "sleep 0.5; echo 'ünïcödé'"]) {
      const conn = await startServer("stdio", { socketName: tmux.socketName });
      const call = run(conn, { command, pane_id: pane, timeout: 30 }).catch(() => null);
      await until("the command started", () => commandRunning(tmux, pane));
      Deno.kill(conn.serverPid, "SIGKILL");
      await call;
      await conn.close();
      // No server runs now: the shell must not wait for one.
      await until("the command ended", async () => !(await commandRunning(tmux, pane)));
      await prompt(tmux, pane);
      const options = await tmux.run("show-options", "-p", "-t", pane);
      assertEquals(options.split("\n").filter((l) => l.startsWith("@tmux_mcp")), []);
      const buffers = await tmux.run("list-buffers", "-F", "#{buffer_name}");
      assertEquals(buffers.split("\n").filter((b) => b.startsWith("tmux_mcp_")), []);
    }
  } finally {
    await tmux.close();
  }
});

Deno.test("a pane respawned under a call ends it at once, and so does wait_for_command", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const respawn = async () => {
      await tmux.run("respawn-pane", "-k", "-t", pane, "env PS1='$ ' bash --norc --noprofile");
      await prompt(tmux, pane);
    };
    const call = run(conn, { command: "echo started; sleep 1000", pane_id: pane, timeout: 8 });
    // Started, not only typed: a shell replaced before it runs the line never started it.
    await until("the command started", () => commandStarted(tmux, pane));
    await respawn();
    const ended = (await call).structuredContent as Json;
    assertEquals(
      [ended.timed_out, ended.exit_status, ended.anchor_lost],
      [false, null, true],
      JSON.stringify(ended),
    );
    assertMatch(String(ended.no_status_reason), /replaced/);
    await works(conn, pane, "respawned");
    const runId = await timedOut(conn, pane, "sleep 1000");
    await respawn();
    const collected = await waitAgain(conn, runId, 8);
    assertEquals([collected.timed_out, collected.exit_status], [false, null]);
    assertMatch(String(collected.no_status_reason), /replaced/);
    await works(conn, pane, "again");
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a shell without TMUX in its environment runs commands like any other", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane("env -u TMUX PS1='$ ' bash --norc --noprofile");
    await prompt(tmux, pane);
    for (const word of ["one", "two"]) {
      const result = await run(conn, {
        command: `echo ${word}; echo é`,
        pane_id: pane,
        timeout: 5,
      });
      const out = result.structuredContent as Json;
      assertEquals([out.exit_status, out.output], [0, [word, "é"]], textOf(result));
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
