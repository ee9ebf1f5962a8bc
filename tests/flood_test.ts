// What a pane or a host sends in bulk: the server keeps a bound on what it holds and reads it in
// linear time, answers every call, and says what it refused.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { type TestTmux, until } from "./helpers/tmux.ts";
import { withLab } from "./helpers/lab.ts";
import { SSH, testNeeding } from "./helpers/prerequisites.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

/** Sets a pane option of `bytes` bytes, as a program in the pane could (`tmux source-file`). */
async function setHugeOption(tmux: TestTmux, pane: string, bytes: number): Promise<void> {
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(file, `set-option -p -t ${pane} @huge "${"a".repeat(bytes)}"\n`);
    await tmux.run("source-file", file);
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("a 32 MB pane option neither stalls the server nor stops the pane's runs; reading it is refused, not cut", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    await setHugeOption(tmux, tmux.paneId, 32 * 1024 * 1024);
    // A run that times out looks at the pane's records: through the option list.
    const slow = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "sleep 2",
      timeout: 1,
    });
    assertEquals((slow.structuredContent as Json).timed_out, true, textOf(slow));
    const runId = (slow.structuredContent as Json).run_id;
    await until("the sleep ended", async () => {
      const waited = await call(conn, "wait_for_command", { run_id: runId, timeout: 5 });
      return (waited.structuredContent as Json | undefined)?.exit_status === 0;
    });
    const next = await call(conn, "run_command", { pane_id: tmux.paneId, command: "echo ok" });
    assert(!next.isError, textOf(next));
    assertEquals((next.structuredContent as Json).output, ["ok"]);
    const read = await call(conn, "show_option", {
      name: "@huge",
      scope: "pane",
      pane_id: tmux.paneId,
    });
    assertEquals(read.isError, true, "a 32 MB value was shown");
    assertMatch(textOf(read), /^memory_limited: /);
    await tmux.run("set-option", "-p", "-u", "-t", tmux.paneId, "@huge");
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

testNeeding(
  SSH,
  "a host whose tmux floods (a 20 MB line, 20 MB on stderr) gets a short error; local calls go on meanwhile",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-flood-" });
    try {
      // Stand-ins for the remote tmux: one writes a 20 MB line, one 20 MB of standard error.
      await Deno.writeTextFile(
        `${dir}/line`,
        "#!/bin/sh\nhead -c 20000000 /dev/zero | tr '\\0' a\necho\nexit 1\n",
      );
      await Deno.writeTextFile(
        `${dir}/err`,
        "#!/bin/sh\nhead -c 20000000 /dev/zero | tr '\\0' e >&2\nexit 1\n",
      );
      await Deno.chmod(`${dir}/line`, 0o755);
      await Deno.chmod(`${dir}/err`, 0o755);
      await withLab({
        hosts: (sshd) => [
          `line=ssh:${sshd.aliases.ok}?tmux=${dir}/line`,
          `err=ssh:${sshd.aliases.ok}?tmux=${dir}/err`,
        ],
      }, async ({ conn, local }) => {
        for (const host of ["line", "err"]) {
          let flooding = true;
          const remote = call(conn, "list_sessions", { host }).finally(() => flooding = false);
          // Local calls are answered while the host's flood is read.
          const localDuring = await call(conn, "list_sessions", {});
          const answeredDuring = flooding;
          const result = await remote;
          assertEquals(result.isError, true, `${host}: ${textOf(result).slice(0, 200)}`);
          assert(
            textOf(result).length < 1500,
            `${host}: a ${textOf(result).length}-character error`,
          );
          assert(!localDuring.isError, textOf(localDuring));
          assert(answeredDuring, `${host}: the local call waited for the flood`);
        }
        await assertNoLeftovers(local, conn.serverPid);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("16 runs flooding at once each answer exactly, and the next call answers at once", async () => {
  const args = ["--wait-max-seconds", "120", "--with-tools", "run_command_many"];
  await withServer("stdio", { extraArgs: args }, async (conn, tmux) => {
    const panes = [tmux.paneId];
    while (panes.length < 16) panes.push(await tmux.newPane());
    // 10 MB a pane: tmux (reading the panes at full speed while our command client is attached)
    // falls more than 15 s behind in sending them to the watcher and pauses them all. Every run
    // waited for its whole timeout, and most answered with no status.
    const command = "yes abcdefghij | head -c 10000000";
    const lines = 909091;
    // Half through run_command, half through one run_command_many: each says what it lost.
    const many = call(conn, "run_command_many", {
      pane_ids: panes.slice(8),
      command,
      timeout: 90,
      deadline: 90,
    });
    const results = await Promise.all(
      panes.slice(0, 8).map(async (pane) => {
        const result = await call(conn, "run_command", { pane_id: pane, command, timeout: 90 });
        assert(!result.isError, textOf(result));
        return result.structuredContent as Json;
      }),
    );
    const fanned = await many;
    assert(!fanned.isError, textOf(fanned));
    results.push(...(fanned.structuredContent as { results: Json[] }).results);
    for (const run of results) {
      const said = JSON.stringify([run.pane_id, run.no_status_reason, run.output_total_lines]);
      assertEquals([run.exit_status, run.timed_out ?? false], [0, false], said);
      // Every line, or says which were lost (tmux's history dropped them before they were read).
      if (run.lines_missed !== true) assertEquals(run.output_total_lines, lines, said);
    }
    const missed = results.slice(8).filter((run) => run.lines_missed === true);
    if (missed.length > 0) assertMatch(textOf(fanned), /: lines missed \(tmux's history/);
    const after = await call(conn, "run_command", { pane_id: panes[0], command: "echo hi" });
    assertEquals((after.structuredContent as Json).output, ["hi"]);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
