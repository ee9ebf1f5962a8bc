// Driving programs that are not a shell's command line, one call per exchange: send_keys with
// `wait` types, then returns the answer once the program waits for input again (a known prompt),
// goes quiet, or exits; wait_for_text waits the same ways. Real python3, node, sqlite3, vim and
// less, and a stand-in for a coding agent's TUI (tests/fixtures/tui_agent.py).

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { type TestTmux, until, untilRunning } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

interface Answer {
  outcome: string;
  prompt: string | null;
  lines: string[];
  changed_rows: Array<{ row: number; text: string }> | null;
}

const AGENT = new URL("./fixtures/tui_agent.py", import.meta.url).pathname;

async function call(conn: Connection, name: string, args: Json): Promise<Json> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assert(!result.isError, `${name}: ${textOf(result)}`);
  return result.structuredContent as Json;
}

/** One exchange: the text, Enter, and the answer, in one call. */
async function ask(conn: Connection, pane: string, text: string, wait: Json = {}): Promise<Answer> {
  const sent = await call(conn, "send_keys", { pane_id: pane, text, enter: true, wait });
  return sent.answer as Answer;
}

/** A pane running `command`, once its screen shows `ready`. */
async function started(tmux: TestTmux, command: string, ready: RegExp): Promise<string> {
  const pane = await tmux.newPane(command);
  await until(`${command} is ready`, async () => {
    return ready.test((await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd());
  });
  return pane;
}

testNeeding(
  ["python3"],
  "a python3 question and its answer in one call, at its prompt",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = await started(tmux, "python3 -q", />>>$/);
      const answer = await ask(conn, pane, "6*7");
      assertEquals([answer.outcome, answer.prompt, answer.lines], ["prompt", ">>>", [
        "42",
        ">>> ",
      ]]);
      // Output holding ">>> " is no prompt: the exchange ends at the real one, after it.
      const slow = await ask(
        conn,
        pane,
        "import time; print('>>> not yet'); time.sleep(0.5); print('done')",
      );
      assertEquals([slow.outcome, slow.lines], ["prompt", [">>> not yet", "done", ">>> "]]);
      // A statement with no output: the prompt back is the answer.
      assertEquals((await ask(conn, pane, "x = 1")).lines, [">>> "]);
      // The program exits, and its pane closes with it.
      assertEquals((await ask(conn, pane, "exit()")).outcome, "exited");
    });
  },
);

testNeeding(
  ["node", "sqlite3"],
  "node and sqlite3: a question and its answer in one call",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const node = await started(tmux, "node", />$/);
      const mapped = await ask(conn, node, "[1, 2, 3].map((x) => x * 2)");
      assertEquals([mapped.outcome, mapped.lines], ["prompt", ["[ 2, 4, 6 ]", "> "]]);
      const sqlite = await started(tmux, "sqlite3", /sqlite>$/);
      const table = await ask(conn, sqlite, "create table t(x); insert into t values (6), (7);");
      assertEquals(table.outcome, "prompt");
      const product = await ask(conn, sqlite, "select x * 7 from t;");
      assertEquals([product.outcome, product.lines], ["prompt", ["42", "49", "sqlite> "]]);
    });
  },
);

testNeeding(
  ["vim", "less"],
  "a full-screen program: quiet ends the wait, with the rows that changed",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      // No swap file: the pane is killed with vim in it, which would leave one behind.
      const vim = await started(tmux, "vim -u NONE -N -n", /~/);
      const sent = await call(conn, "send_keys", {
        pane_id: vim,
        text: "ihello from the agent",
        wait: { quiet_seconds: 0.3, prompt: false },
      });
      const typed = sent.answer as Answer;
      assertEquals(typed.outcome, "quiet");
      assert(
        typed.changed_rows?.some((row) => row.row === 0 && row.text === "hello from the agent"),
        JSON.stringify(typed.changed_rows),
      );
      const file = await Deno.makeTempFile();
      await Deno.writeTextFile(
        file,
        Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n"),
      );
      try {
        const less = await started(tmux, `less ${file}`, /line 1\b/);
        const end = await call(conn, "send_keys", {
          pane_id: less,
          keys: ["G"],
          wait: { quiet_seconds: 0.3 },
        });
        const rows = (end.answer as Answer).changed_rows ?? [];
        assert(rows.some((row) => row.text === "line 200"), JSON.stringify(rows));
        // wait_for_text waits the same way, and no longer gives up at once on an alternate screen.
        const still = await call(conn, "wait_for_text", { pane_id: less, quiet_seconds: 0.2 });
        assertEquals([still.outcome, still.changed_rows], ["quiet", []]);
      } finally {
        await Deno.remove(file);
      }
    });
  },
);

testNeeding(
  ["python3"],
  "a coding agent's TUI in a pane: one call per prompt, its Enter never taken for a paste",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const agent = await started(tmux, `python3 ${AGENT}`, /^> ?$/m);
      const first = await ask(conn, agent, "hello agent", { quiet_seconds: 0.5 });
      assert(first.lines.includes("answer: tnega olleh"), JSON.stringify(first));
      assert(first.lines.includes("done (1 line)"), JSON.stringify(first));
      const second = await ask(conn, agent, "first line\nsecond line", { quiet_seconds: 0.5 });
      assert(second.lines.includes("done (2 lines)"), JSON.stringify(second));
      assert(second.lines.includes("answer: enil dnoces"), JSON.stringify(second));
    });
  },
);

Deno.test("wait_for_text: a wait with no end but the timeout is refused; exits and quiet end it", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const refused = await conn.client.callTool({
      name: "wait_for_text",
      arguments: { pane_id: tmux.paneId },
    }) as CallToolResult;
    assertEquals(refused.isError, true);
    assert(textOf(refused).startsWith("invalid_argument: give patterns"), textOf(refused));
    const pane = await tmux.newPane();
    await tmux.run("send-keys", "-t", pane, "sleep 1; echo slept", "Enter");
    await untilRunning(tmux, pane, "sleep");
    const ended = await call(conn, "wait_for_text", { pane_id: pane, quiet_seconds: 5 });
    assertEquals([ended.outcome, (ended.lines as string[]).includes("slept")], ["exited", true]);
    const quiet = await call(conn, "wait_for_text", { pane_id: pane, quiet_seconds: 0.2 });
    assertEquals(quiet.outcome, "quiet");
  });
});

testNeeding(
  ["python3", "node"],
  "an exchange ends on the program's turn: a slow statement's answer is not cut at 2 s of quiet",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      // A caller's pattern and timeout are what end a wait, not quiet it never asked for.
      const build = await ask(conn, tmux.paneId, "sleep 3; echo BUILD-DONE", {
        patterns: ["BUILD-DONE"],
        timeout: 10,
      });
      assertEquals([build.outcome, build.lines.includes("BUILD-DONE")], ["matched", true]);
      // The keys went to a shell: the programs its line runs one after another are not the
      // exchange's end (the first one's end was once taken for it, read as the wait began).
      const chain = await ask(
        conn,
        tmux.paneId,
        "sleep 1; python3 -c 'import time; time.sleep(1)'; echo CHAIN-DONE",
        { patterns: ["CHAIN-DONE"], timeout: 10 },
      );
      assertEquals([chain.outcome, chain.lines.includes("CHAIN-DONE")], ["matched", true]);
      const python = await started(tmux, "python3 -q", />>>$/);
      const slow = await ask(conn, python, "import time; time.sleep(2.5); print('SLOW-RESULT-42')");
      assertEquals([slow.outcome, slow.lines], ["prompt", ["SLOW-RESULT-42", ">>> "]]);
      // Longer than the call's timeout: the answer says so, and what comes after it is in the
      // next answer, not lost between two calls.
      const sent = await call(conn, "send_keys", {
        pane_id: python,
        text: "time.sleep(2); print('LATE-RESULT')",
        enter: true,
        wait: { timeout: 1 },
      });
      assertEquals((sent.answer as Answer).outcome, "timeout");
      await until("the late result", async () => {
        return (await tmux.run("capture-pane", "-p", "-t", python)).includes("LATE-RESULT\n>>>");
      });
      const next = await ask(conn, python, "6*7");
      assertEquals([next.outcome, next.lines], ["prompt", [
        "LATE-RESULT",
        "42",
        ">>> ",
      ]]);
      // An event loop awaiting a timer polls its terminal too: its empty row is no question.
      const node = await started(tmux, "node", />$/);
      const late = await ask(
        conn,
        node,
        "await new Promise((r) => setTimeout(r, 2500)); 'NODE-LATE'",
      );
      assertEquals([late.outcome, late.lines], ["prompt", ["'NODE-LATE'", "> "]]);
    });
  },
);

Deno.test("a cursor made on a full-screen screen reads what follows, also when the program leaves during the read", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // Old lines, then a screen of its own taken and left every 30 ms: reads race the switches.
    const pane = await tmux.newPane(
      "printf 'OLD-LINE-1\\nOLD-LINE-2\\n'; while :; do " +
        "printf '\\033[?1049h\\033[2J\\033[HALT\\n'; sleep 0.03; printf '\\033[?1049l'; sleep 0.03; done",
    );
    await until("the program switches screens", async () => {
      return (await tmux.run("display-message", "-p", "-t", pane, "#{alternate_on}")).trim() ===
        "1";
    });
    for (let i = 0; i < 200; i++) {
      const made = await call(conn, "capture_since", { pane_id: pane });
      const read = await call(conn, "capture_since", { pane_id: pane, cursor: made.cursor });
      const lines = (read.lines ?? []) as string[];
      assert(
        read.lines_missed === false && !lines.some((line) => line.startsWith("OLD-LINE")),
        `read ${i}: ${JSON.stringify(read)}`,
      );
    }
  });
});

Deno.test("after run_command returns, its shell's prompt is drawn: a cursor made then finds it old", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // A shell that takes a moment between its command's end and its prompt.
    const pane = await tmux.newPane(
      "env PS1='$ ' PROMPT_COMMAND='sleep 0.15' HISTFILE=/dev/null bash --norc --noprofile",
    );
    await call(conn, "run_command", { pane_id: pane, command: "echo a" });
    const since = await call(conn, "capture_since", { pane_id: pane });
    await call(conn, "send_keys", { pane_id: pane, text: "echo b", enter: true, wait: {} });
    const after = await call(conn, "capture_since", { pane_id: pane, cursor: since.cursor });
    assertEquals((after.lines as string[]).slice(0, 2), ["echo b", "b"]);
  });
});

Deno.test("run_command's typed lines never show: every reading tool shows the command", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = tmux.paneId;
    // 40 columns: the typed lines wrap over several rows.
    await tmux.run("resize-window", "-t", pane, "-x", "40");
    for (const command of ["echo one", "printf 'no newline'", "echo 'two\nthree'"]) {
      await call(conn, "run_command", { pane_id: pane, command });
    }
    const ours = /__tm|tmux_mcp_/;
    await until("the prompt is back", async () => {
      return (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$");
    });
    const joined = (await call(conn, "capture_pane", { pane_id: pane })).lines as string[];
    assertEquals(joined, [
      "$ echo one",
      "one",
      "$ printf 'no newline'",
      // A command of several lines stands as its first.
      "no newline$ echo 'two …",
      "two",
      "three",
      "$ ",
    ]);
    const rows = (await call(conn, "capture_pane", { pane_id: pane, join_wrapped: false }))
      .lines as string[];
    assert(rows.includes("$ echo one") && !rows.some((row) => ours.test(row)), rows.join("\n"));
    const snapshot = (await call(conn, "snapshot_pane", { pane_id: pane })).lines as string[];
    assert(!snapshot.some((row) => ours.test(row)), snapshot.join("\n"));
    const found = await call(conn, "search_panes", { pattern: "tmux_mcp_", include_history: true });
    assertEquals(found.matches, []);
    const since = await call(conn, "capture_since", { pane_id: pane });
    await call(conn, "run_command", { pane_id: pane, command: "echo four" });
    await until("the prompt is back", async () => {
      return (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$");
    });
    const after = await call(conn, "capture_since", { pane_id: pane, cursor: since.cursor });
    // The prompt the cursor stood after is not repeated.
    assertEquals(after.lines, ["echo four", "four"]);
  });
});

testNeeding(
  ["vim", "less"],
  "leaving a full-screen program: only what follows, never old lines or our own typed ones",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = tmux.paneId;
      const file = await Deno.makeTempFile();
      await Deno.writeTextFile(file, Array.from({ length: 80 }, (_, i) => `note ${i}`).join("\n"));
      try {
        // Lines of ours on the normal screen, as an agent's session leaves them.
        await call(conn, "run_command", { pane_id: pane, command: "echo before" });
        for (
          const [open, close] of [[`less ${file}`, { keys: ["q"] }], [
            `vim -u NONE -N -n ${file}`,
            { text: ":q!", enter: true },
          ]] as const
        ) {
          const opened = await ask(conn, pane, open);
          assertEquals(opened.lines, [], JSON.stringify(opened).slice(0, 600));
          assert(
            opened.changed_rows?.some((row) => row.text === "note 0"),
            JSON.stringify(opened.changed_rows),
          );
          const closed = await call(conn, "send_keys", { pane_id: pane, ...close, wait: {} });
          const answer = closed.answer as Answer;
          // The program's exit is told at once: the shell's prompt may be drawn after it.
          assert(["[]", '["$ "]'].includes(JSON.stringify(answer.lines)), JSON.stringify(answer));
          const bytes = JSON.stringify(closed).length;
          assert(bytes <= 200, `${bytes} bytes: ${JSON.stringify(closed)}`);
        }
      } finally {
        await Deno.remove(file);
      }
    });
  },
);
