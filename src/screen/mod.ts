/**
 * A terminal screen as a person sees it: cells with colours and attributes read from tmux's
 * styled captures, drawn as a PNG image in an embedded bitmap font, and told in words for a model
 * that reads no image. Knows nothing of tmux's commands nor of MCP.
 *
 * @module
 */

export { cellWidth } from "./width.ts";
export {
  ATTR,
  type Cell,
  type Colour,
  DEFAULT_COLOUR,
  type Grid,
  type GridOptions,
  parseGrid,
  type Style,
} from "./grid.ts";
export { IMAGE_MAX_PIXELS, imagePixels, renderScreen, type ScreenImage } from "./render.ts";
export { gridRows, type StyledSpan, styledSpans, styleWords } from "./spans.ts";
