/**
 * Seeing a pane as a person does: its screen as a PNG image (colours, attributes, the cursor),
 * and the same in words for a model that reads no image (its rows and the runs of styled cells).
 *
 * @module
 */

import { z } from "../../deps.ts";
import {
  gridRows,
  IMAGE_MAX_PIXELS,
  imagePixels,
  renderScreen,
  type StyledSpan,
  styledSpans,
} from "../../screen/mod.ts";
import { cutLine, lineBytes, styledScreen } from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  budgetOf,
  count,
  defineTool,
  maxOutputBytesSchema,
  paneIdOutput,
  paneSpecShape,
  paneText,
  paneTextOutput,
  renderPaneText,
  screenOutput,
  size,
} from "../define/mod.ts";

/** The most styled spans a result lists (a syntax-coloured editor has hundreds). */
const SPANS_MAX = 200;

/** The spans that fit: at most SPANS_MAX, and `bytes` of their text. */
function spansWithin(spans: readonly StyledSpan[], bytes: number): StyledSpan[] {
  const kept: StyledSpan[] = [];
  let used = 0;
  for (const span of spans) {
    if (kept.length === SPANS_MAX) break;
    const text = cutLine(span.text, 512).line;
    used += lineBytes(text) + span.style.length + 24;
    if (used > bytes) break;
    kept.push({ ...span, text });
  }
  return kept;
}

/** Pixels in millions, as a person reads them. */
function megapixels(pixels: number): string {
  return `${(pixels / 1e6).toFixed(1)} Mpx`;
}

/** The screen tools. */
export const SCREEN_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "screenshot_pane",
    paneText: true,
    target: "pane",
    tier: "readonly",
    title: "See a pane as an image",
    description: "The pane's screen as a PNG image, drawn as a terminal shows it (colours, " +
      "bold, reverse, underline, the cursor, wide characters), and in words: its rows and the " +
      "runs of styled cells (a selected row in reverse, an error in red). For TUIs, menus, " +
      "diffs and test reports, where colour or highlight carries meaning; capture_pane reads " +
      "plain text for less.",
    input: {
      ...paneSpecShape,
      image: z.boolean().default(true).describe("false: only the rows and styled spans"),
      max_output_bytes: maxOutputBytesSchema,
    },
    output: {
      pane_id: paneIdOutput,
      ...screenOutput,
      cursor_visible: z.boolean().describe("the program shows its cursor"),
      in_mode: z.boolean().describe("a mode (copy-mode...) covers the pane: this is under it"),
      image: z.object({
        width: z.number().int().describe("pixels"),
        height: z.number().int().describe("pixels"),
        bytes: z.number().int().describe("the PNG's size"),
      }).nullable().describe("the image in the content, 8×16 pixels a cell (null: none)"),
      image_omitted: z.string().nullable().describe(
        "why no image came though one was asked (the screen is too large to draw)",
      ),
      spans: z.array(z.object({
        row: z.number().int(),
        col: z.number().int(),
        text: z.string(),
        style: z.string().describe("reverse, bold, underline, fg=red, bg=#303030..."),
      })).describe("runs of cells whose style tells something, top to bottom"),
      spans_total: z.number().int().describe("such runs on the screen (more than listed: cut)"),
      ...paneTextOutput,
    },
    async run(args, { socket, target, context, attachImage }) {
      const screen = await styledScreen(socket, target);
      const { grid } = screen;
      const budget = budgetOf(context, args);
      const spans = styledSpans(grid);
      let image = null;
      let omitted = null;
      const pixels = imagePixels(grid);
      if (args.image && pixels > IMAGE_MAX_PIXELS) {
        omitted = `the screen is ${grid.width}x${grid.height} cells, ${megapixels(pixels)} ` +
          `drawn, over the ${megapixels(IMAGE_MAX_PIXELS)} an image may have: its rows and ` +
          "styled runs tell it";
      } else if (args.image) {
        const drawn = await renderScreen(grid);
        attachImage(drawn.png);
        image = { width: drawn.width, height: drawn.height, bytes: drawn.png.length };
      }
      return {
        pane_id: target,
        width: grid.width,
        height: grid.height,
        cursor_x: grid.cursor.x,
        cursor_y: grid.cursor.y,
        cursor_visible: grid.cursor.visible,
        alternate_on: screen.alternate_on,
        in_mode: screen.in_mode,
        image,
        image_omitted: omitted,
        spans: spansWithin(spans, budget.maxBytes / 2),
        spans_total: spans.length,
        ...paneText(gridRows(grid), { ...budget, maxBytes: budget.maxBytes / 2 }),
      };
    },
    text: (r) => {
      const head = `${r.pane_id} ${r.width}x${r.height} cursor ${r.cursor_x},${r.cursor_y}` +
        `${r.cursor_visible ? "" : " (hidden)"}${r.alternate_on ? ", alternate screen" : ""}` +
        `${r.in_mode ? ", under a mode" : ""}` +
        (r.image === null
          ? r.image_omitted === null ? "" : `; no image: ${r.image_omitted}`
          : `; image ${r.image.width}x${r.image.height}, ${size(r.image.bytes)}`);
      const styled = r.spans.map((span) =>
        `row ${span.row} col ${span.col} ${span.style}: ${JSON.stringify(span.text)}`
      );
      const cut = r.spans_total - r.spans.length;
      return [
        renderPaneText(head, r),
        `styled: ${count(r.spans_total)} runs${cut > 0 ? `, ${count(cut)} not listed` : ""}`,
        ...styled,
      ].join("\n");
    },
  }),
];
