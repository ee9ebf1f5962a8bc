/**
 * The audit log (`--audit-log`): one JSON line on stderr per tool call, and per thing the server
 * did beside a call (a grant). A command's, keys' or text's content is never written, only its
 * length and a digest.
 *
 * @module
 */

import type { CallToolResult } from "../../deps.ts";
import { digest } from "../../util/mod.ts";

/** Argument fields whose text is never logged, only its length and a hash. */
const REDACTED = ["command", "keys", "text"];
/** Argument fields logged as they are: ids and the socket. */
const LOGGED = ["pane_id", "window_id", "session_id", "socket_name", "host"];

/** One JSON line on stderr for something the server saw or did beside a call (a grant). */
export function auditEvent(entry: Record<string, unknown>): void {
  console.error(JSON.stringify({ time: new Date().toISOString(), ...entry }));
}

/** One JSON line on stderr per call; command text is reduced to its length and a hash. */
export async function auditCall(
  tool: string,
  args: Record<string, unknown>,
  result: CallToolResult,
  ms: number,
): Promise<void> {
  const entry: Record<string, unknown> = { time: new Date().toISOString(), tool };
  for (const field of LOGGED) if (typeof args[field] === "string") entry[field] = args[field];
  for (const field of REDACTED) {
    const value = args[field];
    if (typeof value === "string") {
      entry[field] = { length: value.length, sha256: await digest(value) };
    }
  }
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  entry.ok = !result.isError;
  if (result.isError) entry.code = /^[a-z_]+(?=:)/.exec(text)?.[0] ?? "error";
  entry.ms = ms;
  console.error(JSON.stringify(entry));
}
