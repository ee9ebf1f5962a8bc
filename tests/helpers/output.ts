// A run's whole output, read back a page at a time with read_command_output.

import type { CallToolResult } from "../deps.ts";
import type { Connection } from "./mcp.ts";

/** One page, as read_command_output returns it. */
export interface Page {
  total_lines: number;
  from_line: number;
  next_line: number | null;
  missing: { from_line: number; to_line: number } | null;
  ended: boolean;
  lines: string[];
}

/** A page of a run's output from `fromLine`. */
export async function readPage(
  conn: Connection,
  runId: string,
  fromLine: number,
  extra: Record<string, unknown> = {},
): Promise<Page> {
  const result = await conn.client.callTool({
    name: "read_command_output",
    arguments: { run_id: runId, from_line: fromLine, ...extra },
  }) as CallToolResult;
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return result.structuredContent as unknown as Page;
}

/** Every line of a run's output, page by page (none may be missing). */
export async function readAllOutput(conn: Connection, runId: string): Promise<string[]> {
  const lines: string[] = [];
  for (let from: number | null = 1; from !== null;) {
    const page: Page = await readPage(conn, runId, from, { max_lines: 10_000 });
    if (page.missing !== null) throw new Error(`lines not kept: ${JSON.stringify(page.missing)}`);
    lines.push(...page.lines);
    from = page.next_line;
  }
  return lines;
}
