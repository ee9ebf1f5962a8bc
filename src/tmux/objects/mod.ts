/**
 * The tmux objects and the verbs on them: sessions, windows and panes read with fixed format
 * fields, their ids resolved and checked, the commands that create, arrange and end them,
 * options, channels, and the scope a confined server keeps to.
 *
 * @module
 */

export { checkInScope, nameInScope, outOfScope, type Scope } from "./scope.ts";
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
  grant,
  GRANT_OPTION,
  grantCommand,
  type GrantedPane,
  type GrantReach,
  type GrantTarget,
  panesGranted,
  resolveGrantTarget,
  revoke,
} from "./grants.ts";
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
export { hideActivity } from "./activity_mark.ts";
export { displayMessage } from "./display.ts";
