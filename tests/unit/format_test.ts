import { assertEquals } from "../deps.ts";
import { formatOf, intField, parseRecords, splitRecords } from "../../src/tmux/format.ts";
import { TmuxError } from "../../src/tmux/errors.ts";

function throwsCode(fn: () => unknown, code: string): void {
  try {
    fn();
  } catch (error) {
    assertEquals(error instanceof TmuxError ? error.code : String(error), code);
    return;
  }
  throw new Error("did not throw");
}

Deno.test("formatOf quotes each field with q: and ends the record", () => {
  assertEquals(formatOf(["pane_id", "@opt"]), "#{q:pane_id}|#{q:@opt}&");
});

Deno.test("parseRecords reads records whatever tmux's version did to their values", () => {
  // As tmux 3.3a prints them: q: escapes, control characters raw, a newline inside a value.
  const raw = "\\%1|a\\ b\\|c\x1f\n\\\\037&\n\\%2|&\n";
  assertEquals(parseRecords(raw, ["id", "name"]), [
    { id: "%1", name: "a b|c\x1f\n\\037" },
    { id: "%2", name: "" },
  ]);
  // As 3.4 and later print the same: vis(3) escapes control characters, backslashes kept.
  const vis = "\\%1|a\\ b\\|c\\037\n\\\\037&\n\\%2|&\n";
  assertEquals(parseRecords(vis, ["id", "name"]), parseRecords(raw, ["id", "name"]));
  assertEquals(parseRecords("x\\r\\t\\377&", ["a"]), [{ a: "x\r\t\ufffd" }]);
  // `$`, then `\$`: 3.3a prints q:'s escapes as they are, 3.4 and 3.5a double a backslash before
  // a `$`, and later releases escape a tab with a backslash too.
  assertEquals(parseRecords("\\$|\\\\\\$&", ["a", "b"]), [{ a: "$", b: "\\$" }]);
  assertEquals(parseRecords("\\\\$|\\\\\\\\$&", ["a", "b"]), [{ a: "$", b: "\\$" }]);
  assertEquals(parseRecords("a\\\tb&", ["a"]), [{ a: "a\tb" }]);
  throwsCode(() => parseRecords("x|y|z&\n", ["a", "b"]), "tmux_error");
  throwsCode(() => parseRecords("x|y", ["a", "b"]), "tmux_error");
  assertEquals(parseRecords("", ["a"]), []);
});

Deno.test("splitRecords with a count leaves what follows as text, & and | included", () => {
  assertEquals(splitRecords("3\\.4&\na & b|c\nd\\e&\n", { count: 1 }), {
    records: [["3.4"]],
    rest: "a & b|c\nd\\e&\n",
  });
});

Deno.test("splitRecords hands back what follows the records", () => {
  assertEquals(splitRecords("a|b&\nc&\nrow 1\nrow 2\n"), {
    records: [["a", "b"], ["c"]],
    rest: "row 1\nrow 2\n",
  });
});

Deno.test("intField accepts integers only", () => {
  assertEquals(intField("42", "x"), 42);
  throwsCode(() => intField("4x", "x"), "tmux_error");
});

Deno.test("tmuxArgs: only THEN separates commands; a trailing ';' in data is escaped", async () => {
  const { tmuxArgs } = await import("../../src/tmux/transport/spawn/exec.ts");
  const { THEN } = await import("../../src/tmux/transport/spawn/command_line.ts");
  assertEquals(
    tmuxArgs({ socketName: "s" }, ["send-keys", "-l", "echo hi;", THEN, "list-keys", ";", "a\\;"]),
    ["-u", "-L", "s", "send-keys", "-l", "echo hi\\;", ";", "list-keys", "\\;", "a\\\\;"],
  );
});

Deno.test("control lines: arguments single-quoted, control chars as octal, THEN counts commands", async () => {
  const { controlLine, controlSafe, quoteArg, THEN } = await import(
    "../../src/tmux/transport/spawn/command_line.ts"
  );
  assertEquals(quoteArg("it's $HOME #{pid} ;"), `'it'"\\047"'s $HOME #{pid} ;'`);
  assertEquals(quoteArg("\x15a\rb\n\x7f"), `''"\\025"'a'"\\015"'b'"\\012"''"\\177"''`);
  assertEquals(quoteArg(""), "''");
  assertEquals(controlLine(["display-message", "-p", "a b", THEN, "list-keys"]), {
    line: `'display-message' '-p' 'a b' ; 'list-keys'`,
    commands: 2,
  });
  assertEquals(controlLine(["list-keys", THEN, "list-buffers"], "n1"), {
    line: `'list-keys' ; display-message -p 'n1' ; 'list-buffers' ; display-message -p 'n1'`,
    commands: 2,
  });
  assertEquals(controlSafe(["set-buffer", "a\nb"]), true);
  assertEquals(controlSafe(["set-buffer", "a\0b"]), false);
  assertEquals(controlSafe(["display-message", "#{a}\x1f#{b}"]), true);
});

Deno.test("tmux versions: ranks, paste flags, padding and the oldest supported", async () => {
  const { checkSupported, joinedCapturePadded, parseVersion, verbatimPasteFlags } = await import(
    "../../src/tmux/version.ts"
  );
  assertEquals(parseVersion("3.3a").rank, 303);
  assertEquals(parseVersion("next-3.8").rank, 308);
  assertEquals(verbatimPasteFlags(parseVersion("3.6a")), []);
  assertEquals(verbatimPasteFlags(parseVersion("3.7c")), ["-S"]);
  assertEquals(verbatimPasteFlags(parseVersion("master")), ["-S"]);
  assertEquals(joinedCapturePadded(parseVersion("3.2a")), true);
  assertEquals(joinedCapturePadded(parseVersion("3.3a")), false);
  throwsCode(() => checkSupported(parseVersion("3.1c")), "tmux_too_old");
  checkSupported(parseVersion("3.2a"));
});
