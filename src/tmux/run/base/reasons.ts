/**
 * Why a run's result says what it says: the reasons its `not_started_reason` and
 * `no_status_reason` give, in one place for the run and for collecting it later, and what a
 * pane that cannot take a run is told.
 *
 * @module
 */

import type { TmuxSocket } from "../../transport/socket.ts";
import { hostName } from "../../transport/spawn/exec.ts";
import { runIdOf } from "./record.ts";
import { markNonce } from "./shell.ts";

/** Why a line that was typed did not start within the timeout, and never will. */
export const NEVER_STARTED: string =
  "the line was typed but the shell did not run it within the timeout, " +
  "and it is withdrawn: it will not run. The shell is probably waiting at a continuation prompt " +
  "(an unclosed quote or bracket), still starting, or a program read the line: look at the pane " +
  "(capture_pane) before retrying";

/** Why a run whose line the shell has not run yet, and may, is neither started nor not. */
export const MAY_START: string =
  "unknown: the line was typed but the shell has not run it within the " +
  "timeout (a shell still starting, a continuation prompt, or a program reading input took it), " +
  "and it may still run: do not retry; collect run_id with wait_for_command, or look at the pane";

/** Why such a run, waited for again, is neither started nor not, still. */
export const STILL_MAY_START: string =
  "unknown: the line was typed but the shell has not been seen to " +
  "run it; it may still run (a later run_command in the pane settles it): do not retry";

/** Why a run whose line might have started never will. */
export const SUPERSEDED: string =
  "its line never ran, and never will: a later run_command in the pane " +
  "started first, and the shell reads its input in order (the line was cleared, or a program " +
  "read it)";

/** Why a line the shell read did not run the function. */
export const UNREAD: string =
  "the shell read the line but did not run it: it lacks the run function " +
  "and did not take its definition, or a continuation prompt (an unclosed quote or " +
  "here-document typed earlier) took the line; look at the pane (capture_pane) before retrying";

/** Why a run that ended has no exit status. */
export const NO_STATUS = {
  replaced: "the pane's shell exited or was replaced (respawn-pane) while the command ran",
  /** The end marker the stream brought. */
  invalidMarker: "the run's end marker carried no valid status",
  /** The status kept in the pane. */
  invalidKept: "the run's status in its pane was not valid (changed by a program in the pane?)",
  lost: "the command ended as the call timed out, and its status did not arrive",
  moved: "the pane moved to another session while the command ran, and the command ended before " +
    "the server saw the move: its status did not arrive (the output is read from the pane)",
  killed: "the command's shell ended it without reporting a status (the shell or its subshell " +
    "was killed, or the run's bookkeeping was cleared)",
};

/** Why run_command cannot run commands in a pane's shell, and what to do instead. */
export function unsupportedShell(paneId: string, name: string): string {
  return `pane ${paneId} runs ${name}, which run_command cannot run commands in (see ` +
    "docs/run_command.md for the shells it can); start bash or sh in the pane " +
    "(send_keys text 'bash', enter: true) and run commands there";
}

/** Why a line is not typed into a pane running something else than an idle shell. */
export function notIdle(paneId: string, command: string): string {
  return `pane ${paneId} is running ${JSON.stringify(command)}, not an idle shell (a program ` +
    "or a shell's script has the terminal and would take the line as its input)";
}

/**
 * Why nothing was typed into a pane whose front process stayed a run's launcher (its line names
 * ours): that run is ending (another server's, its running mark already gone).
 */
export function passingRun(paneId: string, shell: string): string {
  return `a command is still running in pane ${paneId} (a run's launcher, ` +
    `${JSON.stringify(shell)}, is in front as its run ends); nothing was typed: try again`;
}

/** Why a launched shell cannot be typed the line that names the pane's tmux socket. */
export function untypableSocket(paneId: string, shell: string, socketPath: string): string {
  return `pane ${paneId} runs ${shell}, and the tmux socket's path ` +
    `${JSON.stringify(socketPath)} cannot be typed into it (quotes, $, ! or a ` +
    "backslash); use a socket path without them (--tmux-tmpdir), or start bash in the pane";
}

/** Why nothing was typed into a shell whose line editor is not reading a command line. */
export function notReading(paneId: string, name: string): string {
  return `pane ${paneId}'s shell (${JSON.stringify(name)}) is not reading a command line: it is ` +
    "still starting, or a program it started or a script of its own waits for input (a read, " +
    "xonsh's input()) and would take the line as its answer; look at the pane (capture_pane), " +
    "answer or interrupt it, or wait for its prompt (a prompt that shows but takes no line " +
    "reads again after an Enter: send_keys keys ['Enter'])";
}

/** The run a running mark names, as a sentence an agent can act on. */
export function busyWith(
  pane: { socket: TmuxSocket; paneId: string },
  mark: string,
  earlier: string,
): string {
  const { socket, paneId } = pane;
  const nonce = markNonce(mark);
  const runId = nonce === null ? "" : ` (run_id ${runIdOf(paneId, nonce, hostName(socket))})`;
  return `pane ${paneId} is still running ${earlier}${runId}: collect it with wait_for_command ` +
    "when it has ended, or interrupt it (send_keys keys ['C-c'])";
}

/** Why nothing was typed into a pane another client's run still holds. */
export function busyWithOthers(paneId: string): string {
  return `pane ${paneId} is still running another client's run_command (its result is that ` +
    "client's): wait for its end (wait_for_text with prompt: true, or call again later), or " +
    "interrupt it (send_keys keys ['C-c'])";
}
