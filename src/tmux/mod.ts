/**
 * The tmux layer's only door: one client per process, typed verbs, queries, captures, waits and
 * run_command. No raw argv leaves it; it knows nothing of MCP.
 *
 * @module
 */

export { TmuxError, type TmuxErrorCode } from "./errors.ts";
export { createTmuxClient, type TmuxClient, type TmuxClientOptions } from "./client.ts";
export type { TmuxSocket } from "./transport/socket.ts";
export { LOCAL_HOST, parseRemote, type RemoteHost, SOCKET_NAME } from "./remote_spec.ts";
export { checkInScope, nameInScope, outOfScope, type Scope } from "./scope.ts";
export type { SshOptions } from "./transport/ssh.ts";
export { tmuxVersion } from "./transport/exec.ts";
export { withCallDeadline } from "./call_deadline.ts";
export { NAME_PREFIX } from "./names.ts";
export {
  checkId,
  type IdKind,
  type PaneSpec,
  resolvePane,
  resolveSession,
  sessionIdByName,
  type SessionSpec,
} from "./target.ts";
export {
  type FieldKind,
  type FieldValue,
  getPane,
  getSession,
  getWindow,
  listPanes,
  listSessions,
  listWindows,
  type Pane,
  PANE_FIELDS,
  type PaneFilter,
  type Session,
  SESSION_FIELDS,
  type Typed,
  type Window,
  WINDOW_FIELDS,
} from "./objects.ts";
export {
  clearPane,
  type Created,
  LAYOUTS,
  newSession,
  type NewSessionOptions,
  newWindow,
  type NewWindowOptions,
  type PaneSize,
  renameSession,
  renameWindow,
  resizePane,
  resizeWindow,
  type RespawnOptions,
  respawnPane,
  selectLayout,
  selectPane,
  selectWindow,
  type ServerInfo,
  serverInfo,
  setPaneTitle,
  type SpawnOptions,
  splitWindow,
  type SplitWindowOptions,
  swapPanes,
} from "./verbs.ts";
export { kill, type KillTarget } from "./kill.ts";
export {
  checkKeyNames,
  type PasteOptions,
  pasteText,
  sendKeys,
  type SendKeysOptions,
  type TypedInput,
} from "./input.ts";
export {
  type EnvironmentVariable,
  type OptionPlace,
  type OptionScope,
  setOption,
  SETTABLE_OPTIONS,
  showEnvironment,
  showOption,
} from "./options.ts";
export { signalChannel, waitForChannel, type WaitForChannelOptions } from "./channels.ts";
export { displayMessage } from "./display.ts";
export {
  MATCH_CHARS,
  type SearchMatch,
  type SearchOptions,
  searchPanes,
  type SearchResult,
} from "./search.ts";
export { type Snapshot, snapshotPane } from "./snapshot.ts";
export { type CaptureOptions, capturePane, captureSince, type SinceResult } from "./capture.ts";
export {
  compilePatterns,
  waitForText,
  type WaitTextOptions,
  type WaitTextResult,
} from "./wait_text.ts";
export {
  cutLine,
  cutMarker,
  DEFAULT_BUDGET,
  type Excerpt,
  excerptOf,
  lineBytes,
  type OutputBudget,
} from "./excerpt.ts";
export type {
  MatchGroup,
  OutputMatches,
  OutputMore,
  PaneOutcome,
  PaneTarget,
  ReadRequest,
  ResumeRequest,
  RunManyRequest,
  RunRequest,
  RunResult,
  SearchOutputRequest,
} from "./run/mod.ts";
export {
  MANY_MAX,
  newOwner,
  ordered,
  paneLabel,
  parseRunId,
  runIdHost,
  type RunPage,
} from "./run/mod.ts";
export { hostName } from "./transport/exec.ts";
