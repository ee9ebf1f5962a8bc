import { assert, assertEquals } from "../deps.ts";
import { OutputLog } from "../../src/tmux/output_log.ts";

const page = { maxBytes: 16384, maxLines: 400 };

function fill(log: OutputLog, lines: number, width = 10): void {
  for (let i = 1; i <= lines; i++) {
    log.append(`${String(i).padStart(width, "0")}\n`);
  }
}

Deno.test("a log reads back lines by number, a line still being written included", () => {
  const log = new OutputLog();
  log.append("one\n");
  log.append("tw");
  log.append("o é");
  assertEquals([log.lines, log.bytes], [2, 4 + 6]);
  assertEquals(log.read(1, page), {
    lines: ["one", "two é"],
    from: 1,
    next: null,
    missing: null,
    partial: true,
  });
  log.append("\n");
  assertEquals(log.read(2, page).lines, ["two é"]);
  assertEquals(log.read(2, page).partial, false);
  assertEquals(log.read(3, page).lines, []);
});

Deno.test("a million lines under the limit are all kept and read exactly, a page at a time", () => {
  const log = new OutputLog();
  fill(log, 1_000_000);
  assertEquals([log.lines, log.bytes, log.kept], [1_000_000, 11_000_000, 11_000_000]);
  for (const n of [1, 500_000, 999_999]) {
    const got = log.read(n, page);
    assertEquals(got.lines[0], String(n).padStart(10, "0"), `line ${n}`);
    assertEquals(got.from, n);
  }
  const last = log.read(999_900, page);
  assertEquals([last.lines.length, last.lines.at(-1), last.next], [101, "0001000000", null]);
  const full = log.read(1, page);
  assertEquals([full.lines.length, full.next], [400, 401]);
});

Deno.test("over the limit: the head and the newest are kept, the middle is reported missing", () => {
  const log = new OutputLog({ maxBytes: 1_000_000, headBytes: 100_000 });
  fill(log, 200_000);
  assert(log.kept <= 1_000_000 + 64 * 1024, `${log.kept} bytes kept`);
  assertEquals(log.bytes, 2_200_000);
  assertEquals(log.read(1, page).lines[0], "0000000001");
  const middle = log.read(50_000, page);
  assert(middle.missing !== null && middle.missing.from === 50_000, JSON.stringify(middle.missing));
  assertEquals(middle.from, middle.missing!.to + 1);
  assertEquals(middle.lines[0], String(middle.missing!.to + 1).padStart(10, "0"));
  const end = log.read(200_000, page);
  assertEquals([end.lines, end.missing, end.next], [["0000200000"], null, null]);
  // Reading from the head runs up to the gap, and the next page reports it.
  const head = log.read(9_000, { maxBytes: 1_000_000, maxLines: 5_000 });
  assert(head.next !== null && head.lines.length < 5_000);
  assert(log.read(head.next!, page).missing !== null);
});

Deno.test("a 20 MB line is kept in bounded memory and read cut inside, with its byte count", () => {
  const log = new OutputLog();
  for (let i = 0; i < 20 * 1024; i++) log.append("é" + "x".repeat(1022));
  log.append("\n");
  assert(log.kept <= 16 * 1024 * 1024 + 64 * 1024, `${log.kept} bytes kept`);
  const got = log.read(1, page);
  assertEquals(got.lines.length, 1);
  const line = got.lines[0];
  assert(new TextEncoder().encode(line).length <= 8192, "the line was not cut");
  assert(line.startsWith("éxxx") && line.endsWith("xxx"), line.slice(0, 20));
  const marker = /…\[([\d,]+) bytes cut\]…/.exec(line);
  assert(marker !== null && !line.includes("\ufffd"), line.slice(2000, 2100));
  const shown = new TextEncoder().encode(line.replace(marker[0], "")).length;
  assertEquals(shown + Number(marker[1].replaceAll(",", "")), 20 * 1024 * 1024, "the cut is exact");
});
