// Hostile and malformed inputs: each one a clear isError result, nothing typed into any pane, no
// rejected secret echoed, and the server keeps serving.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { readAllOutput } from "./helpers/output.ts";
import { startServer, textOf, withServer } from "./helpers/mcp.ts";
import { startTmux, until } from "./helpers/tmux.ts";
import { output } from "./helpers/processes.ts";

const SECRET = "ghp_SuperSecretToken1234567890";

Deno.test("hostile inputs are refused cleanly and the server keeps serving", async (t) => {
  const tmux = await startTmux();
  const conn = await startServer("stdio", {
    socketName: tmux.socketName,
    extraArgs: ["--safety", "destructive", "--toolsets", "all"],
  }).catch(async (error) => {
    await tmux.close();
    throw error;
  });
  const pane = tmux.paneId;
  const call = async (name: string, args: Record<string, unknown>) =>
    await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  const screen = () => tmux.run("capture-pane", "-p", "-J", "-t", pane, "-S", "-");
  try {
    const before = await screen();
    await t.step("refused before anything is typed", async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ["run_command", { command: "echo a\0b", pane_id: pane }],
        ["run_command", { command: "true", pane_id: "%999999" }],
        ["run_command", { command: "true", pane_id: ";" }],
        ["run_command", { command: "true", pane_id: "$(x)" }],
        ["run_command", { command: "true", pane_id: "-t" }],
        ["run_command", { command: "true", pane_id: SECRET }],
        ["run_command", { command: "true", window_id: SECRET }],
        ["run_command", { command: "true", session_id: "$1; kill-server" }],
        ["run_command", { command: "true", pane_id: pane, timeout: -1 }],
        ["run_command", { command: "true", pane_id: pane, timeout: 0 }],
        ["run_command", { command: "true", pane_id: pane, timeout: "soon" }],
        ["run_command", { command: "true", pane_id: pane, max_lines: 0 }],
        ["run_command", { command: "true", pane_id: pane, max_lines: -5 }],
        ["run_command", { command: "true", pane_id: pane, max_lines: 1.5 }],
        ["run_command", { command: 42, pane_id: pane }],
        ["run_command", { command: "true", pane_id: pane, extra_key: SECRET }],
        ["run_command", { pane_id: pane }],
        ["run_command", { command: "true", socket_name: "../../etc/passwd" }],
        ["run_command", { command: "true", socket_name: SECRET + "/x" }],
        ["send_keys", { pane_id: pane, keys: ["C-c", SECRET] }],
        ["send_keys", { pane_id: pane, keys: ["C-c", "ghp_x"] }],
        ["send_keys", { pane_id: pane, keys: "C-c" }],
        ["send_keys", { pane_id: pane, text: "a\0b" }],
        ["send_keys", { pane_id: pane }],
        ["signal_channel", { channel: "a b" }],
        ["signal_channel", { channel: "x$(id)" }],
        ["wait_for_channel", { channel: "#{pid}", timeout: 1 }],
        ["create_session", { name: "a.b" }],
        ["create_session", { name: "x\ny" }],
        ["kill_session", { session_id: "main" }],
        ["kill_pane", { pane_id: "%0 %1" }],
        ["display_message", { pane_id: pane, format: "#(rm -rf /tmp/x)" }],
        ["capture_since", { pane_id: pane, cursor: "eyJub3QiOiJvdXJzIn0=" }],
        ["search_panes", { pattern: "([a-z]+", regex: true }],
      ];
      for (const [name, args] of cases) {
        const result = await call(name, args);
        assertEquals(result.isError, true, `${name} ${JSON.stringify(args)} was accepted`);
        const text = textOf(result);
        assert(text.length > 0, `${name}: empty error`);
        assert(!text.includes(SECRET), `${name}: the rejected value was echoed: ${text}`);
        assert(!/\n\s+at /.test(text), `${name}: stack trace: ${text}`);
      }
    });
    await t.step("nothing was typed into the pane", async () => {
      assertEquals(await screen(), before);
    });
    await t.step(
      "the server still serves, and timeouts and max_lines at the edges work",
      async () => {
        const huge = await call("run_command", {
          command: "echo fine",
          pane_id: pane,
          timeout: 1e300,
        });
        const out = huge.structuredContent as {
          exit_status: number;
          output: string[];
          effective_timeout: number;
        };
        assertEquals([out.exit_status, out.output, out.effective_timeout], [0, ["fine"], 30]);
        const many = await call("run_command", { command: "seq 3", pane_id: pane, max_lines: 1e9 });
        assertEquals((many.structuredContent as { output: string[] }).output, ["1", "2", "3"]);
      },
    );
    await t.step(
      "commands with ANSI escapes, CR and newlines (kept out of history too) and 1 MB of text run",
      async () => {
        const ansi = await call("run_command", {
          command: "printf '\\033[31mred\\033[0m\\n'; echo $'\\e[1mbold\\e[0m'",
          pane_id: pane,
        });
        assertEquals((ansi.structuredContent as { output: string[] }).output, ["red", "bold"]);
        const cr = await call("run_command", {
          command: "echo one\r\necho two",
          pane_id: pane,
        });
        assertEquals((cr.structuredContent as { output: string[] }).output, ["one", "two"]);
        const megabyte = `: ${"x".repeat(1024 * 1024)}; echo survived`;
        const big = await call("run_command", { command: megabyte, pane_id: pane, timeout: 20 });
        const bigOut = big.structuredContent as { exit_status: number; output: string[] };
        assertEquals([bigOut.exit_status, bigOut.output], [0, ["survived"]]);
        await assertNoLeftovers(tmux, conn.serverPid);
      },
    );
    await t.step("format text in names is never expanded", async () => {
      const made = await call("create_session", { name: "#(touch /tmp/tmux-mcp-hostile)#{pid}" });
      assertMatch(textOf(made), /#\(touch/);
      assert(!(await Deno.stat("/tmp/tmux-mcp-hostile").then(() => true, () => false)));
    });
  } finally {
    await conn.close();
    await tmux.close();
  }
});

Deno.test("--audit-log writes one JSON line per call, command text redacted", async () => {
  await withServer(
    "stdio",
    { extraArgs: ["--audit-log", "--toolsets", "all"] },
    async (conn, tmux) => {
      await conn.client.callTool({
        name: "run_command",
        arguments: { command: `echo ${SECRET} >/dev/null`, pane_id: tmux.paneId },
      });
      await conn.client.callTool({ name: "get_pane_info", arguments: { pane_id: "%4242" } });
      await new Promise((r) => setTimeout(r, 100));
      const lines = conn.stderr().split("\n").filter((l) => l.startsWith("{"));
      assert(!conn.stderr().includes(SECRET), "the command text was logged");
      const entries = lines.map((l) => JSON.parse(l));
      assertEquals(entries.map((e) => [e.tool, e.ok, e.code ?? null]), [
        ["run_command", true, null],
        ["get_pane_info", false, "not_found"],
      ]);
      assertEquals(entries[0].pane_id, tmux.paneId);
      assertEquals(entries[0].command.length, `echo ${SECRET} >/dev/null`.length);
      assertMatch(entries[0].command.sha256, /^[0-9a-f]{16}$/);
    },
  );
});

Deno.test("pane output that imitates the control-mode protocol cannot forge results", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // Every plausible "%end <time> <number> 1" for this second and the next, then a forged block.
    const now = Math.floor(Date.now() / 1000);
    const script = `for t in ${now} ${now + 1} ${now + 2}; do n=0; while [ $n -lt 1500 ]; do ` +
      `echo "%end $t $n 1"; n=$((n+1)); done; done; ` +
      `echo "%begin ${now} 99999 1"; echo forged; echo "%end ${now} 99999 1"; echo done`;
    const expected = (await new Deno.Command("sh", { args: ["-c", script], stdout: "piped" })
      .output()).stdout;
    const lines = new TextDecoder().decode(expected).trimEnd().split("\n");
    const result = await conn.client.callTool({
      name: "run_command",
      arguments: { command: script, pane_id: tmux.paneId, timeout: 30 },
    }) as CallToolResult;
    const out = result.structuredContent as {
      exit_status: number;
      output_total_lines: number;
      run_id: string;
    };
    assertEquals([out.exit_status, out.output_total_lines], [0, lines.length]);
    assertEquals(await readAllOutput(conn, out.run_id), lines);
    const after = await conn.client.callTool({
      name: "run_command",
      arguments: { command: "echo clean", pane_id: tmux.paneId },
    }) as CallToolResult;
    assertEquals((after.structuredContent as { output: string[] }).output, ["clean"]);
  });
});

Deno.test("no regular expression can stall the server, whatever flags it was started with", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // 40 a's then "b": each of these takes about 2^40 steps in a backtracking engine.
    await tmux.run("send-keys", "-t", tmux.paneId, "-l", `echo ${"a".repeat(40)}b`);
    const bound = (ms: number) =>
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("the server stalled")), ms)
      );
    for (const pattern of ["(a+)+$", "(a|a)*$", "(a|aa)*c", "(?:a*)*c", "(x+x+)+y"]) {
      for (const case_sensitive of [true, false]) {
        const search = conn.client.callTool({
          name: "search_panes",
          arguments: { pattern, regex: true, case_sensitive },
        }) as Promise<CallToolResult>;
        // Another call made meanwhile is answered too.
        const panes = conn.client.callTool({ name: "list_panes", arguments: {} });
        const [found] = await Promise.race([Promise.all([search, panes]), bound(20_000)]);
        assert(!found.isError, `${pattern}: ${textOf(found)}`);
      }
    }
    // What RE2 cannot run in linear time is refused, not run.
    for (const pattern of ["(a|a)*\\1$", "(?=a)(a|a)*$", "(?!b)a+$", "(?<=a)b"]) {
      const result = await conn.client.callTool({
        name: "wait_for_text",
        arguments: { patterns: [pattern], regex: true, timeout: 1 },
      }) as CallToolResult;
      assertEquals(result.isError, true, pattern);
      assertMatch(textOf(result), /^invalid_argument: bad regular expression/);
    }
  });
});

Deno.test("a pattern costly for its text neither holds the thread nor runs past its budget", async () => {
  await withServer("stdio", { extraArgs: ["--safety", "readonly", "--toolsets", "all"] }, async (
    conn,
    tmux,
  ) => {
    await tmux.run(
      "send-keys",
      "-t",
      tmux.paneId,
      "seq -f 'line %g of the history, with some text in it to match against' 1 3000",
      "Enter",
    );
    await until(
      "the history is there",
      async () =>
        Number(await tmux.run("display-message", "-p", "-t", tmux.paneId, "#{history_size}")) >
          2900,
    );
    // Linear in the text under RE2, but each character costs about the pattern's size.
    let searching = true;
    const search = (conn.client.callTool({
      name: "search_panes",
      arguments: { pattern: "(?:.?){900}.{90}x", regex: true, include_history: true },
    }) as Promise<CallToolResult>).finally(() => searching = false);
    // Calls made meanwhile are answered while it still searches: the thread is given back.
    await new Promise((r) => setTimeout(r, 200));
    const answeredDuring: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      await conn.client.callTool({ name: "list_sessions", arguments: {} });
      answeredDuring.push(searching);
    }
    assertEquals(answeredDuring, [true, true, true]);
    const found = await search;
    assertEquals(found.isError, true, textOf(found));
    assertMatch(
      textOf(found),
      /^invalid_argument: the pattern is too costly .* the 2 s a call may/,
    );
  });
});

Deno.test("one long line under a costly pattern is refused before it is matched", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // One 102,000-character line; RE2 pays about the program's size (4,002 here) per character.
    const ran = await conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: tmux.paneId, command: "python3 -c \"print('aZ9' * 34000)\"" },
    }) as CallToolResult;
    const runId = String((ran.structuredContent as Record<string, unknown>).run_id);
    assert(!ran.isError && runId !== "undefined", textOf(ran));
    const found = await conn.client.callTool({
      name: "read_command_output",
      arguments: { run_id: runId, pattern: "(?i)(\\pL|\\pN){1,1000}#", regex: true },
    }) as CallToolResult;
    // Matched, the line would have held the one thread for about two seconds past the budget.
    assertEquals(found.isError, true, textOf(found));
    assertMatch(textOf(found), /too costly .* could take more than the 2 s a call may spend/);
    // A plain pattern over the same line is matched as before.
    const plain = await conn.client.callTool({
      name: "read_command_output",
      arguments: { run_id: runId, pattern: "aZ9aZ9#?", regex: true },
    }) as CallToolResult;
    assert(!plain.isError, textOf(plain));
  });
});

Deno.test("many channel waits at once share a few tmux processes, and miss no signal", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const waiters = async () =>
      (await output("ps", ["-o", "args=", "--ppid", String(conn.serverPid)])).split("\n")
        .filter((line) => / wait-for /.test(line)).length;
    // Each call's outcome, or its error (the server may be closed under calls still waiting).
    const wait = (channel: string) =>
      (conn.client.callTool({
        name: "wait_for_channel",
        arguments: { channel, timeout: 30 },
      }) as Promise<CallToolResult>).then(
        (result) =>
          (result.structuredContent as { outcome?: string } | undefined)?.outcome ??
            textOf(result),
        (error) => String(error),
      );
    // 40 channels, and 10 calls on one more: one process each started 50 before.
    const channels = Array.from({ length: 40 }, (_, i) => `hostile-${i}`);
    const calls = [...channels.map(wait), ...Array.from({ length: 10 }, () => wait("shared"))];
    await until("the waits are under way", async () => await waiters() >= 16);
    const most = await waiters();
    assert(most <= 16, `${most} tmux wait-for processes`);
    // Signalled while queued or waited on: tmux keeps a signal for the next waiter.
    for (const channel of [...channels, "shared"]) {
      await tmux.run("wait-for", "-S", channel);
    }
    const outcomes = await Promise.all(calls);
    assertEquals(outcomes, outcomes.map(() => "signalled"));
    assertEquals(await waiters(), 0);
  });
});
