// What a capture_since cursor's row held, and the echo of what was typed on it, are not output.

import { assertEquals } from "../deps.ts";
import { newText, oldText, oldTextNow } from "../../src/tmux/read/capture/cursor_text.ts";

const TYPED = "echo MARK_1";

Deno.test("the echo of typed text is left out wherever it first shows after the cursor", () => {
  const cases: [string, string, string[]][] = [
    // The prompt was drawn when the cursor was made.
    ["$ ", "$ echo MARK_1", []],
    // Drawn after (the shell still finishing its last command): the prompt is all that is new.
    ["", "$ echo MARK_1", ["$ "]],
    // The terminal echoed the typeahead before the line editor drew the prompt and echoed it again.
    ["", "echo MARK_1$ echo MARK_1", ["$ "]],
    // A program that echoes nothing (a password prompt): what it prints stays.
    ["Password: ", "Password: ok", ["ok"]],
    // A row rewritten since the cursor was made is all new.
    ["$ ", "MARK_1 done", ["MARK_1 done"]],
  ];
  for (const [shown, row, expected] of cases) {
    const { lines } = newText([row, "MARK_1"], "", oldText(shown, TYPED));
    assertEquals(lines, [...expected, "MARK_1"], JSON.stringify([shown, row]));
  }
  // An Enter typed before it, while the shell was busy: the echo is a row further down.
  const later = newText(["$ ", "$ echo MARK_1", "MARK_1"], "$ ", oldText("", TYPED));
  assertEquals([later.lines, later.echoLeft.echo], [["$ ", "$ ", "MARK_1"], 0]);
  // Not shown yet (still typeahead): the next read looks for it, in the row it ends on too.
  const early = newText(["$ "], "", oldText("", TYPED));
  assertEquals(early.echoLeft.echo, TYPED.length);
  assertEquals(newText([], "$ echo MARK_1", early.echoLeft).current, "$ ");
});

Deno.test("text typed ahead of a busy shell is echoed twice, by the terminal and the line editor", () => {
  // The terminal's echo starts its row, the prompt is drawn behind it; the line editor echoes the
  // text again after that prompt, a row (or one per Enter typed ahead) further down.
  const read = newText(["echo MARK_1$ ", "$ "], "$ echo MARK_1", oldText("", TYPED));
  assertEquals([read.lines, read.current], [["$ ", "$ "], "$ "]);
  // Met in a row still being written: looked for again in it by the next read.
  assertEquals(newText([], "$ echo MARK_1", read.echoLeft).current, "$ ");
  // The line editor's echo in a later read.
  const first = newText(["echo MARK_1$ "], "", oldText("", TYPED));
  const second = newText(["$ echo MARK_1", "MARK_1"], "", first.echoLeft);
  assertEquals([first.lines, second.lines, second.echoLeft.echo], [["$ "], ["$ ", "MARK_1"], 0]);
  // A program with no prompt (cat) prints the line it read at the start of a row: output.
  const cat = newText(["echo MARK_1", "echo MARK_1"], "", oldText("", `${TYPED}\n`));
  assertEquals(cat.lines, ["echo MARK_1"]);
  // Looked for in a bounded number of rows only.
  const rows = Array.from({ length: 40 }, () => "$ ");
  const far = newText(["echo MARK_1$ ", ...rows, "$ echo MARK_1"], "", oldText("", TYPED));
  assertEquals([far.lines.at(-1), far.echoLeft.promptRows], ["$ echo MARK_1", 0]);
});

Deno.test("a cursor made now still looks for the echo of text typed before, until it shows", () => {
  const sent = oldText("", TYPED);
  // Not shown yet: the row is old, the echo still to come.
  const early = oldTextNow("$ ", newText([], "$ ", sent));
  assertEquals(newText([], "$ echo MARK_1", early).current, "");
  // Shown by the line editor, after the prompt: nothing is left to look for.
  const late = oldTextNow("$ echo MARK_1", newText([], "$ echo MARK_1", sent));
  assertEquals(late.echo, 0);
  // Shown by the terminal at the row's start: the line editor's echo is still to come.
  const terminal = oldTextNow("echo MARK_1", newText([], "echo MARK_1", sent));
  assertEquals(newText([], "echo MARK_1$ echo MARK_1", terminal).current, "$ ");
  // Shown on a row above, the terminal's: the line editor's after its prompt is still taken out.
  const above = newText(["echo MARK_1$ "], "$ ", sent);
  assertEquals(newText([], "$ echo MARK_1", oldTextNow("$ ", above)).current, "");
});

Deno.test("an echo is found in a long row, of a long typed line, in one pass", () => {
  const typed = "x".repeat(50_000) + "y";
  const row = "$ " + "x".repeat(100_000) + typed + "z";
  const { current } = newText([], row, oldText("$ ", typed));
  assertEquals(current, "x".repeat(100_000) + "z");
});
