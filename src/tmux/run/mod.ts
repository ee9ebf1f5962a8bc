/**
 * The run path behind `run_command` and `wait_for_command`: one shell command in one pane, typed
 * through a private buffer, waited for through a private `tmux wait-for` channel, its exit status
 * read from a private pane option and its own output cut from the pane between the anchor and the
 * trailer's end position; a timed-out run collected later from the record it leaves.
 *
 * @module
 */

export { runCommand } from "./runner.ts";
export { runOfMark } from "./base/mod.ts";
export {
  MANY_MAX,
  paneLabel,
  type PaneOutcome,
  type PaneTarget,
  runMany,
  type RunManyRequest,
} from "./many.ts";
export { type ResumeRequest, waitForRun } from "./end/mod.ts";
export {
  createRunner,
  type Runner,
  runSettled,
  shellReady,
  type ShellReadyOptions,
  shellStarting,
  stopRunner,
} from "./turn/mod.ts";
export {
  nothingLeft,
  ordered,
  type OutputFields,
  type OutputMore,
  type RunRequest,
  type RunResult,
} from "./base/mod.ts";
export { parseRunId, runIdHost } from "./base/mod.ts";
export { newOwner } from "./base/mod.ts";
export { type ListedRun, listRuns, type RunEndEvent, RunList, type RunState } from "./turn/mod.ts";
export { type ReadRequest, readRunOutput, type RunPage } from "./read_output.ts";
export {
  type MatchGroup,
  type OutputMatches,
  type SearchOutputRequest,
  searchRunOutput,
} from "./search_output.ts";
