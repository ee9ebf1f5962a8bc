/**
 * Reading panes: captures (plain, and since an opaque cursor), the screen with its cursor,
 * searches, waits on text, the bounded excerpt a result shows, whether a person may be typing, and
 * every pane's state (what agents in them reported).
 *
 * @module
 */

export {
  MATCH_CHARS,
  type SearchMatch,
  type SearchOptions,
  searchPanes,
  type SearchResult,
} from "./wait/mod.ts";
export { type Snapshot, snapshotPane } from "./capture/mod.ts";
export { type StyledRows, styledRows, type StyledScreen, styledScreen } from "./capture/mod.ts";
export { withoutChrome, withoutEcho } from "./capture/mod.ts";
export {
  type PaneWatchEnd,
  type PaneWatchOptions,
  WATCH_MAX_SECONDS,
  watchPane,
} from "./wait/mod.ts";
export { PERSON_POLICIES, type PersonGuard, type PersonPolicy } from "./person.ts";
export {
  type CaptureOptions,
  capturePane,
  captureSince,
  type SinceOptions,
  type SinceResult,
} from "./capture/mod.ts";
export type { Cell, Colour, Grid, Style } from "../../screen/mod.ts";
export { compilePatterns, type LinePattern, type SourcePattern } from "./text/mod.ts";
export {
  WAIT_OUTCOMES,
  waitForText,
  type WaitOutcome,
  type WaitTextOptions,
  type WaitTextResult,
} from "./wait/mod.ts";
export {
  cutLine,
  cutMarker,
  DEFAULT_BUDGET,
  type Excerpt,
  excerptOf,
  lineBytes,
  type LineEnds,
  type OutputBudget,
} from "./text/mod.ts";
export {
  type AgentReport,
  type PaneState,
  type PaneStateFilter,
  paneStates,
  type PaneWithState,
} from "./pane_states.ts";
export {
  agentMarkOf,
  type AnyPaneEnd,
  type AnyPaneOptions,
  followAgentReports,
  type FollowReportsOptions,
  waitForAnyPane,
} from "./wait/any_pane.ts";
export {
  AGENT_CHANNEL,
  AGENT_MESSAGE_OPTION,
  AGENT_OPTION,
  AGENT_STATES,
  type AgentMark,
  type AgentState,
  WAIT_REASONS,
  type WaitReason,
} from "./agent_report.ts";
