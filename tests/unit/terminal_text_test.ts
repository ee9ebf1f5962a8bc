import { assert, assertEquals } from "../deps.ts";
import { LineReducer, LONG_LINE } from "../../src/tmux/run/terminal_text.ts";
import { unescapeOutput } from "../../src/tmux/transport/watcher.ts";

function reduce(text: string) {
  const lines: string[] = [];
  const reducer = new LineReducer({
    line: (line) => lines.push(line),
    longText: () => {},
    longEnd: () => lines.push("<long>"),
  });
  // Fed a character at a time: sequences cut anywhere still parse.
  for (const char of text) reducer.push(char);
  reducer.finish();
  return { lines, alternateScreen: reducer.alternateScreen };
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

Deno.test("LineReducer passes a long line on in pieces, its ends and size kept", () => {
  const pieces: string[] = [];
  const ended: Array<{ head: string; tail: string; bytes: number }> = [];
  const reducer = new LineReducer({
    line: () => {},
    longText: (text) => pieces.push(text),
    longEnd: (line) => ended.push(line),
  });
  const line = "<" + "ab".repeat(2 * LONG_LINE) + "é>";
  // Fed in chunks, as the stream arrives.
  for (let i = 0; i < line.length; i += 4096) reducer.push(line.slice(i, i + 4096));
  reducer.push("\n");
  assertEquals(pieces.join(""), line);
  assertEquals(ended.length, 1);
  const [{ head, tail, bytes }] = ended;
  assertEquals(bytes, new TextEncoder().encode(line).length);
  assert(line.startsWith(head) && head.length < line.length);
  assert(line.endsWith(tail) && tail.length < line.length);
});

Deno.test("unescapeOutput turns control mode's octal escapes back into bytes", () => {
  const data = new TextEncoder().encode("a\\015\\012\\134x é\\033[m\\9");
  assertEquals(
    new TextDecoder().decode(unescapeOutput(data)),
    "a\r\n\\x é\x1b[m\\9",
  );
});

Deno.test("LineReducer applies the cursor moves progress bars and spinners write within a line", () => {
  // CSI D back, C forward, G to a column.
  assertEquals(reduce("abc\x1b[D!\n").lines, ["ab!"]);
  assertEquals(reduce("a\x1b[3Cb\n").lines, ["a   b"]);
  assertEquals(reduce("12345\x1b[3GX\n").lines, ["12X45"]);
  assertEquals(reduce("spin -\x1b[D\\\x1b[D|\x1b[D/\r\x1b[Kdone\n").lines, ["done"]);
  // npm's spinner: each frame written at column 1 and the rest of the line erased.
  assertEquals(
    reduce("\x1b[?25l⠋\x1b[1G\x1b[0K⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0Kadded 1 package in 2s\n\x1b[?25h")
      .lines,
    ["added 1 package in 2s"],
  );
  // git's counters, rewritten after a carriage return.
  assertEquals(
    reduce("Receiving objects:  50% (5/10)\rReceiving objects: 100% (10/10), done.\n").lines,
    ["Receiving objects: 100% (10/10), done."],
  );
  // cargo's bar under its lines, erased before the next line is written over it.
  assertEquals(
    reduce(
      "   Compiling a v0.1.0\n    Building [=>  ] 1/2: a\r\x1b[K   Compiling b v0.1.0\n" +
        "    Building [==> ] 2/2: b\r\x1b[K    Finished dev\n",
    ).lines,
    ["   Compiling a v0.1.0", "   Compiling b v0.1.0", "    Finished dev"],
  );
  // pip's bar, redrawn in place until done.
  assertEquals(
    reduce("\r   ━━━━╺━━━━━ 1.0/2.0 MB\r   ━━━━━━━━━━ 2.0/2.0 MB 3.1 MB/s eta 0:00:00\n").lines,
    ["   ━━━━━━━━━━ 2.0/2.0 MB 3.1 MB/s eta 0:00:00"],
  );
  // A bad or huge count is bounded.
  assertEquals(reduce("ab\x1b[99999999Dc\n").lines, ["cb"]);
});
