import { assert, assertEquals, assertMatch } from "../deps.ts";
import {
  buildTypedLine,
  callNames,
  classifyProcess,
  commandDigest,
  isInlineSafe,
  parseRunEnd,
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

Deno.test("the typed line calls the run function, defined inline the first time", async () => {
  const names = callNames("0123456789abcdef");
  const run = await runFunction("/tmp/tmux-0/it's");
  assertMatch(run.name, /^__tmux_mcp_[0-9a-f]{8}$/);
  assert(run.definition.startsWith(`${run.name}() (`));
  assert(run.definition.includes(String.raw`-S '/tmp/tmux-0/it'\''s'`));
  assert(!run.definition.includes("\n"), "the definition is typed: one line");
  assertEquals((await runFunction("/tmp/other")).name === run.name, false);
  const common = { names, paneId: "%7", run, suppressHistory: true, waited: false };
  const line = buildTypedLine({
    ...common,
    define: false,
    panePath: "",
    source: { inline: "echo 'hi'" },
  });
  assertEquals(line, ` ${run.name} ${names.channel} %7 '' 0 c ` + String.raw`'echo '\''hi'\'''`);
  const digest = await commandDigest("echo é\n\n");
  assertEquals(digest, await commandDigest("echo é"), "$(...) drops trailing newlines");
  const first = buildTypedLine({
    ...common,
    define: true,
    panePath: "/p",
    suppressHistory: false,
    waited: true,
    source: { sha256: digest },
  });
  assert(first.startsWith(`${run.definition}; `), "the definition is typed, not fetched");
  assert(!first.includes("é"));
  assert(first.endsWith(`; ${run.name} ${names.channel} %7 '/p' 1 h ${digest}`));
  // A pane path is whatever the pane's programs set: control characters are never typed.
  const hostile = buildTypedLine({
    ...common,
    define: false,
    panePath: "/x\r; rm -rf ~",
    source: { inline: "true" },
  });
  assertEquals(hostile, ` ${run.name} ${names.channel} %7 '' 0 c 'true'`);
});

Deno.test("a trailer's status is 0 to 255 or a refusal, nothing else", () => {
  assertEquals(parseRunEnd("0"), { kind: "exit", status: 0 });
  assertEquals(parseRunEnd("255"), { kind: "exit", status: 255 });
  assertEquals(parseRunEnd("x")?.kind, "refused");
  assertEquals(parseRunEnd("n")?.kind, "refused");
  for (const bad of ["256", "-1", "007", "1e3", "", "12345678901234567890", "3 ", "y"]) {
    assertEquals(parseRunEnd(bad), null, bad);
  }
});
