import { assertEquals } from "../deps.ts";
import { LINEAR_REGEX_V8_FLAGS, nestsQuantifiers } from "../../src/tmux/regex.ts";

Deno.test("nestsQuantifiers finds unbounded quantifiers over quantified groups", () => {
  for (
    const bad of ["(a+)+", "(a*)*b", "(x+x+)+y", "((ab)*c)+", "(?:\\d+\\.)*\\d+$", "(a|b+){2,}"]
  ) {
    assertEquals(nestsQuantifiers(bad), true, bad);
  }
  for (
    const ok of [
      "a+b*",
      "(foo|bar)+",
      "(ab){1,3}",
      "(a+){2}",
      "[(a+)]+",
      "\\(a+\\)+",
      "x{",
      "ready\\.",
      "(?:ab)+",
      "(?<n>ab)*",
      "(?=a)+b",
    ]
  ) {
    assertEquals(nestsQuantifiers(ok), false, ok);
  }
});

Deno.test("deno task start turns the linear-time regex fallback on", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assertEquals(config.tasks.start.includes(`--v8-flags=${LINEAR_REGEX_V8_FLAGS} `), true);
});
