// Nothing a pane can read or write steers a result: what the server keeps in tmux (buffers,
// records, status options, cursors it hands out) is checked before it is believed, the command
// cannot see the run's name, and two server processes never type into one run.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { commandRunning, startTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

/**
 * The call's result, or a failure naming `what` when the server has not answered within
 * `seconds` (then the server is killed: a frozen one ignores SIGTERM).
 */
async function answered(
  conn: Connection,
  what: string,
  pending: Promise<CallToolResult>,
  seconds = 15,
): Promise<CallToolResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) =>
    timer = setTimeout(() => resolve(null), seconds * 1000)
  );
  const result = await Promise.race([pending, late]);
  clearTimeout(timer);
  if (result === null) {
    Deno.kill(conn.serverPid, "SIGKILL");
    pending.catch(() => {});
    throw new Error(`${what}: no answer in ${seconds} s`);
  }
  return result;
}

/**
 * An attacker with access to the tmux socket: a control client following the session's output,
 * which rewrites every buffer a typed line names the moment the line is echoed.
 */
function bufferAttacker(socketName: string, session: string): { stop: () => Promise<number> } {
  const child = new Deno.Command("tmux", {
    args: ["-L", socketName, "-C", "attach-session", "-f", "ignore-size", "-t", session],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let rewrites = 0;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith("%output")) continue;
        for (const match of line.matchAll(/tmux_mcp_([0-9a-f]{16})/g)) {
          rewrites++;
          await writer.write(encoder.encode(
            `set-buffer -b tmux_mcp_${match[1]}_c "echo PWNED" ; ` +
              `set-buffer -b tmux_mcp_${match[1]}_f "echo PWNED"\n`,
          ));
        }
      }
    }
  })();
  return {
    async stop(): Promise<number> {
      await writer.close().catch(() => {});
      await reading.catch(() => {});
      await child.status;
      return rewrites;
    },
  };
}

Deno.test("another client rewriting the server's buffers never gets its text run", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    await tmux.run(
      ...["new-session", "-d", "-s", "target", "-x", "120", "-y", "40"],
      "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile",
    );
    const pane = (await tmux.run("display-message", "-p", "-t", "target", "#{pane_id}")).trim();
    await until(
      "a prompt",
      async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$"),
    );
    const attacker = bufferAttacker(tmux.socketName, "target");
    let refused = 0;
    try {
      for (let i = 0; i < 6; i++) {
        // Not plain ASCII: the command travels through a buffer.
        const result = await call(conn, "run_command", {
          pane_id: pane,
          command: `echo 'ünïcödé ${i}'`,
          timeout: 10,
        });
        const out = result.structuredContent as Json;
        assert(
          !JSON.stringify(out).includes("PWNED"),
          `the attacker's text ran: ${textOf(result)}`,
        );
        if (out.started) {
          assertEquals([out.exit_status, out.output], [0, [`ünïcödé ${i}`]], textOf(result));
        } else {
          refused++;
          assertMatch(String(out.not_started_reason), /changed by another tmux client/);
        }
      }
    } finally {
      assert(await attacker.stop() > 0, "the attacker never saw a typed line");
    }
    assert(refused > 0, "the attacker never got to rewrite a buffer in time");
    const screen = await tmux.run("capture-pane", "-p", "-S", "-", "-t", pane);
    assert(!screen.split("\n").includes("PWNED"), "the attacker's text ran in the pane");
  });
});

Deno.test("the command cannot see the run's name: no arguments, nothing in its environment", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    for (const command of ['printf "%s|" "$#" "$*"; env | grep -c tmux_mcp_', "echo é $#"]) {
      const result = await call(conn, "run_command", { pane_id: pane, command, timeout: 10 });
      const out = result.structuredContent as Json;
      const expected = command.startsWith("printf") ? ["0||0"] : ["é 0"];
      assertEquals(out.output, expected, textOf(result));
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("two server processes on one pane never type into each other's run", async () => {
  const tmux = await startTmux();
  const a = await startServer("stdio", { socketName: tmux.socketName });
  const b = await startServer("stdio", { socketName: tmux.socketName });
  try {
    const pane = await tmux.newPane();
    let ran = 0;
    for (let i = 0; i < 20; i++) {
      const results = await Promise.all(
        [a, b].map((conn, j) =>
          call(conn, "run_command", { pane_id: pane, command: `echo ${"AB"[j]}${i}`, timeout: 10 })
        ),
      );
      results.forEach((result, j) => {
        const out = result.structuredContent as Json;
        assertEquals(out.timed_out, false, textOf(result));
        if (out.started) {
          ran++;
          assertEquals([out.exit_status, out.output], [0, [`${"AB"[j]}${i}`]], textOf(result));
        } else {
          assertMatch(String(out.not_started_reason), /still running/);
        }
      });
      await until("the pane is free", async () => !(await commandRunning(tmux, pane)));
    }
    assert(ran >= 20, `only ${ran} of 40 calls ran`);
  } finally {
    await a.close();
    await b.close();
    await tmux.close();
  }
});

// Eight rounds, each in a fresh pane: the first calls meet the other server's run ending. fish
// failed about one round in three: the second server took the first one's launcher (`sh`, on its
// way out) for the pane's shell and remembered it, and typed fish lines it could not run.
const PAIRS_SHELLS = [
  ["bash", "bash --norc --noprofile"],
  ["zsh", "zsh -f"],
  ["fish", "fish"],
] as const;
for (const [shell, command] of PAIRS_SHELLS) {
  testNeeding(
    [shell],
    `two server processes, 20 pairs of calls at once into one ${shell} pane: each exact or refused`,
    async () => {
      const tmux = await startTmux();
      const servers = [
        await startServer("stdio", { socketName: tmux.socketName }),
        await startServer("stdio", { socketName: tmux.socketName }),
      ];
      try {
        for (let round = 0; round < 8; round++) {
          const pane = await tmux.newPane(`env PS1='$ ' ${command}`);
          await until(
            "the shell's prompt",
            async () =>
              /[$#>] *$/.test(
                await tmux.run("capture-pane", "-p", "-t", pane).then((screen) => screen.trimEnd()),
              ),
          );
          const calls = Array.from({ length: 20 }, (_, i) =>
            servers.map((conn, j) => {
              const word = `${"AB"[j]}${i}`;
              const args = { pane_id: pane, command: `echo ${word}`, timeout: 20 };
              return answered(conn, word, call(conn, "run_command", args), 60)
                .then((result) => ({ word, result }));
            })).flat();
          let ran = 0;
          for (const { word, result } of await Promise.all(calls)) {
            const out = result.structuredContent as Json;
            const said = `round ${round}, ${word}: ${textOf(result)}`;
            if (out.started === false) {
              assertMatch(String(out.not_started_reason), /still running/, said);
            } else {
              ran++;
              assertEquals([out.exit_status, out.output], [0, [word]], said);
            }
          }
          assert(ran >= 20, `round ${round}: only ${ran} of 40 calls ran`);
        }
      } finally {
        for (const conn of servers) await conn.close();
        await tmux.close();
      }
    },
  );
}

Deno.test("a run record rewritten in the pane is refused, never trusted", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const pid = (await tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}")).trim();
    for (const history of [1e300, 2 ** 53 + 10, -5, "x"]) {
      const timedOut = await call(conn, "run_command", {
        pane_id: pane,
        command: "sleep 1000",
        timeout: 0.3,
      });
      const runId = (timedOut.structuredContent as Json).run_id as string;
      const option = `@tmux_mcp_run_${runId.split(".")[1]}`;
      const forged = { anchor: { history, y: 0, x: 0, pid: Number(pid) }, typed: "x", created: 0 };
      await tmux.run("set-option", "-p", "-t", pane, option, JSON.stringify(forged));
      const result = await answered(
        conn,
        `wait_for_command with anchor.history ${history}`,
        call(conn, "wait_for_command", { run_id: runId, timeout: 1 }),
      );
      assertEquals(result.isError, true, textOf(result));
      assertMatch(textOf(result), /^not_found: .*no server wrote/);
      assertEquals(
        (await tmux.run("show-options", "-p", "-t", pane)).includes(option),
        false,
        "the forged record stayed",
      );
      await tmux.run("send-keys", "-t", pane, "C-c");
      await until("the command ended", async () => !(await commandRunning(tmux, pane)));
    }
    const after = await call(conn, "run_command", { pane_id: pane, command: "echo ok" });
    assertEquals((after.structuredContent as Json).output, ["ok"]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("a forged status is refused: above 255, or not a number, the run ends with no status", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = await tmux.newPane();
    for (const status of ["300", "abc", "-1"]) {
      const timedOut = await call(conn, "run_command", {
        pane_id: pane,
        command: "sleep 1000",
        timeout: 0.3,
      });
      const runId = (timedOut.structuredContent as Json).run_id as string;
      const nonce = runId.split(".")[1];
      // As if its trailer had run: a status option, and the running mark cleared.
      await tmux.run(
        ...["set-option", "-p", "-t", pane, `@tmux_mcp_${nonce}`, `${status}:0:0:0:x`, ";"],
        ...["set-option", "-p", "-u", "-t", pane, "@tmux_mcp_running"],
      );
      const result = await call(conn, "wait_for_command", { run_id: runId, timeout: 1 });
      const out = result.structuredContent as Json;
      assert(out !== undefined, textOf(result));
      assertEquals([out.exit_status, out.timed_out], [null, false], textOf(result));
      assertMatch(String(out.no_status_reason), /not valid/);
      const options = await tmux.run("show-options", "-p", "-t", pane);
      assert(!options.includes(nonce), `the run's record stayed: ${options}`);
      await tmux.run("send-keys", "-t", pane, "C-c");
      await until(
        "the prompt",
        async () => (await tmux.run("capture-pane", "-p", "-t", pane)).trimEnd().endsWith("$"),
      );
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("readonly: a crafted cursor is refused at once, and so is another pane's", async () => {
  await withServer(
    "stdio",
    { extraArgs: ["--safety", "readonly", "--toolsets", "all"] },
    async (conn, tmux) => {
      const other = await tmux.newPane();
      const taken = await call(conn, "capture_since", { pane_id: tmux.paneId });
      const cursor = (taken.structuredContent as Json).cursor as string;
      // A cursor is a handle the server resolves: what it stands for cannot be written by a
      // caller, and a state written out (as cursors once were) is no cursor.
      assertMatch(cursor, /^c[0-9a-f]{16}$/);
      const state = {
        pane: tmux.paneId,
        socket: tmux.socketName,
        pid: 1,
        row: 0,
        history: 1e300,
        tail: [],
        tailRow: 0,
      };
      const crafted = [
        btoa(JSON.stringify(state)),
        "c0000000000000000",
        `${cursor}0`,
        cursor.toUpperCase(),
        "c" + "f".repeat(5000),
      ];
      for (const bad of crafted) {
        for (const tool of ["capture_since", "wait_for_text"]) {
          const args = tool === "capture_since"
            ? { pane_id: tmux.paneId, cursor: bad }
            : { pane_id: tmux.paneId, cursor: bad, patterns: ["never"], timeout: 2 };
          const result = await answered(
            conn,
            `${tool} with ${bad.slice(0, 40)}`,
            call(conn, tool, args),
          );
          assertEquals(result.isError, true, textOf(result));
          assertMatch(textOf(result), /^invalid_argument: cursor/);
        }
      }
      const elsewhere = await call(conn, "capture_since", { pane_id: other, cursor });
      assertEquals(elsewhere.isError, true, textOf(elsewhere));
      assertMatch(textOf(elsewhere), /^invalid_argument: the cursor was made for another pane/);
      const own = await call(conn, "capture_since", { pane_id: tmux.paneId, cursor });
      assert(!own.isError, textOf(own));
    },
  );
});
