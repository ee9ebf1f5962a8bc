/**
 * All tool groups, registered under the server's safety policy.
 *
 * @module
 */

import type { McpServer } from "../deps.ts";
import {
  allowed,
  answerTools,
  type AnyToolSpec,
  registerSpec,
  sessionPush,
  type ToolContext,
  type ToolPolicy,
  TOOLSET_NAMES,
  toolsetOf,
} from "./define/mod.ts";
import {
  CHANNEL_TOOLS,
  OPTION_TOOLS,
  PANE_TOOLS,
  SESSION_TOOLS,
  WINDOW_TOOLS,
} from "./objects/mod.ts";
import {
  INPUT_TOOLS,
  READ_TOOLS,
  registerWatchResources,
  SCREEN_TOOLS,
  WATCH_TOOLS,
} from "./read/mod.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import {
  registerRunResources,
  RUN_COMPAT_TOOLS,
  RUN_LIST_TOOLS,
  RUN_MANY_TOOLS,
  RUN_TOOLS,
} from "./runs/mod.ts";

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
  ...RUN_COMPAT_TOOLS,
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
  const offered = ALL_TOOLS.filter((spec) => context.offered.has(spec.name));
  for (const spec of offered) registerSpec(server, spec, context);
  answerTools(server, offered, context.config);
  registerResources(server, context);
  registerRunResources(server, context);
  registerWatchResources(server, context);
  registerPrompts(server);
}
