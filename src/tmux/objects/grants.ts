/**
 * Panes a person granted to the agent (`--granted-panes`): the user option `@tmux_mcp_grant` set
 * to `1` on a pane, or on its window or session for all their panes (tmux looks a pane's option
 * up through its window and session), read back by its exact value. A person grants and takes
 * back with a key binding, `tmux-mcp grant`/`revoke`, or their answer to the client's prompt; the
 * server grants what it creates. A grant guards against an agent's mistakes and its tool calls,
 * not against a program the agent already ran (as the same user, it can set the option too).
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { formatOf, parseRecords } from "../format.ts";
import { NAME_PREFIX } from "../names.ts";
import { runTmux } from "../transport/control/command.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { commandText } from "../transport/spawn/command_line.ts";
import { isMark, ourMark, takenBackWhenGone } from "./taken_back.ts";

/** The user option that grants a pane (on a pane, window or session). */
export const GRANT_OPTION = `@${NAME_PREFIX}grant`;

/** The grant's one valid value. */
const GRANT_VALUE = "1";

/**
 * The user option that marks what a running tmux-mcp server made (the agent's own, granted to it
 * too): a session (for all its panes), or a window's or split's pane; its value is the server
 * process's mark (see taken_back.ts), and the server takes it back when it ends.
 */
export const MADE_OPTION = `@${NAME_PREFIX}made`;

/**
 * The commands that mark what was made (a pane, or a session by id) as this process's own, taken
 * back when it ends (see taken_back.ts); on a remote host, where nothing would take it back, it
 * stays (that host's panes the agent made stay granted to any later server process).
 */
export async function markMade(
  socket: TmuxSocket,
  made: { reach: GrantReach; id: string },
): Promise<string[][]> {
  const mark = ourMark(socket);
  if (mark === null) return [];
  const scope = made.reach === "pane" ? ["-p"] : [];
  const undo = [
    ...["if-shell", "-F", "-t", made.id, `#{==:#{${MADE_OPTION}},${mark}}`],
    commandText(["set-option", ...scope, "-u", "-t", made.id, MADE_OPTION]),
  ];
  const guarded = await takenBackWhenGone(socket, { object: made.id, kind: "made", undo });
  if (!guarded && socket.remote === null) return [];
  return [["set-option", ...scope, "-t", made.id, MADE_OPTION, mark]];
}

/** How far a grant reaches. */
export type GrantReach = "pane" | "session";

const PANE_FIELDS = [
  "pane_id",
  "session_id",
  "session_name",
  "window_index",
  "window_name",
  "pane_current_command",
  GRANT_OPTION,
  MADE_OPTION,
] as const;

/** A pane as a grant check sees it, and whether it is granted. */
export interface GrantedPane {
  /** The pane. */
  paneId: string;
  /** Its session. */
  sessionId: string;
  /** Where it is and what runs there, as a person's prompt names it. */
  description: string;
  /** A grant reaches it. */
  granted: boolean;
}

/**
 * The panes of `target` (a pane, window or session id) and whether each is granted; none when the
 * target does not exist (the call's own not_found follows).
 */
export async function panesGranted(socket: TmuxSocket, target: string): Promise<GrantedPane[]> {
  const listing = target.startsWith("%")
    ? ["display-message", "-p", "-t", target, formatOf(PANE_FIELDS)]
    : ["list-panes", target.startsWith("$") ? "-s" : "", "-t", target, "-F", formatOf(PANE_FIELDS)]
      .filter((arg) => arg !== "");
  let output: string;
  try {
    output = await runTmux(socket, listing);
  } catch (error) {
    if (error instanceof TmuxError && error.code === "not_found") return [];
    throw error;
  }
  return parseRecords(output, PANE_FIELDS).map((pane) => ({
    paneId: pane.pane_id,
    sessionId: pane.session_id,
    description: `pane ${pane.pane_id} in session ${JSON.stringify(pane.session_name)}, window ` +
      `${pane.window_index} (${JSON.stringify(pane.window_name)}), running ` +
      JSON.stringify(pane.pane_current_command),
    granted: pane[GRANT_OPTION] === GRANT_VALUE || isMark(pane[MADE_OPTION]),
  }));
}

/** The command that grants a pane, or every pane of a session (by id). */
export function grantCommand(reach: GrantReach, id: string): string[] {
  return reach === "pane"
    ? ["set-option", "-p", "-t", id, GRANT_OPTION, GRANT_VALUE]
    : ["set-option", "-t", id, GRANT_OPTION, GRANT_VALUE];
}

/** Grants a pane, or every pane of a session. */
export async function grant(socket: TmuxSocket, reach: GrantReach, id: string): Promise<void> {
  await runTmux(socket, grantCommand(reach, id));
}

/** Takes a grant back: the pane's own, or the session's. */
export async function revoke(socket: TmuxSocket, reach: GrantReach, id: string): Promise<void> {
  await runTmux(
    socket,
    reach === "pane"
      ? ["set-option", "-p", "-u", "-t", id, GRANT_OPTION]
      : ["set-option", "-u", "-t", id, GRANT_OPTION],
  );
}

/** What a person's `grant` or `revoke` names, resolved exactly. */
export interface GrantTarget {
  /** A pane, or every pane of a session. */
  reach: GrantReach;
  /** The pane's or session's id. */
  id: string;
  /** How a person reads it: `pane %3 in session "work"`, `session "work" ($1)`. */
  description: string;
}

/**
 * Resolves what a person names for a grant: a pane id (`%3`), a session id (`$1`), or a session's
 * name, matched exactly (tmux's own `-t NAME` would take a window of that name in another session,
 * or a session whose name begins with it). No match is an error that lists the sessions there are.
 */
export async function resolveGrantTarget(socket: TmuxSocket, name: string): Promise<GrantTarget> {
  const fields = ["session_id", "session_name"] as const;
  if (/^%\d+$/.test(name)) {
    const [pane] = parseRecords(
      await runTmux(socket, ["display-message", "-p", "-t", name, formatOf(fields)]),
      fields,
    );
    return {
      reach: "pane",
      id: name,
      description: `pane ${name} in session ${JSON.stringify(pane.session_name)}`,
    };
  }
  const sessions = parseRecords(
    await runTmux(socket, ["list-sessions", "-F", formatOf(fields)]),
    fields,
  );
  const found = sessions.filter((session) =>
    /^\$\d+$/.test(name) ? session.session_id === name : session.session_name === name
  );
  if (found.length !== 1) {
    const there = sessions.slice(0, 20).map((session) =>
      `${JSON.stringify(session.session_name)} (${session.session_id})`
    );
    throw new TmuxError(
      "not_found",
      `no session is named exactly ${JSON.stringify(name)}; there are: ${
        there.join(", ") || "none"
      }${sessions.length > there.length ? ", ..." : ""}`,
    );
  }
  const [session] = found;
  return {
    reach: "session",
    id: session.session_id,
    description: `session ${JSON.stringify(session.session_name)} (${session.session_id})`,
  };
}
