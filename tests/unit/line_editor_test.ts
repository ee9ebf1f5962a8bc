import { assertEquals } from "../deps.ts";
import { lineEditorSeen } from "../../src/tmux/transport/watch/line_editor.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const ON = "\\033[?2004h";
const OFF = "\\033[?2004l";

Deno.test("lineEditorSeen: the last switch in a line wins", () => {
  assertEquals(lineEditorSeen(undefined, bytes(`x${OFF}out${ON}$ `)).reading, true);
  assertEquals(lineEditorSeen(undefined, bytes(`$ ${ON}ls${OFF}`)).reading, false);
  assertEquals(lineEditorSeen(undefined, bytes("plain output ? yes")).reading, null);
});

Deno.test("lineEditorSeen: a switch cut between two %output lines, at every place", () => {
  const stream = `${"y\\015\\012".repeat(50)}${ON}$ `;
  const switchAt = stream.indexOf(ON);
  for (let cut = switchAt + 1; cut < switchAt + ON.length; cut++) {
    const first = lineEditorSeen(undefined, bytes(`${OFF}${stream.slice(0, cut)}`));
    assertEquals(first.reading, false, `cut at ${cut}`);
    const second = lineEditorSeen(first.tail, bytes(stream.slice(cut)));
    assertEquals(second.reading, true, `cut at ${cut}`);
  }
  // A short line carries the tail on: the switch cut over three lines.
  const one = lineEditorSeen(undefined, bytes("abc\\03"));
  const two = lineEditorSeen(one.tail, bytes("3[?2"));
  assertEquals(two.reading, null);
  assertEquals(lineEditorSeen(two.tail, bytes("004h$ ")).reading, true);
});
