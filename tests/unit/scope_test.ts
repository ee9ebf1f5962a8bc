import { assertEquals, assertMatch } from "../deps.ts";
import { matchesGlob } from "../../src/tmux/objects/scope.ts";
import { configFromFlags } from "../../src/config.ts";
import { parseFlags } from "../../src/flags.ts";

Deno.test("session globs: '*' any run, '?' one character, the rest as it is", () => {
  const cases: [string, string, boolean][] = [
    ["ci-build", "ci-*", true],
    ["ci-", "ci-*", true],
    ["xci-1", "ci-*", false],
    ["agent", "agent", true],
    ["agents", "agent", false],
    ["a1b", "a?b", true],
    ["ab", "a?b", false],
    ["日本語", "日?語", true],
    ["build-7-x", "*-*-x", true],
    ["[x]", "[x]", true],
    ["", "*", true],
  ];
  for (const [name, glob, expected] of cases) {
    assertEquals(matchesGlob(name, glob), expected, `${name} ~ ${glob}`);
  }
  // Linear: a long name against many stars answers at once.
  assertEquals(matchesGlob("a".repeat(100), `${"*a".repeat(40)}b`), false);
});

Deno.test("--sessions takes globs of session-name characters only", () => {
  const message = (args: string[]) => {
    try {
      configFromFlags(parseFlags(args));
      return "";
    } catch (error) {
      return (error as Error).message;
    }
  };
  for (const glob of ["a:b", "a.b", "\u0007"]) {
    assertMatch(message(["--sessions", glob]), /^--sessions: /, glob);
  }
  assertEquals(
    configFromFlags(parseFlags(["--sessions", "ci-*, agent", "--own-sessions"])).server.scope,
    { own: true, names: ["ci-*", "agent"] },
  );
  assertEquals(configFromFlags(parseFlags([])).server.scope, null);
});
