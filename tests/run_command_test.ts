// run_command end to end: a real tmux server on a private socket, the real server process, and the
// SDK Client, over stdio and over Streamable HTTP.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import type { RunResult } from "../src/tmux/mod.ts";
import {
  type Connection,
  startServer,
  textOf,
  type TransportKind,
  withServer,
} from "./helpers/mcp.ts";
import {
  commandRunning,
  sleepingPane,
  startTmux,
  type TestTmux,
  until,
  untilRunning,
} from "./helpers/tmux.ts";
import { readAllOutput } from "./helpers/output.ts";

type RunOutput = RunResult;

async function call(conn: Connection, args: Record<string, unknown>): Promise<CallToolResult> {
  return await conn.client.callTool({ name: "run_command", arguments: args }) as CallToolResult;
}

function structured(result: CallToolResult): RunOutput {
  assert(result.structuredContent, `no structuredContent: ${textOf(result)}`);
  return result.structuredContent as unknown as RunOutput;
}

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}

/** Waits for a pane's command to be `name`: tmux starts it through a shell, which is a POSIX
 * shell (and so an idle one to run_command) until it execs the command. */
async function screen(tmux: TestTmux, pane: string): Promise<string> {
  return await tmux.run("capture-pane", "-p", "-J", "-t", pane, "-S", "-");
}

function suite(kind: TransportKind): void {
  Deno.test(`run_command over ${kind}`, async (t) => {
    const tmux = await startTmux();
    const conn = await startServer(kind, {
      socketName: tmux.socketName,
      extraArgs: ["--wait-max-seconds", "20", "--toolsets", "all", "--any-socket"],
    });
    const pane = tmux.paneId;
    const run = async (command: string, extra: Record<string, unknown> = {}) => {
      const result = await call(conn, { command, pane_id: pane, ...extra });
      await assertNoLeftovers(tmux, conn.serverPid);
      return result;
    };
    try {
      await t.step("lists run_command with its schemas and annotations", async () => {
        const { tools } = await conn.client.listTools();
        const tool = tools.find((x) => x.name === "run_command");
        assert(tool, "run_command not listed");
        assertEquals(tool.annotations?.destructiveHint, true);
        assertEquals(tool.annotations?.openWorldHint, true);
        assert(tool.outputSchema, "no outputSchema");
        // Not in the schema (a model reads every byte of it), but still refused by name.
        assertEquals(tool.inputSchema.additionalProperties, undefined);
        const unknown = await conn.client.callTool({
          name: "run_command",
          arguments: { command: "true", pane_id: pane, pane_ids: [pane] },
        }) as CallToolResult;
        assertEquals(unknown.isError, true);
        assertMatch(textOf(unknown), /Unrecognized key.*pane_ids/);
      });

      await t.step("seq 1 300; exit 7 gives status 7 and exactly those lines", async () => {
        const out = structured(await run("seq 1 300; exit 7"));
        assertEquals(out.exit_status, 7);
        assertEquals(out.output, range(1, 300));
        assertEquals([out.timed_out, out.output_truncated, out.lines_missed], [
          false,
          false,
          false,
        ]);
      });

      await t.step("exit statuses 0, 1 and 42", async () => {
        assertEquals(structured(await run("true")).exit_status, 0);
        assertEquals(structured(await run("false")).exit_status, 1);
        assertEquals(structured(await run("sh -c 'exit 42'")).exit_status, 42);
        assertEquals(structured(await run("exit 3")).exit_status, 3);
        const after = structured(await run("echo still here"));
        assertEquals([after.exit_status, after.output], [0, ["still here"]]);
      });

      await t.step(
        "longer output: its head and tail, exact counts, the rest read back whole",
        async () => {
          const out = structured(await run("seq 1 5000; exit 3"));
          assertEquals([out.exit_status, out.output_total_lines], [3, 5000]);
          assertEquals([out.output_head, out.output], [range(1, 100), range(4701, 5000)]);
          const bytes = (lines: string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);
          assertEquals(out.output_omitted, {
            after_line: 100,
            lines: 4600,
            bytes: bytes(range(101, 4700)),
          });
          assertEquals(
            [out.output_truncated_lines, out.output_truncated_bytes, out.output_total_bytes],
            [4700, bytes(range(1, 4700)), bytes(range(1, 5000))],
          );
          assertEquals(out.output_more?.from_line, 101);
          assertEquals(await readAllOutput(conn, out.run_id), range(1, 5000));
        },
      );

      await t.step("quotes, backslashes, dollars and non-ASCII text", async () => {
        const command = `printf '%s\\n' "it's \\"quoted\\"" 'back\\slash' '$HOME stays' "tab	in"`;
        const out = structured(await run(command));
        assertEquals(out.exit_status, 0);
        // The byte stream keeps the tab (the screen would show spaces to the next tab stop).
        assertEquals(out.output, [`it's "quoted"`, "back\\slash", "$HOME stays", "tab\tin"]);
        const unicode = structured(await run("echo 'héllo wörld 日本語 🚀'; echo \"ünï\""));
        assertEquals(unicode.output, ["héllo wörld 日本語 🚀", "ünï"]);
      });

      await t.step("output without a final newline, and no output at all", async () => {
        assertEquals(structured(await run("printf abc")).output, ["abc"]);
        assertEquals(structured(await run("true")).output, []);
      });

      await t.step("the command runs in a subshell: cd, set -e and PATH do not leak", async () => {
        assertEquals(structured(await run("cd / && pwd")).output, ["/"]);
        const pwd = structured(await run("pwd")).output;
        assert(pwd.length === 1 && pwd[0] !== "/", `cd leaked: ${pwd}`);
        const failing = structured(await run("set -e; false; echo not reached"));
        assertEquals([failing.exit_status, failing.output], [1, []]);
        const noPath = structured(await run("PATH=/nonexistent; echo builtin works"));
        assertEquals([noPath.exit_status, noPath.output], [0, ["builtin works"]]);
        assertEquals(structured(await run("echo $PATH | grep -c /")).output, ["1"]);
      });

      await t.step("max_lines keeps the tail and counts what it dropped", async () => {
        const out = structured(await run("seq 1 100", { max_lines: 10 }));
        assertEquals(out.output, range(91, 100));
        assertEquals(out.output_truncated, true);
        assertEquals(out.output_truncated_lines, 90);
        // "1".."9": 9 lines of 2 bytes; "10".."90": 81 lines of 3 bytes (newlines counted).
        assertEquals(out.output_truncated_bytes, 9 * 2 + 81 * 3);
        const text = structured(await run("echo é; echo z", { max_lines: 1 }));
        assertEquals([text.output, text.output_truncated_bytes], [["z"], 3]);
      });

      await t.step("multi-line commands: run with suppress_history false", async () => {
        const out = structured(
          await run("echo one\necho 'two  two'\nexit 5", { suppress_history: false }),
        );
        assertEquals([out.exit_status, out.output], [5, ["one", "two  two"]]);
      });

      await t.step("multi-line commands run, and no typed line stays in history", async () => {
        // The test shell's HISTCONTROL is unset: a space first keeps nothing out, bash's
        // history -d does.
        const command = "echo one\necho 'two  two'\nexit 6";
        const out = structured(await run(command));
        assertEquals([out.exit_status, out.output], [6, ["one", "two  two"]]);
        // The line typed names the command by its SHA-256.
        const digest = new Uint8Array(
          await crypto.subtle.digest("SHA-256", new TextEncoder().encode(command)),
        ).toHex();
        const history = structured(await run("history")).output.join("\n");
        assert(!history.includes(digest), `the typed line stayed in history: ${history}`);
      });

      await t.step("timeout: timed_out, no status, the shell usable afterwards", async () => {
        // Still running after the timeout, so its running mark stays until it ends.
        const out = structured(
          await call(conn, { command: "echo waiting; sleep 30", pane_id: pane, timeout: 0.5 }),
        );
        assertEquals([out.timed_out, out.exit_status, out.started], [true, null, true]);
        assertEquals(out.effective_timeout, 0.5);
        assertEquals(out.output, ["waiting"]);
        const busy = structured(await call(conn, { command: "echo hi", pane_id: pane }));
        assertEquals(busy.started, false);
        assertMatch(busy.not_started_reason ?? "", /still running an earlier run_command/);
        await tmux.run("send-keys", "-t", pane, "C-c");
        await until("the command ended", async () => !(await commandRunning(tmux, pane)));
        // The timed-out run is kept until collected: its real status (C-c) comes back, once.
        const collected = await conn.client.callTool({
          name: "wait_for_command",
          arguments: { run_id: out.run_id },
        }) as CallToolResult;
        assertEquals(
          [(collected.structuredContent as unknown as RunOutput).exit_status, textOf(collected)],
          [130, textOf(collected)],
        );
        const after = structured(await run("echo usable"));
        assertEquals([after.exit_status, after.output], [0, ["usable"]]);
      });

      await t.step("timeout above the ceiling is clamped and reported", async () => {
        const out = structured(await run("true", { timeout: 100000 }));
        assertEquals([out.exit_status, out.effective_timeout], [0, 20]);
      });

      await t.step("a pane in copy-mode is refused without typing anything", async () => {
        await tmux.run("copy-mode", "-t", pane);
        try {
          const before = await tmux.run("display-message", "-p", "-t", pane, "#{history_size}");
          const result = await run("echo should not run");
          assertEquals(result.isError, true);
          assertMatch(textOf(result), /^pane_in_mode: /);
          const after = await tmux.run("display-message", "-p", "-t", pane, "#{history_size}");
          assertEquals(after, before);
        } finally {
          await tmux.run("send-keys", "-t", pane, "-X", "cancel");
        }
        assert(!(await screen(tmux, pane)).includes("should not run"), "the command was typed");
      });

      await t.step("text left unsent at the prompt is not run with the command", async () => {
        await tmux.run("send-keys", "-t", pane, "-l", "echo LEFT_AT_PROMPT; ");
        await until(
          "the unsent text to show",
          async () => (await screen(tmux, pane)).includes("echo LEFT_AT_PROMPT; "),
        );
        const out = structured(await run("echo ran"));
        assertEquals([out.exit_status, out.output], [0, ["ran"]]);
      });

      await t.step("a pane running sleep 100 gives started false", async () => {
        const sleeping = await sleepingPane(tmux);
        const result = await call(conn, { command: "echo nope", pane_id: sleeping });
        const out = structured(result);
        assertEquals([result.isError, out.started, out.exit_status], [true, false, null]);
        assertMatch(out.not_started_reason ?? "", /"sleep", not an idle shell/);
        await tmux.run("kill-pane", "-t", sleeping);
      });

      await t.step("a shell is known by its program, not the name it gives itself", async () => {
        const fish = await tmux.newPane("exec -a fish bash --norc --noprofile");
        await untilRunning(tmux, fish, "fish");
        const result = structured(await call(conn, { command: "echo bash", pane_id: fish }));
        assertEquals([result.exit_status, result.output], [0, ["bash"]]);
        await tmux.run("kill-pane", "-t", fish);
      });

      await t.step("unknown panes, bad ids and a dead server are clear errors", async () => {
        const unknown = await call(conn, { command: "true", pane_id: "%99999" });
        assertEquals(unknown.isError, true);
        assertMatch(textOf(unknown), /^not_found: .*%99999/);
        const malformed = await call(conn, { command: "true", pane_id: "$(x)" });
        assertMatch(textOf(malformed), /^invalid_argument: pane_id must look like %3/);
        const noSession = await call(conn, { command: "true", session_name: "nope" });
        assertMatch(textOf(noSession), /^not_found: no session named "nope"/);
        const dead = await call(conn, { command: "true", socket_name: `${tmux.socketName}-none` });
        assertMatch(textOf(dead), /^tmux_unavailable: /);
        const unknownKey = await call(conn, { command: "true", pane_id: pane, bogus: 1 });
        assertEquals(unknownKey.isError, true);
        assertMatch(textOf(unknownKey), /bogus/);
        const empty = await call(conn, { command: "", pane_id: pane });
        assertEquals(empty.isError, true);
      });

      await t.step("targets by session name and window id", async () => {
        const bySession = structured(await call(conn, { command: "echo s", session_name: "main" }));
        assertEquals([bySession.pane_id, bySession.output], [pane, ["s"]]);
        const windowId = (await tmux.run("display-message", "-p", "-t", pane, "#{window_id}"))
          .trim();
        const byWindow = structured(await call(conn, { command: "echo w", window_id: windowId }));
        assertEquals(byWindow.pane_id, pane);
      });

      await t.step("progress notifications carry output while the command runs", async () => {
        const messages: string[] = [];
        const result = await conn.client.callTool(
          {
            name: "run_command",
            arguments: {
              command: "for i in 1 2 3; do echo tick-$i; sleep 0.7; done",
              pane_id: pane,
            },
          },
          undefined,
          { onprogress: (p) => messages.push(p.message ?? "") },
        ) as CallToolResult;
        assertEquals(structured(result).output, ["tick-1", "tick-2", "tick-3"]);
        assert(messages.length >= 1, "no progress notification");
        const seen = messages.join("\n").split("\n").filter((l) => l.startsWith("tick-"));
        assert(seen.length >= 1, `no output in progress: ${JSON.stringify(messages)}`);
        assertEquals(seen, [...new Set(seen)], "a line was reported twice");
        await assertNoLeftovers(tmux, conn.serverPid);
      });

      await t.step("wait_for_command sends progress with the new output too", async () => {
        const slow = structured(
          await call(conn, {
            command: "for i in 1 2 3 4; do echo tock-$i; sleep 0.6; done",
            pane_id: pane,
            timeout: 1,
          }),
        );
        assertEquals(slow.timed_out, true);
        const messages: string[] = [];
        const result = await conn.client.callTool(
          { name: "wait_for_command", arguments: { run_id: slow.run_id } },
          undefined,
          { onprogress: (p) => messages.push(p.message ?? "") },
        ) as CallToolResult;
        assertEquals(structured(result).exit_status, 0);
        const seen = messages.join("\n").split("\n").filter((l) => l.startsWith("tock-"));
        assert(seen.length >= 1, `no output in progress: ${JSON.stringify(messages)}`);
        assertEquals(seen, [...new Set(seen)], "a line was reported twice");
        await assertNoLeftovers(tmux, conn.serverPid);
      });

      await t.step("two calls on one pane never interleave", async () => {
        const [a, b] = await Promise.all([
          call(conn, { command: "sleep 0.3; echo first", pane_id: pane }),
          call(conn, { command: "echo second", pane_id: pane }),
        ]);
        assertEquals(structured(a).output, ["first"]);
        assertEquals(structured(b).output, ["second"]);
        await assertNoLeftovers(tmux, conn.serverPid);
      });

      await t.step(
        "ten queued calls on one pane: each output exact, pane path put back",
        async () => {
          const before = await tmux.run("display-message", "-p", "-t", pane, "#{pane_path}");
          const results = await Promise.all(
            Array.from(
              { length: 10 },
              (_, i) => call(conn, { command: `echo q${i}`, pane_id: pane }),
            ),
          );
          assertEquals(
            results.map((r) => structured(r).output),
            range(0, 9).map((i) => [`q${i}`]),
          );
          await until(
            "the last trailer to put the pane path back",
            async () =>
              await tmux.run("display-message", "-p", "-t", pane, "#{pane_path}") === before,
          );
          await assertNoLeftovers(tmux, conn.serverPid);
        },
      );
    } finally {
      await conn.close();
      await tmux.close();
    }
  });
}

suite("stdio");
suite("http");

Deno.test("run_shell_command: the libtmux generation's camelCase contract, opt-in", async () => {
  await withServer("stdio", {}, async (conn) => {
    const names = (await conn.client.listTools()).tools.map((t) => t.name);
    assert(!names.includes("run_shell_command"), "offered by default");
  });
  await withServer(
    "stdio",
    { extraArgs: ["--with-tools", "run_shell_command"] },
    async (conn, tmux) => {
      const names = (await conn.client.listTools()).tools.map((t) => t.name);
      assert(names.includes("run_shell_command") && names.includes("run_command"));
      const result = await conn.client.callTool({
        name: "run_shell_command",
        arguments: {
          command: "seq 1 5; exit 4",
          paneId: tmux.paneId,
          maxLines: 2,
          timeoutSeconds: 10,
        },
      }) as CallToolResult;
      const out = result.structuredContent as Record<string, unknown>;
      assertEquals(Object.keys(out).sort(), [
        "anchorLost",
        "effectiveTimeoutSeconds",
        "elapsedSeconds",
        "exitStatus",
        "linesMissed",
        "output",
        "paneId",
        "started",
        "timedOut",
      ]);
      assertEquals(
        [out.paneId, out.exitStatus, out.timedOut, out.started, out.output],
        [tmux.paneId, 4, false, true, {
          lines: ["4", "5"],
          truncated: true,
          droppedLines: 3,
          droppedBytes: 6,
        }],
      );
      const bad = await conn.client.callTool({
        name: "run_shell_command",
        arguments: { command: "true", pane_id: tmux.paneId },
      }) as CallToolResult;
      assertEquals(bad.isError, true, "snake_case names accepted");
    },
  );
});
