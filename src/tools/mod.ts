/**
 * All tool groups, registered under the server's safety policy.
 *
 * @module
 */

import type { McpServer } from "../deps.ts";
import type { ToolContext } from "./context.ts";
import { type AnyToolSpec, registerSpec } from "./define.ts";
import { allowed } from "./policy.ts";
import { DESTROY_TOOLS } from "./destroy.ts";
import { INSPECT_TOOLS } from "./inspect.ts";
import { MANAGE_TOOLS } from "./manage.ts";
import { registerPrompts, registerResources } from "./resources.ts";
import { RUN_TOOLS } from "./run.ts";

export type { ServerConfig, ToolContext } from "./context.ts";
export { allowed, parseTier, type Tier, TIERS, type ToolPolicy } from "./policy.ts";

/** Every tool this server knows, in listing order. */
export const ALL_TOOLS: AnyToolSpec[] = [
  ...INSPECT_TOOLS,
  ...RUN_TOOLS,
  ...MANAGE_TOOLS,
  ...DESTROY_TOOLS,
];

/** The names of the tools the policy allows: the only ones listed and callable. */
export function allowedToolNames(context: ToolContext): Set<string> {
  return new Set(
    ALL_TOOLS.filter((spec) => allowed(spec, context.config.policy)).map((spec) => spec.name),
  );
}

/** Registers every tool the policy allows, the resources and the prompts. */
export function registerTools(server: McpServer, context: ToolContext): void {
  for (const spec of ALL_TOOLS) registerSpec(server, spec, context);
  registerResources(server, context, ALL_TOOLS);
  registerPrompts(server);
}
