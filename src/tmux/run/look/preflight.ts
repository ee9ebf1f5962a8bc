/**
 * Looking at a pane before typing: is it at an idle shell, and is the bookkeeping any server
 * left there still true.
 *
 * @module
 */

import { restoreCommands } from "../../objects/activity_mark.ts";
import { clearStaleMark } from "./stale_mark.ts";
import { runTmux } from "../../transport/control/command.ts";
import { delay } from "../../../util/mod.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { drainChannels } from "../../transport/spawn/waiter.ts";
import { queryPane } from "../../objects/target.ts";
import { optionNames } from "../../objects/options.ts";
import { isLookOption } from "../../read/wait/input_wait.ts";
import { NAME_PREFIX, NONCE_BYTES } from "../../names.ts";
import {
  type CallNames,
  callNames,
  ENDED_OPTION,
  endedUnused,
  markOutlivedShell,
  parseRecord,
  type Position,
  RECORD_TTL_MS,
  recordOptionNonce,
  RUNNING_OPTION,
  statusOptionNonce,
} from "../base/mod.ts";
import { classifyProcess } from "../../shells.ts";
import { TmuxError } from "../../errors.ts";
import { checkSupported, parseVersion, type TmuxVersion } from "../../version.ts";

/** The fields a call reads of its pane before typing. */
export const STATE_FIELDS = [
  "pane_in_mode",
  "pane_mode",
  "pane_dead",
  "pane_pid",
  "pane_current_command",
  "history_size",
  "history_limit",
  "cursor_y",
  "cursor_x",
  "socket_path",
  "pane_path",
  "session_id",
  // Whether a person may be typing (read/person.ts).
  "session_attached",
  "alternate_on",
  "version",
  // 3.7 on; empty before.
  "bracket_paste_flag",
  RUNNING_OPTION,
] as const;

/** What a call looks at in its pane before typing: each field as tmux formats it. */
export type PaneState = Record<(typeof STATE_FIELDS)[number], string>;

/** What runs in the foreground: a mark of ours means our own subshell, whatever its name. */
export function foreground(state: PaneState): ReturnType<typeof classifyProcess> {
  // While our wrapper runs, the foreground process is a subshell named like the shell itself.
  return state[RUNNING_OPTION] === "" ? classifyProcess(state.pane_current_command) : "other";
}

/**
 * The pane's tmux version, once the pane can be typed a line at all: a tmux too old, a dead pane
 * and a pane in a mode are refused.
 */
export function typableVersion(state: PaneState, paneId: string): TmuxVersion {
  const version = parseVersion(state.version);
  checkSupported(version);
  if (state.pane_dead === "1") {
    throw new TmuxError("pane_dead", `pane ${paneId} is dead (its process has exited)`);
  }
  if (state.pane_in_mode === "1") {
    const mode = state.pane_mode || "a mode";
    throw new TmuxError(
      "pane_in_mode",
      `pane ${paneId} is in ${mode}; leave it (q or Escape) before running commands`,
    );
  }
  return version;
}

/** How long, in ms, a pane that is not at an idle shell is watched for getting there. */
const IDLE_WAIT_MS = 150;

/**
 * How long when something else than a shell shows in front and no run of ours holds the pane: a
 * shell whose command just ended is on its way back, which a loaded machine can make slow
 * (meanwhile tmux may name the pane by its start command, `env` say: the command's process,
 * exited and not yet reaped, shows no name). A pane really running a program is refused a moment
 * later.
 */
const BACK_WAIT_MS = 1000;

/** Looks taken back to back before sleeping between them: a shell is usually back within 2 ms. */
const IDLE_QUICK_LOOKS = 8;

const MARKER = new RegExp(`^${NAME_PREFIX}[0-9a-f]{${2 * NONCE_BYTES}}_(s|e[0-9a-z]{1,3})$`);

/**
 * Whether `#{pane_path}` shows one of our OSC 7 markers: a call's start marker while its command
 * runs, its end marker until the trailer puts the path back.
 */
export function isMarker(path: string): boolean {
  return MARKER.test(path);
}

/**
 * Leftovers looked at per call: whatever a program in the pane plants, the work of one call stays
 * bounded (one tmux command, one tmux process), and the rest is left for later calls.
 */
const RECONCILE_MAX = 16;

/**
 * Brings a pane's bookkeeping in tmux back in line with what tmux reports, whichever server
 * process left it (one killed mid-call, say); true when anything changed:
 * - a running mark set for another pane process (respawned) or a dead pane is removed;
 * - a status option whose run has no record (its trailer ran and nobody collected it) is removed
 *   and its channel drained;
 * - a record past keeping, or not one a server could have written, goes the same way;
 * - a kernel look's answer (see input_wait.ts) is removed.
 * At most {@linkcode RECONCILE_MAX} leftovers a call. Called for a pane that is not at an idle
 * shell, and when a run times out (so expired records go): the common path pays nothing.
 */
export async function reconcile(
  socket: TmuxSocket,
  paneId: string,
  state: PaneState,
): Promise<boolean> {
  const commands: string[] = [];
  const mark = state[RUNNING_OPTION];
  if (mark !== "" && (state.pane_dead === "1" || markOutlivedShell(mark, state.pane_pid))) {
    commands.push("set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION, THEN);
    commands.push(...restoreCommands(paneId), THEN);
  }
  const options = new Set(await optionNames(socket, ["-p", "-t", paneId]));
  const held: CallNames[] = [];
  // By nonce: a run may have both kinds of record.
  const recorded = new Map<string, CallNames>();
  for (const name of options) {
    if (held.length + recorded.size >= RECONCILE_MAX) break;
    const status = statusOptionNonce(name);
    const names = status === null ? null : callNames(status);
    if (names !== null && !options.has(names.record) && !options.has(names.quietRecord)) {
      held.push(names);
    }
    const nonce = recordOptionNonce(name);
    if (nonce !== null && !recorded.has(nonce)) recorded.set(nonce, callNames(nonce));
  }
  const gone = [...held];
  if (recorded.size > 0) {
    const runs = [...recorded.values()];
    const values = await queryPane(
      socket,
      paneId,
      runs.flatMap((names) => [names.record, names.quietRecord]),
    );
    // A run's record is whichever of its two is set (the run's own once a collector made it).
    gone.push(
      ...runs.filter((names) =>
        recordExpired(values[names.record] || values[names.quietRecord], state)
      ),
    );
  }
  for (const names of gone) {
    commands.push("set-option", "-p", "-u", "-t", paneId, names.record, THEN);
    commands.push("set-option", "-p", "-u", "-t", paneId, names.quietRecord, THEN);
    commands.push("set-option", "-p", "-u", "-t", paneId, names.option, THEN);
    options.delete(names.record);
    options.delete(names.quietRecord);
  }
  if (endedUnused(options)) {
    commands.push("set-option", "-p", "-u", "-t", paneId, ENDED_OPTION, THEN);
  }
  // A kernel look's answer lives for the look's one command: one found is a look's that did not
  // finish (its server died between its script and its read).
  for (const name of [...options].filter(isLookOption).slice(0, RECONCILE_MAX)) {
    commands.push("set-option", "-p", "-u", "-t", paneId, name, THEN);
  }
  if (commands.length === 0) return false;
  await runTmux(socket, commands.slice(0, -1));
  await drainChannels(socket, gone.map((names) => names.channel)).catch(() => {});
  return true;
}

/** Whether a run record is past keeping: too old, unreadable, or made for a pane process gone. */
function recordExpired(value: string, state: { pane_pid: string; pane_dead: string }): boolean {
  const record = parseRecord(value);
  return record === null || Date.now() - record.created > RECORD_TTL_MS ||
    String(record.anchor.pid) !== state.pane_pid || state.pane_dead === "1";
}

/**
 * The pane's state, looked at again for a moment when it is not at an idle shell yet. Right after
 * a command the shell takes the terminal back: until then tmux names the pane by its start
 * command (e.g. "env" for `env X=1 bash`), or a trailer of ours is still finishing (its end marker
 * is the pane path, or the cursor still sits where the last output ended, before the prompt).
 * Text typed before the line editor is back would be echoed twice.
 */
export async function idleState(
  socket: TmuxSocket,
  paneId: string,
  lastEnd: Position | undefined,
): Promise<PaneState> {
  const begun = Date.now();
  // Another program in front with no run of ours: maybe a shell not back yet (see BACK_WAIT_MS).
  const notBack = (state: PaneState) =>
    state[RUNNING_OPTION] === "" && foreground(state) === "other";
  const waiting = (state: PaneState) =>
    Date.now() - begun < (notBack(state) ? BACK_WAIT_MS : IDLE_WAIT_MS);
  let state = await queryPane(socket, paneId, STATE_FIELDS);
  for (let look = 1; !ready(state, lastEnd) && waiting(state); look++) {
    if (state.pane_in_mode === "1" || state.pane_dead === "1") break;
    if (look > IDLE_QUICK_LOOKS) {
      const sleep = Math.min(2 ** (look - IDLE_QUICK_LOOKS - 1), 10);
      await delay(sleep);
    }
    state = await queryPane(socket, paneId, STATE_FIELDS);
  }
  return state;
}

/** Whether a pane is at an idle shell, its prompt drawn since `lastEnd` (our last output). */
export function ready(state: PaneState, lastEnd: Position | undefined): boolean {
  if (foreground(state) === "other" || isMarker(state.pane_path)) return false;
  return lastEnd === undefined || String(lastEnd.history) !== state.history_size ||
    String(lastEnd.y) !== state.cursor_y || String(lastEnd.x) !== state.cursor_x;
}

/**
 * A pane's state for a new run: looked at until its shell is idle (bounded), its bookkeeping
 * reconciled when it is not, and a running mark that outlived its run cleared.
 */
export async function stateForRun(
  socket: TmuxSocket,
  paneId: string,
  lastEnd: Position | undefined,
): Promise<PaneState> {
  let state = await idleState(socket, paneId, lastEnd);
  if (!ready(state, undefined) && await reconcile(socket, paneId, state)) {
    state = await idleState(socket, paneId, undefined);
  }
  const marked = {
    command: state.pane_current_command,
    pid: state.pane_pid,
    mark: state[RUNNING_OPTION],
  };
  if (marked.mark !== "" && await clearStaleMark(socket, paneId, marked)) {
    state = await idleState(socket, paneId, undefined);
  }
  return state;
}
