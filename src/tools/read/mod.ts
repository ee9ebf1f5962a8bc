/**
 * Tools that read what panes show (captures, snapshots, the screen as an image, searches, waits,
 * watches) and type into them (send_keys, paste_text).
 *
 * @module
 */

export { INPUT_TOOLS } from "./input.ts";
export { READ_TOOLS } from "./read.ts";
export { SCREEN_TOOLS } from "./screen.ts";
export { registerWatchResources, WATCH_TOOLS } from "./watches.ts";
