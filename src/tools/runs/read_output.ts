/**
 * read_command_output: a kept run's output by line number, or the lines that match a pattern.
 *
 * @module
 */

import { z } from "../../deps.ts";
import { DEFAULT_BUDGET } from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  budgetOf,
  caseSensitiveSchema,
  defineTool,
  maxOutputBytesSchema,
} from "../define/mod.ts";
import { matchesPage } from "./output_matches.ts";
import { READ_TOOL, renderPage } from "./run_render.ts";

/** The tool. */
export const READ_OUTPUT_TOOL: AnyToolSpec = defineTool({
  name: READ_TOOL,
  paneText: true,
  target: "none",
  tier: "readonly",
  title: "Read a command's output by line",
  description: "Reads a run's output by line number, exactly, also while it runs; with " +
    "pattern, only matching lines, grep-style, and match_count. Kept an hour.",
  input: {
    run_id: z.string().max(64).describe("from a run_command result"),
    from_line: z.number().int().default(1).describe("negative: from the end"),
    max_lines: z.number().int().min(1).max(10_000).default(DEFAULT_BUDGET.maxLines).describe(
      "lines a page holds",
    ),
    max_output_bytes: maxOutputBytesSchema,
    pattern: z.string().min(1).max(1000).optional().describe(
      "only lines holding it",
    ),
    regex: z.boolean().default(false).describe("pattern is an RE2 regex"),
    case_sensitive: caseSensitiveSchema,
    context: z.number().int().min(0).max(20).default(2).describe("lines around each match"),
  },
  output: {
    run_id: z.string().describe("the run"),
    ended: z.boolean().describe("the run has ended (false: more output may come)"),
    total_lines: z.number().int().describe("lines of output so far"),
    total_bytes: z.number().int().describe("their UTF-8 bytes, a newline each"),
    from_line: z.number().int().describe("the line this page starts at"),
    next_line: z.number().int().nullable().describe(
      "where the next page starts; null: this page reaches the end so far",
    ),
    missing: z.object({
      from_line: z.number().int().describe("the first line not kept"),
      to_line: z.number().int().describe("the last line not kept"),
    }).nullable().describe(
      "lines asked for that were not kept (the middle of a long output: see docs/run_command.md)",
    ),
    partial_last_line: z.boolean().describe("the last line is still being written"),
    expires_at: z.string().describe("until when the output is kept (ISO 8601)"),
    lines: z.array(z.string()).describe(
      "the lines, each longer than half the page cut inside, marked '…[N bytes cut]…'",
    ),
    match_count: z.number().int().optional().describe(
      "with pattern: matching lines from from_line to the end so far, shown or not",
    ),
    lines_searched_in_part: z.number().int().optional().describe(
      "lines over 2 MiB, searched only in their first and last MiB",
    ),
  },
  async run(args, { context }) {
    const budget = { ...budgetOf(context, args), maxLines: args.max_lines, tailOnly: false };
    if (args.pattern !== undefined) {
      return matchesPage(
        await context.tmux.searchRunOutput({
          runId: args.run_id,
          pattern: args.pattern,
          regex: args.regex,
          caseSensitive: args.case_sensitive,
          context: args.context,
          fromLine: args.from_line,
          budget,
          owner: context.owner,
        }),
      );
    }
    return context.tmux.readRunOutput({
      runId: args.run_id,
      fromLine: args.from_line,
      budget,
      owner: context.owner,
    });
  },
  text: renderPage,
});
