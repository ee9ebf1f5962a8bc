// A person sharing the tmux sees which panes the agent's runs are in: a run's pane title reads
// "[agent] <command>" from before the command starts, and the title it replaced comes back
// exactly as the run ends: also when the command is interrupted, when the server exits while it
// runs, and when the server is killed (SIGKILL: nothing of its own runs after). A title the
// program set meanwhile stays; a title is never read as a format.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { type Connection, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { commandRunning, startTmux, type TestTmux, until } from "./helpers/tmux.ts";
import { testNeeding } from "./helpers/prerequisites.ts";

type Json = Record<string, unknown>;

async function callTool(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

async function titleOf(tmux: TestTmux, pane: string): Promise<string> {
  return (await tmux.run("display-message", "-p", "-t", pane, "#{pane_title}")).replace(/\n$/, "");
}

/**
 * A person's title, set as a program sets one (OSC 2), never read as a format: `#{pane_pid}`
 * and `#(...)` would change, or run, if it were.
 */
const PERSON_TITLE = "build #{pane_pid} #(touch /tmp/tmux-mcp-title-ran) ## 'quoted' \"too\" é";

/** Sets a pane's title; returns it as tmux keeps it (3.7 on writes `#(` as `_(`). */
async function setTitle(tmux: TestTmux, pane: string, title: string): Promise<string> {
  const escaped = title.replaceAll("'", "'\\''");
  await tmux.run("send-keys", "-t", pane, "-l", `printf '\\033]2;%s\\033\\\\' '${escaped}'; clear`);
  await tmux.run("send-keys", "-t", pane, "Enter");
  const kept = (title: string) => title.replaceAll("#(", "_(");
  await until("the title is set", async () => {
    return [title, kept(title)].includes(await titleOf(tmux, pane));
  });
  return await titleOf(tmux, pane);
}

/**
 * Once the run's trailer has run: a result comes back at the run's end marker, and the trailer's
 * tmux command, which puts the title back and drops the options that held it, a moment later.
 */
async function trailerRan(tmux: TestTmux, pane: string): Promise<void> {
  await until("the trailer ran", async () => {
    return !(await tmux.run("show-options", "-p", "-t", pane)).includes("@tmux_mcp_shown");
  });
}

/** Runs `sleep 30` past its 1 s timeout: it goes on, its title shown. */
async function sleepTimesOut(conn: Connection, tmux: TestTmux, pane: string): Promise<void> {
  const slow = await callTool(conn, "run_command", {
    pane_id: pane,
    command: "sleep 30",
    timeout: 1,
  });
  assertEquals((slow.structuredContent as Json).timed_out, true, textOf(slow));
  assertEquals(await titleOf(tmux, pane), "[agent] sleep 30");
}

/** A command that prints its pane's title as it starts. */
const PRINTS_TITLE = "tmux display -p '#{pane_title}'";

Deno.test("a run shows itself in its pane's title from its start, and the title comes back exactly", async () => {
  await Deno.remove("/tmp/tmux-mcp-title-ran").catch(() => {});
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    const person = await setTitle(tmux, pane, PERSON_TITLE);
    const ran = await callTool(conn, "run_command", { pane_id: pane, command: PRINTS_TITLE });
    const result = ran.structuredContent as Json;
    assertEquals(result.output, [`[agent] ${PRINTS_TITLE}`], textOf(ran));
    await trailerRan(tmux, pane);
    assertEquals(await titleOf(tmux, pane), person);
    // A long command shows its start; a program's own title, set during the run, stays.
    const own = await callTool(conn, "run_command", {
      pane_id: pane,
      command: `${PRINTS_TITLE}; printf '\\033]2;its own\\033\\\\'; : ${"x".repeat(80)}`,
    });
    const shown = (own.structuredContent as Json).output as string[];
    assertEquals(shown, [`[agent] ${`${PRINTS_TITLE}; printf`.slice(0, 39)}…`], textOf(own));
    await trailerRan(tmux, pane);
    assertEquals(await titleOf(tmux, pane), "its own");
    // Interrupted: the run's end (C-c) takes its title back too.
    await setTitle(tmux, pane, PERSON_TITLE);
    await sleepTimesOut(conn, tmux, pane);
    await tmux.run("send-keys", "-t", pane, "C-c");
    await until("the title is back", async () => await titleOf(tmux, pane) === person);
    await until("nothing runs", async () => !(await commandRunning(tmux, pane)));
    const options = await tmux.run("show-options", "-p", "-t", pane);
    assert(!options.includes("tmux_mcp_shown"), options);
  });
  assert(
    !(await Deno.stat("/tmp/tmux-mcp-title-ran").then(() => true, () => false)),
    "a title was run as a format",
  );
});

Deno.test("a server that exits, or is killed, while its run goes on takes the run's title back", async () => {
  const tmux = await startTmux();
  try {
    const pane = tmux.paneId;
    for (const end of ["exit", "SIGKILL"] as const) {
      const person = await setTitle(tmux, pane, `${PERSON_TITLE} ${end}`);
      const conn = await startServer("stdio", { socketName: tmux.socketName });
      await sleepTimesOut(conn, tmux, pane);
      // What it makes is its own while it runs: a session (all its panes), a window's pane.
      const session = await callTool(conn, "create_session", { name: `made-${end}` });
      const made = session.structuredContent as Json;
      const window = await callTool(conn, "create_window", { session_id: made.session_id });
      const windowPane = (window.structuredContent as Json).pane_id as string;
      const listed = (await callTool(conn, "list_panes", {})).structuredContent as Json;
      const owned = Object.fromEntries(
        (listed.panes as Json[]).map((p) => [p.pane_id as string, p.agent_owned]),
      );
      assertEquals(
        [owned[pane], owned[made.pane_id as string], owned[windowPane], Object.keys(owned).length],
        [false, true, true, 3],
      );
      if (end === "SIGKILL") Deno.kill(conn.serverPid, "SIGKILL");
      await conn.close();
      await until(
        `the title is back after ${end}`,
        async () => await titleOf(tmux, pane) === person,
      );
      assert(await commandRunning(tmux, pane), "the run goes on");
      await until("the marks on what it made are gone", async () => {
        const marks = await tmux.run("show-options", "-t", made.session_id as string) +
          await tmux.run("show-options", "-p", "-t", windowPane);
        return !marks.includes("tmux_mcp");
      });
      await tmux.run("kill-session", "-t", made.session_id as string);
      // One C-c: a second one could reach the shell after the next round's keys, and drop them.
      await tmux.run("send-keys", "-t", pane, "C-c");
      await until("the run ended", async () => !(await commandRunning(tmux, pane)));
      await trailerRan(tmux, pane);
      assertEquals(await titleOf(tmux, pane), person);
    }
  } finally {
    await tmux.close();
  }
});

Deno.test("--no-activity-title leaves titles alone", async () => {
  await withServer("stdio", { extraArgs: ["--no-activity-title"] }, async (conn, tmux) => {
    const pane = tmux.paneId;
    await setTitle(tmux, pane, "mine");
    const ran = await callTool(conn, "run_command", { pane_id: pane, command: PRINTS_TITLE });
    assertEquals((ran.structuredContent as Json).output, ["mine"], textOf(ran));
  });
});

testNeeding(
  ["python3"],
  "send_keys that waits for the answer shows its input in the title meanwhile",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = await tmux.newPane("python3 -q");
      await until("python is ready", async () => {
        return (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith(">>>");
      });
      const before = await titleOf(tmux, pane);
      const asked = "import os, subprocess as s; " +
        "s.run(['tmux', 'display', '-pt', os.environ['TMUX_PANE'], '#{pane_title}'])";
      const sent = await callTool(conn, "send_keys", {
        pane_id: pane,
        text: asked,
        enter: true,
        wait: { timeout: 10 },
      });
      const answer = (sent.structuredContent as Json).answer as Json;
      assertEquals((answer.lines as string[])[0], `[agent] ${asked.slice(0, 39)}…`, textOf(sent));
      assertEquals(await titleOf(tmux, pane), before);
      // Without a wait the keys are typed at once: nothing to show.
      const typed = await callTool(conn, "send_keys", { pane_id: pane, text: asked, enter: true });
      assert(!typed.isError, textOf(typed));
      await until("the answer", async () => {
        return (await tmux.run("capture-pane", "-p", "-t", pane)).includes(`\n${before}\n`);
      });
    });
  },
);

Deno.test("a session whose program ends at once is made all the same: nothing is left to mark", async () => {
  await withServer("stdio", {}, async (conn) => {
    for (let i = 0; i < 5; i++) {
      const made = await callTool(conn, "create_session", { name: `brief-${i}`, command: "true" });
      assert(!made.isError, textOf(made));
    }
  });
});

Deno.test("a title holding a backslash is left as it is, run after run (tmux 3.7 keeps it escaped)", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    await tmux.run("send-keys", "-t", pane, "-l", "printf '\\033]2;a\\\\b\\033\\\\'; clear");
    await tmux.run("send-keys", "-t", pane, "Enter");
    await until("the title is set", async () => (await titleOf(tmux, pane)).startsWith("a\\"));
    const kept = await titleOf(tmux, pane);
    for (let i = 0; i < 3; i++) {
      const ran = await callTool(conn, "run_command", { pane_id: pane, command: PRINTS_TITLE });
      assertEquals((ran.structuredContent as Json).output, [kept], textOf(ran));
    }
    assertEquals(await titleOf(tmux, pane), kept);
    // A command's own backslashes show as ⧵ in the title, and the title before comes back.
    await setTitle(tmux, pane, "plain");
    const ran = await callTool(conn, "run_command", {
      pane_id: pane,
      command: `: a\\b; ${PRINTS_TITLE}`,
    });
    assertEquals((ran.structuredContent as Json).output, [`[agent] : a⧵b; ${PRINTS_TITLE}`]);
    await trailerRan(tmux, pane);
    assertEquals(await titleOf(tmux, pane), "plain");
  });
});
