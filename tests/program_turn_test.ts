// run_command and wait_for_command end when the command waits for terminal input, as the kernel
// tells it (the foreground process asleep reading the pane's terminal), not at their timeout:
// a REPL, `cat`, `read -p`, an installer's [Y/n], ssh's question about an unknown host key.
// The run goes on; send_keys answers it, wait_for_command collects it.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { type Connection, fullRunResult, startServer, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { startSshd } from "./helpers/sshd.ts";
import { commandStarted, startTmux, type TestTmux, until } from "./helpers/tmux.ts";
import { plainSocket, withCallDeadline } from "../src/tmux/mod.ts";
import { lookForInputWait } from "../src/tmux/read/wait/input_wait.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  assert(!result.isError, `${name}: ${textOf(result)}`);
  return result;
}

/** A run_command that must come back waiting for input (its timeout far off). */
async function asks(conn: Connection, pane: string, command: string): Promise<Json> {
  const result = await call(conn, "run_command", { pane_id: pane, command, timeout: 25 });
  const run = fullRunResult(result.structuredContent as Json);
  assertEquals(
    [run.waiting_for_input, run.timed_out, run.exit_status],
    [true, false, null],
    `${command}: ${textOf(result)}`,
  );
  assert(textOf(result).includes("waiting for input"), textOf(result));
  assert(typeof run.run_id === "string", "a waiting run is named");
  return run;
}

/** Collects a run: it must have ended, with this status. */
async function collect(conn: Connection, runId: unknown, status: number): Promise<Json> {
  const result = await call(conn, "wait_for_command", { run_id: runId, timeout: 20 });
  const run = fullRunResult(result.structuredContent as Json);
  assertEquals([run.exit_status, run.timed_out], [status, false], textOf(result));
  return run;
}

testNeeding(["python3"], "run_command returns at python's prompt, the run goes on", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    const run = await asks(conn, pane, "python3 -q");
    assertEquals(run.prompt, ">>>");
    assertEquals(run.full_screen, false);
    // The answer, then the next question: wait_for_command ends there too.
    // Typing into the running command says so, and names the run.
    const sent = await call(conn, "send_keys", { pane_id: pane, text: "print(6*7)", enter: true });
    assertEquals((sent.structuredContent as Json).run_id, run.run_id);
    const next = fullRunResult(
      (await call(conn, "wait_for_command", { run_id: run.run_id, timeout: 20 }))
        .structuredContent as Json,
    );
    assertEquals([next.waiting_for_input, next.prompt], [true, ">>>"]);
    assert((next.output as string[]).includes("42"), JSON.stringify(next.output));
    await call(conn, "send_keys", { pane_id: pane, text: "raise SystemExit(3)", enter: true });
    await collect(conn, run.run_id, 3);
  });
});

testNeeding([], "run_command returns when cat, read -p or a [Y/n] question reads", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    const cat = await asks(conn, pane, "cat");
    await call(conn, "send_keys", { pane_id: pane, keys: ["C-d"] });
    await collect(conn, cat.run_id, 0);

    const read = await asks(conn, pane, "read -p 'name? ' answer && echo \"hi $answer\"");
    assertEquals(read.prompt, "name?");
    await call(conn, "send_keys", { pane_id: pane, text: "Ada", enter: true });
    const hi = await collect(conn, read.run_id, 0);
    assertEquals(hi.output, ["name? Ada", "hi Ada"]);

    const install = "echo 'about to install 3 packages'; printf 'Continue? [Y/n] '; read yes; " +
      'test "$yes" = y && echo installed';
    const question = await asks(conn, pane, install);
    assertEquals(question.prompt, "Continue? [Y/n]");
    assertEquals((question.output as string[])[0], "about to install 3 packages");
    await call(conn, "send_keys", { pane_id: pane, text: "y", enter: true });
    const done = await collect(conn, question.run_id, 0);
    assertEquals((done.output as string[]).at(-1), "installed");
  });
});

testNeeding([], "a command that sleeps, prints and ends is not taken for a question", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const result = await call(conn, "run_command", {
      pane_id: tmux.paneId,
      command: "sleep 1; echo one; sleep 1; echo two",
      timeout: 20,
    });
    const run = fullRunResult(result.structuredContent as Json);
    assertEquals([run.exit_status, run.waiting_for_input, run.output], [0, undefined, [
      "one",
      "two",
    ]]);
  });
});

testNeeding(
  ["sshd", "ssh"],
  "run_command returns at ssh's question about an unknown host key",
  async () => {
    const sshd = await startSshd();
    try {
      await withServer("stdio", {}, async (conn, tmux) => {
        const run = await asks(
          conn,
          tmux.paneId,
          `ssh -F ${sshd.configFile} ${sshd.aliases.unknownKey} true`,
        );
        assert(String(run.prompt).includes("(yes/no"), String(run.prompt));
        await call(conn, "send_keys", { pane_id: tmux.paneId, text: "no", enter: true });
        const result = await call(conn, "wait_for_command", { run_id: run.run_id, timeout: 20 });
        const ended = fullRunResult(result.structuredContent as Json);
        assertEquals(ended.timed_out, false);
        assert(ended.exit_status !== 0, textOf(result));
      });
    } finally {
      await sshd.close();
    }
  },
);

testNeeding(
  [],
  "a first call into a script at read -p under the pane's bash types nothing",
  async () => {
    const script = await Deno.makeTempFile({ suffix: ".sh" });
    await Deno.writeTextFile(script, "read -p 'answer? ' a\necho \"got [$a]\"\n");
    try {
      await withServer("stdio", {}, async (conn, tmux) => {
        await tmux.run("send-keys", "-t", tmux.paneId, `bash ${script}`, "Enter");
        await until("the script asks", async () => {
          return (await tmux.run("capture-pane", "-p", "-t", tmux.paneId)).includes("answer?");
        });
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: tmux.paneId, command: "echo alive", timeout: 10 },
        }) as CallToolResult;
        const run = fullRunResult(result.structuredContent as Json);
        assertEquals(run.started, false, textOf(result));
        await tmux.run("send-keys", "-t", tmux.paneId, "fine", "Enter");
        await until("the script answered", async () => {
          return (await tmux.run("capture-pane", "-p", "-t", tmux.paneId)).includes("got [");
        });
        const screen = await tmux.run("capture-pane", "-p", "-t", tmux.paneId);
        assert(screen.includes("got [fine]"), screen);
      });
    } finally {
      await Deno.remove(script);
    }
  },
);

testNeeding(
  [],
  "a call into a pane whose shell is still starting waits for it to read",
  async () => {
    const rc = await Deno.makeTempFile();
    await Deno.writeTextFile(rc, "PS1='$ '\nsleep 1.5\n");
    try {
      await withServer("stdio", {}, async (conn, tmux) => {
        await tmux.run(
          "respawn-pane",
          "-k",
          "-t",
          tmux.paneId,
          `env HISTFILE=/dev/null bash --rcfile ${rc}`,
        );
        const result = await call(conn, "run_command", {
          pane_id: tmux.paneId,
          command: "echo alive",
          timeout: 10,
        });
        const run = fullRunResult(result.structuredContent as Json);
        assertEquals([run.exit_status, run.output], [0, ["alive"]], textOf(result));
      });
    } finally {
      await Deno.remove(rc);
    }
  },
);

testNeeding(
  [],
  "terminal replies left on the command line by a binary's queries cost no call",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = tmux.paneId;
      // Queries a binary file may hold: primary and secondary device attributes, XTVERSION.
      const binary = await call(conn, "run_command", {
        pane_id: pane,
        command: "printf 'bin\\033[c\\033[>c\\033[>0q\\200\\201\\377data\\n'",
        timeout: 10,
      });
      assertEquals(fullRunResult(binary.structuredContent as Json).exit_status, 0);
      for (let i = 0; i < 3; i++) {
        const result = await call(conn, "run_command", {
          pane_id: pane,
          command: `echo after-${i}`,
          timeout: 10,
        });
        const run = fullRunResult(result.structuredContent as Json);
        assertEquals([run.exit_status, run.output], [0, [`after-${i}`]], textOf(result));
      }
    });
  },
);

testNeeding(
  ["fish"],
  "fish at its prompt with its terminal left line by line is not wedged",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const home = await Deno.makeTempDir();
      try {
        const pane = await tmux.newPane(
          `env -i HOME=${home} PATH=${Deno.env.get("PATH")} TERM=tmux-256color fish --no-config`,
        );
        // fish still starting: the call waits for it to read.
        const ready = await call(conn, "run_command", { pane_id: pane, command: "true" });
        assertEquals(fullRunResult(ready.structuredContent as Json).exit_status, 0);
        // The state fish was seen in after a C-c: reading its terminal, the terminal canonical, as
        // fish leaves it for the programs it runs; an Enter makes it set its own mode again.
        const tty = (await tmux.run("display-message", "-p", "-t", pane, "#{pane_tty}")).trim();
        const stty = await new Deno.Command("sh", { args: ["-c", `stty sane < ${tty}`] })
          .output();
        assert(stty.success, "stty");
        const result = await call(conn, "run_command", {
          pane_id: pane,
          command: "echo alive",
          timeout: 10,
        });
        const run = fullRunResult(result.structuredContent as Json);
        assertEquals([run.exit_status, run.output], [0, ["alive"]], textOf(result));
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    });
  },
);

testNeeding(
  ["git", "vim"],
  "run_command returns when git commit opens its editor, a full screen",
  async () => {
    const repo = await Deno.makeTempDir({ prefix: "tmux-mcp-git-" });
    try {
      const git = (...args: string[]) =>
        new Deno.Command("git", { args: ["-C", repo, ...args] }).output();
      assert((await git("init", "-q")).success, "git init");
      await withServer("stdio", {}, async (conn, tmux) => {
        const run = await asks(
          conn,
          tmux.paneId,
          `cd ${repo} && GIT_EDITOR='vim -u NONE -N -n' git -c user.name=t -c user.email=t@t ` +
            "commit -q --allow-empty",
        );
        assertEquals(run.full_screen, true);
        await call(conn, "send_keys", { pane_id: tmux.paneId, text: "iagent's commit" });
        await call(conn, "send_keys", { pane_id: tmux.paneId, keys: ["Escape"] });
        await call(conn, "send_keys", { pane_id: tmux.paneId, text: ":wq", enter: true });
        await collect(conn, run.run_id, 0);
        const log = await new Deno.Command("git", { args: ["-C", repo, "log", "--format=%s"] })
          .output();
        assertEquals(new TextDecoder().decode(log.stdout).trim(), "agent's commit");
      });
    } finally {
      await Deno.remove(repo, { recursive: true });
    }
  },
);

/**
 * Runs `fn` with a private tmux server whose kernel looks take `seconds` longer (a `ps` of its
 * own first on the PATH tmux gives its scripts), passing the folder that `ps` is in.
 */
async function withSlowLooks(
  seconds: number,
  fn: (tmux: TestTmux, bin: string) => Promise<void>,
): Promise<void> {
  const tmux = await startTmux();
  const bin = await Deno.makeTempDir({ prefix: "tmux-mcp-slow-ps-" });
  try {
    await Deno.writeTextFile(`${bin}/ps`, `#!/bin/sh\nsleep ${seconds}\nexec /bin/ps "$@"\n`);
    await Deno.chmod(`${bin}/ps`, 0o755);
    await tmux.run("set-environment", "-g", "PATH", `${bin}:${Deno.env.get("PATH")}`);
    await fn(tmux, bin);
  } finally {
    await tmux.close();
    await Deno.remove(bin, { recursive: true });
  }
}

Deno.test("a kernel look ended by its call's deadline leaves no answer in the pane", async () => {
  // The look's `ps` takes half a second: the call's deadline ends the look while its script
  // runs, and the script still leaves its answer after.
  await withSlowLooks(0.5, async (tmux) => {
    const socket = plainSocket(tmux.socketName);
    const look = withCallDeadline(
      AbortSignal.timeout(200),
      () => lookForInputWait(socket, tmux.paneId),
    );
    await look.then(() => assert(false, "the look ended before its deadline"), () => {});
    // The script ends half a second on; what it leaves is gone within seconds.
    let options = "";
    for (let i = 0; i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      options = await tmux.run("show-options", "-p", "-t", tmux.paneId);
      if (i >= 10 && !options.includes("@tmux_mcp_turn")) break;
    }
    assert(!options.includes("@tmux_mcp_turn"), options);
  });
});

Deno.test("a kernel look in flight as the server ends leaves no answer in the pane", async () => {
  // The look's `ps` takes two seconds: the server ends while a look's script runs, and the
  // script leaves its answer after.
  await withSlowLooks(2, async (tmux, bin) => {
    const conn = await startServer("stdio", { socketName: tmux.socketName });
    const pane = await tmux.newPane();
    const call = conn.client.callTool({
      name: "run_command",
      arguments: { pane_id: pane, command: "cat", timeout: 20 },
    }).catch(() => null);
    await until("cat reads", async () => await commandStarted(tmux, pane));
    // The run looks once its output is quiet; its look's script runs for two seconds.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await conn.close();
    await call;
    const scripts = async () => {
      const { stdout } = await new Deno.Command("/bin/ps", { args: ["-A", "-o", "args="] })
        .output();
      return new TextDecoder().decode(stdout).split("\n").filter((row) => row.includes(bin));
    };
    assert((await scripts()).length > 0, "no look's script ran as the server ended");
    await until("the look's script ended", async () => (await scripts()).length === 0);
    const options = await tmux.run("show-options", "-p", "-t", pane);
    assert(!options.includes("@tmux_mcp_turn"), options);
  });
});
