/**
 * Tools that read what panes show: capture, capture since a cursor, snapshot, search, wait for
 * text, and expand a format.
 *
 * @module
 */

import { z } from "../deps.ts";
import {
  capturePane,
  captureSince,
  displayMessage,
  searchPanes,
  snapshotPane,
  truncateTail,
  waitForText,
} from "../tmux/mod.ts";
import { clampTimeout } from "./context.ts";
import { type AnyToolSpec, defineTool, progressNotifier } from "./define.ts";
import {
  maxLinesSchema,
  paneIdOutput,
  paneSpecShape,
  sessionSpecShape,
  timeoutSchema,
} from "./schemas.ts";

const linesOutput = {
  pane_id: paneIdOutput,
  lines: z.array(z.string()).describe("the pane's lines, oldest first"),
  truncated_lines: z.number().int().describe("lines dropped from the head for max_lines"),
  truncated_bytes: z.number().int().describe("UTF-8 bytes of those lines, a newline each"),
};

/** The reading tools. */
export const READ_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "capture_pane",
    target: "pane",
    tier: "readonly",
    title: "Read a pane",
    description: "Pane content as lines. start/end are rows: 0 is the top of the screen, " +
      "negative rows reach into history; scrollback: true starts at the oldest history row. " +
      "Trailing blank rows are dropped; max_lines keeps the tail.",
    input: {
      ...paneSpecShape,
      start: z.number().int().nullable().optional().describe("first row (default 0)"),
      end: z.number().int().nullable().optional().describe("last row (default: screen bottom)"),
      scrollback: z.boolean().default(false).describe("start at the oldest history row"),
      join_wrapped: z.boolean().default(true).describe("join wrapped rows into one line"),
      escapes: z.boolean().default(false).describe("keep colour/attribute escape sequences"),
      max_lines: maxLinesSchema,
    },
    output: linesOutput,
    async run(args, { socket, target }) {
      const lines = await capturePane(socket, target, {
        start: args.scrollback ? null : args.start ?? 0,
        end: args.end ?? null,
        join: args.join_wrapped,
        escapes: args.escapes,
      });
      const cut = truncateTail(lines, args.max_lines ?? null);
      return {
        pane_id: target,
        lines: cut.lines,
        truncated_lines: cut.droppedLines,
        truncated_bytes: cut.droppedBytes,
      };
    },
    text: (r) => [`${r.pane_id}: ${r.lines.length} lines`, ...r.lines.slice(-40)].join("\n"),
  }),
  defineTool({
    name: "capture_since",
    target: "pane",
    tier: "readonly",
    title: "Read new pane output",
    description: "Lines written to a pane since an opaque cursor. Call without a cursor to get " +
      "one (and no lines); pass it back to get only what is new. current_line is the row " +
      "under the cursor, still being written, and is not consumed.",
    input: {
      ...paneSpecShape,
      cursor: z.string().max(10000).nullable().optional().describe(
        "from the previous call (or send_keys); none: start now",
      ),
      max_lines: maxLinesSchema,
    },
    output: {
      pane_id: paneIdOutput,
      lines: z.array(z.string()).describe("complete lines written since the cursor"),
      current_line: z.string().describe("the line still being written (not consumed)"),
      cursor: z.string().describe("pass it to the next call to get only what follows"),
      lines_missed: z.boolean().describe("tmux's history dropped lines before they were read"),
      truncated_lines: z.number().int().describe("lines dropped from the head for max_lines"),
    },
    async run(args, { socket, target }) {
      const since = await captureSince(socket, target, args.cursor ?? null);
      const cut = truncateTail(since.lines, args.max_lines ?? null);
      return {
        pane_id: target,
        lines: cut.lines,
        current_line: since.current_line,
        cursor: since.cursor,
        lines_missed: since.lines_missed,
        truncated_lines: cut.droppedLines,
      };
    },
  }),
  defineTool({
    name: "snapshot_pane",
    target: "pane",
    tier: "readonly",
    title: "Snapshot a pane",
    description: "The visible screen with cursor, size, mode and alternate-screen state.",
    input: paneSpecShape,
    output: {
      pane_id: paneIdOutput,
      lines: z.array(z.string()).describe("the visible screen's rows, top first"),
      cursor_x: z.number().int().describe("cursor column, from 0"),
      cursor_y: z.number().int().describe("cursor row, from 0 at the top of the screen"),
      width: z.number().int().describe("columns"),
      height: z.number().int().describe("rows"),
      in_mode: z.boolean().describe("a mode (copy-mode, choose-tree...) covers the pane"),
      mode: z.string().describe("that mode's name, or empty"),
      alternate_on: z.boolean().describe("a full-screen program (editor, pager) owns the screen"),
      current_command: z.string().describe("the foreground program's name"),
      title: z.string().describe("the pane's title"),
    },
    async run(_args, { socket, target }) {
      return await snapshotPane(socket, target);
    },
    text: (r) =>
      [`${r.pane_id} ${r.width}x${r.height} cursor ${r.cursor_x},${r.cursor_y}`, ...r.lines].join(
        "\n",
      ),
  }),
  defineTool({
    name: "search_panes",
    target: "session",
    tier: "readonly",
    title: "Search panes",
    description: "Finds a literal text or a regular expression in panes (all, one session or " +
      "one window), on screen or also in history.",
    input: {
      pattern: z.string().min(1).max(1000).describe("text to find, or an RE2 regular expression"),
      regex: z.boolean().default(false).describe("read pattern as a regular expression (RE2)"),
      case_sensitive: z.boolean().default(false).describe("match case exactly"),
      include_history: z.boolean().default(false).describe("search scrollback too"),
      max_matches: z.number().int().min(1).max(1000).default(100).describe(
        "stop after this many matches",
      ),
      window_id: z.string().nullable().optional().describe("only this window's panes, like @2"),
      ...sessionSpecShape,
    },
    output: {
      matches: z.array(z.object({
        pane_id: z.string().describe("the pane"),
        row: z.number().int().describe("the row: 0 is the top of the screen, negative is history"),
        line: z.string().describe("the matching line (at most 2000 characters)"),
      })).describe("the matches, pane by pane, top to bottom"),
      truncated: z.boolean().describe("max_matches was reached: there may be more"),
      panes_searched: z.number().int().describe("how many panes were searched"),
    },
    async run(args, { socket, target }) {
      return await searchPanes(socket, args.pattern, {
        regex: args.regex,
        caseSensitive: args.case_sensitive,
        includeHistory: args.include_history,
        maxMatches: args.max_matches,
        sessionId: target,
        windowId: args.window_id,
      });
    },
  }),
  defineTool({
    name: "wait_for_text",
    target: "pane",
    tier: "readonly",
    title: "Wait for text in a pane",
    description: "Waits until one of `patterns` appears in output that is new since the call " +
      "began, or since `cursor` (send_keys returns one: pass it so output printed before the " +
      "wait started still counts). Literal, or regular expressions with regex: true. A stop " +
      "pattern ends the wait as 'stopped'; a full-screen program ends it as " +
      "'alternate_screen'. Sends progress notifications when the request carries a progress " +
      "token.",
    input: {
      ...paneSpecShape,
      patterns: z.array(z.string().min(1).max(1000)).min(1).max(20).describe(
        "what to wait for: any one of them ends the wait as 'matched'",
      ),
      stop_patterns: z.array(z.string().min(1).max(1000)).max(20).default([]).describe(
        "text that ends the wait as 'stopped' (an error message, say)",
      ),
      regex: z.boolean().default(false).describe("read patterns as regular expressions (RE2)"),
      case_sensitive: z.boolean().default(true).describe("match case exactly"),
      timeout: timeoutSchema,
      cursor: z.string().max(10000).nullable().optional().describe(
        "count output since this cursor (from send_keys, paste_text or capture_since)",
      ),
    },
    output: {
      pane_id: paneIdOutput,
      outcome: z.enum(["matched", "stopped", "timeout", "alternate_screen"]).describe(
        "how the wait ended",
      ),
      pattern: z.string().nullable().describe("the pattern that matched or stopped it"),
      line: z.string().nullable().describe("the line it matched"),
      elapsed_seconds: z.number().describe("time spent waiting"),
      effective_timeout: z.number().describe("the timeout enforced, after the server's ceiling"),
      lines_missed: z.boolean().describe("tmux's history dropped lines before they were read"),
    },
    async run(args, { socket, target, context, extra }) {
      const timeout = clampTimeout(context, args.timeout);
      const report = progressNotifier(extra, timeout);
      const result = await waitForText(socket, target, {
        patterns: args.patterns,
        stopPatterns: args.stop_patterns,
        regex: args.regex,
        caseSensitive: args.case_sensitive,
        timeout,
        cursor: args.cursor ?? null,
        intervalMs: 250,
        signal: extra.signal,
        onProgress: report && ((elapsed) => report(elapsed)),
      });
      return { pane_id: target, ...result };
    },
  }),
  defineTool({
    name: "display_message",
    target: "pane",
    tier: "readonly",
    title: "Expand a tmux format",
    description: "Expands a tmux format for a pane: literal text with plain variables such as " +
      "'#{pane_current_path}', '#{session_name}' or a user option '#{@name}'. Modifiers, " +
      "conditionals, styles and shell jobs are refused.",
    input: {
      format: z.string().min(1).max(2000).describe(
        "literal text with #{variable} references, e.g. '#{pane_current_path}'",
      ),
      ...paneSpecShape,
    },
    output: {
      pane_id: paneIdOutput,
      text: z.string().describe("the expanded format"),
    },
    async run(args, { socket, target }) {
      return { pane_id: target, text: await displayMessage(socket, target, args.format) };
    },
    text: (r) => r.text,
  }),
];
