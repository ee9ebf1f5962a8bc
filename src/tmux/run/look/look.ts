/**
 * The pane as a call finds it once the pane is its turn: its state in one query, its shell, and
 * whether a line can be typed now. A pane no line can ever be typed into (a tmux too old, a dead
 * pane, one in a mode, a shell run_command cannot drive) is an error; one that is busy, or whose
 * shell's line editor is not reading, is a reason for a result that says nothing was typed.
 *
 * @module
 */

import { TmuxError } from "../../errors.ts";
import { intField } from "../../format.ts";
import type { TmuxVersion } from "../../version.ts";
import { launcherBootstrap, type PaneShell, paneShell, shellLanguage } from "../line/mod.ts";
import { foreground, type PaneState, stateForRun, typableVersion } from "./preflight.ts";
import { lineEditorReading, lineEditorUnknown } from "./reading.ts";
import {
  type Anchor,
  busyWith,
  busyWithOthers,
  callNames,
  markNonce,
  mayCollect,
  notIdle,
  notReading,
  parseRecord,
  passingRun,
  RUNNING_OPTION,
  type RunRequest,
  unsupportedShell,
  untypableSocket,
} from "../base/mod.ts";
import { queryPane } from "../../objects/target.ts";
import { guardPerson, noteTyped } from "../../read/person.ts";
import { showsLineEditor } from "../../shells.ts";
import { namedInRefusal, type Runner, sweepOrphans } from "../turn/mod.ts";

/** A pane a line can be typed into now, and what typing it needs. */
export interface TypablePane {
  /** What the call read of the pane. */
  state: PaneState;
  /** The pane's tmux. */
  version: TmuxVersion;
  /** Its shell, as the probe found it; null: known by its name alone. */
  shell: PaneShell | null;
  /** For a launched shell, the bootstrap that names the socket; null: a POSIX shell. */
  bootstrap: string | null;
  /** Where the line goes: the cursor's position, and the pane's process. */
  anchor: Anchor;
}

/** What a call finds: the language of the pane's shell, and a pane to type into or why not. */
export type Looked =
  & { shell: string | null }
  & ({ pane: TypablePane; notTyped?: never } | { pane?: never; notTyped: string });

/** Looks at the pane whose turn the call holds (`key` in the runner's maps). */
export async function lookAtPane(
  runner: Runner,
  request: RunRequest,
  call: { key: string; deadline: number },
): Promise<Looked> {
  const { socket, paneId } = request;
  await runner.settling.get(call.key);
  await sweepOrphans(runner, socket, paneId);
  const state = await stateForRun(socket, paneId, runner.lastEnds.get(call.key));
  runner.lastEnds.delete(call.key);
  const version = typableVersion(state, paneId);
  const running = state[RUNNING_OPTION];
  const kind = foreground(state);
  const target = { sessionId: state.session_id, paneId };
  const shell = kind === "posix_shell" || kind === "launched_shell"
    ? await paneShell(socket, paneId, {
      cache: runner.shells,
      panePid: state.pane_pid,
      command: state.pane_current_command,
      readerUnknown: lineEditorUnknown(socket, target),
      bracketPaste: state.bracket_paste_flag,
      runsOver: running === "",
      waitMs: call.deadline - Date.now(),
    })
    : null;
  if (kind === "unsupported_shell" || shell?.kind === "unsupported") {
    throw new TmuxError("unsupported_shell", unsupportedShell(paneId, state.pane_current_command));
  }
  const bootstrap = shell?.kind === "launched" ? launcherBootstrap(state.socket_path) : null;
  if (shell?.kind === "launched" && bootstrap === null) {
    throw new TmuxError(
      "unsupported_shell",
      untypableSocket(paneId, shell.shell.kind, state.socket_path),
    );
  }
  const language = shellLanguage(shell, state.pane_current_command);
  if (shell?.kind === "passing") {
    return { shell: language, notTyped: passingRun(paneId, state.pane_current_command) };
  }
  if (kind === "other" || shell?.kind === "other") {
    if (running !== "") namedInRefusal(runner, call.key, running);
    const reason = running === ""
      ? notIdle(paneId, state.pane_current_command)
      : await othersRun(request, running)
      ? busyWithOthers(paneId)
      : busyWith(request, running, "an earlier run_command");
    return { shell: language, notTyped: reason };
  }
  if (
    shell?.kind === "not_reading" ||
    showsLineEditor(state.pane_current_command) && !await lineEditorReading(socket, target)
  ) {
    return { shell: language, notTyped: notReading(paneId, state.pane_current_command) };
  }
  await guardPerson(socket, paneId, {
    policy: request.person ?? "refuse",
    deadline: call.deadline,
    view: state,
  });
  // The line typed next ends with Enter: no half-typed text of ours is left on it.
  noteTyped(socket, paneId, { text: null, lineEnded: true });
  const anchor: Anchor = {
    history: intField(state.history_size, "history_size"),
    y: intField(state.cursor_y, "cursor_y"),
    x: intField(state.cursor_x, "cursor_x"),
    pid: intField(state.pane_pid, "pane_pid"),
  };
  return { shell: language, pane: { state, version, shell, bootstrap, anchor } };
}

/**
 * Whether the run a pane's running mark names belongs to another client of this server (an HTTP
 * session's): the caller cannot collect it, only wait for its end or interrupt it.
 */
async function othersRun(request: RunRequest, mark: string): Promise<boolean> {
  const nonce = markNonce(mark);
  const asker = request.owner ?? null;
  if (nonce === null || asker === null) return false;
  const option = callNames(nonce).record;
  const pane = await queryPane(request.socket, request.paneId, [option]).catch(() => null);
  const record = parseRecord(pane?.[option] ?? "");
  return record !== null && !mayCollect(record.owner ?? null, asker);
}
