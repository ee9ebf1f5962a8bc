/**
 * All tool groups.
 *
 * @module
 */

import type { McpServer } from "../deps.ts";
import type { ToolContext } from "./context.ts";
import { registerRunTools } from "./run.ts";

export type { ServerConfig, ToolContext } from "./context.ts";

/** Registers every tool on a server. */
export function registerTools(server: McpServer, context: ToolContext): void {
  registerRunTools(server, context);
}
