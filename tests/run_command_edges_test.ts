// run_command when things go sideways: cancellation, server shutdown mid-wait, history that has
// dropped output, a cleared history.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers, leftovers } from "./helpers/leaks.ts";
import { type Connection, textOf, type TransportKind, withServer } from "./helpers/mcp.ts";
import { commandRunning, type TestTmux, until, waitForProcesses } from "./helpers/tmux.ts";
import { readAllOutput } from "./helpers/output.ts";

async function idle(tmux: TestTmux, pane: string): Promise<boolean> {
  return !(await commandRunning(tmux, pane));
}

async function run(conn: Connection, args: Record<string, unknown>) {
  const result = await conn.client.callTool({ name: "run_command", arguments: args });
  return (result as CallToolResult).structuredContent as Record<string, unknown>;
}

/**
 * Collects, by the run id its record in the pane names, a cancelled call's run, which must have
 * exited 0 printing `output`.
 */
async function collectRecorded(conn: Connection, tmux: TestTmux, output: string[]): Promise<void> {
  const options = await tmux.run("show-options", "-p", "-t", tmux.paneId);
  const nonce = options.match(/^@tmux_mcp_run_([0-9a-f]+) /m)?.[1];
  assert(nonce !== undefined, `no record: ${JSON.stringify(options)}`);
  const collected = await conn.client.callTool({
    name: "wait_for_command",
    arguments: { run_id: `${tmux.paneId.slice(1)}.${nonce}`, timeout: 5 },
  }) as CallToolResult;
  const end = collected.structuredContent as Record<string, unknown>;
  assertEquals([end.exit_status, end.output], [0, output], textOf(collected));
}

for (const kind of ["stdio", "http"] as TransportKind[]) {
  Deno.test(`cancelling a call over ${kind} kills its wait and leaves the pane usable`, async () => {
    await withServer(kind, {}, async (conn, tmux) => {
      const controller = new AbortController();
      const call = conn.client.callTool(
        { name: "run_command", arguments: { command: "sleep 1; echo late", pane_id: tmux.paneId } },
        undefined,
        { signal: controller.signal },
      );
      await until("the command started", async () => !(await idle(tmux, tmux.paneId)));
      controller.abort();
      let error: unknown = null;
      await call.catch((reason) => error = reason);
      assert(error !== null, "the cancelled call resolved");
      await until(
        "the wait-for child is gone",
        async () => (await leftovers(tmux, conn.serverPid)).every((l) => !l.startsWith("child")),
      );
      // The command itself goes on; its trailer must not hold the shell once it ends.
      await until("the command ended", () => idle(tmux, tmux.paneId));
      const after = await run(conn, { command: "echo after", pane_id: tmux.paneId });
      assertEquals([after.exit_status, after.output], [0, ["after"]]);
      // The client hears nothing more of a call it cancelled, and the pane's next call, which
      // would have named the run while it ran, came after its end: no one can learn its run_id,
      // so nothing of it stays (cancel_test.ts collects one that a refusal named).
      const options = await tmux.run("show-options", "-p", "-t", tmux.paneId);
      assert(!options.includes("@tmux_mcp_"), options);
      await assertNoLeftovers(tmux, conn.serverPid);
    });
  });
}

Deno.test("a call cancelled as its line is typed is collected by its run_id", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    // tmux answers the typing only a second after it pasted the line (a hook holds its queue):
    // the cancellation comes while the command already runs, and it runs on after that second.
    await tmux.run("set-hook", "-g", "after-paste-buffer", "run-shell 'sleep 1'");
    const controller = new AbortController();
    const call = conn.client.callTool(
      { name: "run_command", arguments: { command: "sleep 2; echo late", pane_id: tmux.paneId } },
      undefined,
      { signal: controller.signal },
    );
    await until("the line is typed", () => commandRunning(tmux, tmux.paneId));
    controller.abort();
    let error: unknown = null;
    await call.catch((reason) => error = reason);
    assert(error !== null, "the cancelled call resolved");
    await tmux.run("set-hook", "-gu", "after-paste-buffer");
    await until("the command ended", () => idle(tmux, tmux.paneId));
    // Its record names it, and wait_for_command collects it.
    await collectRecorded(conn, tmux, ["late"]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a server stopped mid-wait kills its children and releases the pane", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const call = conn.client.callTool({
      name: "run_command",
      arguments: { command: "sleep 0.5; echo done", pane_id: tmux.paneId },
    }).catch(() => null);
    await until("the command started", async () => !(await idle(tmux, tmux.paneId)));
    const pid = conn.serverPid;
    Deno.kill(pid, "SIGTERM");
    await call;
    await until("the server exited", async () => {
      const ps = await new Deno.Command("ps", { args: ["-p", String(pid)], stdout: "null" })
        .output();
      return !ps.success;
    });
    assertEquals(await waitForProcesses(tmux.socketName), "", "wait-for children left");
    await until("the command ended", () => idle(tmux, tmux.paneId));
    // The shell is back at its prompt: the trailer was released.
    await until("a prompt", async () => {
      const screen = await tmux.run("capture-pane", "-p", "-t", tmux.paneId);
      return screen.trimEnd().endsWith("$");
    });
  });
});

Deno.test("output beyond history-limit comes back whole from the byte stream", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    await tmux.run("set-option", "-t", "main", "history-limit", "2000");
    const pane = await tmux.newPane();
    const out = await run(conn, { command: "seq 1 5000", pane_id: pane });
    assertEquals([out.exit_status, out.lines_missed, out.anchor_lost], [0, false, false]);
    assertEquals([out.output_total_lines, out.output_source], [5000, "stream"]);
    assertEquals(
      await readAllOutput(conn, out.run_id as string),
      Array.from({ length: 5000 }, (_, i) => String(i + 1)),
    );
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("read from the screen (--no-control), output beyond history-limit is lines_missed, the tail kept", async () => {
  await withServer("stdio", { extraArgs: ["--no-control"] }, async (conn, tmux) => {
    await tmux.run("set-option", "-t", "main", "history-limit", "200");
    const pane = await tmux.newPane();
    const out = await run(conn, { command: "seq 1 2000", pane_id: pane });
    assertEquals(out.exit_status, 0);
    assertEquals(out.lines_missed, true);
    assertEquals(out.anchor_lost, false);
    const lines = out.output as string[];
    assertEquals(lines.at(-1), "2000");
    assert(lines.length >= 150 && lines.length < 2000, `kept ${lines.length} lines`);
    assertEquals(lines, lines.map((_, i) => String(2001 - lines.length + i)));
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

for (const control of [true, false]) {
  Deno.test(`a command that clears history: ${control ? "exact from the stream" : "anchor_lost from the screen"}`, async () => {
    await withServer(
      "stdio",
      { extraArgs: control ? [] : ["--no-control"] },
      async (conn, tmux) => {
        const pane = tmux.paneId;
        await run(conn, { command: "seq 1 100", pane_id: pane });
        const out = await run(conn, {
          command:
            `echo before; tmux -L ${tmux.socketName} clear-history -t ${pane}; clear; echo after`,
          pane_id: pane,
        });
        assertEquals(out.exit_status, 0);
        if (control) {
          assertEquals([out.anchor_lost, out.output], [false, ["before", "after"]]);
        } else {
          assertEquals(out.anchor_lost, true);
          assertEquals((out.output as string[]).filter((l) => l !== "").at(-1), "after");
        }
        await assertNoLeftovers(tmux, conn.serverPid);
      },
    );
  });
}

Deno.test("a prompt that scrolls the pane as it is drawn never leaks into output", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    // Three rows of prompt, drawn while the server may still be capturing the last output.
    const pane = await tmux.newPane("env PS1='one\\ntwo\\n$ ' bash --norc --noprofile");
    await until(
      "the prompt",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).includes("two"),
    );
    const wrong: string[] = [];
    for (let i = 0; i < 40; i++) {
      const out = await run(conn, { command: `echo a${i}; echo b${i}`, pane_id: pane });
      if (JSON.stringify(out.output) !== JSON.stringify([`a${i}`, `b${i}`])) {
        wrong.push(`${i}: ${JSON.stringify(out.output)}`);
      }
    }
    assertEquals(wrong, []);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a 40-column pane: no command length loses the first output line", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    await tmux.run("resize-window", "-t", pane, "-x", "40", "-y", "20");
    // Every typed-line length over three rows, so one of them ends exactly at a row's end.
    for (let k = 1; k <= 130; k++) {
      const word = "w".repeat(k);
      const out = await run(conn, { command: `echo ${word}; echo second`, pane_id: pane });
      assertEquals([out.exit_status, out.output], [0, [word, "second"]], `length ${k}`);
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("synchronize-panes: run_command types into its pane alone", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const other = await tmux.splitPane(pane);
    await tmux.run("set-option", "-w", "-t", pane, "synchronize-panes", "on");
    const before = await tmux.run("capture-pane", "-p", "-t", other);
    const out = await run(conn, { command: "echo mine", pane_id: pane });
    assertEquals([out.exit_status, out.output], [0, ["mine"]]);
    await new Promise((r) => setTimeout(r, 200));
    assertEquals(await tmux.run("capture-pane", "-p", "-t", other), before);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("echo off, or a cleared screen: the command's output, never earlier output", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const step = async (command: string) => {
      const out = await run(conn, { command, pane_id: pane });
      assertEquals(out.exit_status, 0, command);
      return out.output as string[];
    };
    assertEquals(await step("echo earlier"), ["earlier"]);
    assertEquals(await step("stty -echo"), []);
    assertEquals(await step("echo two"), ["two"]);
    assertEquals(await step("printf 'a\\nb\\n'"), ["a", "b"]);
    assertEquals(await step("stty echo"), []);
    assertEquals(await step("clear; echo x"), ["x"]);
    assertEquals(await step("clear"), []);
    assertEquals(await step("echo after"), ["after"]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a line the shell never runs (a continuation prompt) is started: false, and leaves no mark", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    // An unclosed quote: the shell waits at its continuation prompt.
    await tmux.run("send-keys", "-t", pane, "-l", 'echo "unclosed\r');
    await until(
      "a continuation prompt",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith(">"),
    );
    const result = await conn.client.callTool({
      name: "run_command",
      arguments: { command: "echo never", pane_id: pane, timeout: 1 },
    }) as CallToolResult;
    const out = result.structuredContent as Record<string, unknown>;
    assertEquals([out.started, out.exit_status], [false, null], JSON.stringify(out));
    assertMatch(String(out.not_started_reason), /continuation prompt/);
    assertEquals(await commandRunning(tmux, pane), false, "the running mark stayed");
    // Once the quote is closed, the pane takes commands again.
    await tmux.run("send-keys", "-t", pane, "C-c");
    await until(
      "a prompt",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$"),
    );
    const again = await run(conn, { command: "echo fine", pane_id: pane });
    assertEquals([again.exit_status, again.output], [0, ["fine"]]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("from the byte stream: tabs, colours, CR overwrites, the alternate screen, a million lines", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const step = async (command: string, extra: Record<string, unknown> = {}) => {
      const out = await run(conn, { command, pane_id: pane, timeout: 60, ...extra });
      assertEquals(out.exit_status, 0, command);
      return out;
    };
    assertEquals((await step("printf 'a\\tb\\n'")).output, ["a\tb"]);
    assertEquals(
      (await step("printf '\\033[1;31mred\\033[0m plain\\n'")).output,
      ["red plain"],
    );
    assertEquals((await step("printf 'abc\\rX\\n50%%\\r100%%\\n'")).output, ["Xbc", "100%"]);
    const screen = await step(
      "printf 'before\\n\\033[?1049hDRAWN\\033[H\\033[2J\\033[?1049lafter\\n'",
    );
    assertEquals([screen.output, screen.alternate_screen], [["before", "after"], true]);
    assertEquals((await step("echo plain")).alternate_screen, false);
    const many = await step("yes | head -n 1000000", { max_lines: 3 });
    assertEquals(many.output, ["y", "y", "y"]);
    assertEquals(
      [many.output_truncated, many.output_truncated_lines, many.output_truncated_bytes],
      [true, 999997, 999997 * 2],
    );
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a short command adds its typed line, its output and the next prompt: the wrapper shows once per shell", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    await tmux.run("resize-window", "-t", pane, "-x", "80", "-y", "24");
    // The first call in a shell gives it the run function, fetched from a buffer by a short line
    // that checks it, and draws its call's line over that line (see footprint_test.ts); later
    // ones just call it.
    assertEquals((await run(conn, { command: "echo first", pane_id: pane })).output, ["first"]);
    const rows = async () =>
      (await tmux.run("capture-pane", "-p", "-t", pane, "-S", "-")).trimEnd().split("\n");
    const before = await rows();
    assert(!before.join("").includes("show-buffer"), "the fetching line stayed");
    assertMatch(
      before.at(-3)!,
      /^\$ +__tmux_mcp_[0-9a-f]{8} tmux_mcp_[0-9a-f]{16} %\d+ '' 0 cs 'echo first'$/,
    );
    assertEquals((await run(conn, { command: "echo hi", pane_id: pane })).output, ["hi"]);
    await until("the next prompt", async () => (await rows()).at(-1) === "$");
    const added = (await rows()).slice(before.length - 1);
    // The prompt row the line was typed on, the output, the next prompt.
    assertEquals(added.length, 3, JSON.stringify(added));
    assertMatch(
      added[0],
      /^\$ +__tmux_mcp_[0-9a-f]{8} tmux_mcp_[0-9a-f]{16} %\d+ '' 0 cs 'echo hi'$/,
    );
    assertEquals(added.slice(1), ["hi", "$"]);
    const later = added.join("\n");
    assert(!later.includes(tmux.socketName), "the socket path showed again");
    assert(!later.includes("set-option"), "the wrapper showed again");
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

for (const followed of [true, false]) {
  const when = followed ? "" : ", in a pane no call has followed yet too";
  Deno.test(`a script waiting at read -p is left alone: started false, its answer its own${when}`, async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = await tmux.newPane();
      // A first call: from here on the server follows the pane. Without one nothing has seen the
      // shell's line editor, and tmux before 3.7 shows no bracketed paste flag.
      if (followed) {
        assertEquals((await run(conn, { command: "echo ready", pane_id: pane })).output, ["ready"]);
      }
      await tmux.run(
        "send-keys",
        "-t",
        pane,
        `bash -c 'read -p "Name? " x; echo "got $x"'`,
        "Enter",
      );
      await until(
        "the script's prompt",
        async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("Name?"),
      );
      const refused = await run(conn, { command: "echo oops", pane_id: pane, timeout: 5 });
      assertEquals(refused.started, false, JSON.stringify(refused));
      assertMatch(
        String(refused.not_started_reason),
        /not reading a command line|a shell's script has the terminal/,
      );
      // Nothing was typed into the script: it still waits, and takes its own answer.
      assert(!(await tmux.run("capture-pane", "-p", "-t", pane)).includes("oops"));
      await tmux.run("send-keys", "-t", pane, "alice", "Enter");
      await until(
        "the script's answer",
        async () => (await tmux.run("capture-pane", "-p", "-t", pane)).includes("got alice"),
      );
      await until(
        "a prompt",
        async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$"),
      );
      assertEquals((await run(conn, { command: "echo back", pane_id: pane })).output, ["back"]);
      await assertNoLeftovers(tmux, conn.serverPid);
    });
  });
}

Deno.test("a pane started as a script waiting at read -p is left alone on its first call", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    // The pane's own process is the script: tmux names it bash, and it holds the terminal.
    const pane = (await tmux.run(
      ...["new-window", "-d", "-P", "-F", "#{pane_id}"],
      `bash -c 'read -p "Name? " x; echo "got $x"; sleep 30'`,
    )).trim();
    await until(
      "the script's prompt",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("Name?"),
    );
    const refused = await run(conn, { command: "echo oops", pane_id: pane, timeout: 5 });
    assertEquals(refused.started, false, JSON.stringify(refused));
    await tmux.run("send-keys", "-t", pane, "alice", "Enter");
    await until(
      "the script's answer",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).includes("got "),
    );
    const screen = await tmux.run("capture-pane", "-p", "-t", pane);
    assert(screen.includes("got alice") && !screen.includes("oops"), screen);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("shell tracing, a DEBUG trap and an alias for tmux neither leak into output nor break a call", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const setups = [
      "set -x",
      "set +x; set -v",
      "set +v; set -T; trap 'echo \"DEBUG: $BASH_COMMAND\"' DEBUG",
      "trap - DEBUG; set +T; alias tmux=false; tmux() { echo shadowed; }",
    ];
    for (const [i, setup] of setups.entries()) {
      await tmux.run("send-keys", "-t", pane, setup, "Enter");
      await until(
        "the prompt",
        async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$"),
      );
      for (const command of [`echo plain${i}`, `echo 'ünïcödé${i}'`]) {
        const out = await run(conn, { command, pane_id: pane, timeout: 10 });
        assertEquals(
          [out.exit_status, out.output],
          [0, [command.slice(5).replaceAll("'", "")]],
          `${setup}: ${JSON.stringify(out)}`,
        );
      }
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("DCS, APC, PM and SOS payloads are dropped, and an unterminated one swallows no marker", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const out = await run(conn, {
      command: "printf 'a\\033Pq#0;2;0;0;0#0!10~\\033\\\\b\\033_apc\\033\\\\c\\033^pm\\033\\\\" +
        "d\\033Xsos\\033\\\\e\\n'",
      pane_id: pane,
      timeout: 10,
    });
    assertEquals([out.exit_status, out.output], [0, ["abcde"]]);
    // As a terminal would, the open string takes the rest of the output; the run still ends.
    const open = await run(conn, {
      command: "printf 'x\\n\\033Pq#0;2;0;0;0'; echo swallowed; exit 4",
      pane_id: pane,
      timeout: 10,
    });
    assertEquals([open.exit_status, open.output], [4, ["x"]]);
    const next = await run(conn, { command: "echo after", pane_id: pane, timeout: 10 });
    assertEquals([next.exit_status, next.output], [0, ["after"]]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("bytes that are not UTF-8 are flagged; a U+FFFD the command printed is not", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const step = (command: string) => run(conn, { command, pane_id: pane, timeout: 10 });
    const bad = await step("printf 'a\\377b\\300\\n'");
    assertEquals([bad.output, bad.invalid_utf8], [["a\ufffdb\ufffd"], true]);
    const real = await step("printf '\\357\\277\\275 \\303\\251\\n'");
    assertEquals([real.output, real.invalid_utf8], [["\ufffd é"], false]);
  });
});

Deno.test("a binary's lines show as one marker a run, its printable lines kept, counted exactly", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const file = await Deno.makeTempFile();
    try {
      // 600 lines of bytes that are not UTF-8 (a control byte or two among them), text midway.
      const junk = (i: number) => [0x7f, 0x80 + (i % 64), 0xc0, 0xff, 0x41, 0xfe, 0x9b, 0xf8];
      const lines = Array.from(
        { length: 601 },
        (_, i) => i === 300 ? [...new TextEncoder().encode("VISIBLE-TEXT")] : junk(i),
      );
      await Deno.writeFile(file, new Uint8Array(lines.flatMap((line) => [...line, 0x0a])));
      const result = await conn.client.callTool({
        name: "run_command",
        arguments: { command: `cat ${file}`, pane_id: tmux.paneId, timeout: 10 },
      }) as CallToolResult;
      const out = result.structuredContent as Record<string, unknown>;
      const marker = /^…\[300 lines not text, [\d,]+ bytes\]…$/;
      assertEquals((out.output as string[]).length, 3, textOf(result));
      const [before, text, after] = out.output as string[];
      assert(marker.test(before) && marker.test(after), textOf(result));
      assertEquals([text, out.output_total_lines, out.output_not_text_lines], [
        "VISIBLE-TEXT",
        601,
        600,
      ]);
      assertMatch(textOf(result), /600 lines not text/);
    } finally {
      await Deno.remove(file);
    }
  });
});
