// Test-only imports, through the import map in deno.json (tests never run from a URL).
// @ts-types="@modelcontextprotocol/sdk/client"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
export { assert, assertEquals, assertMatch } from "./helpers/assert.ts";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
export {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
export { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
