/**
 * The colours a pane image is drawn in: xterm's 16 colours, the 256-colour cube and greys, true
 * colours as given, and a dark terminal's default foreground and background.
 *
 * @module
 */

import { type Colour, DEFAULT_COLOUR, TRUE_COLOUR } from "./grid.ts";

/** The 16 named colours (xterm's), 0xRRGGBB. */
const SIXTEEN = [
  0x000000,
  0xcd0000,
  0x00cd00,
  0xcdcd00,
  0x0000ee,
  0xcd00cd,
  0x00cdcd,
  0xe5e5e5,
  0x7f7f7f,
  0xff0000,
  0x00ff00,
  0xffff00,
  0x5c5cff,
  0xff00ff,
  0x00ffff,
  0xffffff,
];

/** Their names, as the styled spans say them. */
const NAMES = [
  "black",
  "red",
  "green",
  "yellow",
  "blue",
  "magenta",
  "cyan",
  "white",
  "bright-black",
  "bright-red",
  "bright-green",
  "bright-yellow",
  "bright-blue",
  "bright-magenta",
  "bright-cyan",
  "bright-white",
];

/** The default foreground, 0xRRGGBB. */
export const DEFAULT_FG = 0xd0d0d0;
/** The default background, 0xRRGGBB. */
export const DEFAULT_BG = 0x101010;

const CUBE = [0, 95, 135, 175, 215, 255];

/** A colour as 0xRRGGBB; the default one is `fallback`. */
export function rgbOf(colour: Colour, fallback: number): number {
  if (colour === DEFAULT_COLOUR) return fallback;
  if (colour >= TRUE_COLOUR) return colour - TRUE_COLOUR;
  if (colour < 16) return SIXTEEN[colour];
  if (colour < 232) {
    const n = colour - 16;
    return (CUBE[Math.floor(n / 36)] << 16) | (CUBE[Math.floor(n / 6) % 6] << 8) | CUBE[n % 6];
  }
  const grey = 8 + (colour - 232) * 10;
  return (grey << 16) | (grey << 8) | grey;
}

/** A colour's name: one of the 16, else `#rrggbb`. */
export function colourName(colour: Colour): string {
  if (colour >= 0 && colour < 16) return NAMES[colour];
  return `#${rgbOf(colour, 0).toString(16).padStart(6, "0")}`;
}

/** Halfway between two colours (a dim foreground over its background). */
export function mix(a: number, b: number): number {
  const channel = (shift: number) => ((((a >> shift) & 255) + ((b >> shift) & 255)) >> 1) << shift;
  return channel(16) | channel(8) | channel(0);
}
