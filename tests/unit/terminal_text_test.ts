import { assert, assertEquals } from "../deps.ts";
import { LineReducer, LONG_LINE } from "../../src/tmux/run/output/terminal_text.ts";
import { REWRITE_CREDIT_MAX, REWRITE_PER_CHAR } from "../../src/tmux/run/output/rows_above.ts";
import { unescapeOutput } from "../../src/tmux/transport/watch/watcher.ts";

function reduce(text: string) {
  const lines: string[] = [];
  const reducer = new LineReducer({
    line: (line) => lines.push(line),
    longText: () => {},
    longEnd: () => lines.push("<long>"),
    rewrite: (texts) => lines.splice(lines.length - texts.length, texts.length, ...texts),
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
    rewrite: () => {},
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

/** docker pull as its jsonmessage stream draws it on a terminal: a row a layer, each rewritten. */
const DOCKER_PULL = "latest: Pulling from library/alpine\n" +
  // A new layer: a new row, then up to it and back down.
  "\n\x1b[1A\x1b[2K\ra1b2: Pulling fs layer \r\x1b[1B" +
  "\n\x1b[1A\x1b[2K\rc3d4: Pulling fs layer \r\x1b[1B" +
  "\x1b[2A\x1b[2K\ra1b2: Downloading [=====>      ]  1.2MB/3.4MB\r\x1b[2B" +
  "\x1b[1A\x1b[2K\rc3d4: Download complete \r\x1b[1B" +
  "\x1b[2A\x1b[2K\ra1b2: Pull complete \r\x1b[2B" +
  "\x1b[1A\x1b[2K\rc3d4: Pull complete \r\x1b[1B" +
  "Digest: sha256:4bcff63911fcb4448bd4fdacec207030997caf25e9bea4045fa6c8c44de311d1\n" +
  "Status: Downloaded newer image for alpine:latest\n";

Deno.test("LineReducer: a move up rewrites lines already passed on (docker pull, rich's live bars)", () => {
  assertEquals(reduce(DOCKER_PULL).lines, [
    "latest: Pulling from library/alpine",
    "a1b2: Pull complete ",
    "c3d4: Pull complete ",
    "Digest: sha256:4bcff63911fcb4448bd4fdacec207030997caf25e9bea4045fa6c8c44de311d1",
    "Status: Downloaded newer image for alpine:latest",
  ]);
  // rich (pip, many Python tools): each frame erases the rows of the last one and draws anew.
  const frame = "\r\x1b[2K\x1b[1A\x1b[2K";
  assertEquals(
    reduce(
      "\x1b[?25ltask a ━╺━ 10%\ntask b ╺━━ 5%" + frame + "task a ━━╺ 60%\ntask b ━╺━ 40%" + frame +
        "task a ━━━ 100%\ntask b ━━━ 100%\n\x1b[?25h",
    ).lines,
    ["task a ━━━ 100%", "task b ━━━ 100%"],
  );
  // Reverse index and CSI F go up too; a move past the lines kept stops at the first kept.
  assertEquals(reduce("a\nb\n\x1bMB\n").lines, ["a", "B"]);
  assertEquals(reduce("a\nb\nc\x1b[9FX\x1b[E\n").lines, ["X", "b", "c"]);
  // Output that ends above its last line still passes its rewrite on.
  assertEquals(reduce("a\nb\n\x1b[2Ax").lines, ["x", "b"]);
  // Nothing above the first line, and rewrites stay out of the alternate screen.
  assertEquals(reduce("\x1b[3Aa\n").lines, ["a"]);
  assertEquals(reduce("a\n\x1b[?1049h\x1b[1Ax\x1b[?1049lb\n").lines, ["a", "b"]);
});

Deno.test("LineReducer: how each rewrite is passed on, with the line it ends on", () => {
  const calls: string[] = [];
  const reducer = new LineReducer({
    line: (line) => calls.push(`line ${line}`),
    longText: () => {},
    longEnd: () => {},
    rewrite: (lines) => calls.push(`rewrite ${lines.join("|")}`),
  });
  reducer.push("one\ntwo\nthree\x1b[1A\rTWO");
  // Up there, nothing is passed on yet; the line being written stays the bottom one.
  assertEquals([calls.length, reducer.current()], [2, "three"]);
  // Back down, the column stays where the rewrite left it.
  reducer.push("\x1b[1B!\n");
  assertEquals(calls, ["line one", "line two", "rewrite TWO", "line thr!e"]);
});

Deno.test("LineReducer: curl's meter and bar, as recorded (curl 8, -o /dev/null from 127.0.0.1)", () => {
  const meter =
    "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n" +
    "                                 Dload  Upload   Total   Spent    Left  Speed\n" +
    "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0" +
    "\r100 2929k  100 2929k    0     0  43.8M      0 --:--:-- --:--:-- --:--:-- 44.0M\n";
  assertEquals(
    reduce(meter).lines.at(-1),
    "100 2929k  100 2929k    0     0  43.8M      0 --:--:-- --:--:-- --:--:-- 44.0M",
  );
  assertEquals(reduce(meter).lines.length, 3);
  const bar = "\r#####" + " ".repeat(70) + "6.9%\r" + "#".repeat(72) + " 100.0%\n";
  assertEquals(reduce(bar).lines, ["#".repeat(72) + " 100.0%"]);
});

Deno.test("LineReducer: rewrites pass on at most a bounded multiple of the output (a pane cannot make a few bytes cost a window each)", () => {
  let rewritten = 0;
  const lines: string[] = [];
  const reducer = new LineReducer({
    line: (line) => lines.push(line),
    longText: () => {},
    longEnd: () => {},
    rewrite: (rows) => rewritten += rows.reduce((sum, row) => sum + row.length + 1, 0),
  });
  const window = ("y".repeat(4000) + "\n").repeat(64);
  // Up to the first of 64 long lines and back, 200 times: 256 KB rewritten each time, unbounded.
  const moves = "\x1b[64AX\x1b[64B".repeat(200);
  reducer.push(window);
  reducer.push(moves);
  reducer.push("\r\x1b[Kdone\n");
  assert(
    rewritten <= REWRITE_CREDIT_MAX + REWRITE_PER_CHAR * (window.length + moves.length),
    `${rewritten} characters rewritten for ${window.length + moves.length} of output`,
  );
  // The output goes on: what is not rewritten stays as first shown.
  assertEquals([lines.length, lines.at(-1)], [65, "done"]);
  // An ordinary rewrite still goes through once the window is let go and built again.
  assertEquals(reduce("a\nb\n\x1b[2Ax\x1b[2B\n").lines, ["x", "b", ""]);
});

Deno.test("LineReducer: a move past a line's end puts no more blanks than output paid for", () => {
  // Ten bytes a line, each asking for column 65,000: the log would store 6.5 GB for 100 kB.
  const crafted = "\x1b[65000Gx\n".repeat(10_000);
  const { lines } = reduce(crafted);
  assertEquals(lines.length, 10_000);
  assert(lines.every((line) => line.endsWith("x") && line.trim() === "x"));
  const chars = lines.reduce((sum, line) => sum + line.length, 0);
  // The first line may reach far (a wide terminal's table); then a character earns one blank.
  assert(chars <= 64 * 1024 + 2 * crafted.length, `${chars} characters`);
  // Within what is paid for, the gap is as the terminal shows it.
  assertEquals(reduce("ab\x1b[6Gc\n").lines, ["ab   c"]);
});

Deno.test("LineReducer: a line rebuilt in place more than output paid for is appended to", () => {
  // Each `\rx` over a 60,000-character line copied it whole: three bytes for 60,000 characters.
  const line = "y".repeat(60_000);
  const rewrites = 1000;
  const { lines } = reduce(line + "\rx".repeat(rewrites) + "\n");
  assertEquals(lines.length, 1);
  // The first rewrites are paid for, and done as a terminal does; the rest append.
  assert(/^xy+x+$/.test(lines[0]), lines[0].slice(0, 9));
  assert(lines[0].length > line.length && lines[0].length < line.length + rewrites);
  // Ordinary overwriting is untouched.
  assertEquals(reduce("50%\r100%\n").lines, ["100%"]);
});
