/**
 * Which sessions a confined server may see and touch: those it created (marked with a session
 * option when it made them) and those whose names match the operator's globs. A window or pane
 * counts by the session tmux places it in. The mark is read back as any pane-written value is:
 * only its exact value counts.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { formatOf, parseRecords } from "../format.ts";
import { NAME_PREFIX } from "../names.ts";
import { runTmux } from "../transport/control/command.ts";
import type { Scope, TmuxSocket } from "../transport/socket.ts";

export type { Scope };

/** The session option that marks a session as made by a confined server. */
export const OWN_OPTION = `@${NAME_PREFIX}own`;

/** The mark's one valid value. */
const OWN_VALUE = "1";

/** The code and words every refusal shares. */
export function outOfScope(what: string): TmuxError {
  return new TmuxError(
    "out_of_scope",
    `${what} is outside what this server may touch: it is confined to the sessions it made ` +
      "(--own-sessions) or that --sessions names; nothing else is listed or changed",
  );
}

/**
 * Whether `name` matches `glob`: `*` any run of characters, `?` any one, the rest literally.
 * At most name × glob steps: a star is only ever retried from the last one seen.
 */
export function matchesGlob(name: string, glob: string): boolean {
  const chars = [...name];
  const pattern = [...glob];
  let n = 0;
  let p = 0;
  let star = -1;
  let resume = 0;
  while (n < chars.length) {
    if (p < pattern.length && (pattern[p] === "?" || pattern[p] === chars[n])) {
      n++;
      p++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}

const SESSION_FIELDS = ["session_id", "session_name", OWN_OPTION] as const;

function sessionInScope(scope: Scope, session: Record<string, string>): boolean {
  return (scope.own && session[OWN_OPTION] === OWN_VALUE) ||
    scope.names.some((glob) => matchesGlob(session.session_name, glob));
}

/** The ids of the sessions in scope. */
export async function sessionsInScope(socket: TmuxSocket, scope: Scope): Promise<Set<string>> {
  const output = await runTmux(socket, ["list-sessions", "-F", formatOf(SESSION_FIELDS)]);
  return new Set(
    parseRecords(output, SESSION_FIELDS)
      .filter((session) => sessionInScope(scope, session))
      .map((session) => session.session_id),
  );
}

/**
 * Throws `out_of_scope` unless the session tmux places `target` (a pane, window or session id)
 * in is in the socket's scope (any, when it has none); a target that does not exist is left to
 * the call (its own not_found).
 */
export async function checkInScope(socket: TmuxSocket, target: string): Promise<void> {
  const { scope } = socket;
  if (scope === null) return;
  let output: string;
  try {
    output = await runTmux(socket, [
      "display-message",
      "-p",
      "-t",
      target,
      formatOf(SESSION_FIELDS),
    ]);
  } catch (error) {
    if (error instanceof TmuxError && error.code === "not_found") return;
    throw error;
  }
  const session = parseRecords(output, SESSION_FIELDS)[0];
  if (session === undefined || !sessionInScope(scope, session)) throw outOfScope(target);
}

/** Whether a name a session would be made with is in scope by name alone. */
export function nameInScope(name: string, scope: Scope): boolean {
  return scope.names.some((glob) => matchesGlob(name, glob));
}

/** The command that marks a session (by id) as made by this server. */
export function markOwnCommand(sessionId: string): string[] {
  return ["set-option", "-t", sessionId, OWN_OPTION, OWN_VALUE];
}
