import { assert, assertEquals } from "../deps.ts";
import { ExcerptBuilder, excerptOf } from "../../src/tmux/read/text/excerpt.ts";
import { cutLine, isNotText, lineBytes, notTextMarker } from "../../src/tmux/read/text/line_cut.ts";

const numbers = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

Deno.test("excerpt: everything when it fits the budget", () => {
  const out = excerptOf(numbers(300), { maxBytes: 16384, maxLines: 400 });
  assertEquals([out.head, out.tail.length, out.omitted, out.totalLines], [[], 300, null, 300]);
});

Deno.test("excerpt: a quarter from the head, the rest from the tail, the gap counted exactly", () => {
  const lines = numbers(1000);
  const out = excerptOf(lines, { maxBytes: 16384, maxLines: 400 });
  assertEquals(out.head, numbers(100));
  assertEquals(out.tail, lines.slice(-300));
  const gap = lines.slice(100, 700);
  assertEquals(out.omitted, {
    afterLine: 100,
    lines: 600,
    bytes: gap.reduce((sum, line) => sum + line.length + 1, 0),
  });
  assertEquals(out.totalBytes, lines.reduce((sum, line) => sum + line.length + 1, 0));
});

Deno.test("excerpt: the byte budget binds as well as the line budget", () => {
  const lines = Array.from({ length: 100 }, (_, i) => `${i}:`.padEnd(999, "x"));
  const out = excerptOf(lines, { maxBytes: 16384, maxLines: 400 });
  const shown = [...out.head, ...out.tail].reduce((sum, line) => sum + lineBytes(line), 0);
  assert(shown <= 16384, `${shown} bytes shown`);
  assertEquals(out.head.length + out.tail.length + out.omitted!.lines, 100);
  assertEquals(out.head[0], lines[0]);
  assertEquals(out.tail.at(-1), lines[99]);
});

Deno.test("excerpt: tail only keeps the last lines, as max_lines always did", () => {
  const out = excerptOf(numbers(10), { maxBytes: 16384, maxLines: 3, tailOnly: true });
  assertEquals([out.head, out.tail, out.omitted?.lines], [[], ["8", "9", "10"], 7]);
});

Deno.test("a line too long is cut inside, its head and tail kept, the cut counted", () => {
  const line = "<" + "a".repeat(20_000) + "é".repeat(5_000) + ">";
  const { line: shown, cut } = cutLine(line, 8192);
  assert(lineBytes(shown) <= 8192, `${lineBytes(shown)} bytes`);
  assert(shown.startsWith("<aaa") && shown.endsWith("éé>"));
  const marker = /…\[.*\]…/.exec(shown)![0];
  assertEquals(cut, lineBytes(line) - lineBytes(shown) + lineBytes(marker) - 1);
  assert(shown.includes(`${cut.toLocaleString("en-US")} bytes cut`));
  const out = excerptOf([line], { maxBytes: 16384, maxLines: 400 });
  assertEquals([out.tail.length, out.cutLines, out.totalBytes], [1, 1, lineBytes(line)]);
});

Deno.test("excerpt: one huge line and small ones around it", () => {
  const lines = ["first", "x".repeat(1_000_000), "last"];
  const out = excerptOf(lines, { maxBytes: 16384, maxLines: 400 });
  assertEquals([out.tail[0], out.tail[2], out.omitted, out.cutLines], ["first", "last", null, 1]);
});

const BINARY = "\u{fffd}ELF\u{fffd}\u{fffd}\u{fffd}>\u{fffd}@\u{fffd}";

Deno.test("lines that are not text: one marker a run, printable lines between kept, counts exact", () => {
  assert(
    isNotText(BINARY) && isNotText("H\u{fffd}") &&
      !isNotText("caf\u{fffd} au lait, s'il vous pla\u{fffd}t"),
  );
  assert(!isNotText("plain"));
  const lines = [
    "before",
    ...Array(500).fill(BINARY),
    "GNU coreutils",
    BINARY,
    BINARY,
    "after",
    BINARY,
  ];
  const out = excerptOf(lines, { maxBytes: 16384, maxLines: 400 });
  const bytes = lineBytes(BINARY);
  assertEquals(out.tail, [
    "before",
    notTextMarker(500, 500 * bytes),
    "GNU coreutils",
    notTextMarker(2, 2 * bytes),
    "after",
    // Alone and short: as it is, no longer than a marker.
    BINARY,
  ]);
  assertEquals([out.totalLines, out.notTextLines, out.omitted], [506, 502, null]);
  assertEquals(out.totalBytes, lines.reduce((sum, line) => sum + lineBytes(line), 0));
});

Deno.test("lines that are not text: the head counts the lines it stands for, the budget holds", () => {
  const lines = Array.from({ length: 3000 }, (_, i) => i % 3 === 0 ? `text ${i}` : BINARY);
  const out = excerptOf(lines, { maxBytes: 4096, maxLines: 40 });
  const shown = [...out.head, ...out.tail].reduce((sum, line) => sum + lineBytes(line), 0);
  assert(shown <= 4096, `${shown} bytes shown`);
  // Every line is in the head, left out, or in the tail, once.
  const tailLines = out.tail.reduce(
    (sum, line) => sum + (line.startsWith("text") ? 1 : Number(/\[(\d+) line/.exec(line)![1])),
    0,
  );
  assertEquals(out.headLines + out.omitted!.lines + tailLines, 3000);
  assertEquals(out.omitted!.afterLine, out.headLines);
  assertEquals(out.head[1], notTextMarker(2, 2 * lineBytes(BINARY)));
});

Deno.test("lines that are not text: a run is never taken back in part, a copy never changes it", () => {
  const builder = new ExcerptBuilder({ maxBytes: 16384, maxLines: 400 });
  builder.push("text");
  builder.push(BINARY);
  builder.push(BINARY);
  assert(!builder.canTakeBack(1));
  assertEquals(builder.finish(BINARY).tail, ["text", notTextMarker(3, 3 * lineBytes(BINARY))]);
  assertEquals(builder.finish().tail, ["text", notTextMarker(2, 2 * lineBytes(BINARY))]);
  builder.push("last");
  assert(builder.canTakeBack(1) && !builder.canTakeBack(2));
});
