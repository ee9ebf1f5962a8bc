/**
 * A confined server's guard at every tool's door (see `tmux/objects/scope.ts`): whatever a call names
 * (its target, any other pane, window, session or run it gives) must be in scope; the lists it
 * reads are filtered by the tmux layer. A server that is not confined pays nothing.
 *
 * @module
 */

import {
  checkInScope,
  nameInScope,
  outOfScope,
  parseRunId,
  resolveSession,
  type Scope,
  TmuxError,
  type TmuxSocket,
} from "../../tmux/mod.ts";

/** Argument fields that name one pane, window or session by id. */
const NAMED = ["pane_id", "window_id", "session_id", "source_pane_id", "target_pane_id"] as const;

/** One call, as the guard sees it. */
export interface ScopedCall {
  /** The tmux server the call acts on. */
  socket: TmuxSocket;
  /** The declared target, resolved (null: none, or all sessions). */
  target: string | null;
  /** Whether the target was "session" and null means every session (a list) or tmux's pick. */
  anySession: boolean;
  /** The tool lists objects: with no session named, it shows all those in scope. */
  lists: boolean;
  /** The tool can change things (options beyond a session are then refused). */
  changes: boolean;
  /** The call's arguments. */
  args: Record<string, unknown>;
}

/** Throws `out_of_scope` for a call that names anything outside the socket's scope. */
export async function checkCallScope(call: ScopedCall): Promise<void> {
  const { socket, args } = call;
  if (socket.scope === null) return;
  if (call.target !== null) await checkInScope(socket, call.target);
  else if (call.anySession && !call.lists) {
    throw new TmuxError(
      "invalid_argument",
      "give session_id or session_name: this server is confined to some sessions, and tmux " +
        "would pick one of its own",
    );
  }
  for (const field of NAMED) {
    const value = args[field];
    if (typeof value === "string" && value !== call.target) {
      await checkInScope(socket, value);
    }
  }
  if (typeof args.session_name === "string") {
    const session = await resolveSession(socket, { session_name: args.session_name });
    if (session !== null && session !== call.target) await checkInScope(socket, session);
  }
  const run = typeof args.run_id === "string" ? parseRunId(args.run_id) : null;
  if (run !== null) await checkInScope(socket, run.paneId);
  if (call.changes && (args.scope === "server" || args.global === true)) {
    throw outOfScope("the server's and the global options (they reach every session)");
  }
}

/** Throws `out_of_scope` unless every pane is in its socket's scope (a fan-out's panes). */
export async function checkPanesInScope(
  panes: readonly { socket: TmuxSocket; paneId: string }[],
): Promise<void> {
  for (const { socket, paneId } of panes) {
    await checkInScope(socket, paneId);
  }
}

/** Throws `out_of_scope` unless a session made with this name would be in scope. */
export function checkCreatable(name: string, scope: Scope | null): void {
  if (scope !== null && !scope.own && !nameInScope(name, scope)) {
    throw outOfScope(`a session named ${JSON.stringify(name)}`);
  }
}
