/**
 * Whether a person may be typing in a pane, looked at before the server types into it. Two signs:
 * a client whose active pane it is pressed a key in the last 2 s (tmux's client activity: keys a
 * command sends do not count, nor do control clients, this server's watchers), or a shell at its
 * prompt whose command line holds text the server did not type (the character before the cursor
 * is not the prompt's closing blank, or, where a person's client is attached, text follows the
 * cursor). A line is looked at in a pane
 * the server never typed into, or where a person's client pressed keys since it last did: what
 * the server's own keys left there is not a person's, nor is its own half-typed text (send_keys
 * without Enter). A session no person's client is attached to costs one list of its clients at
 * most (none when no client is); the line is read only when it may hold a person's text. A
 * program other than a shell at its prompt is judged by the keys alone: its line is its own.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { callDeadline } from "../call_deadline.ts";
import { RUNNING_OPTION } from "../names.ts";
import { runTmux } from "../transport/control/command.ts";
import { THEN } from "../transport/spawn/command_line.ts";
import { lockKey } from "../transport/spawn/exec.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { queryPane } from "../objects/target.ts";
import { classifyProcess } from "../shells.ts";
import { cellWidth } from "../../screen/mod.ts";
import { BoundedMap, delay } from "../../util/mod.ts";

/** What to do when a person may be typing: refuse at once, wait for them, or type anyway. */
export const PERSON_POLICIES = { refuse: "refuse", wait: "wait", type: "type" } as const;

/** One of {@linkcode PERSON_POLICIES}. */
export type PersonPolicy = keyof typeof PERSON_POLICIES;

/** The pane fields the look needs; a caller's query can carry them to spare one. */
export const PERSON_FIELDS = [
  "session_id",
  // Not session_activity: tmux 3.2a reads a time format's value without checking it, and
  // crashes when the pane has no session (a window being killed).
  "session_attached",
  "alternate_on",
  "pane_current_command",
  RUNNING_OPTION,
] as const;

/** The pane as the look reads it. */
export type PersonView = Record<(typeof PERSON_FIELDS)[number], string>;

/** What a typing call does when a person may be typing. */
export interface PersonGuard {
  /** What to do when a person may be typing. */
  policy: PersonPolicy;
  /** With "wait": until when (ms since the epoch) to wait for the person to pause. */
  deadline?: number;
}

/** Options for {@linkcode guardPerson}. */
export interface PersonOptions extends PersonGuard {
  /** The pane as the caller read it (every field of {@linkcode PERSON_FIELDS}). */
  view?: PersonView;
}

/** A person's key presses this recent (seconds, as tmux counts them) may be mid-typing. */
const KEYS_RECENT_S = 2;
/** How often a wait for the person looks again. */
const WAIT_LOOK_MS = 250;
/** Text on a command line is a person's once it stayed this many looks this far apart (ms). */
const SETTLE_LOOKS = 3;
const SETTLE_MS = 100;
/** Characters of a command line a refusal quotes. */
const QUOTE_MAX = 40;
/** Clients of a session looked at, at most. */
const CLIENTS_MAX = 1000;
/** Panes the server remembers typing into. */
const PANES_MAX = 4096;

/** What the server knows of a pane it typed into. */
interface Typed {
  /** When it last typed there (seconds since the epoch, as tmux counts activity). */
  at: number;
  /** The text it typed on the current line without Enter ("" for none). */
  pending: string;
}

const typedPanes = new BoundedMap<string, Typed>(PANES_MAX);

/**
 * Remembers what the server typed into a pane: `text` left on the line (no Enter, no other key
 * after it) joins what it typed before; anything else ends the line.
 */
export function noteTyped(
  socket: TmuxSocket,
  paneId: string,
  typed: { text: string | null; lineEnded: boolean },
): void {
  const known = typedPanes.get(lockKey(socket, paneId));
  if (known === undefined) return;
  const ended = typed.lineEnded || typed.text === null || typed.text.includes("\n");
  known.pending = ended ? "" : known.pending + typed.text;
}

/**
 * Throws `person_typing` when a person may be typing in the pane (policy "refuse", or "wait" and
 * they did not pause with an empty line by the deadline); returns when the server may type, and
 * remembers that it does.
 */
export async function guardPerson(
  socket: TmuxSocket,
  paneId: string,
  options: PersonOptions,
): Promise<void> {
  let view = options.view ?? await queryPane(socket, paneId, PERSON_FIELDS);
  const key = lockKey(socket, paneId);
  const known = typedPanes.get(key);
  const started = Date.now();
  while (options.policy !== "type") {
    const seen = await personSeen(socket, paneId, { view, known });
    if (seen === null) break;
    const waited = ((Date.now() - started) / 1000).toFixed(1);
    if (options.policy === "refuse" || Date.now() + WAIT_LOOK_MS > (options.deadline ?? 0)) {
      throw new TmuxError(
        "person_typing",
        `a person may be typing in pane ${paneId}: ${seen}` +
          (options.policy === "wait" ? `; still so after ${waited}s of waiting` : "") +
          `. Nothing was typed. Ways on: try again later, if_person_typing: "wait" (waits ` +
          `within the timeout for a pause with an empty line), or if_person_typing: "type" ` +
          "(types anyway: send_keys joins their text, run_command's line first erases it)",
      );
    }
    // A cancelled call stops waiting: its next look fails with the call.
    await delay(WAIT_LOOK_MS, { signal: callDeadline() });
    view = await queryPane(socket, paneId, PERSON_FIELDS);
  }
  const at = Math.floor(Date.now() / 1000);
  typedPanes.set(key, { at, pending: known?.pending ?? "" });
}

/**
 * Whether a person's client pressed keys in the pane since the server last looked there before
 * typing (their keys then went to what the server ran: the terminal echoes them into its output,
 * and they wait at the shell's next prompt), as a fresh listing of the session's clients tells.
 * False at once where no person's client was attached at that look.
 */
export async function personKeysSinceLook(
  socket: TmuxSocket,
  pane: { paneId: string; sessionId: string },
): Promise<boolean> {
  const known = typedPanes.get(lockKey(socket, pane.paneId));
  const listed = listings.get(lockKey(socket, pane.sessionId));
  if (known === undefined || listed === undefined) return false;
  if ((await listed.clients.catch(() => [])).length === 0) return false;
  const clients = await listClients(socket, pane.sessionId).catch(() => []);
  return clients.some((client) => client.pane === pane.paneId && client.activity >= known.at);
}

/** A client a person may type at: its last key (seconds since the epoch) and its active pane. */
interface PersonClient {
  activity: number;
  pane: string;
}

/** What suggests a person is typing in the pane, or null. */
async function personSeen(
  socket: TmuxSocket,
  paneId: string,
  { view, known }: { view: PersonView; known: Typed | undefined },
): Promise<string | null> {
  const clients = view.session_attached === "0" ? [] : await people(socket, view.session_id);
  const now = Math.floor(Date.now() / 1000);
  const recent = clients.find((client) =>
    client.pane === paneId && now - client.activity <= KEYS_RECENT_S
  );
  if (recent !== undefined) {
    return `a client attached to it pressed keys ${Math.max(0, now - recent.activity)}s ago`;
  }
  // Text on the line is a person's only when a person's key came after the server typed here
  // (what the server's own keys left, say a ^\ echoed before the prompt, is not), or when the
  // server never typed here.
  const atPrompt = view.alternate_on !== "1" && view[RUNNING_OPTION] === "" &&
    ["posix_shell", "launched_shell"].includes(classifyProcess(view.pane_current_command));
  const keysSince = known === undefined ||
    clients.some((client) => client.activity >= known.at);
  if (!atPrompt || !keysSince) return null;
  // Text after the cursor is a person's only where a person's client could have moved the
  // cursor back into a line: else it is a prompt drawn where its line editor did not expect (after
  // a ^C the terminal echoed, prompt_toolkit's cursor stands as many columns short of its end).
  const look = { ours: known?.pending, cursorMoved: clients.length > 0 };
  // Text a person left stays; a prompt being drawn as the pane is read (slowly, on a busy
  // machine: a ^C echoed before it) does not.
  let typed = foreignText(await cursorRow(socket, paneId), look);
  for (let tries = 0; typed !== null && tries < SETTLE_LOOKS; tries++) {
    await delay(SETTLE_MS);
    typed = foreignText(await cursorRow(socket, paneId), look);
  }
  return typed === null
    ? null
    : `its command line holds text the server did not type: ${JSON.stringify(typed)}`;
}

/** A session's clients as last listed, shared by the calls of a moment (a burst of runs). */
const listings = new BoundedMap<string, { at: number; clients: Promise<PersonClient[]> }>(
  PANES_MAX,
);
/** How long a listing that found no person's client serves (ms). */
const LISTING_MS = 250;

/**
 * The clients of a session a person may type at (not read-only, not a program's control). A
 * listing that found none serves the calls of a moment; where a person's client is attached,
 * every look lists anew: a key pressed since the last listing counts.
 */
async function people(socket: TmuxSocket, sessionId: string): Promise<PersonClient[]> {
  // A session by id, keyed as a pane is: ids of both kinds are unique on their server.
  const key = lockKey(socket, sessionId);
  const listed = listings.get(key);
  const fresh = listed !== undefined && Date.now() - listed.at < LISTING_MS;
  // A failed listing (null) is listed again, as one that found a person is.
  if (fresh && (await listed.clients.catch(() => null))?.length === 0) return [];
  const clients = listClients(socket, sessionId);
  listings.set(key, { at: Date.now(), clients });
  // A failed listing is not kept.
  clients.catch(() => listings.delete(key));
  return clients;
}

async function listClients(socket: TmuxSocket, sessionId: string): Promise<PersonClient[]> {
  const listed = await runTmux(socket, [
    ...["list-clients", "-t", sessionId, "-F"],
    "#{client_activity} #{client_readonly}#{client_control_mode} #{pane_id}",
  ]);
  const clients: PersonClient[] = [];
  for (const line of listed.split("\n").slice(0, CLIENTS_MAX)) {
    const [activity, flags, pane] = line.split(" ");
    if (flags === "00" && /^\d+$/.test(activity)) {
      clients.push({ activity: Number(activity), pane });
    }
  }
  return clients;
}

/** The row under a pane's cursor and the cursor's column, read at one moment. */
async function cursorRow(socket: TmuxSocket, paneId: string): Promise<CursorRow> {
  const [place, ...rows] = (await runTmux(socket, [
    ...["display-message", "-p", "-t", paneId, "#{cursor_x} #{cursor_y}", THEN],
    ...["capture-pane", "-p", "-t", paneId],
  ])).split("\n");
  const [x, y] = place.split(" ").map(Number);
  return { row: rows[y] ?? "", x };
}

/** The row under the cursor, and the cursor's column on it. */
export interface CursorRow {
  /** The row, as tmux captures it (trailing blanks dropped). */
  row: string;
  /** The cursor's column. */
  x: number;
}

/** Options for {@linkcode foreignText}. */
export interface ForeignTextOptions {
  /** What the server typed on the line without Enter. */
  ours?: string;
  /** A person's client could have moved the cursor back into the line (default true). */
  cursorMoved?: boolean;
}

/**
 * The cursor's row (its end) when a shell's command line holds text the server did not type, or
 * null for an empty line. A prompt ends in a blank (`$ `, `% `, `> `, `❯ `): a character other
 * than a blank just before the cursor was typed, and so is text that begins at the cursor (the
 * cursor moved back into a line, where `cursorMoved`); a right-hand prompt stands apart from the
 * cursor.
 */
export function foreignText(
  { row, x }: CursorRow,
  options: ForeignTextOptions = {},
): string | null {
  const { ours, cursorMoved = true } = options;
  let cells = 0;
  let split = 0;
  for (const char of row) {
    if (cells >= x) break;
    cells += cellWidth(char);
    split += char.length;
  }
  // tmux trims a row's trailing blanks: a row that ends short of the cursor ends in blanks.
  let before = row.slice(0, split) + (cells < x ? " " : "");
  const after = row.slice(split);
  if (ours && before.endsWith(ours)) before = before.slice(0, -ours.length);
  const typedBefore = before !== "" && /\S$/.test(before);
  const typedAfter = cursorMoved && /^\S/.test(after);
  if (!typedBefore && !typedAfter) return null;
  const line = row.trimEnd();
  return line.length > QUOTE_MAX ? `…${line.slice(-QUOTE_MAX)}` : line;
}
