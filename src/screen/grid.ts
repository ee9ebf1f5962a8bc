/**
 * A terminal screen as a grid of styled cells, read from rows that carry SGR escape sequences
 * (tmux's `capture-pane -e`: a style set on one row holds on the next, as tmux writes them).
 *
 * @module
 */

import { cellWidth } from "./width.ts";

/**
 * A colour: {@linkcode DEFAULT_COLOUR}, an index of the 256-colour palette (0-255), or a true
 * colour as `TRUE_COLOUR + 0xRRGGBB`.
 */
export type Colour = number;

/** The terminal's own foreground or background. */
export const DEFAULT_COLOUR: Colour = -1;
/** Added to 0xRRGGBB for a true colour. */
export const TRUE_COLOUR: Colour = 0x1000000;

/** Attribute bits of a cell. */
export const ATTR = {
  bold: 1,
  dim: 2,
  italic: 4,
  underline: 8,
  blink: 16,
  reverse: 32,
  hidden: 64,
  strike: 128,
  overline: 256,
} as const;

/** How a cell is drawn. */
export interface Style {
  /** Foreground. */
  fg: Colour;
  /** Background. */
  bg: Colour;
  /** {@linkcode ATTR} bits. */
  attrs: number;
}

/** One cell: its character (with any combining marks), drawn `width` cells wide. */
export interface Cell {
  /** The character; empty for the right half of a wide one, a space for a blank. */
  char: string;
  /** 1, 2 for a wide character, 0 for the right half of one. */
  width: number;
  /** How it is drawn. */
  style: Style;
}

/** A screen: `height` rows of `width` cells, and the cursor. */
export interface Grid {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** The rows, top first, each `width` cells. */
  rows: Cell[][];
  /** The cursor's column, row, and whether it shows. */
  cursor: { x: number; y: number; visible: boolean };
}

/** Options for {@linkcode parseGrid}. */
export interface GridOptions {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** The cursor's column, row, and whether it shows. */
  cursor: { x: number; y: number; visible: boolean };
}

/** The style of a blank terminal. */
export const PLAIN: Style = Object.freeze({ fg: DEFAULT_COLOUR, bg: DEFAULT_COLOUR, attrs: 0 });

const ESC = "\x1b";
/** The longest escape sequence read; a longer one is dropped as text up to its end. */
const SEQUENCE_MAX = 4096;
/** Columns a tab advances to a multiple of. */
const TAB_STOP = 8;

/** Applies one SGR sequence's parameters (`1;38;5;196`, `4:2`, `38:2::1:2:3`) to a style. */
export function applySgr(style: Style, parameters: string): Style {
  let { fg, bg, attrs } = style;
  const items = parameters === "" ? ["0"] : parameters.split(";");
  for (let i = 0; i < items.length; i++) {
    const [head, ...subs] = items[i].split(":");
    const code = Number(head || "0");
    const extended = (): Colour | null => {
      // Sub-parameters (38:5:n, 38:2::r:g:b) or the next parameters (38;5;n, 38;2;r;g;b).
      let rest = subs.length > 0 ? subs : items.slice(i + 1);
      const kind = Number(rest[0]);
      if (subs.length > 0 && kind === 2 && rest.length >= 5) rest = [rest[0], ...rest.slice(2)];
      const used = kind === 5 ? 2 : kind === 2 ? 4 : 1;
      if (subs.length === 0) i += Math.min(used, rest.length);
      if (kind === 5) return clampByte(rest[1]);
      if (kind === 2) {
        return TRUE_COLOUR + (clampByte(rest[1]) << 16) + (clampByte(rest[2]) << 8) +
          clampByte(rest[3]);
      }
      return null;
    };
    if (code === 0) {
      fg = DEFAULT_COLOUR;
      bg = DEFAULT_COLOUR;
      attrs = 0;
    } else if (code === 1) attrs |= ATTR.bold;
    else if (code === 2) attrs |= ATTR.dim;
    else if (code === 3) attrs |= ATTR.italic;
    // 4:0 ends an underline; 4:1 to 4:5 are its styles, drawn alike.
    else if (code === 4) attrs = subs[0] === "0" ? attrs & ~ATTR.underline : attrs | ATTR.underline;
    // tmux writes overline (53) as 5:3.
    else if (code === 5) attrs |= subs[0] === "3" ? ATTR.overline : ATTR.blink;
    else if (code === 7) attrs |= ATTR.reverse;
    else if (code === 8) attrs |= ATTR.hidden;
    else if (code === 9) attrs |= ATTR.strike;
    else if (code === 21) attrs |= ATTR.underline;
    else if (code === 22) attrs &= ~(ATTR.bold | ATTR.dim);
    else if (code === 23) attrs &= ~ATTR.italic;
    else if (code === 24) attrs &= ~ATTR.underline;
    else if (code === 25) attrs &= ~ATTR.blink;
    else if (code === 27) attrs &= ~ATTR.reverse;
    else if (code === 28) attrs &= ~ATTR.hidden;
    else if (code === 29) attrs &= ~ATTR.strike;
    else if (code >= 30 && code <= 37) fg = code - 30;
    else if (code === 38) fg = extended() ?? fg;
    else if (code === 39) fg = DEFAULT_COLOUR;
    else if (code >= 40 && code <= 47) bg = code - 40;
    else if (code === 48) bg = extended() ?? bg;
    else if (code === 49) bg = DEFAULT_COLOUR;
    else if (code === 53) attrs |= ATTR.overline;
    else if (code === 55) attrs &= ~ATTR.overline;
    else if (code === 58) extended(); // underline colour: drawn in the foreground's
    else if (code >= 90 && code <= 97) fg = code - 90 + 8;
    else if (code >= 100 && code <= 107) bg = code - 100 + 8;
  }
  return { fg, bg, attrs };
}

function clampByte(text: string | undefined): number {
  const value = Number(text);
  return Number.isInteger(value) ? Math.max(0, Math.min(255, value)) : 0;
}

/**
 * The end of the escape sequence at `at` (just past it), and its SGR parameters when it is one.
 * CSI sequences end at a byte 0x40-0x7e, OSC ones (tmux's hyperlinks) at BEL or ESC \.
 */
function escapeAt(text: string, at: number): { end: number; sgr: string | null } {
  const kind = text[at + 1];
  const limit = Math.min(text.length, at + SEQUENCE_MAX);
  if (kind === "[") {
    for (let i = at + 2; i < limit; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x40 && code <= 0x7e) {
        return { end: i + 1, sgr: text[i] === "m" ? text.slice(at + 2, i) : null };
      }
    }
    return { end: limit, sgr: null };
  }
  if (kind === "]") {
    for (let i = at + 2; i < limit; i++) {
      if (text[i] === "\x07") return { end: i + 1, sgr: null };
      if (text[i] === ESC && text[i + 1] === "\\") return { end: i + 2, sgr: null };
    }
    return { end: limit, sgr: null };
  }
  return { end: Math.min(text.length, at + 2), sgr: null };
}

function blank(style: Style): Cell {
  return { char: " ", width: 1, style };
}

/**
 * Reads rows as `capture-pane -e` prints them into a grid of `width` by `height` cells: rows
 * beyond `height` and cells beyond `width` are dropped, missing ones are blank. A style holds
 * from row to row until a sequence changes it.
 */
export function parseGrid(lines: readonly string[], options: GridOptions): Grid {
  const { width, height } = options;
  let style: Style = PLAIN;
  const rows: Cell[][] = [];
  for (let y = 0; y < height; y++) {
    const text = lines[y] ?? "";
    const row: Cell[] = [];
    let i = 0;
    while (i < text.length && row.length < width) {
      if (text[i] === ESC) {
        const { end, sgr } = escapeAt(text, i);
        if (sgr !== null) style = applySgr(style, sgr);
        i = end;
        continue;
      }
      const code = text.codePointAt(i)!;
      const char = String.fromCodePoint(code);
      i += char.length;
      if (char === "\t") {
        const next = Math.min(width, (Math.floor(row.length / TAB_STOP) + 1) * TAB_STOP);
        while (row.length < next) row.push(blank(style));
        continue;
      }
      if (code < 0x20 || code === 0x7f) continue;
      const cells = cellWidth(char);
      if (cells === 0) {
        // A combining mark joins the character before it.
        const before = row.findLast((cell) => cell.width > 0);
        if (before) before.char += char;
        continue;
      }
      if (row.length + cells > width) break;
      row.push({ char, width: cells, style });
      if (cells === 2) row.push({ char: "", width: 0, style });
    }
    // Cells tmux did not print were never written: blank, in no style.
    while (row.length < width) row.push(blank(PLAIN));
    rows.push(row);
  }
  return { width, height, rows, cursor: options.cursor };
}
