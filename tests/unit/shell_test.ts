import { assert, assertEquals, assertMatch } from "../deps.ts";
import { callNames, isInlineSafe, shellQuote } from "../../src/tmux/run/base/shell.ts";
import { classifyProcess } from "../../src/tmux/shells.ts";
import {
  buildTypedLine,
  commandDigest,
  fetchOf,
  runFunction,
} from "../../src/tmux/run/line/run_function.ts";
import { parseRunEnd } from "../../src/tmux/run/base/run_end.ts";

Deno.test("classifyProcess knows POSIX shells, refuses others, and normalizes names", () => {
  assertEquals(classifyProcess("bash"), "posix_shell");
  assertEquals(classifyProcess("-zsh"), "posix_shell");
  assertEquals(classifyProcess("/bin/dash"), "posix_shell");
  assertEquals(classifyProcess("fish"), "launched_shell");
  assertEquals(classifyProcess("tcsh"), "launched_shell");
  assertEquals(classifyProcess("pwsh"), "unsupported_shell");
  assertEquals(classifyProcess("vim"), "other");
  assertEquals(classifyProcess(""), "other");
});

Deno.test("shellQuote survives single quotes", () => {
  assertEquals(shellQuote("it's"), `'it'\\''s'`);
});

Deno.test("only short printable ASCII is typed inline", () => {
  assert(isInlineSafe("echo 'a' \"$b\" \\ ;"));
  assert(!isInlineSafe("echo é"));
  assert(!isInlineSafe("a\tb"));
  assert(!isInlineSafe("a\nb"));
  assert(!isInlineSafe("x".repeat(5000)));
});

Deno.test("the typed line calls the run function, defined inline the first time", async () => {
  const names = callNames("0123456789abcdef");
  const run = await runFunction("/tmp/tmux-0/it's");
  assertMatch(run.name, /^__tmux_mcp_[0-9a-f]{8}$/);
  assert(run.definition.startsWith(`${run.name}b() { `));
  assert(run.definition.includes(`; ${run.name}() { `));
  assert(run.definition.includes(`; set +e; ( ${run.name}b "$@" ); `));
  assert(run.definition.includes(String.raw`-S '/tmp/tmux-0/it'\''s'`));
  assert(!run.definition.includes("\n"), "the definition is typed: one line");
  assertEquals((await runFunction("/tmp/other")).name === run.name, false);
  const common = {
    names,
    paneId: "%7",
    run,
    suppressHistory: true,
    waited: false,
    pagers: false,
  };
  const line = buildTypedLine({
    ...common,
    define: "none",
    panePath: "",
    source: { inline: "echo 'hi'" },
  });
  assertEquals(
    line,
    ` ${run.name} ${names.channel} %7 '' 0 cs ` + String.raw`'echo '\''hi'\'''`,
  );
  const digest = await commandDigest("echo é\n\n");
  assertEquals(digest, await commandDigest("echo é"), "$(...) drops trailing newlines");
  const first = buildTypedLine({
    ...common,
    define: "typed",
    panePath: "/p",
    suppressHistory: false,
    waited: true,
    source: { sha256: digest },
  });
  assert(first.startsWith(`${run.definition}; `), "the definition is typed, not fetched");
  // A first call fetches the definition and the call, checked, and draws the call's line, as a
  // later call types it, over the fetching one.
  const later = buildTypedLine({
    ...common,
    define: "none",
    panePath: "",
    source: { inline: "echo hi" },
  });
  const firstCall = {
    channel: names.channel,
    paneId: "%7",
    at: { x: 2, y: 0, history: 0 },
    line: later,
  };
  const fetch = await fetchOf(run, firstCall);
  const fetched = buildTypedLine({
    ...common,
    define: fetch,
    panePath: "",
    source: { inline: "echo hi" },
  });
  assert(fetched.length < 200, `${fetched.length} characters`);
  assert(!fetched.includes("/tmp/tmux-0"), "the socket path is typed");
  assert(fetched.includes(`eval "$__tm";;`), "the fetched text is evaluated after the check");
  assert(fetched.includes(names.channel), "the typed line names the run (bash's history)");
  assert(!fetched.includes("echo hi"), "the call is fetched, checked, not typed");
  // The fetched text deletes its own buffer, draws the call's line, then calls.
  assert(fetch.text.startsWith(`${run.definition}; `));
  assert(fetch.text.includes(`delete-buffer -b ${fetch.buffer} 2>/dev/null; `));
  assert(fetch.text.includes(`printf '%s\\r\\n' ${shellQuote(later)}`), fetch.text);
  assert(fetch.text.endsWith(`; ${later.trimStart()}`));
  const other = await fetchOf(run, {
    ...firstCall,
    channel: callNames("fedcba9876543210").channel,
  });
  assert(fetch.buffer !== other.buffer);
  // Its echo never reads as the shell's "not found": the message is built as the line runs.
  assert(!fetched.includes(`${run.name}: not found`));
  assert(!first.includes("é"));
  assert(first.endsWith(`; ${run.name} ${names.channel} %7 '/p' 1 h ${digest}`));
  const paged = buildTypedLine({
    ...common,
    define: "none",
    pagers: true,
    panePath: "",
    source: {
      inline: "git log",
    },
  });
  assert(paged.endsWith(" 0 cps 'git log'"), paged);
  // A pane path is whatever the pane's programs set: control characters are never typed.
  const hostile = buildTypedLine({
    ...common,
    define: "none",
    panePath: "/x\r; rm -rf ~",
    source: { inline: "true" },
  });
  assertEquals(hostile, ` ${run.name} ${names.channel} %7 '' 0 cs 'true'`);
});

Deno.test("a trailer's status is 0 to 255, a refusal or a kill, nothing else", () => {
  assertEquals(parseRunEnd("0"), { kind: "exit", status: 0 });
  assertEquals(parseRunEnd("255"), { kind: "exit", status: 255 });
  assertEquals(parseRunEnd("x")?.kind, "refused");
  assertEquals(parseRunEnd("n")?.kind, "refused");
  assertEquals(parseRunEnd("k137"), { kind: "killed", status: 137 });
  assertEquals(parseRunEnd("k255"), { kind: "killed", status: 255 });
  for (
    const bad of [
      ...["256", "-1", "007", "1e3", "", "12345678901234567890", "3 ", "y"],
      ...["k127", "k256", "k0137", "k", "ku", "u"],
    ]
  ) {
    assertEquals(parseRunEnd(bad), null, bad);
  }
});
