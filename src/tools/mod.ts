/**
 * All tool groups, registered under the server's safety policy.
 *
 * @module
 */

import type { McpServer } from "../deps.ts";
import type { ToolContext } from "./define/mod.ts";
import { type AnyToolSpec, registerSpec } from "./define/mod.ts";
import { allowed, type ToolPolicy } from "./define/mod.ts";
import { CHANNEL_TOOLS } from "./objects/mod.ts";
import { INPUT_TOOLS } from "./read/mod.ts";
import { OPTION_TOOLS } from "./objects/mod.ts";
import { PANE_TOOLS } from "./objects/mod.ts";
import { registerPrompts } from "./prompts.ts";
import { READ_TOOLS } from "./read/mod.ts";
import { registerResources } from "./resources.ts";
import { RUN_TOOLS } from "./runs/mod.ts";
import { RUN_MANY_TOOLS } from "./runs/mod.ts";
import { registerRunResources, RUN_LIST_TOOLS } from "./runs/mod.ts";
import { sessionPush } from "./define/mod.ts";
import { registerWatchResources, WATCH_TOOLS } from "./read/mod.ts";
import { SCREEN_TOOLS } from "./read/mod.ts";
import { SESSION_TOOLS } from "./objects/mod.ts";
import { WINDOW_TOOLS } from "./objects/mod.ts";
import { TOOLSET_NAMES, toolsetOf } from "./define/mod.ts";

export type { ServerConfig, ToolContext } from "./define/mod.ts";
export { allowed, parseTier, type Tier, TIERS, type ToolPolicy } from "./define/mod.ts";
export { confinementParagraph } from "./define/mod.ts";

/** Every tool this server knows, in listing order. */
export const ALL_TOOLS: AnyToolSpec[] = [
  ...SESSION_TOOLS,
  ...WINDOW_TOOLS,
  ...PANE_TOOLS,
  ...READ_TOOLS,
  ...SCREEN_TOOLS,
  ...RUN_TOOLS,
  ...RUN_MANY_TOOLS,
  ...RUN_LIST_TOOLS,
  ...WATCH_TOOLS,
  ...INPUT_TOOLS,
  ...OPTION_TOOLS,
  ...CHANNEL_TOOLS,
];

/** The names of the tools a policy offers: the only ones listed and callable. */
export function offeredTools(policy: ToolPolicy): ReadonlySet<string> {
  return new Set(ALL_TOOLS.filter((spec) => allowed(spec, policy)).map((spec) => spec.name));
}

/** The toolsets a policy leaves off, with the tools each would add within its tier. */
export function availableToolsets(policy: ToolPolicy): Record<string, string[]> {
  return Object.fromEntries(
    TOOLSET_NAMES.filter((set) => !policy.toolsets.includes(set)).map((set) => [
      set,
      ALL_TOOLS.filter((spec) =>
        toolsetOf(spec.name) === set && allowed(spec, { ...policy, toolsets: [set], only: null })
      ).map((spec) => spec.name),
    ]),
  );
}

/** Registers the offered tools, the resources and the prompts on one session's server. */
export function registerTools(server: McpServer, shared: ToolContext): void {
  const context = { ...shared, push: sessionPush(server, shared.config) };
  for (const spec of ALL_TOOLS) {
    if (context.offered.has(spec.name)) registerSpec(server, spec, context);
  }
  registerResources(server, context);
  registerRunResources(server, context);
  registerWatchResources(server, context);
  registerPrompts(server);
}
