/**
 * Draws a screen as a terminal shows it: each cell's background, its glyph in its foreground
 * (bold thickened, italic slanted, dim halfway to the background), underline, strikethrough and
 * overline, reverse video and the cursor (a block, drawn reversed); a character the font lacks is
 * a hollow box.
 *
 * @module
 */

import { CELL_WIDTH, type Font, type Glyph, GLYPH_HEIGHT, loadFont } from "./font.ts";
import { ATTR, type Cell, type Grid } from "./grid.ts";
import { DEFAULT_BG, DEFAULT_FG, mix, rgbOf } from "./palette.ts";
import { encodePng, type Pixels } from "./png.ts";

/** A drawn screen. */
export interface ScreenImage {
  /** The PNG file's bytes. */
  png: Uint8Array;
  /** Its width in pixels. */
  width: number;
  /** Its height in pixels. */
  height: number;
}

/** The glyph a cell shows: one row of bits at a time (16 wide when the glyph is). */
function rowBits(glyph: Glyph, y: number): number {
  return glyph.width === 16 ? (glyph.bits[y * 2] << 8) | glyph.bits[y * 2 + 1] : glyph.bits[y];
}

/** A hollow box as wide as the cell, for a character the font lacks. */
function placeholder(width: number): Glyph {
  const bits = new Uint8Array(width * 2);
  const bytes = width / 8;
  const full = width === 16 ? 0x7ffe : 0x7e;
  const sides = width === 16 ? 0x4002 : 0x42;
  for (let y = 2; y <= 13; y++) {
    const row = y === 2 || y === 13 ? full : sides;
    if (bytes === 2) {
      bits[y * 2] = row >> 8;
      bits[y * 2 + 1] = row & 255;
    } else bits[y] = row;
  }
  return { width, bits };
}

function drawCell(
  pixels: Pixels,
  at: { x: number; y: number; cell: Cell; cursor: boolean },
  font: Font,
): void {
  const { cell } = at;
  const { attrs } = cell.style;
  let fg = rgbOf(cell.style.fg, DEFAULT_FG);
  let bg = rgbOf(cell.style.bg, DEFAULT_BG);
  if ((attrs & ATTR.reverse) !== 0 !== at.cursor) [fg, bg] = [bg, fg];
  if (attrs & ATTR.dim) fg = mix(fg, bg);
  const width = cell.width * CELL_WIDTH;
  const left = at.x * CELL_WIDTH;
  const top = at.y * GLYPH_HEIGHT;
  const glyphs: Glyph[] = [];
  if (!(attrs & ATTR.hidden) && cell.char !== " ") {
    const codes = [...cell.char].map((char) => char.codePointAt(0)!);
    glyphs.push(font.glyph(codes[0]) ?? placeholder(width));
    // Combining marks are drawn over their character.
    for (const code of codes.slice(1)) {
      const mark = font.glyph(code);
      if (mark) glyphs.push(mark);
    }
  }
  for (let y = 0; y < GLYPH_HEIGHT; y++) {
    let bits = 0;
    for (const glyph of glyphs) {
      const row = rowBits(glyph, y);
      // An 8-wide glyph in a wide cell (or a wide one in a narrow cell) is drawn at its left.
      bits |= glyph.width === width ? row : glyph.width < width ? row << 8 : row >> 8;
    }
    if (attrs & ATTR.bold) bits |= bits >> 1;
    if (attrs & ATTR.italic && y < 8) bits >>= 1;
    if (
      (attrs & ATTR.underline && y === 14) || (attrs & ATTR.strike && y === 8) ||
      (attrs & ATTR.overline && y === 0)
    ) bits = (1 << width) - 1;
    const base = (top + y) * pixels.width + left;
    for (let x = 0; x < width; x++) {
      pixels.rgb[base + x] = (bits >> (width - 1 - x)) & 1 ? fg : bg;
    }
  }
}

/**
 * The most pixels an image may have (2048×2048): its drawing holds the server's one thread and
 * its memory grows with it (a 1000×500-cell screen is 64 million pixels: seconds, and gigabytes).
 */
export const IMAGE_MAX_PIXELS = 2048 * 2048;

/** The pixels a screen's image has, 8×16 a cell. */
export function imagePixels(grid: Pick<Grid, "width" | "height">): number {
  return grid.width * CELL_WIDTH * grid.height * GLYPH_HEIGHT;
}

/**
 * Draws a screen as a PNG image, 8×16 pixels a cell; a screen over {@linkcode IMAGE_MAX_PIXELS}
 * is refused (a RangeError).
 */
export async function renderScreen(grid: Grid): Promise<ScreenImage> {
  if (imagePixels(grid) > IMAGE_MAX_PIXELS) {
    throw new RangeError(`a ${grid.width}×${grid.height} screen is too large to draw`);
  }
  const codes = new Set<number>();
  for (const row of grid.rows) {
    for (const cell of row) if (cell.width > 0) codes.add(cell.char.codePointAt(0)!);
  }
  const font = await loadFont(codes);
  const pixels: Pixels = {
    width: grid.width * CELL_WIDTH,
    height: grid.height * GLYPH_HEIGHT,
    rgb: new Uint32Array(grid.width * CELL_WIDTH * grid.height * GLYPH_HEIGHT),
  };
  const { cursor } = grid;
  grid.rows.forEach((row, y) => {
    row.forEach((cell, x) => {
      if (cell.width === 0) return;
      const isCursor = cursor.visible && cursor.y === y &&
        (cursor.x === x || (cell.width === 2 && cursor.x === x + 1));
      drawCell(pixels, { x, y, cell, cursor: isCursor }, font);
    });
  });
  return { png: await encodePng(pixels), width: pixels.width, height: pixels.height };
}
