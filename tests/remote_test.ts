// tmux on another host over ssh, against a real sshd on 127.0.0.1 (see helpers/sshd.ts): the
// "remote" tmux is a second private server on this machine, reached only through ssh.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { withLab } from "./helpers/lab.ts";
import { type Connection, runServerToExit, textOf } from "./helpers/mcp.ts";
import { until } from "./helpers/tmux.ts";
import { SSH, testNeeding } from "./helpers/prerequisites.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

async function ok(conn: Connection, name: string, args: Json): Promise<Json> {
  const result = await call(conn, name, args);
  assert(!result.isError, `${name} failed: ${textOf(result)}`);
  return result.structuredContent as Json;
}

testNeeding(
  SSH,
  "run_command on a declared remote host: exact status and output, the host named",
  async () => {
    await withLab({}, async ({ conn, remote }) => {
      const listed = await conn.client.listTools();
      const schema = listed.tools.find((tool) => tool.name === "run_command")!.inputSchema;
      assertEquals((schema.properties?.host as Json).enum, ["local", "lab"]);
      const command = `printf '%s\\n' "it's" 'a\\b' '$x' 'é 日本'; seq 1 2000 | tail -n 2; exit 7`;
      const run = await ok(conn, "run_command", { host: "lab", pane_id: remote.paneId, command });
      assertEquals(
        [run.host, run.exit_status, run.output, run.output_source],
        ["lab", 7, ["it's", "a\\b", "$x", "é 日本", "1999", "2000"], "stream"],
      );
      // Over, all of it shown: no run_id (a timed-out one is `lab/...`, below).
      assertEquals(run.run_id, undefined);
      const text = textOf(
        await call(conn, "run_command", {
          host: "lab",
          pane_id: remote.paneId,
          command: "echo again",
        }),
      );
      assertMatch(text, /^exit 0 in lab:%\d+ \(bash\)/);
      // A long command goes to its buffer in pieces, over the same channel.
      const long = `echo ${"x".repeat(70_000)} | wc -c`;
      const big = await ok(conn, "run_command", {
        host: "lab",
        pane_id: remote.paneId,
        command: long,
      });
      assertEquals(big.output, ["70001"]);
      // Local panes are untouched by all this: the default host is this machine's.
      const here = await ok(conn, "list_sessions", {});
      assertEquals((here.sessions as Json[]).length, 1);
      const unknown = await call(conn, "run_command", { host: "elsewhere", command: "true" });
      assert(unknown.isError);
      assertMatch(
        textOf(unknown),
        /invalid_argument: unknown host "elsewhere" \(declared: local, lab\)/,
      );
      await assertNoLeftovers(remote, conn.serverPid);
    });
  },
);

testNeeding(SSH, "a remote run that timed out is collected by its run_id alone", async () => {
  await withLab({}, async ({ conn, remote }) => {
    const run = await ok(conn, "run_command", {
      host: "lab",
      pane_id: remote.paneId,
      command: "sleep 3; echo done; exit 5",
      timeout: 1.5,
    });
    assertEquals(run.timed_out, true);
    assertMatch(String(run.run_id), /^lab\/\d+\.[0-9a-f]{16}$/);
    const collected = await ok(conn, "wait_for_command", { run_id: run.run_id, timeout: 10 });
    assertEquals([collected.host, collected.exit_status, collected.output], ["lab", 5, ["done"]]);
    const wrong = await call(conn, "wait_for_command", { run_id: run.run_id, host: "local" });
    assertMatch(textOf(wrong), /invalid_argument: run lab\/.* ran on lab, not local/);
    await assertNoLeftovers(remote, conn.serverPid);
  });
});

testNeeding(
  SSH,
  "a remote wait_for_command answers by its timeout while the run goes on, every time",
  async () => {
    await withLab({}, async ({ conn, remote }) => {
      const run = await ok(conn, "run_command", {
        host: "lab",
        pane_id: remote.paneId,
        command: "sleep 6; echo done",
        timeout: 1,
      });
      assertEquals(run.timed_out, true);
      for (let i = 0; i < 2; i++) {
        const begun = Date.now();
        const waited = await ok(conn, "wait_for_command", { run_id: run.run_id, timeout: 1 });
        const ms = Date.now() - begun;
        assertEquals(waited.timed_out, true);
        // The bound: no call answers later than its timeout plus 2 s.
        assert(ms < 1000 + 2000, `wait ${i} answered after ${ms} ms`);
      }
      const collected = await ok(conn, "wait_for_command", { run_id: run.run_id, timeout: 15 });
      assertEquals([collected.exit_status, collected.output], [0, ["done"]]);
    });
  },
);

testNeeding(
  SSH,
  "a host that accepts and never answers, and a remote tmux that hangs: each call answers by its timeout",
  async () => {
    // A peer that takes connections and never says a word, as a stalled sshd or a black hole would.
    const stall = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const peer of stall) held.push(peer);
    })();
    try {
      await withLab({
        hosts: (sshd) => [`stall=ssh:lab-stall?socket=${sshd.socketName}`],
      }, async ({ conn, remote, sshd }) => {
        await sshd.addAlias("lab-stall", (stall.addr as Deno.NetAddr).port);
        const timed = async (args: Json) => {
          const begun = Date.now();
          const result = await conn.client.callTool(
            { name: "run_command", arguments: args },
            undefined,
            {
              timeout: 60_000,
            },
          ) as CallToolResult;
          const ms = Date.now() - begun;
          // The bound: no call answers later than its timeout plus 2 s.
          assert(
            ms < (args.timeout as number) * 1000 + 2000,
            `answered after ${ms} ms: ${textOf(result)}`,
          );
          return result;
        };
        for (let i = 0; i < 2; i++) {
          const stalled = await timed({ host: "stall", command: "echo never", timeout: 3 });
          assertEquals(stalled.isError, true, textOf(stalled));
          assertMatch(textOf(stalled), /^host_unreachable: /);
        }
        // The remote tmux server stopped: its host answers ssh, its tmux nothing.
        await ok(conn, "run_command", {
          host: "lab",
          pane_id: remote.paneId,
          command: "echo warm",
        });
        const server = Number((await remote.run("display-message", "-p", "#{pid}")).trim());
        Deno.kill(server, "SIGSTOP");
        try {
          const hung = await timed({
            host: "lab",
            pane_id: remote.paneId,
            command: "echo hung",
            timeout: 3,
          });
          assertEquals(hung.isError, true, textOf(hung));
          assertMatch(textOf(hung), /^tmux_unavailable: /);
        } finally {
          Deno.kill(server, "SIGCONT");
        }
        const after = await ok(conn, "run_command", {
          host: "lab",
          pane_id: remote.paneId,
          command: "echo after",
        });
        assertEquals(after.output, ["after"]);
      });
    } finally {
      stall.close();
      for (const peer of held) peer.close();
      await accepting.catch(() => {});
    }
  },
);

testNeeding(
  SSH,
  "unknown host keys, refused keys and unreachable hosts are told apart, never prompted",
  async () => {
    await withLab({
      hosts: (sshd) => [
        `unknown=ssh:${sshd.aliases.unknownKey}?socket=${sshd.socketName}`,
        `nokey=ssh:${sshd.aliases.badKey}?socket=${sshd.socketName}`,
        `down=ssh:${sshd.aliases.down}?socket=${sshd.socketName}`,
      ],
    }, async ({ conn, sshd }) => {
      const codes: Record<string, string> = {};
      for (const host of ["unknown", "nokey", "down"]) {
        const result = await call(conn, "list_sessions", { host });
        assert(result.isError, `${host}: ${textOf(result)}`);
        codes[host] = textOf(result).split(":")[0];
      }
      assertEquals(codes, {
        unknown: "host_key_unknown",
        nokey: "auth_failed",
        down: "host_unreachable",
      });
      assertEquals(await Deno.readTextFile(sshd.unknownHostsFile), "", "a host key was recorded");
    });
  },
);

testNeeding(
  SSH,
  "--remote-accept-new-host-keys records a new host's key and connects",
  async () => {
    await withLab({
      hosts: (sshd) => [`fresh=ssh:${sshd.aliases.unknownKey}?socket=${sshd.socketName}`],
      extraArgs: ["--remote-accept-new-host-keys"],
    }, async ({ conn, sshd }) => {
      await ok(conn, "list_sessions", { host: "fresh" });
      assertMatch(await Deno.readTextFile(sshd.unknownHostsFile), /ssh-ed25519/);
    });
  },
);

testNeeding(
  SSH,
  "one call runs a command in 24 remote panes and 2 local ones, every status exact",
  async () => {
    await withLab({ extraArgs: ["--toolsets", "all"] }, async ({ conn, local, remote }) => {
      const remotePanes = [remote.paneId];
      while (remotePanes.length < 24) remotePanes.push(await remote.newPane());
      const localPanes = [local.paneId, await local.newPane()];
      const pane_ids = [...localPanes, ...remotePanes.map((pane) => `lab:${pane}`)];
      const many = await ok(conn, "run_command_many", {
        pane_ids,
        command: "echo from-$TMUX_PANE; exit 3",
      });
      const results = many.results as Json[];
      assertEquals((many.summary as Json).nonzero, 26, JSON.stringify(many.summary));
      assertEquals(results.map((r) => r.exit_status), new Array(26).fill(3));
      assertEquals(results.map((r) => r.host ?? "local"), [
        "local",
        "local",
        ...new Array(24).fill("lab"),
      ]);
      // %0 here and lab:%0 print the same, and share a group.
      const shown: Record<string, string> = {};
      for (const group of many.groups as Json[]) {
        for (const pane of group.panes as string[]) shown[pane] = (group.output as string[]).join();
      }
      assertEquals(
        pane_ids.map((pane) => shown[pane]),
        pane_ids.map((pane) => `from-${pane.replace(/^lab:/, "")}`),
      );
      await assertNoLeftovers(remote, conn.serverPid);
      await assertNoLeftovers(local, conn.serverPid);
    });
  },
);

testNeeding(
  SSH,
  "a link dropped mid-call is transport_lost with a run_id that wait_for_command collects",
  async () => {
    await withLab({}, async ({ conn, remote, sshd }) => {
      await ok(conn, "run_command", { host: "lab", pane_id: remote.paneId, command: "true" });
      const running = call(conn, "run_command", {
        host: "lab",
        pane_id: remote.paneId,
        command: "sleep 2; echo done; exit 5",
        timeout: 20,
      });
      // The command runs (its start marker is the pane's path meanwhile) before the link goes.
      await until(
        "the command started",
        async () =>
          (await remote.run("display-message", "-p", "-t", remote.paneId, "#{pane_path}"))
            .trim().endsWith("_s"),
      );
      await sshd.down();
      const result = await running;
      const lost = result.structuredContent as Json;
      assertEquals(
        [lost.transport_lost, lost.exit_status, lost.timed_out, lost.started],
        [true, null, false, true],
        textOf(result),
      );
      assertMatch(textOf(result), /^link lost: the link to host lab was lost/);
      const unreachable = await call(conn, "wait_for_command", { run_id: lost.run_id });
      assertMatch(textOf(unreachable), /^host_unreachable: host lab \(lab\) cannot be reached/);
      await sshd.up();
      // The server connects again for the next call; the run ended meanwhile, its status kept.
      const collected = await ok(conn, "wait_for_command", { run_id: lost.run_id, timeout: 10 });
      assertEquals([collected.exit_status, collected.output], [5, ["done"]]);
      await assertNoLeftovers(remote, conn.serverPid);
    });
  },
);

testNeeding(
  SSH,
  "a fan-out with a host down answers for every pane: the rest run, the down one says why",
  async () => {
    await withLab({
      hosts: (sshd) => [`down=ssh:${sshd.aliases.down}?socket=${sshd.socketName}`],
      extraArgs: ["--toolsets", "all"],
    }, async ({ conn, local, remote }) => {
      const many = await call(conn, "run_command_many", {
        pane_ids: [local.paneId, `down:${remote.paneId}`, `lab:${remote.paneId}`],
        command: "echo up",
      });
      assert(!many.isError, textOf(many));
      const results = (many.structuredContent as Json).results as Json[];
      assertEquals(results.map((r) => [r.host ?? "local", r.state]), [
        ["local", "ok"],
        ["down", "error"],
        ["lab", "ok"],
      ]);
      assertMatch(String(results[1].reason), /^host_unreachable: host down \(lab-down\)/);
      assertMatch(textOf(many), /down:%\d+ error: host_unreachable/);
    });
  },
);

Deno.test("--remote without permission to run ssh, or a bad declaration, stops the server at once", async () => {
  const denied = await runServerToExit(["--allow-run=tmux"], ["--remote", "lab=ssh:lab"]);
  assert(denied.code !== 0);
  assertMatch(denied.stderr, /--allow-run=tmux,ssh/);
  const bad = await runServerToExit(["--allow-run=tmux,ssh"], ["--remote", "lab=ssh:-oX=y"]);
  assert(bad.code !== 0);
  assertMatch(bad.stderr, /--remote "lab=ssh:-oX=y": ssh:ALIAS expects an alias of the ssh config/);
});

/** The ssh processes the server runs (its master connection and channels). */
async function sshChildren(serverPid: number): Promise<string[]> {
  const ps = await new Deno.Command("ps", {
    args: ["-o", "args=", "--ppid", String(serverPid)],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").filter((line) => /^\S*ssh /.test(line));
}

testNeeding(
  SSH,
  "a host no call names for --remote-idle-seconds has its connection closed, and reopened on use",
  async () => {
    await withLab({ extraArgs: ["--remote-idle-seconds", "1"] }, async ({ conn, remote }) => {
      const first = await ok(conn, "run_command", {
        host: "lab",
        pane_id: remote.paneId,
        command: "echo one",
      });
      assertEquals(first.output, ["one"]);
      assert((await sshChildren(conn.serverPid)).length >= 2, "no master and channels");
      await until(
        "the idle connection closed",
        async () => (await sshChildren(conn.serverPid)).length === 0,
      );
      const again = await ok(conn, "run_command", {
        host: "lab",
        pane_id: remote.paneId,
        command: "echo two",
      });
      assertEquals([again.exit_status, again.output], [0, ["two"]]);
      await assertNoLeftovers(remote, conn.serverPid);
    });
  },
);

testNeeding(
  SSH,
  "a remote run that asks for input returns at its question, told by that host's kernel",
  async () => {
    await withLab({}, async ({ conn, remote }) => {
      const run = await ok(conn, "run_command", {
        host: "lab",
        pane_id: remote.paneId,
        command: "read -p 'remote name? ' n && echo \"hi $n\"",
        timeout: 20,
      });
      assertEquals([run.waiting_for_input, run.timed_out, run.prompt], [
        true,
        false,
        "remote name?",
      ]);
      assertMatch(String(run.run_id), /^lab\//);
      await ok(conn, "send_keys", {
        host: "lab",
        pane_id: remote.paneId,
        text: "Ada",
        enter: true,
      });
      const collected = await ok(conn, "wait_for_command", { run_id: run.run_id, timeout: 10 });
      assertEquals([collected.exit_status, (collected.output as string[]).at(-1)], [0, "hi Ada"]);
      await assertNoLeftovers(remote, conn.serverPid);
    });
  },
);
