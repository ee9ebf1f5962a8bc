import { assertEquals } from "../deps.ts";
import { foreignText } from "../../src/tmux/read/person.ts";
import { plainSocket } from "../../src/tmux/transport/socket.ts";
import { noteTypedLine, showTypedLines } from "../../src/tmux/read/capture/typed_lines.ts";

Deno.test("foreignText: what a prompt's row says of its command line", () => {
  // tmux drops trailing blanks: the cursor after "$ " on a row captured as "$".
  assertEquals(foreignText({ row: "$", x: 2 }), null);
  assertEquals(foreignText({ row: "", x: 0 }), null);
  assertEquals(foreignText({ row: "$ git comm", x: 10 }), "$ git comm");
  // The cursor moved back into the text; text typed after a blank; a right-hand prompt apart.
  assertEquals(foreignText({ row: "$ git comm", x: 6 }), "$ git comm");
  assertEquals(foreignText({ row: "$ git ", x: 6 }), null);
  assertEquals(foreignText({ row: "~ ❯          10:42:01", x: 4 }), null);
  // Wide characters take two cells.
  assertEquals(foreignText({ row: "日本 $ ls", x: 9 }), "日本 $ ls");
  assertEquals(foreignText({ row: "日本 $", x: 7 }), null);
  // The server's own half-typed text is not a person's.
  assertEquals(foreignText({ row: "$ echo mine", x: 11 }, { ours: "echo mine" }), null);
  // Text after it is not the server's.
  assertEquals(
    foreignText({ row: "$ echo mine more", x: 16 }, { ours: "echo mine" }),
    "$ echo mine more",
  );
  // A prompt drawn after an echoed ^C, its line editor's cursor two columns short of its end
  // (xonsh's prompt_toolkit): text after the cursor counts only where a person's client could
  // have moved the cursor there.
  const shifted = { row: "^C<user>@vm /tmp/ci/main main [143] #", x: 36 };
  assertEquals(foreignText(shifted, { cursorMoved: false }), null);
  assertEquals(foreignText(shifted), shifted.row);
});

Deno.test("showTypedLines: a typed line as its command, wrapped rows kept in place", () => {
  const socket = plainSocket("unit-typed-lines");
  const typed = " __tmux_mcp_0123abcd tmux_mcp_0123456789abcdef %9 '' 0 cs 'make test'";
  noteTypedLine(socket, "%9", { typed, shown: "make test" });
  const joined = ["$ " + typed, "ok", "out$ " + typed];
  assertEquals(showTypedLines(socket, "%9", joined, { joined: true }), [
    "$ make test",
    "ok",
    "out$ make test",
  ]);
  // 30 columns: the line wraps over three rows; the first takes the command, the rest blank.
  const line = "$ " + typed;
  const rows = [line.slice(0, 30), line.slice(30, 60), line.slice(60), "ok"];
  assertEquals(showTypedLines(socket, "%9", rows, { joined: false }), [
    "$ make test",
    "",
    "",
    "ok",
  ]);
  // Another pane's text is its own.
  assertEquals(showTypedLines(socket, "%8", joined, { joined: true }), joined);
});
