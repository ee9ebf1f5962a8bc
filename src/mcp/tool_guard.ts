/**
 * Answers `tools/call` for a tool this server does not offer with the JSON-RPC error the MCP spec
 * asks for (-32602, invalid params). The SDK's McpServer would answer with an `isError` result,
 * which reads as if the tool existed and failed.
 *
 * @module
 */

import type { JSONRPCMessage, Transport } from "../deps.ts";
import { hookTransport } from "./transport_hooks.ts";

const INVALID_PARAMS = -32602;

/** The tool name of a `tools/call` request for a tool not in `known`, else null. */
export function unknownToolCall(
  message: JSONRPCMessage,
  known: ReadonlySet<string>,
): { id: string | number; name: string } | null {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return null;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  // A missing or non-string name is left to the SDK, whose schema check rejects it.
  if (typeof name !== "string" || known.has(name)) return null;
  return { id: message.id, name };
}

/** Wraps a transport so calls to unknown tools are answered before they reach the server. */
export function rejectUnknownTools(inner: Transport, known: ReadonlySet<string>): Transport {
  return hookTransport(inner, {
    receiving(message, pass, fail) {
      const unknown = unknownToolCall(message, known);
      if (unknown === null) {
        pass();
        return;
      }
      inner.send({
        jsonrpc: "2.0",
        id: unknown.id,
        error: {
          code: INVALID_PARAMS,
          // Names are short identifiers; anything else is not echoed.
          message: /^[A-Za-z0-9_.-]{1,64}$/.test(unknown.name)
            ? `unknown tool: ${unknown.name}`
            : "unknown tool",
        },
      }, { relatedRequestId: unknown.id }).catch(fail);
    },
  });
}
