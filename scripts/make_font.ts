/**
 * Writes the glyphs the pane image draws with (src/screen/font_*.ts) from GNU Unifont's
 * `unifont.hex` (Debian's `unifont` package: /usr/share/unifont/unifont.hex). Unifont is dual
 * licensed, GPL-2+ with the font embedding exception and SIL OFL 1.1; we embed it under the OFL
 * (docs/screen-and-events.md). The glyphs are 8×16 (16×16 for wide characters), one bit
 * a pixel, row by row; a module holds ranges of code points and their bitmaps, deflated, in
 * base64.
 *
 * Usage: deno run --allow-read --allow-write scripts/make_font.ts [path/to/unifont.hex]
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url).pathname;

/** The common glyphs: Latin, Greek, Cyrillic, symbols, box drawing, blocks, Braille, kana, Hangul. */
const BASE: [number, number][] = [
  [0x20, 0x7e],
  [0xa0, 0x36f],
  [0x370, 0x52f],
  [0x1e00, 0x1eff],
  [0x2000, 0x2bff],
  [0x2e80, 0x33ff],
  [0xac00, 0xd7a3],
  [0xfe30, 0xfe4f],
  [0xff00, 0xffef],
  [0xfffd, 0xfffd],
];
/** Loaded when a screen shows one: the CJK unified ideographs. */
const CJK: [number, number][] = [[0x4e00, 0x9fff]];

async function deflate(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Runs of code points with glyphs of one width: [first, count, wide]. */
async function moduleText(
  glyphs: Map<number, string>,
  ranges: [number, number][],
  what: string,
): Promise<string> {
  const runs: [number, number, number][] = [];
  const chunks: string[] = [];
  for (const [first, last] of ranges) {
    for (let code = first; code <= last; code++) {
      const hex = glyphs.get(code);
      if (hex === undefined) continue;
      const wide = hex.length === 64 ? 1 : 0;
      const run = runs.at(-1);
      if (run && run[0] + run[1] === code && run[2] === wide) run[1]++;
      else runs.push([code, 1, wide]);
      chunks.push(hex);
    }
  }
  const bytes = Uint8Array.from(chunks.join("").match(/../g)!.map((byte) => parseInt(byte, 16)));
  const data = (await deflate(bytes)).toBase64();
  return `/**
 * ${what}.
 *
 * Glyphs of GNU Unifont (SIL OFL 1.1; docs/screen-and-events.md says more), written
 * by scripts/make_font.ts: do not edit.
 *
 * @module
 */

/** Runs of code points: first, count, and 1 where the glyphs are 16 pixels wide (else 8). */
export const RUNS: readonly (readonly [number, number, number])[] = ${JSON.stringify(runs)};

/** The runs' bitmaps, 16 rows each of one byte (two when wide), deflated, in base64. */
export const DATA =
  "${data}";
`;
}

const source = Deno.args[0] ?? "/usr/share/unifont/unifont.hex";
const glyphs = new Map<number, string>();
for (const line of (await Deno.readTextFile(source)).split("\n")) {
  const [code, hex] = line.split(":");
  if (hex !== undefined) glyphs.set(parseInt(code, 16), hex.trim());
}
await Deno.writeTextFile(
  `${ROOT}src/screen/font_base.ts`,
  await moduleText(
    glyphs,
    BASE,
    "The common glyphs",
  ),
);
await Deno.writeTextFile(
  `${ROOT}src/screen/font_cjk.ts`,
  await moduleText(glyphs, CJK, "The CJK ideographs (loaded as a screen shows one)"),
);
