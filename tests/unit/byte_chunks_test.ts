// Output logs, and what is read in pieces, keep their bytes in two slabs (see
// src/tmux/byte_chunks.ts): each test counts what it takes of them against what was in use before
// it (other tests' logs may still hold chunks), and runs without awaiting, so no collected log
// gives chunks back meanwhile.

import { assert, assertEquals } from "../deps.ts";
import {
  CHUNK_BYTES,
  giveChunk,
  Pieces,
  slabBytesInUse,
  takeChunk,
} from "../../src/tmux/byte_chunks.ts";
import { OutputLog } from "../../src/tmux/run/output/output_log.ts";
import { OutputStore } from "../../src/tmux/run/output/run_output.ts";

const page = { maxBytes: 16384, maxLines: 400 };

function fill(log: OutputLog, lines: number): void {
  for (let i = 1; i <= lines; i++) log.append(`${String(i).padStart(10, "0")}\n`);
}

Deno.test("a log being written takes chunks of the writing slab, and gives them all back", () => {
  const before = slabBytesInUse();
  const log = new OutputLog();
  fill(log, 30_000);
  const during = slabBytesInUse();
  // 330,000 bytes: a first chunk of its own, grown to 64 KiB, then slab chunks.
  assertEquals(during.writing - before.writing, 5 * CHUNK_BYTES);
  log.release();
  assertEquals(slabBytesInUse(), before);
});

Deno.test("a settled log moves to the kept slab, reads the same, and goes on", () => {
  const before = slabBytesInUse();
  const log = new OutputLog();
  fill(log, 30_000);
  const read = log.read(20_000, page);
  log.settle();
  assertEquals(slabBytesInUse().writing, before.writing);
  assertEquals(slabBytesInUse().kept - before.kept, 5 * CHUNK_BYTES);
  assertEquals(log.read(20_000, page), read);
  fill(log, 10);
  assertEquals(log.read(30_001, page).lines[0], "0000000001");
  log.release();
  assertEquals(slabBytesInUse(), before);
});

Deno.test("the store settles a run that ended, once it has made room", () => {
  const before = slabBytesInUse();
  const store = new OutputStore(4 * CHUNK_BYTES);
  const ended = new OutputLog({ maxBytes: 16 * 1024 * 1024, headBytes: CHUNK_BYTES });
  fill(ended, 60_000);
  store.put("ended", { log: ended, ended: Date.now(), shown: 0, owner: null });
  // Shrunk first: its head (the first chunk, one of its own) and the three newest of its ten slab
  // chunks (the last one short) fit 256 KiB; only those move.
  assertEquals(slabBytesInUse().writing, before.writing);
  assertEquals(slabBytesInUse().kept - before.kept, 3 * CHUNK_BYTES);
  const going = new OutputLog();
  fill(going, 30_000);
  new OutputStore().put("going", { log: going, ended: null, shown: 0, owner: null });
  assert(slabBytesInUse().writing > before.writing, "a run still going stays where it is written");
  going.release();
  ended.release();
  assertEquals(slabBytesInUse(), before);
});

Deno.test("a chunk given back twice is freed once", () => {
  const before = slabBytesInUse();
  const [a, b] = [takeChunk(), takeChunk()];
  assertEquals(slabBytesInUse().writing - before.writing, 2 * CHUNK_BYTES);
  giveChunk(a);
  giveChunk(a);
  assertEquals(slabBytesInUse().writing - before.writing, CHUNK_BYTES);
  const c = takeChunk();
  assert(c.byteOffset !== b.byteOffset || c.buffer !== b.buffer, "a chunk in use handed out again");
  giveChunk(b);
  giveChunk(c);
  assertEquals(slabBytesInUse(), before);
});

Deno.test("pieces fill a chunk before taking the next, join in order, and give every chunk back", () => {
  const before = slabBytesInUse();
  const pieces = new Pieces();
  const bytes = new Uint8Array(150_000).map((_, i) => i % 251);
  for (let at = 0; at < bytes.length; at += 1000) pieces.push(bytes.subarray(at, at + 1000));
  assertEquals(slabBytesInUse().writing - before.writing, 3 * CHUNK_BYTES);
  assertEquals(Array.from(pieces.join()), Array.from(bytes));
  assertEquals(slabBytesInUse(), before);
  pieces.push(bytes);
  pieces.release();
  assertEquals([pieces.length, slabBytesInUse()], [0, before]);
});
