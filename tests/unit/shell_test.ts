import { assert, assertEquals, assertMatch } from "../deps.ts";
import {
  buildTypedLine,
  callNames,
  classifyProcess,
  isInlineSafe,
  runFunction,
  shellQuote,
} from "../../src/tmux/run/shell.ts";

Deno.test("classifyProcess knows POSIX shells, refuses others, and normalizes names", () => {
  assertEquals(classifyProcess("bash"), "posix_shell");
  assertEquals(classifyProcess("-zsh"), "posix_shell");
  assertEquals(classifyProcess("/bin/dash"), "posix_shell");
  assertEquals(classifyProcess("fish"), "unsupported_shell");
  assertEquals(classifyProcess("tcsh"), "unsupported_shell");
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

Deno.test("the typed line calls the run function; its definition carries the socket path", async () => {
  const names = callNames("0123abcd");
  const run = await runFunction("/tmp/tmux-0/it's");
  assertMatch(run.name, /^__tmux_mcp_[0-9a-f]{8}$/);
  assert(run.definition.startsWith(`${run.name}() (`));
  assert(run.definition.includes(String.raw`-S '/tmp/tmux-0/it'\''s'`));
  assertEquals((await runFunction("/tmp/other")).name === run.name, false);
  const line = buildTypedLine("echo 'hi'", {
    names,
    paneId: "%7",
    run,
    define: false,
    panePath: "",
    suppressHistory: true,
    inline: true,
  });
  assertEquals(line, ` ${run.name} ${names.channel} %7 '' ` + String.raw`'echo '\''hi'\'''`);
  const first = buildTypedLine("echo é", {
    names,
    paneId: "%7",
    run,
    define: true,
    panePath: "/p",
    suppressHistory: false,
    inline: false,
  });
  assert(!first.includes("\n") && !first.includes("é") && !first.includes("/tmp/tmux-0"));
  assert(first.startsWith(`eval "$(tmux show-buffer -b ${names.functionBuffer} `));
  assert(first.endsWith(`; ${run.name} ${names.channel} %7 '/p'`));
});
