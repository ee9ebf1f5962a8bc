import { assert, assertEquals } from "../deps.ts";
import { LOGS_MAX_BYTES, OutputLog } from "../../src/tmux/run/output/output_log.ts";
import { OutputStore, STORE_MAX_BYTES } from "../../src/tmux/run/output/run_output.ts";

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

Deno.test("all the logs of a process keep at most LOGS_MAX_BYTES together; a released one counts no more", () => {
  const logs = Array.from({ length: 16 }, () => new OutputLog());
  const piece = `${"x".repeat(1023)}\n`.repeat(1024);
  // 16 runs printing 8 MiB each at once: 128 MiB asked for.
  for (let round = 0; round < 8; round++) {
    for (const log of logs) log.append(piece);
  }
  const kept = logs.reduce((sum, log) => sum + log.kept, 0);
  assert(kept <= LOGS_MAX_BYTES + 16 * 64 * 1024, `${kept} bytes kept in all`);
  for (const log of logs) {
    assertEquals(log.bytes, 8 * 1024 * 1024);
    assert(log.kept >= log.least - 64 * 1024, `a log kept ${log.kept}, less than its least`);
    // What was dropped is reported, never silently missing.
    if (log.kept < log.bytes) assert(log.read(2000, page).missing !== null);
  }
  for (const log of logs) log.release();
  const next = new OutputLog();
  next.append(piece.repeat(12));
  assertEquals(next.kept, 12 * 1024 * 1024);
  next.release();
  assertEquals(next.kept, 0);
});

Deno.test("a log shrinks to what it is given, its head and newest kept", () => {
  const log = new OutputLog();
  fill(log, 400_000);
  log.shrinkTo(log.least);
  assert(log.kept <= log.least, `${log.kept}`);
  const first = log.read(1, page);
  assertEquals(first.lines[0], "0000000001");
  const last = log.read(-1 + log.lines + 1, page);
  assertEquals(last.lines.at(-1), "0000400000");
  log.release();
});

Deno.test("the store keeps its runs within its bytes: the oldest keep less of their middles, then go", () => {
  const store = new OutputStore();
  const piece = `${"y".repeat(1023)}\n`.repeat(1024);
  const ids = ["1.a", "2.b", "3.c"];
  for (const id of ids) {
    const log = new OutputLog();
    for (let i = 0; i < 6; i++) log.append(piece);
    store.put(id, { log, ended: Date.now(), shown: 0, owner: null });
  }
  const kept = ids.map((id) => store.get(id)?.log.kept ?? 0);
  assert(kept.reduce((a, b) => a + b, 0) <= STORE_MAX_BYTES, JSON.stringify(kept));
  // Older ones shrank first (to their head and newest bytes), and none had to go.
  assert(kept[0] <= kept[2] && kept[1] <= kept[2], JSON.stringify(kept));
  assert(kept[2] >= 5 * 1024 * 1024, JSON.stringify(kept));
  assert(kept.every((bytes) => bytes > 0), JSON.stringify(kept));
});

Deno.test("a log takes back its last lines for their rewrites, and lowers the marks of readers past them", () => {
  const log = new OutputLog();
  log.append("one\ntwo\nthree\n");
  const reader = { shown: 3 };
  const behind = { shown: 1 };
  log.follow(reader);
  log.follow(behind);
  assert(log.takeBack(2));
  assertEquals([log.lines, log.bytes, reader.shown, behind.shown], [1, 4, 1, 1]);
  log.append("TWO\nTHREE\n");
  assertEquals(log.read(reader.shown + 1, page).lines, ["TWO", "THREE"]);
  // All of it, and more than there is.
  assert(log.takeBack(3));
  assertEquals([log.lines, log.bytes, log.read(1, page).lines], [0, 0, []]);
  assert(!log.takeBack(1));
  // Not a line still being written.
  log.append("a\nb");
  assert(!log.takeBack(1));
});

Deno.test("a log takes back lines across its chunks, never into its head kept for good", () => {
  const log = new OutputLog({ maxBytes: 4 * 65536, headBytes: 65536 });
  fill(log, 20_000);
  assert(log.takeBack(12_000));
  assertEquals([log.lines, log.bytes], [8_000, 88_000]);
  log.append("rewritten\n");
  assertEquals(log.read(7_999, page).lines, ["0000007999", "0000008000", "rewritten"]);
  // The head (its first 65,536 bytes: 5,957 lines) is not taken back.
  assert(!log.takeBack(log.lines - 5_000));
  assertEquals(log.lines, 8_001);
  // Nor lines of a middle already dropped.
  const squeezed = new OutputLog({ maxBytes: 4 * 65536, headBytes: 65536 });
  fill(squeezed, 100_000);
  assert(squeezed.read(6_000, page).missing !== null);
  assert(!squeezed.takeBack(squeezed.lines - 6_000));
  assert(squeezed.takeBack(100));
  assertEquals(squeezed.read(99_899, page).lines, ["0000099899", "0000099900"]);
});
