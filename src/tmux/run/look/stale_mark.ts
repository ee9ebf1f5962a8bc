/**
 * The stale-mark rule: a pane's run state is decided by what the pane shows. A running mark
 * outlives its run when nothing of ours got to clear it (the line went to a program that then
 * ended, the trailer was killed, the server died mid-call): the pane's shell is back at its
 * prompt, nothing runs in its terminal, and the mark still says busy. Such a mark is cleared, so
 * no pane stays wedged.
 *
 * @module
 */

import { restoreText } from "../../objects/activity_mark.ts";
import { delay } from "../../../util/mod.ts";
import { callDeadline } from "../../call_deadline.ts";
import { spawnRun } from "../../transport/spawn/exec.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { markOutlivedShell, RUNNING_OPTION } from "../base/mod.ts";
import { classifyProcess } from "../../shells.ts";

/**
 * Run by tmux's `if-shell` (expanded as a format first), on the tmux server's host: true when
 * nothing but the pane's shell is in its terminal's foreground group (a command of a run, our
 * trailer's tmux or a launcher each is while it lives; xonsh was seen to leave the group of a job
 * it interrupted, empty), and no child of the shell is in the shell's own group (where a shell
 * without job control, rc or elvish, runs its programs). Background jobs and daemons, in groups
 * of their own, do not count.
 */
const SHELL_IDLE = "p=#{pane_pid}; t=$(ps -o tpgid= -p $p 2>/dev/null); t=$(echo $t); " +
  '[ -n "$t" ] && ps -A -o pid= -o ppid= -o pgid= 2>/dev/null | ' +
  "awk -v p=$p -v t=$t '$1 != p && ($3 == t || ($2 == p && $3 == p)) { f = 1 } " +
  "END { exit f }'";

/** How far apart the two looks are: a shell about to read a line just typed has read it by then. */
const SECOND_LOOK_MS = 300;

async function shellIdle(socket: TmuxSocket, paneId: string, mark: string): Promise<boolean> {
  // The mark is compared in the same tmux command: a new run's claim makes the look void.
  const answer = await spawnRun(socket, [
    "if-shell",
    "-t",
    paneId,
    SHELL_IDLE,
    `display-message -p -t ${paneId} '#{==:#{${RUNNING_OPTION}},${mark}}'`,
  ]).catch(() => "");
  return answer.trim() === "1";
}

/** What the pane showed when a call found it marked busy. */
export interface MarkedPane {
  /** `#{pane_current_command}`. */
  command: string;
  /** `#{pane_pid}`. */
  pid: string;
  /** The running mark (`<channel>:<pane_pid>`). */
  mark: string;
}

/**
 * Clears the pane's running mark when it is stale: its shell (the same process the mark names)
 * showed idle at two looks {@linkcode SECOND_LOOK_MS} apart, the mark unchanged. True when it
 * was cleared. A pane whose foreground is not a shell is left as it is: its program runs.
 */
export async function clearStaleMark(
  socket: TmuxSocket,
  paneId: string,
  pane: MarkedPane,
): Promise<boolean> {
  const kind = classifyProcess(pane.command);
  if (kind !== "posix_shell" && kind !== "launched_shell") return false;
  if (markOutlivedShell(pane.mark, pane.pid) || !/^[\w:]+$/.test(pane.mark)) return false;
  if (!await shellIdle(socket, paneId, pane.mark)) return false;
  await delay(SECOND_LOOK_MS, { signal: callDeadline() });
  if (!await shellIdle(socket, paneId, pane.mark)) return false;
  const answer = await spawnRun(socket, [
    ...["if-shell", "-F", "-t", paneId, `#{==:#{${RUNNING_OPTION}},${pane.mark}}`],
    `set-option -p -u -t ${paneId} ${RUNNING_OPTION} ; ${restoreText(paneId)}`,
    THEN,
    ...["display-message", "-p", "-t", paneId, `#{${RUNNING_OPTION}}`],
  ]).catch(() => pane.mark);
  return answer.trim() === "";
}
