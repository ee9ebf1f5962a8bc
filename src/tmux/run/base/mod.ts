/**
 * What every stage of a run shares: a result's types, whose run it is, the record a timed-out run
 * leaves, how a run ended, the names a call uses in its shell, the reasons results give, a line
 * that may still start, a lost link.
 *
 * @module
 */

export { linkDropped, transportLost } from "./link_lost.ts";
export { mayCollect, newOwner } from "./owner.ts";
export { dropUnusedEnded, endedUnused, pendingMark, superseded } from "./pending.ts";
export {
  busyWith,
  busyWithOthers,
  MAY_START,
  NEVER_STARTED,
  NO_STATUS,
  notIdle,
  notReading,
  passingRun,
  STILL_MAY_START,
  SUPERSEDED,
  UNREAD,
  unsupportedShell,
  untypableSocket,
} from "./reasons.ts";
export {
  encodeRecord,
  parseRecord,
  parseRunId,
  RECORD_TTL_MS,
  recordOptionNonce,
  runIdHost,
  runIdOf,
  type RunRecord,
} from "./record.ts";
export {
  KILLED,
  killedReason,
  NO_HASH_TOOL,
  NO_TMUX,
  NO_TMUX_REASON,
  parseRunEnd,
  type RunEnd,
  TAMPERED,
} from "./run_end.ts";
export {
  type CallNames,
  callNames,
  dropStatus,
  ENDED_OPTION,
  endMarkerPrefix,
  isInlineSafe,
  KEYS_IGNORED,
  markNonce,
  markOutlivedShell,
  PLAIN_PAGERS,
  restorablePath,
  RUNNING_OPTION,
  runningMark,
  runOfMark,
  shellQuote,
  statusOptionNonce,
} from "./shell.ts";
export {
  type Anchor,
  type Current,
  CURRENT_FIELDS,
  currentPosition,
  type MoreFrom,
  NO_OUTPUT,
  nothingLeft,
  ordered,
  type OutputFields,
  outputFields,
  type OutputMore,
  parseCurrent,
  type Position,
  type RunRequest,
  type RunResult,
} from "./types.ts";
