/**
 * The one place where failures become MCP `isError` results.
 *
 * @module
 */

import type { CallToolResult } from "../../deps.ts";
import { TmuxError } from "../../tmux/mod.ts";

/** Maps any thrown value to an `isError` result whose text starts with the error code. */
export function errorResult(error: unknown): CallToolResult {
  const typed = error instanceof TmuxError
    ? error
    : new TmuxError("internal_error", error instanceof Error ? error.message : String(error));
  return {
    isError: true,
    content: [{ type: "text", text: `${typed.code}: ${typed.message}` }],
  };
}

/** Runs a handler body and maps any failure through {@linkcode errorResult}. */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return errorResult(error);
  }
}
