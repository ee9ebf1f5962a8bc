import { assert, assertEquals } from "../deps.ts";
import {
  buildLauncherLine,
  launcherBootstrap,
  launcherRun,
  launcherScript,
} from "../../src/tmux/run/line/launcher.ts";
import { shellFromProbe } from "../../src/tmux/run/line/probe.ts";
import { callNames } from "../../src/tmux/run/base/shell.ts";

Deno.test("the launcher line reads the same in every launched shell: no quote, backslash, ! or newline inside", () => {
  const bootstrap = launcherBootstrap("/tmp/tmux-1000/default");
  assert(bootstrap !== null);
  assert(!/['\\!\n]/.test(bootstrap), bootstrap);
  const line = buildLauncherLine({
    bootstrap,
    words: ["%12", "ab".repeat(32)],
    suppressHistory: true,
  });
  assertEquals(line.startsWith(" /bin/sh -c '"), true);
  assertEquals(line.endsWith(`' sh %12 ${"ab".repeat(32)}`), true);
  // Short: some line editors take time that grows faster than the line.
  assert(line.length < 450, `${line.length} characters`);
});

Deno.test("the line that fetches by $TMUX names no socket and is short (a prompt and it: three rows)", async () => {
  const run = await launcherRun({
    names: callNames("0123456789abcdef"),
    paneId: "%3",
    socketPath: "/tmp/tmux-1000/default",
    shell: { kind: "fish", program: "/usr/bin/fish", args: [] },
    command: "echo hi",
    panePath: "",
    waited: false,
    pagers: false,
  }, { bootstrap: null, suppressHistory: false });
  const bootstrap = run.typed.split("'")[1];
  assert(!/['\\!\n]/.test(bootstrap), bootstrap);
  assert(!run.typed.includes("/tmp/tmux-1000"), run.typed);
  assert(run.typed.length <= 165, `${run.typed.length} characters`);
  // The script waits in the buffer the line names; what the line says when it cannot fetch it
  // is built as it runs (its echo does not say it), and asks for the socket's line.
  assert(run.typed.includes(` sh ${run.buffer} `));
  assertEquals(run.refusals.map((refusal) => refusal.fallback), [true]);
  assert(!run.typed.includes(run.refusals[0].said));
});

Deno.test("a socket path the line could not carry gives no bootstrap", () => {
  for (const path of [`/tmp/it's`, "/tmp/a\\b", "/tmp/$HOME", "/tmp/a!b", '/tmp/"', "/tmp/`x`"]) {
    assertEquals(launcherBootstrap(path), null, path);
  }
  assert(launcherBootstrap("/tmp/tmux dir/sock-1,2@x+y%z") !== null);
});

Deno.test("the run's name and command are in the script, never in the typed line", () => {
  const names = callNames("0123456789abcdef");
  const script = launcherScript({
    names,
    paneId: "%3",
    socketPath: "/tmp/s",
    shell: { kind: "fish", program: "/usr/bin/fish", args: [] },
    command: "echo 'it''s' \\ é\nnext",
    panePath: "file://h/it's",
    waited: false,
    pagers: false,
  });
  assert(script.includes(names.channel));
  assert(script.includes(`c='echo '\\''it'\\'''\\''s'\\'' \\ é\nnext'`), script);
  assert(!script.endsWith("\n"));
  const line = buildLauncherLine({
    bootstrap: launcherBootstrap("/tmp/s")!,
    words: ["%3", "00".repeat(32)],
    suppressHistory: false,
  });
  assert(!line.includes(names.channel) && !line.includes("0123456789abcdef"));
});

Deno.test("the probe tells shells by their program, whatever name they give themselves", () => {
  const launched = (answer: string) => {
    const shell = shellFromProbe(answer);
    return shell?.kind === "launched" ? shell.shell : shell;
  };
  assertEquals(launched("/usr/bin/bsd-csh|-sh"), {
    kind: "csh",
    program: "/usr/bin/bsd-csh",
    args: [],
  });
  assertEquals(launched("/usr/bin/tcsh|-csh"), {
    kind: "tcsh",
    program: "/usr/bin/tcsh",
    args: [],
  });
  assertEquals(launched("/usr/bin/rc.byron|rc"), {
    kind: "rc",
    program: "/usr/bin/rc.byron",
    args: [],
  });
  assertEquals(launched("/usr/bin/python3.11|/usr/bin/python3 /usr/bin/xonsh"), {
    kind: "xonsh",
    program: "/usr/bin/python3.11",
    args: ["-m", "xonsh"],
  });
  assertEquals(shellFromProbe("/usr/bin/python3.11|python3"), { kind: "other" });
  // A program in front is a program, whatever tmux named the pane (tmux before 3.7 was seen to
  // name a pane running sleep after its shell, under load).
  assertEquals(shellFromProbe("/usr/bin/sleep|sleep 100"), { kind: "other" });
  assertEquals(shellFromProbe("/usr/bin/zsh-5.9|-zsh"), { kind: "posix" });
  assertEquals(shellFromProbe("/usr/bin/bash|fish"), { kind: "posix" });
  assertEquals(shellFromProbe("/usr/bin/pwsh|pwsh"), { kind: "unsupported", name: "pwsh" });
  // A shell running a script reads no command line: what is typed is the script's input.
  assertEquals(shellFromProbe("/usr/bin/dash|sh -c cat >> /tmp/x"), { kind: "other" });
  assertEquals(shellFromProbe("/usr/bin/bash|bash -ec read -p x"), { kind: "other" });
  assertEquals(shellFromProbe("/usr/bin/fish|fish --command read"), { kind: "other" });
  assertEquals(shellFromProbe("/usr/bin/bash|bash -i -c x"), { kind: "posix" });
  // rc, elvish and xonsh have no job control: a child in their group has the terminal; fish's
  // there is background work.
  assertEquals(shellFromProbe("child:/usr/bin/python3.11|/usr/bin/python3 /usr/bin/xonsh"), {
    kind: "other",
  });
  assertEquals(shellFromProbe("child:/usr/bin/rc.byron|rc"), { kind: "other" });
  // One of our launched runs' sh still finishing, looked at until it is gone: still there, busy.
  assertEquals(shellFromProbe("ours:/usr/bin/rc.byron|rc"), { kind: "other" });
  assertEquals(shellFromProbe("/usr/bin/elvish|elvish -daemon -sock /tmp/s"), {
    kind: "launched",
    shell: { kind: "elvish", program: "/usr/bin/elvish", args: [] },
  });
  assertEquals(shellFromProbe("child:/usr/bin/fish|fish"), {
    kind: "launched",
    shell: { kind: "fish", program: "/usr/bin/fish", args: [] },
  });
  assertEquals(shellFromProbe("/usr/bin/fish|fish -C sleep -c"), {
    kind: "launched",
    shell: { kind: "fish", program: "/usr/bin/fish", args: [] },
  });
  // Nothing to go by: the caller falls back to tmux's name.
  assertEquals(shellFromProbe(""), null);
  assertEquals(shellFromProbe("relative|fish"), null);
  // A program that is no shell, by its executable or the name it runs as, is another program.
  assertEquals(shellFromProbe("/opt/unknown|unknown"), { kind: "other" });
  assertEquals(shellFromProbe(`/usr/bin/fish|${"x".repeat(10_000)}`), null);
});
