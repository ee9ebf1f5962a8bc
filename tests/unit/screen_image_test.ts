// The pane image: recorded screens (vim with syntax colours, htop, CJK and combining text, a
// 256-colour and true-colour pattern) drawn and compared pixel by pixel with reference images
// made by the same code once and checked by eye (tests/fixtures/screens/*.png; remake them with
// UPDATE_SCREENS=1 after a deliberate change, and look at them); and a few glyphs and colours
// checked pixel by pixel against what they must be.

import { assert, assertEquals } from "../deps.ts";
import { type Grid, parseGrid, renderScreen, styledSpans } from "../../src/screen/mod.ts";
import { decodePng } from "../helpers/png.ts";

const DIR = new URL("../fixtures/screens/", import.meta.url).pathname;

async function recorded(name: string): Promise<Grid> {
  const screen = JSON.parse(await Deno.readTextFile(`${DIR}${name}.json`));
  return parseGrid(screen.lines, screen);
}

for (const name of ["vim_syntax", "htop", "cjk", "colours"]) {
  Deno.test(`the recorded screen ${name} draws as its reference image`, async () => {
    const drawn = await renderScreen(await recorded(name));
    const reference = `${DIR}${name}.png`;
    if (Deno.env.get("UPDATE_SCREENS") === "1") await Deno.writeFile(reference, drawn.png);
    const [got, want] = await Promise.all([
      decodePng(drawn.png),
      decodePng(await Deno.readFile(reference)),
    ]);
    assertEquals([got.width, got.height], [want.width, want.height]);
    let differ = 0;
    for (let i = 0; i < got.rgb.length; i++) if (got.rgb[i] !== want.rgb[i]) differ++;
    assertEquals(differ, 0, `${differ} pixels differ from ${reference}`);
  });
}

/** One row of cells drawn from `text` (with its SGR sequences), the cursor where given. */
async function drawRow(text: string, cursor = { x: 0, y: 5, visible: false }) {
  const grid = parseGrid([text], { width: 8, height: 1, cursor: { ...cursor, y: 0 } });
  return { grid, image: await decodePng((await renderScreen(grid)).png) };
}

const BG = 0x101010;
const FG = 0xd0d0d0;

Deno.test("glyphs and colours, pixel by pixel", async () => {
  // Unifont's A: row 4 is 0x18 (pixels 3 and 4), row 9 0x7e (1 to 6), rows 0-3 and 14-15 blank.
  const { image } = await drawRow("\x1b[31mA\x1b[0m\x1b[7m \x1b[0m\x1b[48;5;21m \x1b[48;2;1;2;3m ");
  const at = (x: number, y: number) => image.rgb[y * image.width + x];
  assertEquals([image.width, image.height], [64, 16]);
  assertEquals([at(2, 4), at(3, 4), at(4, 4), at(5, 4)], [BG, 0xcd0000, 0xcd0000, BG]);
  assertEquals([at(0, 9), at(1, 9), at(6, 9), at(7, 9)], [BG, 0xcd0000, 0xcd0000, BG]);
  assertEquals([at(3, 3), at(3, 14)], [BG, BG]);
  // Reverse video: a blank drawn in the foreground; a 256-colour and a true-colour background.
  assertEquals([at(8, 0), at(15, 15)], [FG, FG]);
  assertEquals([at(16, 0), at(24, 8)], [0x0000ff, 0x010203]);
});

Deno.test("wide characters take two cells, a missing glyph is a box, the cursor is reversed", async () => {
  const { grid, image } = await drawRow("日\u{1f600}x", { x: 4, y: 0, visible: true });
  const at = (x: number, y: number) => image.rgb[y * image.width + x];
  assertEquals(grid.rows[0].map((cell) => cell.width), [2, 0, 2, 0, 1, 1, 1, 1]);
  // 日 is 16 pixels wide: ink in its right half.
  let right = 0;
  for (let y = 0; y < 16; y++) for (let x = 8; x < 16; x++) if (at(x, y) === FG) right++;
  assert(right > 10, `${right} pixels of ink in 日's right half`);
  // The emoji, which the font lacks: a hollow box of its two cells' width, rows 2 to 13.
  assertEquals([at(16 + 1, 2), at(16 + 14, 2), at(16 + 1, 13), at(16 + 7, 7)], [FG, FG, FG, BG]);
  // The cursor on x: its cell reversed (the background is the foreground's colour).
  assertEquals(at(32, 0), FG);
});

Deno.test("styled spans tell a selected row and coloured words, not plain text", () => {
  const grid = parseGrid(
    ["plain \x1b[1;31merror\x1b[0m", "\x1b[7m> item two      \x1b[0m", "\x1b[32m   \x1b[0mx"],
    { width: 20, height: 3, cursor: { x: 0, y: 0, visible: true } },
  );
  assertEquals(styledSpans(grid), [
    { row: 0, col: 6, text: "error", style: "bold fg=red" },
    { row: 1, col: 0, text: "> item two      ", style: "reverse" },
  ]);
});
