/**
 * Pane text as results show it, pure: the bounded excerpt, a capture turned into a command's
 * output, caller patterns run in linear time and on a clock, and the prompts known by their text.
 *
 * @module
 */

export {
  DEFAULT_BUDGET,
  type Excerpt,
  ExcerptBuilder,
  excerptOf,
  type OutputBudget,
} from "./excerpt.ts";
export { cutLine, cutMarker, lineBytes, type LineEnds } from "./line_cut.ts";
export { MatchClock } from "./match_clock.ts";
export { splitCapture, unpadJoined } from "./output.ts";
export { knownPrompt } from "./prompts.ts";
export {
  compilePatterns,
  compileUserRegex,
  type LinePattern,
  type SourcePattern,
} from "./regex.ts";
