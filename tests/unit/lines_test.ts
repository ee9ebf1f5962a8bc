import { assertEquals } from "../deps.ts";
import { readCapped, readLines } from "../../src/tmux/transport/spawn/lines.ts";

/** A byte stream handing `chunks` one by one, as a pipe splits what it carries. */
function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((chunk) => encoder.encode(chunk)));
}

async function linesOf(
  chunks: string[],
  maxLineBytes?: number,
): Promise<{ lines: string[]; cuts: number[] }> {
  const decoder = new TextDecoder();
  const lines: string[] = [];
  const cuts: number[] = [];
  const options = { maxLineBytes, onCut: (dropped: number) => cuts.push(dropped) };
  for await (const line of readLines(streamOf(chunks), options)) lines.push(decoder.decode(line));
  return { lines, cuts };
}

Deno.test("readLines joins a line however the pipe split it, and drops an unfinished tail", async () => {
  assertEquals(await linesOf(["ab", "c\nd", "", "e\n\nf\n", "tail"]), {
    lines: ["abc", "de", "", "f"],
    cuts: [],
  });
});

Deno.test("readLines cuts a line longer than the bound and says how much it lost", async () => {
  const { lines, cuts } = await linesOf(["0123", "456789\nok\n", "abcdefghij", "k\n"], 5);
  assertEquals(lines, ["01234", "ok", "abcde"]);
  assertEquals(cuts, [5, 6]);
  // Within one chunk too.
  assertEquals(await linesOf(["0123456789\nx\n"], 4), { lines: ["0123", "x"], cuts: [6] });
});

Deno.test("readCapped keeps the head and counts the rest", async () => {
  const stream = ReadableStream.from([new Uint8Array(5000), new Uint8Array(5000)]);
  const { bytes, dropped } = await readCapped(stream, 6000);
  assertEquals([bytes.length, dropped], [6000, 4000]);
});
