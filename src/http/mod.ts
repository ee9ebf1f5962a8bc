/**
 * MCP over Streamable HTTP: the transport with its sessions, the guards every request passes, and
 * the HTTP/1.1 server under them, which bounds every read from a peer in size and time.
 *
 * @module
 */

export { type HttpHandle, type HttpOptions, serveHttp } from "./serve.ts";
export { constantTimeEqual, type GuardOptions, guardRequest } from "./guard.ts";
