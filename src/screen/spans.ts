/**
 * A screen's text form for a model that reads no image: its rows, and the runs of cells whose
 * style tells something (reverse video, a colour, bold or underline) with what they hold, so a
 * selected row, an error in red or a highlighted match can be told apart.
 *
 * @module
 */

import { ATTR, DEFAULT_COLOUR, type Grid, type Style } from "./grid.ts";
import { colourName } from "./palette.ts";

/** A run of cells of one telling style on one row. */
export interface StyledSpan {
  /** The row, from 0 at the top. */
  row: number;
  /** The first column, from 0. */
  col: number;
  /** What the cells hold. */
  text: string;
  /** The style in words: `reverse`, `bold`, `underline`, `fg=red`, `bg=#303030`... */
  style: string;
}

/** The screen's rows as text, trailing blanks dropped. */
export function gridRows(grid: Grid): string[] {
  return grid.rows.map((row) => row.map((cell) => cell.char).join("").trimEnd());
}

/** A style in words; empty for one that tells nothing. */
export function styleWords(style: Style): string {
  const words: string[] = [];
  if (style.attrs & ATTR.reverse) words.push("reverse");
  if (style.attrs & ATTR.bold) words.push("bold");
  if (style.attrs & ATTR.underline) words.push("underline");
  if (style.attrs & ATTR.strike) words.push("strike");
  if (style.fg !== DEFAULT_COLOUR) words.push(`fg=${colourName(style.fg)}`);
  if (style.bg !== DEFAULT_COLOUR) words.push(`bg=${colourName(style.bg)}`);
  return words.join(" ");
}

/** Whether only a background or reverse video shows on blanks (a foreground does not). */
function showsOnBlanks(style: Style): boolean {
  return style.bg !== DEFAULT_COLOUR || (style.attrs & (ATTR.reverse | ATTR.underline)) !== 0;
}

/** The runs of telling style, row by row, left to right. */
export function styledSpans(grid: Grid): StyledSpan[] {
  const spans: StyledSpan[] = [];
  grid.rows.forEach((row, y) => {
    let open: StyledSpan | null = null;
    let openStyle: Style | null = null;
    const close = () => {
      if (open === null || openStyle === null) return;
      const text = open.text.trimEnd();
      if (text.trim() !== "" || showsOnBlanks(openStyle)) {
        spans.push({ ...open, text: showsOnBlanks(openStyle) ? open.text : text });
      }
      open = null;
      openStyle = null;
    };
    row.forEach((cell, x) => {
      if (cell.width === 0) return;
      const words = styleWords(cell.style);
      if (open !== null && open.style === words) {
        open.text += cell.char;
        return;
      }
      close();
      if (words !== "") {
        open = { row: y, col: x, text: cell.char, style: words };
        openStyle = cell.style;
      }
    });
    close();
  });
  return spans;
}
