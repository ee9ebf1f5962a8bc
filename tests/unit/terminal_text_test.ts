import { assertEquals } from "../deps.ts";
import { LineReducer } from "../../src/tmux/run/terminal_text.ts";
import { unescapeOutput } from "../../src/tmux/transport/watch.ts";

function reduce(text: string, maxLines = 100) {
  const reducer = new LineReducer({ maxLines });
  // Fed a character at a time: sequences cut anywhere still parse.
  for (const char of text) reducer.push(char);
  return reducer.finish();
}

Deno.test("LineReducer: CR, backspace, erase-in-line, tabs, escapes, wide characters", () => {
  assertEquals(reduce("abc\rX\r\n").lines, ["Xbc"]);
  assertEquals(reduce("abc\b\bZ\n").lines, ["aZc"]);
  assertEquals(reduce("progress 50%\r\x1b[Kdone\n").lines, ["done"]);
  assertEquals(reduce("a\tb\n").lines, ["a\tb"]);
  assertEquals(reduce("\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b]7;p\x1b\\\x1b(Bok\n").lines, [
    "red ok",
  ]);
  assertEquals(reduce("日本 é 🚀\nlast").lines, ["日本 é 🚀", "last"]);
  const alt = reduce("a\n\x1b[?1049hhidden\nstuff\x1b[?1049lb\n");
  assertEquals([alt.lines, alt.alternateScreen], [["a", "b"], true]);
});

Deno.test("LineReducer keeps the last lines and counts what it dropped", () => {
  const out = reduce("1\n22\n333\n4444\n", 2);
  assertEquals(out.lines, ["333", "4444"]);
  assertEquals([out.droppedLines, out.droppedBytes], [2, 2 + 3]);
});

Deno.test("unescapeOutput turns control mode's octal escapes back into bytes", () => {
  const data = new TextEncoder().encode("a\\015\\012\\134x é\\033[m\\9");
  assertEquals(
    new TextDecoder().decode(unescapeOutput(data)),
    "a\r\n\\x é\x1b[m\\9",
  );
});
