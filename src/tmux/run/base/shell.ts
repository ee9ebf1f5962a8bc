/**
 * The names a call uses in a pane's shell, and what the run function (run_function.ts) and the
 * launcher (launcher.ts) share (which programs are shells: ../shells.ts). Pure: no tmux here, so
 * it is unit-tested directly.
 *
 * @module
 */

import { NAME_PREFIX, NONCE_BYTES } from "../../names.ts";
import { runIdOf } from "./record.ts";
import { hostName, type SocketAddress } from "../../transport/spawn/exec.ts";

/** Quotes text as one POSIX shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Per-call names; all carry the call's random nonce. */
export interface CallNames {
  /** Pane user option that receives `status:history_size:cursor_y:cursor_x:pane_path`. */
  option: string;
  /** `wait-for` channel the trailer signals when the server waits on it; also the run's name. */
  channel: string;
  /** The OSC 7 start marker: `#{pane_path}` shows it while the command runs. */
  startMarker: string;
  /** Pane user option keeping a timed-out run's record, for collecting it later. */
  record: string;
  /**
   * Pane user option keeping a record written as the line is typed (remote runs, whose link
   * may drop at any moment): the trailer keeps the status for it but signals no one; a collector
   * copies it to `record` first.
   */
  quietRecord: string;
  /** Buffer holding the command text when it is not typed inline. */
  commandBuffer: string;
  /** Buffer holding the typed line while it is pasted. */
  pasteBuffer: string;
}

/** Derives the per-call names from a nonce. */
export function callNames(nonce: string): CallNames {
  const base = `${NAME_PREFIX}${nonce}`;
  return {
    option: `@${base}`,
    channel: base,
    startMarker: `${base}_s`,
    record: `@${NAME_PREFIX}run_${nonce}`,
    quietRecord: `@${NAME_PREFIX}rec_${nonce}`,
    commandBuffer: `${base}_c`,
    pasteBuffer: `${base}_p`,
  };
}

const NONCE = `[0-9a-f]{${2 * NONCE_BYTES}}`;
const STATUS_OPTION = new RegExp(`^@${NAME_PREFIX}(${NONCE})$`);

/** The nonce of a call's status option (`@tmux_mcp_<nonce>`), or null for any other name. */
export function statusOptionNonce(name: string): string | null {
  return name.match(STATUS_OPTION)?.[1] ?? null;
}

export { RUNNING_OPTION } from "../../names.ts";

/**
 * Pane user option naming the channel of the last run whose trailer (or guard) ran in the pane,
 * written by the trailer's own tmux command only while it is set: while a run that may still
 * start is kept (see pending.ts).
 */
export const ENDED_OPTION = `@${NAME_PREFIX}ended`;

/** The value of {@linkcode RUNNING_OPTION} for a call in a pane whose process is `panePid`. */
export function runningMark(names: CallNames, panePid: number): string {
  return `${names.channel}:${panePid}`;
}

/** Whether a running mark was set for another pane process than `panePid` (or is not ours). */
export function markOutlivedShell(mark: string, panePid: string): boolean {
  return mark.slice(mark.lastIndexOf(":") + 1) !== panePid;
}

/** The nonce of the run a running mark names, or null when it is not one of ours. */
export function markNonce(mark: string): string | null {
  return mark.match(new RegExp(`^${NAME_PREFIX}(${NONCE}):\\d{1,10}$`))?.[1] ?? null;
}

/** The run a pane's running mark names (see {@linkcode RUNNING_OPTION}); null: none. */
export function runOfMark(
  pane: { socket: SocketAddress; paneId: string },
  mark: string,
): string | null {
  const nonce = markNonce(mark);
  return nonce === null ? null : runIdOf(pane.paneId, nonce, hostName(pane.socket));
}

/** The OSC 7 path a trailer writes as its end marker, the status field appended. */
export function endMarkerPrefix(names: CallNames): string {
  return `${names.channel}_e`;
}

/** Commands up to this length made only of printable ASCII are typed inline, readable in the pane. */
export const INLINE_MAX = 2000;

/** True when a command can be typed as-is inside single quotes without the line editor reacting. */
export function isInlineSafe(command: string): boolean {
  return command.length <= INLINE_MAX && /^[\x20-\x7e]*$/.test(command);
}

/**
 * The environment a command runs in unless the call lets programs page: a pager would hold the
 * terminal until someone presses q, so pagers print straight through instead.
 */
export const PLAIN_PAGERS: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  GH_PAGER: "cat",
  PSQL_PAGER: "cat",
  BAT_PAGER: "cat",
  AWS_PAGER: "",
};

/**
 * The tmux format (1: true) for a trailer to drop its status option: no one waits on the channel
 * (`waited`: "0" or "1", or a shell parameter holding it), and neither record option (`records`:
 * its name and its quiet twin's) names the run.
 */
export function dropStatus(waited: string, records: readonly [string, string]): string {
  return `#{?#{||:${waited},#{||:#{${records[0]}},#{${records[1]}}}},,1}`;
}

/**
 * Ignores the keys that signal the terminal's foreground group (C-c, C-\): an ignored signal stays
 * ignored through exec, so the tmux that ends a run's bookkeeping cannot be killed by them.
 */
export const KEYS_IGNORED = "trap '' INT QUIT TERM";

/** A pane path worth putting back: printable ASCII, short (it is typed, quoted, in the line). */
const RESTORABLE_PATH = /^[\x20-\x7e]{0,1024}$/;

/**
 * The pane path a run puts back: the pane's, when it is plain text; else none. It is whatever the
 * pane's programs set, and it is written back into an OSC 7 sequence, which an ESC or BEL in it
 * would end early.
 */
export function restorablePath(path: string): string {
  return RESTORABLE_PATH.test(path) ? path : "";
}
