/**
 * Tools on tmux's objects: sessions, windows and panes made, arranged and ended; options and the
 * environment; wait-for channels.
 *
 * @module
 */

export { CHANNEL_TOOLS } from "./channels.ts";
export { OPTION_TOOLS } from "./options.ts";
export { PANE_TOOLS } from "./panes.ts";
export { SESSION_TOOLS } from "./sessions.ts";
export { WINDOW_TOOLS } from "./windows.ts";
