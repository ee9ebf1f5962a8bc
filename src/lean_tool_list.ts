/**
 * Trims what every conversation pays for: the SDK writes each tool's JSON Schema with a
 * `$schema` line and, for every integer, JavaScript's safe-integer bounds, which say nothing a
 * model needs. tools/list results leave without them.
 *
 * @module
 */

import type { JSONRPCMessage, Transport } from "./deps.ts";
import { hookTransport } from "./transport_hooks.ts";

/** Drops `$schema` and safe-integer bounds from a JSON Schema, in place (bounded by its depth). */
function trimSchema(schema: unknown, depth = 0): void {
  if (schema === null || typeof schema !== "object" || depth > 16) return;
  const node = schema as Record<string, unknown>;
  delete node.$schema;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  for (const value of Object.values(node)) trimSchema(value, depth + 1);
}

/** Trims the schemas of a tools/list result on its way out. */
function trimToolList(message: JSONRPCMessage): void {
  if (!("result" in message)) return;
  const tools = (message.result as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return;
  for (const tool of tools) {
    trimSchema(tool?.inputSchema);
    trimSchema(tool?.outputSchema);
  }
}

/** Wraps a transport so tools/list results leave with trimmed schemas. */
export function leanToolList(inner: Transport): Transport {
  return hookTransport(inner, { sending: trimToolList, receiving: (_message, pass) => pass() });
}
