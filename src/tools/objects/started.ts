/**
 * What the verbs that start a program in a pane (create_session, create_window, split_window,
 * respawn_pane) share: the server notes the start, and waits for a new shell to read when the
 * call asks (`wait_ready`).
 *
 * @module
 */

import type { TmuxSocket } from "../../tmux/mod.ts";
import type { ToolContext } from "../define/mod.ts";

/** The pane a verb started a program in, and the call's signal. */
export interface StartedPane {
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane the program started in. */
  paneId: string;
  /** The call's signal: a wait for the shell ends with it. */
  signal: AbortSignal;
}

/** What a verb that starts a program in a pane was asked. */
export interface StartArgs {
  /** The program started; null or absent: tmux's default, most often a shell. */
  command?: string | null;
  /** Seconds to wait for a new shell to read; absent: no wait. */
  wait_ready?: number;
}

/**
 * Notes that the call's `command` started in the pane, then, with `wait_ready` seconds, waits
 * for its shell to read: `ready` says whether it did in time.
 */
export async function startedIn(
  context: ToolContext,
  pane: StartedPane,
  args: StartArgs,
): Promise<{ ready?: boolean }> {
  const { socket, paneId, signal } = pane;
  context.tmux.started(socket, paneId, args.command);
  if (args.wait_ready === undefined) return {};
  const deadline = Date.now() + args.wait_ready * 1000;
  return { ready: await context.tmux.shellReady(socket, paneId, { deadline, signal }) };
}
