import { assertEquals } from "../deps.ts";
import { FIELD_SEPARATOR, formatOf, intField, parseRecords } from "../../src/tmux/format.ts";
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

Deno.test("formatOf joins fixed field names", () => {
  assertEquals(formatOf(["pane_id", "@opt"]), `#{pane_id}${FIELD_SEPARATOR}#{@opt}`);
});

Deno.test("parseRecords maps lines to records and rejects wrong field counts", () => {
  const out = `%1${FIELD_SEPARATOR}a b\n%2${FIELD_SEPARATOR}\n`;
  assertEquals(parseRecords(out, ["id", "name"]), [{ id: "%1", name: "a b" }, {
    id: "%2",
    name: "",
  }]);
  throwsCode(
    () => parseRecords(`x${FIELD_SEPARATOR}y${FIELD_SEPARATOR}z\n`, ["a", "b"]),
    "tmux_error",
  );
  assertEquals(parseRecords("", ["a"]), []);
});

Deno.test("intField accepts integers only", () => {
  assertEquals(intField("42", "x"), 42);
  throwsCode(() => intField("4x", "x"), "tmux_error");
});

Deno.test("tmuxArgs: only THEN separates commands; a trailing ';' in data is escaped", async () => {
  const { tmuxArgs } = await import("../../src/tmux/transport/exec.ts");
  const { THEN } = await import("../../src/tmux/transport/command_line.ts");
  assertEquals(
    tmuxArgs({ socketName: "s" }, ["send-keys", "-l", "echo hi;", THEN, "list-keys", ";", "a\\;"]),
    ["-u", "-L", "s", "send-keys", "-l", "echo hi\\;", ";", "list-keys", "\\;", "a\\\\;"],
  );
});

Deno.test("control lines: arguments single-quoted, control chars as octal, THEN counts commands", async () => {
  const { controlLine, controlSafe, quoteArg, THEN } = await import(
    "../../src/tmux/transport/command_line.ts"
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
  assertEquals(controlSafe(["display-message", `#{a}${FIELD_SEPARATOR}#{b}`]), true);
});
