/**
 * Tools that read what panes show: capture, capture since a cursor, snapshot, search, wait for
 * text, and expand a format.
 *
 * @module
 */

import { z } from "../../deps.ts";
import {
  capturePane,
  captureSince,
  cutLine,
  displayMessage,
  lineBytes,
  searchPanes,
  snapshotPane,
} from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  budgetOf,
  caseSensitiveSchema,
  defineTool,
  lastLinesSchema,
  maxOutputBytesSchema,
  paneIdOutput,
  paneSpecShape,
  paneText,
  paneTextOutput,
  renderPaneText,
  screenOutput,
  sessionSpecShape,
  timeoutSchema,
} from "../define/mod.ts";
import { patternsSchema, renderWait, waitOnPane, waitOutput, waitUntilShape } from "./pane_wait.ts";

/** The reading tools. */
export const READ_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "capture_pane",
    alwaysLoad: true,
    paneText: true,
    target: "pane",
    tier: "readonly",
    title: "Read a pane",
    description: "A pane's rows start to end as lines (0: the screen's top; negative: history).",
    input: {
      ...paneSpecShape,
      start: z.number().int().nullable().optional().describe("first row (default 0)"),
      end: z.number().int().nullable().optional().describe("last row (default: bottom)"),
      scrollback: z.boolean().default(false).describe("from the oldest history row"),
      join_wrapped: z.boolean().default(true).describe("join wrapped rows"),
      escapes: z.boolean().default(false).describe("keep colour escapes"),
      max_lines: lastLinesSchema,
      max_output_bytes: maxOutputBytesSchema,
    },
    output: { pane_id: paneIdOutput, ...paneTextOutput },
    async run(args, { socket, target, context }) {
      const lines = await capturePane(socket, target, {
        start: args.scrollback ? null : args.start ?? 0,
        end: args.end ?? null,
        join: args.join_wrapped,
        escapes: args.escapes,
      });
      return { pane_id: target, ...paneText(lines, budgetOf(context, args)) };
    },
    text: (r) => renderPaneText(r.pane_id, r),
  }),
  defineTool({
    name: "capture_since",
    paneText: true,
    target: "pane",
    tier: "readonly",
    title: "Read new pane output",
    description: "Lines written to a pane since an opaque cursor. Call without a cursor to get " +
      "one (and no lines); pass it back to get only what is new. The first line starts where " +
      "the cursor stood: what that row showed then (a prompt) and the echo of text send_keys " +
      "typed there are left out. current_line is the row under the cursor, still being " +
      "written, and is not consumed. A cursor works only for the pane it came from.",
    input: {
      ...paneSpecShape,
      cursor: z.string().max(10000).nullable().optional().describe(
        "from the previous call (or send_keys); none: start now",
      ),
      max_lines: lastLinesSchema,
      max_output_bytes: maxOutputBytesSchema,
    },
    output: {
      pane_id: paneIdOutput,
      cursor: z.string().describe("pass it to the next call to get only what follows"),
      lines_missed: z.boolean().describe("tmux's history dropped lines before they were read"),
      current_line: z.string().describe("the line still being written (not consumed)"),
      ...paneTextOutput,
    },
    async run(args, { socket, target, context }) {
      await context.tmux.settled(socket, target);
      const since = await captureSince(socket, target, args.cursor ?? null);
      const budget = budgetOf(context, args);
      return {
        pane_id: target,
        cursor: since.cursor,
        lines_missed: since.lines_missed,
        current_line: cutLine(since.current_line, budget.maxBytes / 2).line,
        ...paneText(since.lines, budget),
      };
    },
    text: (r) =>
      renderPaneText(`${r.pane_id} since the cursor`, r) +
      (r.current_line === "" ? "" : `\n(still being written) ${r.current_line}`) +
      `\ncursor: ${r.cursor}`,
  }),
  defineTool({
    name: "snapshot_pane",
    paneText: true,
    target: "pane",
    tier: "readonly",
    title: "Snapshot a pane",
    description: "The visible screen with cursor, size and mode.",
    input: { ...paneSpecShape, max_output_bytes: maxOutputBytesSchema },
    output: {
      pane_id: paneIdOutput,
      ...screenOutput,
      in_mode: z.boolean().describe("a mode (copy-mode, choose-tree...) covers the pane"),
      mode: z.string().describe("that mode's name, or empty"),
      current_command: z.string().describe("the foreground program's name"),
      title: z.string().describe("the pane's title"),
      ...paneTextOutput,
    },
    async run(args, { socket, target, context }) {
      const { lines, ...snapshot } = await snapshotPane(socket, target);
      const budget = budgetOf(context, args);
      return {
        ...snapshot,
        title: cutLine(snapshot.title, budget.maxBytes / 2).line,
        ...paneText(lines, budget),
      };
    },
    text: (r) =>
      renderPaneText(
        `${r.pane_id} ${r.width}x${r.height} cursor ${r.cursor_x},${r.cursor_y}` +
          `${r.in_mode ? ` in ${r.mode}` : ""}${r.alternate_on ? ", alternate screen" : ""}`,
        r,
      ),
  }),
  defineTool({
    name: "search_panes",
    paneText: true,
    target: "session",
    lists: true,
    tier: "readonly",
    title: "Search panes",
    description: "Finds a literal text or a regular expression in panes (all, one session or " +
      "one window), on screen or also in history.",
    input: {
      pattern: z.string().min(1).max(1000).describe("text to find, or an RE2 regular expression"),
      regex: z.boolean().default(false).describe("read pattern as a regular expression (RE2)"),
      case_sensitive: caseSensitiveSchema,
      include_history: z.boolean().default(false).describe("search scrollback too"),
      max_matches: z.number().int().min(1).max(1000).default(100).describe(
        "stop after this many matches",
      ),
      max_output_bytes: maxOutputBytesSchema,
      window_id: z.string().nullable().optional().describe("only this window's panes, like @2"),
      ...sessionSpecShape,
    },
    output: {
      matches: z.array(z.object({
        pane_id: z.string().describe("the pane"),
        row: z.number().int().describe("the row: 0 is the top of the screen, negative is history"),
        line: z.string().describe("the matching line (at most 2000 characters)"),
      })).describe("the matches, pane by pane, top to bottom"),
      truncated: z.boolean().describe(
        "max_matches or max_output_bytes was reached: there may be more (narrow the search)",
      ),
      panes_searched: z.number().int().describe("how many panes were searched"),
    },
    async run(args, { socket, target, context }) {
      const found = await searchPanes(socket, args.pattern, {
        regex: args.regex,
        caseSensitive: args.case_sensitive,
        includeHistory: args.include_history,
        maxMatches: args.max_matches,
        sessionId: target,
        windowId: args.window_id,
      });
      // The matches the output budget holds, each line within half of it.
      const { maxBytes } = budgetOf(context, args);
      const matches: typeof found.matches = [];
      let used = 0;
      for (const match of found.matches) {
        const line = cutLine(match.line, maxBytes / 2).line;
        used += lineBytes(line) + match.pane_id.length + 16;
        if (used > maxBytes) break;
        matches.push({ ...match, line });
      }
      return {
        matches,
        truncated: found.truncated || matches.length < found.matches.length,
        panes_searched: found.panes_searched,
      };
    },
  }),
  defineTool({
    name: "wait_for_text",
    paneText: true,
    target: "pane",
    tier: "readonly",
    title: "Wait for text in a pane",
    description: "Waits for a pane's new output (since the call or cursor) until an end below " +
      "or the program's exit; returns it and a cursor. Never matches send_keys' echo.",
    input: {
      ...paneSpecShape,
      ...waitUntilShape,
      stop_patterns: patternsSchema.default([]).describe(
        "end as stopped (an error, say)",
      ),
      regex: z.boolean().default(false).describe("patterns are RE2 regexes"),
      case_sensitive: caseSensitiveSchema,
      timeout: timeoutSchema,
      cursor: z.string().max(10000).nullable().optional().describe(
        "output since it (from send_keys...)",
      ),
      max_lines: lastLinesSchema,
      max_output_bytes: maxOutputBytesSchema,
    },
    output: { pane_id: paneIdOutput, ...waitOutput },
    async run(args, { socket, target, context, extra }) {
      const waited = await waitOnPane(args, {
        socket,
        target,
        context,
        extra,
        cursor: args.cursor ?? null,
      });
      return { pane_id: target, ...waited };
    },
    text: renderWait,
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
