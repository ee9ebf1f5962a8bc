/**
 * Pane target resolution. Ids are checked against tmux's id syntax before use and session names are
 * matched exactly in our code, so no user text is ever parsed by tmux as a target expression.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { formatOf, parseRecords } from "../format.ts";

/** How a caller names a pane; the first non-null field wins, in this order. */
export interface PaneSpec {
  /** An exact pane id, like `%3`. */
  pane_id?: string | null;
  /** A window id, like `@2`: its active pane. */
  window_id?: string | null;
  /** A session id, like `$1`: its active pane. */
  session_id?: string | null;
  /** An exact session name: its active pane. */
  session_name?: string | null;
}

/** The kinds of tmux id: `%N` panes, `@N` windows, `$N` sessions. */
export type IdKind = "pane_id" | "window_id" | "session_id";

const ID_PATTERNS: Record<IdKind, RegExp> = {
  pane_id: /^%\d{1,9}$/,
  window_id: /^@\d{1,9}$/,
  session_id: /^\$\d{1,9}$/,
};

const ID_EXAMPLES: Record<IdKind, string> = { pane_id: "%3", window_id: "@2", session_id: "$1" };

/** Checks an id against its tmux syntax (`%N`, `@N`, `$N`). */
export function checkId(kind: IdKind, value: string): string {
  if (!ID_PATTERNS[kind].test(value)) {
    throw new TmuxError(
      "invalid_argument",
      // The rejected value is not echoed: it may be anything, a secret included.
      `${kind} must look like ${ID_EXAMPLES[kind]}`,
    );
  }
  return value;
}

/** Finds a session id by exact name. */
export async function sessionIdByName(socket: TmuxSocket, name: string): Promise<string> {
  const fields = ["session_id", "session_name"] as const;
  const output = await runTmux(socket, ["list-sessions", "-F", formatOf(fields)]);
  const match = parseRecords(output, fields).find((s) => s.session_name === name);
  if (!match) {
    throw new TmuxError("not_found", `no session named ${JSON.stringify(name)}`);
  }
  return match.session_id;
}

/**
 * Reads format fields of one pane. `display-message` prints empty fields and succeeds for targets
 * that do not exist, so the pane id is asked for too and checked.
 */
export async function queryPane<K extends string>(
  socket: TmuxSocket,
  paneId: string,
  fields: readonly K[],
): Promise<Record<K, string>> {
  const all = ["pane_id", ...fields];
  const output = await runTmux(socket, ["display-message", "-p", "-t", paneId, formatOf(all)]);
  const record = parseRecords(output, all)[0];
  if (!record || record.pane_id !== paneId) {
    throw new TmuxError("not_found", `can't find pane: ${paneId}`);
  }
  return record;
}

/** Resolves a {@linkcode PaneSpec} to a pane id (`%N`). */
export async function resolvePane(socket: TmuxSocket, spec: PaneSpec): Promise<string> {
  if (spec.pane_id != null) return checkId("pane_id", spec.pane_id);
  let target: string | null = null;
  if (spec.window_id != null) target = checkId("window_id", spec.window_id);
  else if (spec.session_id != null) target = checkId("session_id", spec.session_id);
  else if (spec.session_name != null) target = await sessionIdByName(socket, spec.session_name);
  const args = ["display-message", "-p"];
  if (target !== null) args.push("-t", target);
  args.push("#{pane_id}");
  const paneId = (await runTmux(socket, args)).trim();
  if (paneId === "") {
    throw new TmuxError("not_found", `can't find ${target === null ? "an active pane" : target}`);
  }
  return checkId("pane_id", paneId);
}

/** How a caller names a session. */
export interface SessionSpec {
  /** A session id, like `$1`. */
  session_id?: string | null;
  /** An exact session name. */
  session_name?: string | null;
}

/** Resolves a session id (`$N`) from an id or an exact name; null when neither is given. */
export async function resolveSession(
  socket: TmuxSocket,
  spec: SessionSpec,
): Promise<string | null> {
  if (spec.session_id != null) return checkId("session_id", spec.session_id);
  if (spec.session_name != null) return await sessionIdByName(socket, spec.session_name);
  return null;
}
