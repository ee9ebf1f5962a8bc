/**
 * What adapts the MCP SDK to this server: the stdio transport, the wrappers on a transport that
 * answer what the SDK would answer wrongly (cancelled requests, unknown tools, heavy tool lists),
 * request ids on errors, and the instructions a client shows its model.
 *
 * @module
 */

export { STDIO_MAX_MESSAGE_BYTES, type StdioLineOptions, StdioLineTransport } from "./stdio.ts";
export { endCancelledRequests } from "./cancelled_requests.ts";
export { rejectUnknownTools, unknownToolCall } from "./tool_guard.ts";
export { leanToolList } from "./lean_tool_list.ts";
export { hookTransport, type TransportHooks } from "./transport_hooks.ts";
export { requestIdOf } from "./request_id.ts";
export { INSTRUCTIONS } from "./instructions.ts";
