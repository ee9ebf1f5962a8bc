/**
 * How a tool is made: its spec, tier, toolset and schemas, the guards at its door (scope, granted
 * panes), its context and what its session is told without a call, and how results show pane text
 * within the output budget.
 *
 * @module
 */

export { confinementParagraph } from "./confinement.ts";
export {
  budgetOf,
  clampTimeout,
  type ServerConfig,
  socketOf,
  type ToolContext,
} from "./context.ts";
export {
  answerTools,
  type AnyToolSpec,
  defineTool,
  type Extra,
  progressNotifier,
  registerSpec,
  zodSchemasOf,
} from "./define.ts";
export { type ToolSchemas, writtenSchemas } from "./tool_schemas.ts";
export { paneText, paneTextOf, paneTextOutput, renderPaneText } from "./pane_text.ts";
export { allowed, parseTier, type Tier, TIERS, type ToolPolicy } from "./policy.ts";
export { type SessionPush, sessionPush } from "./push.ts";
export { count, lines, size, withGap } from "./render.ts";
export { jsonContents, templateValue } from "./resource.ts";
export { leanRunResult, RUN_DEFAULTS, withoutDefaults } from "./run_defaults.ts";
export {
  agentReportSchema,
  caseSensitiveSchema,
  columnsSchema,
  commandSchema,
  createdOutput,
  directorySchema,
  ifPersonTypingSchema,
  killedOutput,
  lastLinesSchema,
  maxLinesSchema,
  maxOutputBytesSchema,
  nameSchema,
  objectSchema,
  okOutput,
  paneIdOutput,
  paneIdSchema,
  paneSpecShape,
  rowsSchema,
  screenOutput,
  sessionIdSchema,
  sessionSpecShape,
  socketNameSchema,
  timeoutSchema,
  waitReadySchema,
  windowIdSchema,
} from "./schemas.ts";
export { TOOLSET_NAMES, TOOLSET_PURPOSES, toolsetOf, TOOLSETS } from "./toolsets.ts";
