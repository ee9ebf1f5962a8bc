// run_command in the shells that are not POSIX shells: fish, nushell, tcsh, csh, elvish, xonsh and
// rc. Each command is written in the pane's own shell language and run by that shell. .ci/run
// installs every one of them (scripts/install_test_prerequisites.sh).

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import { type Connection, withServer } from "./helpers/mcp.ts";
import { type TestTmux, until, untilRunning } from "./helpers/tmux.ts";
import { testNeeding } from "./helpers/prerequisites.ts";

interface RunResult {
  shell: string | null;
  exit_status: number | null;
  output: string[];
  timed_out: boolean;
  started: boolean;
  run_id: string;
  not_started_reason: string | null;
}

/** One shell, and the commands the test gives it, in its own syntax. */
interface Case {
  /** The program to start (looked up on PATH). */
  program: string;
  /** What tmux reports as the pane's command once the shell is up. */
  shown: string;
  /** Prints a, a tab, b and a newline, then exits with status 3. */
  tabThenExit3: string;
  /** Prints 1 and 2 on lines of their own, from a loop over several lines. */
  loop: string;
  /** Prints `héllo 🚀`. */
  unicode: string;
  /** Sleeps for 30 seconds. */
  sleep?: string;
  /** Where the shell keeps its history, when the launcher line must stay out of it. */
  historyFile?: string;
}

const CASES: Record<string, Case> = {
  fish: {
    program: "fish",
    shown: "fish",
    tabThenExit3: "printf 'a\\tb\\n'; exit 3",
    loop: "for i in 1 2\n  echo $i\nend",
    unicode: "echo 'héllo 🚀'",
    historyFile: ".local/share/fish/fish_history",
  },
  nu: {
    program: "nu",
    shown: "nu",
    tabThenExit3: 'print "a\\tb"; exit 3',
    loop: "for i in [1 2] {\n  print $i\n}",
    unicode: "print 'héllo 🚀'",
    sleep: "sleep 30sec",
    historyFile: ".config/nushell/history.txt",
  },
  // tcsh calls itself -csh: only a look at the process tells it from bsd-csh.
  tcsh: {
    program: "tcsh",
    shown: "csh",
    tabThenExit3: "printf 'a\\tb\\n'; exit 3",
    loop: "foreach i (1 2)\n  echo $i\nend",
    unicode: "echo 'héllo 🚀'",
  },
  // bsd-csh started as csh calls itself -sh: tmux reports sh, and only a look at the process
  // tells it from a POSIX sh.
  csh: {
    program: "csh",
    shown: "sh",
    tabThenExit3: "printf 'a\\tb\\n'; exit 3",
    loop: "foreach i (1 2)\n  echo $i\nend",
    unicode: "echo 'héllo 🚀'",
  },
  elvish: {
    program: "elvish",
    shown: "elvish",
    tabThenExit3: "e:printf 'a\\tb\\n'; exit 3",
    loop: "for i [1 2] {\n  echo $i\n}",
    unicode: "echo 'héllo 🚀'",
  },
  xonsh: {
    program: "xonsh",
    shown: "xonsh",
    tabThenExit3: "printf 'a\\tb\\n'\nimport sys\nsys.exit(3)",
    loop: "for i in [1, 2]:\n    print(i)\n",
    unicode: "print('héllo 🚀')",
  },
  rc: {
    program: "rc",
    shown: "rc",
    tabThenExit3: "printf 'a\\tb\\n'; exit 3",
    loop: "for (i in 1 2) {\n  echo $i\n}",
    unicode: "echo 'héllo 🚀'",
  },
};

async function call(
  conn: Connection,
  name: string,
  args: Record<string, unknown>,
): Promise<RunResult> {
  const result = await conn.client.callTool({ name, arguments: args }) as CallToolResult;
  return result.structuredContent as unknown as RunResult;
}

/**
 * Starts the shell in a new pane with an empty home of its own and only the environment a
 * terminal gives (with tmux's $TMUX unless `noTmux`), and waits for its prompt.
 */
async function startShell(
  tmux: TestTmux,
  shell: Case,
  options: { home: string; noTmux?: boolean },
): Promise<string> {
  const keep = options.noTmux ? "" : 'TMUX="$TMUX" ';
  const pane = await tmux.newPane(
    `env -i ${keep}HOME=${options.home} PATH=${Deno.env.get("PATH")} TERM=tmux-256color ` +
      shell.program,
  );
  await until(`${shell.program} shows a prompt`, async () => {
    const shown = await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}");
    const screen = await tmux.run("capture-pane", "-p", "-t", pane);
    return shown.trim() === shell.shown && screen.trim() !== "";
  });
  return pane;
}

/**
 * Runs `body` with a server and the shell started in a pane of its own, in a home of its own that
 * is removed after (the shell may still be writing its history as it goes).
 */
async function withShell(
  shell: Case,
  options: { extraArgs?: string[]; noTmux?: boolean },
  body: (conn: Connection, tmux: TestTmux, pane: string, home: string) => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "tmux-mcp-shell-" });
  try {
    await withServer("stdio", options, async (conn, tmux) => {
      const pane = await startShell(tmux, shell, { home, noTmux: options.noTmux });
      await body(conn, tmux, pane, home);
    });
  } finally {
    await until(
      "the shell's home is removed",
      () => Deno.remove(home, { recursive: true }).then(() => true, () => false),
    );
  }
}

for (const [name, shell] of Object.entries(CASES)) {
  const test = `run_command in ${name}: status, output, C-c, several lines, non-ASCII`;
  testNeeding([shell.program], test, async () => {
    await withShell(shell, {}, async (conn, tmux, pane, home) => {
      const run = (command: string, extra: Record<string, unknown> = {}) =>
        call(conn, "run_command", { pane_id: pane, command, timeout: 20, ...extra });

      const exited = await run(shell.tabThenExit3);
      assertEquals([exited.exit_status, exited.output], [3, ["a\tb"]]);
      // The result names the shell, whose language the next command should be in.
      assertEquals(exited.shell, name);

      const loop = await run(shell.loop);
      assertEquals([loop.exit_status, loop.output], [0, ["1", "2"]]);

      const unicode = await run(shell.unicode);
      assertEquals(
        [unicode.exit_status, unicode.output],
        [0, ["héllo 🚀"]],
        JSON.stringify(unicode),
      );

      // Interrupted: the status comes back, not a timeout.
      const slow = await run(shell.sleep ?? "sleep 30", { timeout: 1 });
      assertEquals([slow.timed_out, slow.started], [true, true], JSON.stringify(slow));
      await call(conn, "send_keys", { pane_id: pane, keys: ["C-c"] });
      const interrupted = await call(conn, "wait_for_command", {
        run_id: slow.run_id,
        timeout: 10,
      });
      assertEquals(interrupted.timed_out, false);
      assert(
        interrupted.exit_status !== null && interrupted.exit_status !== 0,
        `C-c gave ${interrupted.exit_status}`,
      );

      const next = await run("echo next");
      assertEquals([next.exit_status, next.output], [0, ["next"]]);

      if (shell.historyFile !== undefined) {
        // A line typed by hand goes to the history file; the launcher's lines do not.
        await call(conn, "send_keys", { pane_id: pane, text: "echo by-hand", enter: true });
        const file = `${home}/${shell.historyFile}`;
        await until(
          `${name} writes its history`,
          () => Deno.readTextFile(file).then((text) => text.includes("echo by-hand"), () => false),
        );
        const history = await Deno.readTextFile(file);
        assert(!history.includes("/bin/sh"), `the launcher line is in ${name}'s history`);
      }
      await assertNoLeftovers(tmux, conn.serverPid);
    });
  });
}

for (const [name, shell] of Object.entries(CASES)) {
  const test = `a first call in ${name} types at most three rows at 80 columns, no socket path; ` +
    "without $TMUX, the socket's line, from then on";
  testNeeding([shell.program], test, async () => {
    for (const noTmux of [false, true]) {
      await withShell(shell, { noTmux }, async (conn, tmux, pane) => {
        await tmux.run("resize-window", "-t", pane, "-x", "80", "-y", "40");
        for (const word of ["hi", "again"]) {
          const result = await call(conn, "run_command", {
            pane_id: pane,
            command: `echo ${word}`,
          });
          assertEquals([result.exit_status, result.output], [0, [word]], JSON.stringify(result));
        }
        const rows = (await tmux.run("capture-pane", "-p", "-J", "-t", pane)).split("\n");
        const screen = (await tmux.run("capture-pane", "-p", "-t", pane)).split("\n");
        const socket = (await tmux.run("display-message", "-p", "#{socket_path}")).trim();
        const fetches = rows.filter((row) => row.includes("sh -c 'w=$(tmux showb")).length;
        if (noTmux) {
          // Asked once, then the line that names the socket.
          assertEquals(fetches, 1, rows.join("\n"));
          assert(screen.join("").includes(socket));
          return;
        }
        assertEquals(fetches, 2, rows.join("\n"));
        assert(!screen.join("").includes(socket), "the socket path was typed");
        // From the row the line starts on (its prompt's) to the command's output.
        const first = screen.findIndex((row) => row.includes("/bin/sh -c"));
        const typed = screen.slice(first, screen.indexOf("hi"));
        assert(typed.length <= 3, `${typed.length} rows typed:\n${typed.join("\n")}`);
        await assertNoLeftovers(tmux, conn.serverPid);
      });
    }
  });
}

Deno.test("a shell run_command cannot drive is refused, saying what to do", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    // A program named like PowerShell: what tmux reports is all that counts.
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-pwsh-" });
    try {
      await Deno.symlink("/bin/sleep", `${dir}/pwsh`);
      const pane = await tmux.newPane(`${dir}/pwsh 60`);
      await untilRunning(tmux, pane, "pwsh");
      const result = await conn.client.callTool({
        name: "run_command",
        arguments: { pane_id: pane, command: "echo hi" },
      }) as CallToolResult;
      assertEquals(result.isError, true);
      const text = (result.content[0] as { text: string }).text;
      assertMatch(text, /^unsupported_shell: pane %\d+ runs pwsh/);
      assertMatch(text, /start bash or sh in the pane/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

testNeeding(
  ["fish"],
  "without the byte stream (--no-control) a launched shell's run is cut from the screen",
  async () => {
    await withShell(CASES.fish, { extraArgs: ["--no-control"] }, async (conn, tmux, pane) => {
      const run = await call(conn, "run_command", {
        pane_id: pane,
        command: "echo one; echo 'héllo 🚀'; exit 3",
      });
      // Found by the end of its typed line (which names no run), so nothing of it is output.
      assertEquals([run.exit_status, run.output], [3, ["one", "héllo 🚀"]]);
      await assertNoLeftovers(tmux, conn.serverPid);
    });
  },
);

testNeeding(
  ["fish"],
  "a launched shell's directory and environment changes stay inside the run",
  async () => {
    await withShell(CASES.fish, {}, async (conn, _tmux, pane) => {
      const before = await call(conn, "run_command", { pane_id: pane, command: "pwd" });
      const changed = await call(conn, "run_command", {
        pane_id: pane,
        command: "cd /; set -gx LEFT_BEHIND 1; function left_behind; end; pwd",
      });
      assertEquals(changed.output, ["/"]);
      const after = await call(conn, "run_command", {
        pane_id: pane,
        command: 'pwd; echo "[$LEFT_BEHIND]"; functions -q left_behind; or echo no function',
      });
      assertEquals(after.output, [...before.output, "[]", "no function"]);
    });
  },
);

testNeeding(
  ["fish"],
  "a launched shell's run whose sh is killed ends at once, the signal named",
  async () => {
    const pids = async (pattern: string) => {
      const out = await new Deno.Command("pgrep", { args: ["-f", pattern], stdout: "piped" })
        .output();
      return new TextDecoder().decode(out.stdout).trim().split("\n").filter((pid) => pid !== "");
    };
    const parent = async (pid: string) => {
      const out = await new Deno.Command("ps", {
        args: ["-o", "ppid=", "-p", pid],
        stdout: "piped",
      })
        .output();
      return new TextDecoder().decode(out.stdout).trim();
    };
    await withShell(CASES.fish, {}, async (conn, tmux, pane) => {
      const slow = await call(conn, "run_command", {
        pane_id: pane,
        command: "sleep 1003",
        timeout: 1,
      });
      assertEquals(slow.timed_out, true);
      // sleep's parent is `fish -c`, whose parent is the launcher's subshell.
      const [sleeper] = await pids("^sleep 1003$");
      const subshell = await parent(await parent(sleeper));
      Deno.kill(Number(subshell), "SIGKILL");
      Deno.kill(Number(sleeper), "SIGKILL");
      const ended = await call(conn, "wait_for_command", { run_id: slow.run_id, timeout: 10 });
      assertEquals([ended.timed_out, ended.exit_status], [false, null]);
      assertMatch((ended as unknown as { no_status_reason: string }).no_status_reason, /SIGKILL/);
      const next = await call(conn, "run_command", { pane_id: pane, command: "echo next" });
      assertEquals([next.exit_status, next.output], [0, ["next"]]);
      await assertNoLeftovers(tmux, conn.serverPid);
    });
  },
);
