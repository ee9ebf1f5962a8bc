/**
 * The tmux layer: spawning tmux, format queries, target resolution and the run/wait/capture
 * machinery. Knows nothing of MCP.
 *
 * @module
 */

export { TmuxError, type TmuxErrorCode } from "./errors.ts";
export { runTmux } from "./command.ts";
export { closeControlClients } from "./control.ts";
export { closeWatchers } from "./watch.ts";
export { THEN, type TmuxSocket, tmuxVersion } from "./exec.ts";
export {
  checkId,
  type PaneSpec,
  queryPane,
  resolvePane,
  resolveSession,
  sessionIdByName,
  type SessionSpec,
} from "./target.ts";
export {
  getPane,
  getSession,
  getWindow,
  listPanes,
  listSessions,
  listWindows,
  literal,
  type Pane,
  PANE_FIELDS,
  type Session,
  SESSION_FIELDS,
  type Window,
  WINDOW_FIELDS,
} from "./objects.ts";
export { capturePane, captureSince, type SinceResult } from "./capture.ts";
export { checkPlainFormat } from "./safe_format.ts";
export { compilePatterns, waitForText } from "./wait_text.ts";
export { spawnTmux } from "./exec.ts";
export { truncateTail } from "./output.ts";
export {
  createRunner,
  type ResumeRequest,
  runCommand,
  type Runner,
  type RunRequest,
  type RunResult,
  stopRunner,
  waitForRun,
} from "./run/mod.ts";
