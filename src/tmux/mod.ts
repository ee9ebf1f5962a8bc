/**
 * The tmux layer's only door: one client per process, typed verbs, queries, captures, waits and
 * run_command. No raw argv leaves it; it knows nothing of MCP.
 *
 * @module
 */

export { TmuxError, type TmuxErrorCode } from "./errors.ts";
export { createTmuxClient, type TmuxClient, type TmuxClientOptions } from "./client.ts";
export { withCallDeadline } from "./call_deadline.ts";
export { NAME_PREFIX } from "./names.ts";
export type {
  ListedRun,
  MatchGroup,
  OutputFields,
  OutputMatches,
  OutputMore,
  PaneOutcome,
  PaneTarget,
  ReadRequest,
  ResumeRequest,
  RunEndEvent,
  RunManyRequest,
  RunRequest,
  RunResult,
  RunState,
  SearchOutputRequest,
} from "./run/mod.ts";
export {
  MANY_MAX,
  newOwner,
  nothingLeft,
  ordered,
  paneLabel,
  parseRunId,
  runIdHost,
  runOfMark,
  type RunPage,
} from "./run/mod.ts";
export * from "./objects/mod.ts";
export * from "./read/mod.ts";
export * from "./input/mod.ts";
export * from "./transport/mod.ts";
