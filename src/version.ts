/**
 * What the server says of itself: to MCP clients at `initialize` and in `--version`. The version
 * is deno.json's, the one place it is written (JSR publishes that one).
 *
 * @module
 */

import manifest from "../deno.json" with { type: "json" };

/** Where the project lives: its source, releases and documentation. */
export const HOMEPAGE = "https://github.com/tmux-mcp/tmux-mcp";

/** The server's `serverInfo` (MCP `Implementation`). */
export const SERVER_INFO = {
  name: "tmux-mcp",
  title: "tmux",
  version: manifest.version,
  description: "Run shell commands in tmux panes and get their real exit status and output; " +
    "read, wait on and drive any pane, session or window.",
  websiteUrl: HOMEPAGE,
} as const;
