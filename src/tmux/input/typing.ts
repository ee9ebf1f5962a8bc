/**
 * Typing into a pane: keys (`send-keys`) and pasted text (`load-buffer` + `paste-buffer`). Both
 * refuse a pane in a mode unless forced, and return a cursor taken just before the input, so a
 * wait can count the answer.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import { chained, THEN } from "../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { queryPane } from "../objects/target.ts";
import { activityTitle, hideActivity, showActivity } from "../objects/activity_mark.ts";
import { parseVersion, type TmuxVersion, verbatimPasteFlags } from "../version.ts";
import { captureSince, screenRows } from "../read/capture/mod.ts";
import { guardPerson, noteTyped, PERSON_FIELDS, type PersonGuard } from "../read/person.ts";
import { privateName, RUNNING_OPTION } from "../names.ts";
import { lineEditorState, watchOutput } from "../transport/watch/watch.ts";
import { deadline, delay } from "../../util/mod.ts";
import { callDeadline } from "../call_deadline.ts";

const NAMED_KEYS = [
  "Enter",
  "Escape",
  "Tab",
  "BTab",
  "BSpace",
  "Space",
  "Up",
  "Down",
  "Left",
  "Right",
  "Home",
  "End",
  "PageUp",
  "PgUp",
  "PPage",
  "PageDown",
  "PgDn",
  "NPage",
  "IC",
  "Insert",
  "DC",
  "Delete",
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
];

/** A tmux key name: modifiers (C-, M-, S-) then a named key or one printable character. */
const KEY_NAME = new RegExp(`^(?:[CMS]-)*(?:${NAMED_KEYS.join("|")}|[\\x21-\\x7e])$`);

/** What was typed, and where output after it starts. */
export interface TypedInput {
  /** The pane typed into. */
  paneId: string;
  /** A `captureSince` cursor from just before the input. */
  cursor: string;
  /** The screen's rows just before the input, when asked for (`screen`). */
  screen?: string[];
  /** The pane's running mark as the input was typed: a run_command's command had the input. */
  runningMark: string;
  /** The pane's foreground program (`#{pane_current_command}`) as the input was typed. */
  program: string;
  /** The lines written since `SendKeysOptions.since`, before the input (none without it). */
  earlier: string[];
  /** The pane's title shows the input (see `SendKeysOptions.showing`). */
  shown?: boolean;
}

/** Options for {@linkcode sendKeys}. */
export interface SendKeysOptions {
  /** Text typed as it is, first. */
  text: string | null;
  /** Key names pressed after the text (C-c, Enter, Escape, Up, F1, or one character). */
  keys: readonly string[];
  /** Press Enter last. */
  enter: boolean;
  /** Type even into a pane in a mode (the keys then go to the mode), and where a person may be
   * typing. */
  force: boolean;
  /** When a person may be typing in the pane (see read/person.ts); absent: refuse. */
  person?: PersonGuard;
  /** Read the screen's rows first, for a wait that reports which changed. */
  screen?: boolean;
  /** A cursor where an earlier wait stopped reading: the lines since, before the input, too. */
  since?: string | null;
  /**
   * The caller waits for the program's answer: the pane's title shows the input meanwhile (see
   * activity_mark.ts; {@linkcode hideActivity} ends it), unless a run of ours has the pane.
   */
  showing?: boolean;
}

/** Checks key names: an unknown one is refused, never typed as text. */
export function checkKeyNames(keys: readonly string[]): void {
  const bad = keys.findIndex((key) => !KEY_NAME.test(key));
  if (bad >= 0) {
    throw new TmuxError(
      "invalid_argument",
      `keys[${bad}] is not a key name (C-c, Enter, Escape, Up, F1, or one character): ` +
        "type text with text",
    );
  }
}

/**
 * Types text, then presses keys, into a pane. Text of several lines goes as one bracketed paste
 * where the program asked for that (as its own paste would come); else key by key. Keys and
 * Enter follow once the program has taken the text: an Enter that comes with the text in one read
 * is taken for part of a paste by programs that tell pastes by timing (TUI agents), and never
 * submits.
 */
export async function sendKeys(
  socket: TmuxSocket,
  paneId: string,
  options: SendKeysOptions,
): Promise<TypedInput> {
  const { keys } = options;
  const text = options.text === "" ? null : options.text;
  if (text?.includes("\0")) throw new TmuxError("invalid_argument", "text may not hold NUL");
  checkKeyNames(keys);
  if (text === null && keys.length === 0 && !options.enter) {
    throw new TmuxError("invalid_argument", "nothing to send: give text, keys or enter");
  }
  const pane = await typable(socket, paneId, options);
  const id = pane.pane_id;
  const after: string[][] = [];
  if (keys.length > 0) after.push(["send-keys", "-t", id, "--", ...keys]);
  if (options.enter) after.push(["send-keys", "-t", id, "Enter"]);
  // What the program wrote since an earlier answer stopped reading: gone or not, never fatal.
  const earlier = options.since == null
    ? []
    : (await captureSince(socket, id, options.since).catch(() => null))?.lines ?? [];
  const { cursor } = await captureSince(socket, id, null, { typed: text });
  const screen = options.screen ? await screenRows(socket, id) : undefined;
  const title = activityTitle(text ?? [...keys, ...options.enter ? ["Enter"] : []].join(" "));
  const showing = options.showing && pane.runningMark === ""
    ? await showActivity(socket, { paneId: id, title })
    : [];
  if (showing.length > 0) await runTmux(socket, showing.slice(0, -1));
  try {
    if (text !== null) {
      const target = { sessionId: pane.session_id, paneId: id };
      const reacted = after.length > 0 ? await outputAfter(socket, target) : null;
      if (text.includes("\n") && asksForPaste(socket, target, pane.bracket_paste_flag)) {
        await pasteBuffer(socket, pane, { text, bracketed: true });
      } else {
        await runTmux(socket, ["send-keys", "-t", id, "-l", "--", text]);
      }
      await reacted?.();
    }
    if (after.length > 0) await runTmux(socket, chained(after));
  } catch (error) {
    // No wait follows to end the title's showing.
    if (showing.length > 0) await hideActivity(socket, id);
    throw error;
  }
  noteTyped(socket, id, { text, lineEnded: after.length > 0 });
  return {
    paneId: id,
    cursor,
    screen,
    runningMark: pane.runningMark,
    program: pane.program,
    earlier,
    ...showing.length > 0 ? { shown: true } : {},
  };
}

/** How long a program may take to show it took typed text, and to be still after. */
const TAKE_MAX_MS = 500;
const TAKEN_STILL_MS = 30;

/**
 * Subscribes to a pane's output before text is typed; the function returned resolves once output
 * came and stopped for a moment (the program took the text), after {@linkcode TAKE_MAX_MS}, or at
 * the call's deadline.
 */
async function outputAfter(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
): Promise<() => Promise<void>> {
  let last = 0;
  let woken = new AbortController();
  const leave = await watchOutput(socket, target, () => {
    last = Date.now();
    woken.abort();
  });
  return async () => {
    using limit = deadline(TAKE_MAX_MS, callDeadline());
    try {
      while (!limit.signal.aborted && (last === 0 || Date.now() - last < TAKEN_STILL_MS)) {
        woken = new AbortController();
        const still = last === 0 ? TAKE_MAX_MS : TAKEN_STILL_MS - (Date.now() - last);
        await delay(Math.max(1, still), {
          signal: AbortSignal.any([limit.signal, woken.signal]),
        });
      }
    } finally {
      leave();
    }
  };
}

/**
 * Whether the program in a pane asked for bracketed paste: tmux says so from 3.7 on; before, the
 * pane's watcher saw it switched on.
 */
function asksForPaste(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
  flag: string,
): boolean {
  return flag === "1" || (flag === "" && lineEditorState(socket, target) === "reading");
}

/** Options for {@linkcode pasteText}. */
export interface PasteOptions {
  /** The text, pasted as it is. */
  text: string;
  /** Bracketed paste when the program in the pane asked for it. */
  bracketed: boolean;
  /** Paste even into a pane in a mode, and where a person may be typing. */
  force: boolean;
  /** When a person may be typing in the pane; absent: refuse. */
  person?: PersonGuard;
}

/** Pastes text through a private buffer, deleted afterwards whatever happens. */
export async function pasteText(
  socket: TmuxSocket,
  paneId: string,
  options: PasteOptions,
): Promise<TypedInput> {
  const pane = await typable(socket, paneId, options);
  const { cursor } = await captureSince(socket, pane.pane_id, null, { typed: options.text });
  await pasteBuffer(socket, pane, options);
  noteTyped(socket, pane.pane_id, { text: options.text, lineEnded: false });
  const { runningMark, program } = pane;
  return { paneId: pane.pane_id, cursor, runningMark, program, earlier: [] };
}

/** Pastes text into a pane through a private buffer, deleted afterwards whatever happens. */
async function pasteBuffer(
  socket: TmuxSocket,
  pane: Typable,
  options: { text: string; bracketed: boolean },
): Promise<void> {
  const buffer = privateName("paste");
  const paste = [
    ...["paste-buffer", ...verbatimPasteFlags(pane.version), "-d", "-r"],
    ...["-b", buffer, "-t", pane.pane_id],
  ];
  if (options.bracketed) paste.push("-p");
  try {
    await runTmux(socket, ["load-buffer", "-b", buffer, "-", THEN, ...paste], {
      stdin: options.text,
    });
  } finally {
    await runTmux(socket, ["delete-buffer", "-b", buffer]).catch(() => {});
  }
}

/** A pane that may be typed into, and its tmux's version. */
interface Typable {
  pane_id: string;
  session_id: string;
  /** `#{bracket_paste_flag}`: "1" when the program asked for bracketed paste (tmux 3.7 on). */
  bracket_paste_flag: string;
  version: TmuxVersion;
  /** The pane's running mark ("" when no run_command's command runs there). */
  runningMark: string;
  /** Its foreground program. */
  program: string;
}

async function typable(
  socket: TmuxSocket,
  paneId: string,
  options: { force: boolean; person?: PersonGuard },
): Promise<Typable> {
  const pane = await queryPane(socket, paneId, [
    "pane_in_mode",
    "pane_mode",
    "version",
    "bracket_paste_flag",
    ...PERSON_FIELDS,
  ]);
  if (pane.pane_in_mode === "1" && !options.force) {
    throw new TmuxError(
      "pane_in_mode",
      `pane ${paneId} is in ${pane.pane_mode || "a mode"}; pass force: true to type anyway`,
    );
  }
  const person = options.force ? { policy: "type" as const } : options.person;
  await guardPerson(socket, paneId, { policy: "refuse", ...person, view: pane });
  return {
    pane_id: paneId,
    session_id: pane.session_id,
    bracket_paste_flag: pane.bracket_paste_flag,
    version: parseVersion(pane.version),
    runningMark: pane[RUNNING_OPTION],
    program: pane.pane_current_command,
  };
}
