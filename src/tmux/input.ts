/**
 * Typing into a pane: keys (`send-keys`) and pasted text (`load-buffer` + `paste-buffer`). Both
 * refuse a pane in a mode unless forced, and return a cursor taken just before the input, so a
 * wait can count the answer.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { runTmux } from "./transport/command.ts";
import { chained, THEN } from "./transport/command_line.ts";
import type { TmuxSocket } from "./transport/socket.ts";
import { queryPane } from "./target.ts";
import { parseVersion, type TmuxVersion, verbatimPasteFlags } from "./version.ts";
import { captureSince } from "./capture.ts";
import { privateName } from "./names.ts";

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
}

/** Options for {@linkcode sendKeys}. */
export interface SendKeysOptions {
  /** Text typed as it is, first. */
  text: string | null;
  /** Key names pressed after the text (C-c, Enter, Escape, Up, F1, or one character). */
  keys: readonly string[];
  /** Press Enter last. */
  enter: boolean;
  /** Type even into a pane in a mode (the keys then go to the mode). */
  force: boolean;
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

/** Types text, then presses keys, into a pane (in one tmux command: nothing comes between). */
export async function sendKeys(
  socket: TmuxSocket,
  paneId: string,
  options: SendKeysOptions,
): Promise<TypedInput> {
  const { text, keys } = options;
  if (text?.includes("\0")) throw new TmuxError("invalid_argument", "text may not hold NUL");
  checkKeyNames(keys);
  const pane = await typable(socket, paneId, options.force);
  const id = pane.pane_id;
  const commands: string[][] = [];
  if (text !== null && text !== "") commands.push(["send-keys", "-t", id, "-l", "--", text]);
  if (keys.length > 0) commands.push(["send-keys", "-t", id, "--", ...keys]);
  if (options.enter) commands.push(["send-keys", "-t", id, "Enter"]);
  if (commands.length === 0) {
    throw new TmuxError("invalid_argument", "nothing to send: give text, keys or enter");
  }
  const { cursor } = await captureSince(socket, id, null, { typed: text });
  await runTmux(socket, chained(commands));
  return { paneId: id, cursor };
}

/** Options for {@linkcode pasteText}. */
export interface PasteOptions {
  /** The text, pasted as it is. */
  text: string;
  /** Bracketed paste when the program in the pane asked for it. */
  bracketed: boolean;
  /** Paste even into a pane in a mode. */
  force: boolean;
}

/** Pastes text through a private buffer, deleted afterwards whatever happens. */
export async function pasteText(
  socket: TmuxSocket,
  paneId: string,
  options: PasteOptions,
): Promise<TypedInput> {
  const pane = await typable(socket, paneId, options.force);
  const buffer = privateName("paste");
  const { cursor } = await captureSince(socket, pane.pane_id, null, { typed: options.text });
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
  return { paneId: pane.pane_id, cursor };
}

/** A pane that may be typed into, and its tmux's version. */
interface Typable {
  pane_id: string;
  version: TmuxVersion;
}

async function typable(socket: TmuxSocket, paneId: string, force: boolean): Promise<Typable> {
  const pane = await queryPane(socket, paneId, ["pane_in_mode", "pane_mode", "version"]);
  if (pane.pane_in_mode === "1" && !force) {
    throw new TmuxError(
      "pane_in_mode",
      `pane ${paneId} is in ${pane.pane_mode || "a mode"}; pass force: true to type anyway`,
    );
  }
  return { pane_id: paneId, version: parseVersion(pane.version) };
}
