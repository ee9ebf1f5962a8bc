import { assert, assertEquals } from "../deps.ts";
import {
  buildTypedLine,
  callNames,
  classifyProcess,
  isInlineSafe,
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

Deno.test("the typed line is one line that carries the nonce everywhere it names", () => {
  const names = callNames("0123abcd");
  const line = buildTypedLine("echo 'hi'", {
    names,
    paneId: "%7",
    socketPath: "/tmp/tmux-0/it's",
    panePath: "",
    suppressHistory: true,
    inline: true,
  });
  assert(!line.includes("\n"));
  assert(line.startsWith(" ("), "history suppression needs a leading space");
  assert(line.includes(`eval 'echo '\\''hi'\\'''`));
  assert(line.includes(`-S '/tmp/tmux-0/it'\\''s'`));
  for (const name of [names.option, names.channel, names.release]) {
    assert(line.includes(name), `missing ${name}`);
  }
  const fetched = buildTypedLine("echo é", {
    names,
    paneId: "%7",
    socketPath: "/s",
    panePath: "",
    suppressHistory: false,
    inline: false,
  });
  assert(fetched.startsWith("("));
  assert(fetched.includes(`show-buffer -b ${names.commandBuffer}`));
  assert(!fetched.includes("é"));
});
