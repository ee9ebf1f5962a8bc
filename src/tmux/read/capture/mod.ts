/**
 * Reading what a pane shows: captures (plain, styled, and since an opaque cursor), the pane's
 * position, the screen with its cursor, run_command's typed lines shown as their commands, and the
 * echo of typed text.
 *
 * @module
 */

export { type CaptureOptions, capturePane, screenRows } from "./capture.ts";
export { unchangedBottom, withoutChrome, withoutEcho } from "./screen_chrome.ts";
export { captureSince, type SinceOptions, type SinceResult } from "./capture_since.ts";
export { type Snapshot, snapshotPane } from "./snapshot.ts";
export { type StyledRows, styledRows, type StyledScreen, styledScreen } from "./styled_screen.ts";
