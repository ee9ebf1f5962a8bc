/**
 * The one place that names third-party packages. Full, pinned `npm:` specifiers (no import map) so
 * that `deno run <URL>/main.ts` resolves them without our deno.json. The `@ts-types` lines work
 * around the SDK's export map, which points Deno at type files that do not exist.
 *
 * @module
 */

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/mcp"
export { McpServer, ResourceTemplate } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp"
export type { WebStandardStreamableHTTPServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js";

/** The SDK's Streamable HTTP transport, loaded when HTTP is served: stdio never needs it. */
export function loadHttpTransport(): Promise<
  typeof import("npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js")
> {
  // Full specifiers, as everywhere here: a remote run has no import map.
  // deno-lint-ignore no-import-prefix
  return import("npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js");
}
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
export {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
export type {
  CallToolResult,
  JSONRPCMessage,
  ServerNotification,
  ServerRequest,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/shared/transport"
export type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/validation/types"
export type { jsonSchemaValidator as JsonSchemaValidatorProvider } from "npm:@modelcontextprotocol/sdk@1.32.2/validation/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/shared/protocol"
export type { RequestHandlerExtra } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/protocol.js";
export { z } from "npm:zod@4.6.7";
// Linear-time matching for caller regular expressions (RE2 semantics in pure JavaScript): no
// pattern can make one search stall the server, whatever flags the process was started with.
export type { RE2JS } from "npm:re2js@2.10.0";

/** re2js, loaded on first use: most sessions never run a caller's regular expression. */
export function loadRe2(): Promise<typeof import("npm:re2js@2.10.0")> {
  // deno-lint-ignore no-import-prefix
  return import("npm:re2js@2.10.0");
}
