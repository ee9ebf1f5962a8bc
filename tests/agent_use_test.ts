// Panes as agents use them (issue 19): keys that mean what they say, cursors that never replay
// old output, waits that see output and not the agent's own typing, a REPL asked in two calls.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { until } from "./helpers/tmux.ts";
import { stepNeeding, testNeeding } from "./helpers/prerequisites.ts";

type Json = Record<string, unknown>;

async function ok(conn: Connection, name: string, args: Json): Promise<Json> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assert(!result.isError, `${name} failed: ${textOf(result)}`);
  return result.structuredContent as Json;
}

async function refused(conn: Connection, name: string, args: Json): Promise<string> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assertEquals(result.isError, true, `${name} ${JSON.stringify(args)} was accepted`);
  return textOf(result);
}

Deno.test("keys, cursors and waits as an agent uses them", async (t) => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const screen = async () =>
      (await tmux.run("capture-pane", "-p", "-J", "-t", pane)).trimEnd().split("\n");

    await t.step(
      "keys: ['C-c'] interrupts; an unknown key name is refused, not typed",
      async () => {
        await ok(conn, "send_keys", { pane_id: pane, text: "sleep 100", enter: true });
        await until(
          "sleep starts",
          async () =>
            (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}"))
              .trim() === "sleep",
        );
        const sent = await ok(conn, "send_keys", { pane_id: pane, keys: ["C-c"] });
        assertEquals(sent.sent, 1);
        await until(
          "the shell is back",
          async () =>
            (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}"))
              .trim() === "bash",
        );
        const before = await screen();
        const bad = await refused(conn, "send_keys", { pane_id: pane, keys: ["C-c", "hello"] });
        assertMatch(bad, /keys\[1\] is not a key name/);
        assertEquals(await screen(), before);
        await ok(conn, "run_command", { pane_id: pane, command: "clear" });
      },
    );

    await t.step("a cursor after a 3,000-character line returns only the new lines", async () => {
      await tmux.run("resize-window", "-t", pane, "-x", "80");
      await ok(conn, "run_command", {
        pane_id: pane,
        command: "echo BUILD-FINISHED; printf 'x%.0s' $(seq 3000); echo",
      });
      const since = await ok(conn, "capture_since", { pane_id: pane });
      const typed = await ok(conn, "send_keys", {
        pane_id: pane,
        text: "sleep 0.5; echo new-output",
        enter: true,
      });
      const old = await ok(conn, "wait_for_text", {
        pane_id: pane,
        cursor: typed.cursor,
        patterns: ["BUILD-FINISHED", "new-output"],
        timeout: 10,
      });
      // Not the previous command's line, and not the echo of the typed command line.
      // (lines_missed is left out when false.)
      assertEquals([old.outcome, old.line, old.lines_missed], ["matched", "new-output", undefined]);
      await until("the prompt is back", async () => (await screen()).at(-1) === "$");
      const fresh = await ok(conn, "capture_since", { pane_id: pane, cursor: since.cursor });
      // The prompt it stood after is not repeated; the command line was typed after it.
      assertEquals([fresh.lines, fresh.lines_missed], [
        ["sleep 0.5; echo new-output", "new-output"],
        false,
      ]);
    });

    await t.step("cursors survive a width change and clear, and know their pane", async () => {
      const since = await ok(conn, "capture_since", { pane_id: pane });
      await tmux.run("resize-window", "-t", pane, "-x", "50");
      await ok(conn, "run_command", { pane_id: pane, command: "echo after-resize" });
      const resized = await ok(conn, "capture_since", { pane_id: pane, cursor: since.cursor });
      assertEquals(resized.lines_missed, false);
      assert(
        (resized.lines as string[]).includes("after-resize"),
        JSON.stringify(resized.lines),
      );
      assert(!(resized.lines as string[]).some((l) => l.includes("BUILD-FINISHED")));
      await ok(conn, "run_command", { pane_id: pane, command: "clear; echo after-clear" });
      const cleared = await ok(conn, "capture_since", { pane_id: pane, cursor: resized.cursor });
      assert(!(cleared.lines as string[]).some((l) => /after-resize|x{20}/.test(l)));
      const other = await tmux.newPane();
      const foreign = await refused(conn, "capture_since", {
        pane_id: other,
        cursor: cleared.cursor,
      });
      assertMatch(foreign, /^invalid_argument/);
    });

    await stepNeeding(
      t,
      ["python3"],
      "a python3 question is answered in two calls, and only when whole",
      async () => {
        const repl = await tmux.newPane("python3 -q");
        await until(
          "python's prompt",
          async () => (await tmux.run("capture-pane", "-p", "-t", repl)).includes(">>>"),
        );
        for (
          const [question, answer] of [
            ["6*7", "42"],
            ["import time; time.sleep(1); print('slow', 'answer')", "slow answer"],
            ["'>>> ' + 'x'", "'>>> x'"],
          ]
        ) {
          const sent = await ok(conn, "send_keys", { pane_id: repl, text: question, enter: true });
          const read = await ok(conn, "wait_for_text", {
            pane_id: repl,
            cursor: sent.cursor,
            patterns: ["^>>> $"],
            regex: true,
            timeout: 10,
          });
          assertEquals(read.outcome, "matched");
          assertEquals(read.lines, [answer, ">>> "], question);
        }
        await tmux.run("kill-pane", "-t", repl);
      },
    );
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

/** The pid of the pane shell's child running our function (the run's subshell). */
async function runSubshell(tmux: { run(...args: string[]): Promise<string> }, pane: string) {
  const shell = (await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}")).trim();
  const out = await new Deno.Command("pgrep", { args: ["-P", shell], stdout: "piped" }).output();
  const pids = new TextDecoder().decode(out.stdout).trim().split("\n").filter((p) => p !== "");
  assertEquals(pids.length, 1, `children of the pane's shell: ${pids}`);
  return Number(pids[0]);
}

Deno.test("no run outlives its shell's return to the prompt", async (t) => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const timedOut = async (command: string): Promise<string> => {
      const run = await ok(conn, "run_command", { pane_id: pane, command, timeout: 0.5 });
      assertEquals(run.timed_out, true);
      return run.run_id as string;
    };
    const nextRunWorks = async () => {
      const next = await ok(conn, "run_command", { pane_id: pane, command: "echo next" });
      assertEquals([next.exit_status, next.output], [0, ["next"]], JSON.stringify(next));
    };
    const collect = (runId: string) => ok(conn, "wait_for_command", { run_id: runId, timeout: 5 });

    await t.step("C-\\ (SIGQUIT) after a timeout", async () => {
      const runId = await timedOut("sleep 1000");
      await ok(conn, "send_keys", { pane_id: pane, keys: ["C-\\"] });
      await nextRunWorks();
      const ended = await collect(runId);
      assertEquals([ended.timed_out, ended.exit_status], [false, 131]);
    });

    await t.step("kill -TERM 0 inside the command", async () => {
      const run = await ok(conn, "run_command", {
        pane_id: pane,
        command: "echo start; kill -TERM 0",
        timeout: 10,
      });
      assertEquals([run.exit_status, run.output], [143, ["start"]]);
      await nextRunWorks();
    });

    await t.step("SIGKILL of the run's subshell", async () => {
      const runId = await timedOut("sleep 1001");
      const subshell = await runSubshell(tmux, pane);
      const sleeper = (await new Deno.Command("pgrep", {
        args: ["-f", "^sleep 1001$"],
        stdout: "piped",
      }).output()).stdout;
      Deno.kill(subshell, "SIGKILL");
      await nextRunWorks();
      const ended = await collect(runId);
      assertEquals([ended.timed_out, ended.exit_status], [false, null]);
      assertMatch(ended.no_status_reason as string, /killed \(SIGKILL\)/);
      for (const pid of new TextDecoder().decode(sleeper).trim().split("\n")) {
        if (pid !== "") Deno.kill(Number(pid), "SIGKILL");
      }
    });

    await t.step("C-z (the job stopped, the prompt back)", async () => {
      const runId = await timedOut("sleep 1002");
      await ok(conn, "send_keys", { pane_id: pane, keys: ["C-z"] });
      await nextRunWorks();
      const ended = await collect(runId);
      assertEquals([ended.timed_out, ended.exit_status], [false, null]);
      assertMatch(ended.no_status_reason as string, /stopped \(SIGTSTP/);
      // The stopped job is the pane shell's: end it there.
      await ok(conn, "send_keys", { pane_id: pane, text: "kill -KILL %1", enter: true });
      await until(
        "the stopped job is gone",
        async () =>
          (await new Deno.Command("pgrep", { args: ["-f", "^sleep 1002$"] }).output()).code !== 0,
      );
    });

    for (const shell of ["bash --norc --noprofile", "dash", "zsh -f"]) {
      await stepNeeding(
        t,
        [shell.split(" ")[0]],
        `a ${shell.split(" ")[0]} started in the pane runs commands at once`,
        async () => {
          await ok(conn, "send_keys", { pane_id: pane, text: shell, enter: true });
          await until(
            `${shell} reads`,
            async () =>
              (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}"))
                .trim() === shell.split(" ")[0],
          );
          for (const word of ["inside", "again"]) {
            const run = await ok(conn, "run_command", {
              pane_id: pane,
              command: `echo ${word}; exit 3`,
              timeout: 5,
            });
            assertEquals([run.timed_out, run.exit_status, run.output], [false, 3, [word]]);
          }
          await ok(conn, "send_keys", { pane_id: pane, text: "exit", enter: true });
          await until("the pane's own shell is back", async () => {
            const shell = (await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}"))
              .trim();
            return (await new Deno.Command("pgrep", { args: ["-P", shell] }).output()).code !== 0;
          });
          await nextRunWorks();
        },
      );
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

testNeeding(
  ["git", "less"],
  "git log prints through; with its pager on, the call returns as less waits for keys",
  async () => {
    const repo = await Deno.makeTempDir({ prefix: "tmux-mcp-git-" });
    try {
      // A hundred commits in one git process.
      let stream = "";
      for (let i = 1; i <= 100; i++) {
        const message = `commit ${i}`;
        stream += `commit refs/heads/main\ncommitter t <t@t> ${1700000000 + i} +0000\n` +
          `data ${message.length}\n${message}\n\n`;
      }
      const init = await new Deno.Command("git", { args: ["init", "-q", "-b", "main", repo] })
        .output();
      assert(init.success, "git init");
      const child = new Deno.Command("git", {
        args: ["-C", repo, "fast-import", "--quiet"],
        stdin: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(stream));
      await writer.close();
      assert((await child.status).success, "git fast-import");
      await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
        // What a client's stripped environment leaves: no PAGER, so git starts less.
        const pane = await tmux.newPane(
          "env -u PAGER -u GIT_PAGER -u LESS PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile",
        );
        const command = `cd ${repo} && git log --oneline`;
        const plain = await ok(conn, "run_command", { pane_id: pane, command, timeout: 10 });
        assertEquals([plain.timed_out, plain.exit_status], [false, 0]);
        assertEquals(plain.output_total_lines, 100);
        assertEquals((plain.output as string[]).at(-1)?.endsWith("commit 1"), true);
        const paged = await ok(conn, "run_command", {
          pane_id: pane,
          command,
          pager: true,
          timeout: 20,
        });
        // less waits for keys: the kernel says so, the result says what to send.
        assertEquals([paged.timed_out, paged.waiting_for_input, paged.prompt], [false, true, ":"]);
        assertEquals((paged.output as string[]).at(-1), ":");
        const result = await conn.client.callTool({
          name: "wait_for_command",
          arguments: { run_id: paged.run_id, timeout: 10 },
        }) as CallToolResult;
        assertMatch(textOf(result), /a pager's ':' or '\(END\)': send_keys \['q'\] quits it/);
        await ok(conn, "send_keys", { pane_id: pane, keys: ["q"] });
        const done = await ok(conn, "wait_for_command", { run_id: paged.run_id, timeout: 10 });
        assertEquals(done.exit_status, 0);
        await assertNoLeftovers(tmux, conn.serverPid);
      });
    } finally {
      await Deno.remove(repo, { recursive: true });
    }
  },
);

Deno.test("the smaller points: directories, no server, case, names, busy panes", async (t) => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    await t.step("new windows and panes start where their target pane is", async () => {
      const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-cwd-" });
      try {
        await ok(conn, "send_keys", { pane_id: tmux.paneId, text: `cd ${dir}`, enter: true });
        const path = (pane: string) =>
          tmux.run("display-message", "-p", "-t", pane, "#{pane_current_path}");
        await until("the cd", async () => (await path(tmux.paneId)).trim() === dir);
        const split = await ok(conn, "split_window", { pane_id: tmux.paneId });
        const window = await ok(conn, "create_window", { session_name: "main" });
        for (const made of [split, window]) {
          await until(
            `${made.pane_id} starts`,
            async () => (await path(made.pane_id as string)).trim() === dir,
          );
        }
        await tmux.run("kill-pane", "-t", split.pane_id as string);
        await tmux.run("kill-window", "-t", window.window_id as string);
        await ok(conn, "send_keys", { pane_id: tmux.paneId, text: "cd /", enter: true });
      } finally {
        await Deno.remove(dir);
      }
    });

    await t.step("a duplicate session name is already_exists", async () => {
      assertMatch(await refused(conn, "create_session", { name: "main" }), /^already_exists/);
    });

    await t.step("search_panes and wait_for_text match case alike by default", async () => {
      const { tools } = await conn.client.listTools();
      const defaults = ["search_panes", "wait_for_text"].map((name) =>
        (tools.find((tool) => tool.name === name)!.inputSchema as {
          properties: Record<string, { default?: unknown }>;
        }).properties.case_sensitive.default
      );
      assertEquals(defaults, [true, true]);
    });

    await t.step("a busy pane points to wait_for_command and the run", async () => {
      const pane = await tmux.newPane();
      const first = await ok(conn, "run_command", {
        pane_id: pane,
        command: "sleep 30",
        timeout: 0.5,
      });
      const busy = await conn.client.callTool({
        name: "run_command",
        arguments: { pane_id: pane, command: "true" },
      }) as CallToolResult;
      const reason = (busy.structuredContent as Json).not_started_reason as string;
      assertMatch(reason, /wait_for_command/);
      assert(reason.includes(first.run_id as string), reason);
      assert(!reason.includes("@tmux_mcp"), reason);
      await ok(conn, "send_keys", { pane_id: pane, keys: ["C-c"] });
      await ok(conn, "wait_for_command", { run_id: first.run_id, timeout: 10 });
    });
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("list_sessions with no tmux server answers none, and starts none", async () => {
  const socketName = `tmux-mcp-test-${Deno.pid}-none-${crypto.randomUUID().slice(0, 8)}`;
  const conn = await startServer("stdio", { socketName });
  try {
    const listed = await ok(conn, "list_sessions", {});
    assertEquals(listed.sessions, []);
    const probe = await new Deno.Command("tmux", {
      args: ["-L", socketName, "list-sessions"],
      stderr: "null",
      stdout: "null",
    }).output();
    assertEquals(probe.success, false, "a tmux server was started");
  } finally {
    await conn.close();
  }
});

Deno.test("a line a continuation prompt takes is answered at once, not at the timeout", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    await ok(conn, "run_command", { pane_id: pane, command: "true" });
    // An unclosed quote typed by someone: the shell waits for the rest at its PS2 prompt.
    await ok(conn, "send_keys", { pane_id: pane, text: 'echo "unclosed', enter: true });
    const result = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: pane, command: "echo hi", timeout: 20 },
    }) as CallToolResult;
    const run = result.structuredContent as Json;
    assertEquals([run.started, run.timed_out], [false, false], textOf(result));
    assertMatch(run.not_started_reason as string, /continuation prompt/);
    await ok(conn, "send_keys", { pane_id: pane, keys: ["C-c"] });
    const next = await ok(conn, "run_command", { pane_id: pane, command: "echo next" });
    assertEquals(next.output, ["next"]);
    // A C-c or an Enter typed just before brings a prompt the run may see before its own line.
    for (let i = 0; i < 5; i++) {
      await ok(conn, "send_keys", { pane_id: pane, text: 'echo "unclosed', enter: true });
      await ok(conn, "send_keys", { pane_id: pane, keys: ["C-c"] });
      const after = await ok(conn, "run_command", { pane_id: pane, command: `echo c${i}` });
      assertEquals(after.output, [`c${i}`]);
      await ok(conn, "send_keys", { pane_id: pane, text: "true", enter: true });
      const then = await ok(conn, "run_command", { pane_id: pane, command: `echo e${i}` });
      assertEquals(then.output, [`e${i}`]);
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("text typed while the shell is still drawing its prompt is never taken for output", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    // Each prompt comes half a second late, as after a slow PROMPT_COMMAND (a git status, say).
    // (Typed: run_command runs its command in a subshell, which would keep the setting to itself.)
    await tmux.run("send-keys", "-t", pane, "PROMPT_COMMAND='sleep 0.5'", "Enter");
    const prompted = () =>
      until(
        "a prompt",
        async () =>
          (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().split("\n").at(-1) === "$",
      );
    // From round 2 another Enter is typed ahead of the busy shell first: the terminal echoes the
    // line at the start of a row, and the line editor again after the prompt of the empty line,
    // a row down. Rounds 4 and 5 wait with no cursor of their own, at once: the echo shows only
    // after the wait began.
    for (let round = 0; round < 6; round++) {
      const ahead = round === 2 || round === 3 || round === 5;
      const own = round >= 4;
      // Enter at a prompt, then at once the next line without Enter: its cursor is taken before
      // the next prompt is drawn.
      await prompted();
      await ok(conn, "send_keys", { pane_id: pane, keys: ahead ? ["Enter", "Enter"] : ["Enter"] });
      const typed = await ok(conn, "send_keys", { pane_id: pane, text: `echo MARK_${round}` });
      const shown = () =>
        until(
          "the prompt and the typed line",
          async () =>
            (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith(
              `$ echo MARK_${round}`,
            ),
        );
      if (!own) await shown();
      const waited = await ok(conn, "wait_for_text", {
        pane_id: pane,
        ...(own ? {} : { cursor: typed.cursor }),
        patterns: [`MARK_${round}`],
        timeout: own ? 1.5 : 1,
      });
      assertEquals(waited.outcome, "timeout", JSON.stringify(waited));
      if (own) await shown();
      // Entered, the line runs, and its output is what matches.
      const entered = await ok(conn, "send_keys", { pane_id: pane, keys: ["Enter"] });
      const ran = await ok(conn, "wait_for_text", {
        pane_id: pane,
        cursor: entered.cursor,
        patterns: [`^MARK_${round}$`],
        regex: true,
        timeout: 10,
      });
      assertEquals(ran.outcome, "matched", JSON.stringify(ran));
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
