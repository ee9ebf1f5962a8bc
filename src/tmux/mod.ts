/**
 * The tmux layer: spawning tmux, format queries, target resolution and the run/wait/capture
 * machinery. Knows nothing of MCP.
 *
 * @module
 */

export { TmuxError, type TmuxErrorCode } from "./errors.ts";
export { runTmux, type TmuxSocket } from "./exec.ts";
export { checkId, type PaneSpec, resolvePane } from "./target.ts";
export {
  createRunner,
  runCommand,
  type Runner,
  type RunRequest,
  type RunResult,
  stopRunner,
} from "./run.ts";
