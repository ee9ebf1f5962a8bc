/**
 * Ending a session, window or pane (`kill-session`, `kill-window`, `kill-pane`), with the checks
 * that keep the tmux server and this server alive, and this process's clients connected.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import { THEN } from "../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { listOwnClients, listPanes, type Pane } from "./objects.ts";
import { moveWatchers } from "../transport/watch/watcher_pool.ts";
import type { IdKind } from "./target.ts";

/** Refuses to end the pane this server runs in (`protect`). */
export function refuseOwn(paneId: string, protect: string | null): void {
  if (paneId === protect) {
    throw new TmuxError(
      "invalid_argument",
      `refused: ${protect} hosts this MCP server; killing it would end the server`,
    );
  }
}

const DOOMED: Record<IdKind, { noun: string; verb: string; end: string }> = {
  session_id: {
    noun: "session",
    verb: "kill-session",
    end: "killing it would end the tmux server",
  },
  window_id: { noun: "window", verb: "kill-window", end: "the server would end" },
  pane_id: { noun: "pane", verb: "kill-pane", end: "the server would end" },
};

/** What {@linkcode kill} ends: a session, window or pane, by exact id. */
export interface KillTarget {
  /** Which id `id` is. */
  kind: IdKind;
  /** The exact id (`$N`, `@N` or `%N`). */
  id: string;
}

/**
 * `kill-session`, `kill-window` or `kill-pane`, after checking that the object exists, is not
 * the last of its kind (the tmux server would end) and does not hold the `protect` pane.
 */
export async function kill(
  socket: TmuxSocket,
  target: KillTarget,
  options: { protect?: string | null } = {},
): Promise<void> {
  const { kind, id } = target;
  const { noun, verb, end } = DOOMED[kind];
  // The last session of the tmux server, not of a confined caller's view, would end it.
  const panes = await listPanes(socket, { everyPane: true });
  if (!panes.some((p) => p[kind] === id)) {
    throw new TmuxError("not_found", `can't find ${noun}: ${id}`);
  }
  if (new Set(panes.map((p) => p[kind])).size === 1) {
    throw new TmuxError("invalid_argument", `refused: ${id} is the last ${noun}; ${end}`);
  }
  const own = panes.find((p) => p.pane_id === options.protect);
  if (own && own[kind] === id) refuseOwn(own.pane_id, own.pane_id);
  await evacuate(socket, panes, target);
  await runTmux(socket, [verb, "-t", id]);
}

/**
 * Moves control clients off the sessions a kill ends, to a session that stays, so they stay
 * connected: a client whose session is destroyed leaves, and connecting one again is a window in
 * which tmux before 3.7 crashes at any notification (a person's, say). Command clients (of any
 * tmux-mcp process: nothing else moves them) by name; this process's watchers through their pool,
 * which also switches them between sessions.
 */
async function evacuate(
  socket: TmuxSocket,
  panes: readonly Pane[],
  target: KillTarget,
): Promise<void> {
  const { kind, id } = target;
  const ending = new Set(panes.filter((p) => p[kind] === id).map((p) => p.session_id));
  for (const pane of panes) {
    if (pane[kind] !== id) ending.delete(pane.session_id);
  }
  const staying = panes.find((p) => !ending.has(p.session_id))?.session_id;
  if (ending.size === 0 || staying === undefined) return;
  const moves = (await listOwnClients(socket))
    .filter((client) => client.command && ending.has(client.session_id))
    .flatMap((client) => [THEN, "switch-client", "-E", "-c", client.client_name, "-t", staying]);
  // A client that left meanwhile makes its move fail; the kill goes ahead all the same.
  if (moves.length > 0) await runTmux(socket, moves.slice(1)).catch(() => {});
  await moveWatchers(socket, { from: ending, to: staying });
}
