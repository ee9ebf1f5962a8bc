/**
 * The pane's turn: the state every call of one server shares (per-pane locks, runs given up, the
 * output store), and the runs it keeps.
 *
 * @module
 */

export { type ListedRun, listRuns, type RunEndEvent, RunList, type RunState } from "./run_list.ts";
export {
  addCancelled,
  addOrphan,
  createRunner,
  forgetRun,
  functionFor,
  namedInRefusal,
  type PaneCall,
  paneTurn,
  rememberEnd,
  rememberFunction,
  type Runner,
  runSettled,
  SHELL_START_MS,
  shellStarting,
  stopRunner,
  sweepOrphans,
} from "./state.ts";
export { shellReady, type ShellReadyOptions, shellStartingFor } from "./shell_ready.ts";
