/**
 * Waiting on a pane: for text, a prompt, quiet or a program's end; whether its program waits for
 * input, as the kernel tells it; watches that outlive their call; searches across panes.
 *
 * @module
 */

export {
  type PaneWatchEnd,
  type PaneWatchOptions,
  WATCH_MAX_SECONDS,
  watchPane,
} from "./pane_watch.ts";
export {
  MATCH_CHARS,
  type SearchMatch,
  type SearchOptions,
  searchPanes,
  type SearchResult,
} from "./search.ts";
export {
  WAIT_OUTCOMES,
  waitForText,
  type WaitOutcome,
  type WaitTextOptions,
  type WaitTextResult,
} from "./wait_text.ts";
