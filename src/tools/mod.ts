/**
 * All tool groups, registered under the server's safety policy.
 *
 * @module
 */

import type { McpServer } from "../deps.ts";
import type { ToolContext } from "./context.ts";
import { type AnyToolSpec, registerSpec } from "./define.ts";
import { allowed, type ToolPolicy } from "./policy.ts";
import { CHANNEL_TOOLS } from "./channels.ts";
import { INPUT_TOOLS } from "./input.ts";
import { OPTION_TOOLS } from "./options.ts";
import { PANE_TOOLS } from "./panes.ts";
import { registerPrompts } from "./prompts.ts";
import { READ_TOOLS } from "./read.ts";
import { registerResources } from "./resources.ts";
import { RUN_TOOLS } from "./run.ts";
import { RUN_MANY_TOOLS } from "./run_many.ts";
import { registerRunResources, RUN_LIST_TOOLS } from "./runs.ts";
import { sessionPush } from "./push.ts";
import { registerWatchResources, WATCH_TOOLS } from "./watches.ts";
import { SCREEN_TOOLS } from "./screen.ts";
import { SESSION_TOOLS } from "./sessions.ts";
import { WINDOW_TOOLS } from "./windows.ts";
import { TOOLSET_NAMES, toolsetOf } from "./toolsets.ts";

export type { ServerConfig, ToolContext } from "./context.ts";
export { allowed, parseTier, type Tier, TIERS, type ToolPolicy } from "./policy.ts";
export { confinementParagraph } from "./confinement.ts";

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
