/**
 * The bitmap font a pane image is drawn with: GNU Unifont's 8×16 glyphs (16×16 for wide ones),
 * loaded the first time an image is drawn (a server that draws none never holds them), the CJK
 * ideographs the first time a screen shows one.
 *
 * @module
 */

/** A glyph: 16 rows of `width` pixels, one bit a pixel, leftmost the highest bit. */
export interface Glyph {
  /** 8 or 16. */
  width: number;
  /** The rows: one byte each (8 wide) or two (16 wide). */
  bits: Uint8Array;
}

/** The font's glyph height in pixels. */
export const GLYPH_HEIGHT = 16;
/** A cell's width in pixels. */
export const CELL_WIDTH = 8;

/** Loaded glyph runs: their first code point, count, width and bitmaps. */
interface Runs {
  firsts: number[];
  counts: number[];
  widths: number[];
  offsets: number[];
  bits: Uint8Array;
}

/** First of the code points of the CJK part; the last. */
const CJK_FIRST = 0x4e00;
const CJK_LAST = 0x9fff;

async function inflate(data: string): Promise<Uint8Array> {
  const bytes = Uint8Array.fromBase64(data);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function load(
  module: { RUNS: readonly (readonly [number, number, number])[]; DATA: string },
): Promise<Runs> {
  const runs: Runs = { firsts: [], counts: [], widths: [], offsets: [], bits: new Uint8Array() };
  let offset = 0;
  for (const [first, count, wide] of module.RUNS) {
    runs.firsts.push(first);
    runs.counts.push(count);
    runs.widths.push(wide ? 16 : 8);
    runs.offsets.push(offset);
    offset += count * (wide ? 32 : 16);
  }
  runs.bits = await inflate(module.DATA);
  return runs;
}

function find(runs: Runs, code: number): Glyph | null {
  let low = 0;
  let high = runs.firsts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const first = runs.firsts[middle];
    if (code < first) high = middle - 1;
    else if (code >= first + runs.counts[middle]) low = middle + 1;
    else {
      const width = runs.widths[middle];
      const size = width * 2;
      const at = runs.offsets[middle] + (code - first) * size;
      return { width, bits: runs.bits.subarray(at, at + size) };
    }
  }
  return null;
}

let baseRuns: Promise<Runs> | null = null;
let cjkRuns: Promise<Runs> | null = null;

/** The glyphs of a screen's characters, found by code point. */
export interface Font {
  /** A code point's glyph, or null where the font has none. */
  glyph(code: number): Glyph | null;
}

/**
 * The font, with the CJK glyphs loaded when `codes` holds one. Loaded once a process; a load
 * that fails is tried again on the next call.
 */
export async function loadFont(codes: Iterable<number>): Promise<Font> {
  let cjk = false;
  for (const code of codes) {
    if (code >= CJK_FIRST && code <= CJK_LAST) {
      cjk = true;
      break;
    }
  }
  baseRuns ??= import("./font_base.ts").then(load).catch((error) => {
    baseRuns = null;
    throw error;
  });
  if (cjk) {
    cjkRuns ??= import("./font_cjk.ts").then(load).catch((error) => {
      cjkRuns = null;
      throw error;
    });
  }
  const [common, ideographs] = await Promise.all([baseRuns, cjk ? cjkRuns : null]);
  return {
    glyph(code) {
      if (code >= CJK_FIRST && code <= CJK_LAST) return ideographs ? find(ideographs, code) : null;
      return find(common, code);
    },
  };
}
