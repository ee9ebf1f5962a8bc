/**
 * Watchers: the clients that follow panes' output bytes, pooled per server, and what a pane's line
 * editor shows of itself.
 *
 * @module
 */

export { type WatcherPool } from "./watcher.ts";
export { closeWatchersOf } from "./watcher_pool.ts";
