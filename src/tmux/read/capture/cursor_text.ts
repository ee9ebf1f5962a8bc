/**
 * What a capture_since cursor remembers of text, kept small whatever the text: hashes of the
 * lines it read last, and of what its row showed and what was typed there, neither of which is
 * new output.
 *
 * @module
 */

/** FNV-1a over lines, each ended by a newline. */
export function hashLines(lines: readonly string[]): number {
  let hash = 0x811c9dc5;
  for (const line of lines) {
    for (let i = 0; i < line.length; i++) hash = Math.imul(hash ^ line.charCodeAt(i), 0x01000193);
    hash = Math.imul(hash ^ 10, 0x01000193);
  }
  return hash >>> 0;
}

/** The rolling hash's modulus (a prime below 2^31) and base: every product stays exact. */
const MODULUS = 2147483647;
const BASE = 65599;

/** A polynomial hash of `text`'s UTF-16 units, which can be rolled along a longer text. */
function rollingHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * BASE + text.charCodeAt(i)) % MODULUS;
  return hash;
}

/**
 * Removes from `text` every place its `length` units hash to `hash` (left to right, not
 * overlapping). Linear in the text, whatever the length.
 */
function removeHashed(text: string, length: number, hash: number): string {
  if (length === 0 || text.length < length) return text;
  // BASE^(length-1), to take a window's first unit out of its hash.
  let high = 1;
  for (let i = 1; i < length; i++) high = (high * BASE) % MODULUS;
  const kept: string[] = [];
  let from = 0;
  let window = rollingHash(text.slice(0, length));
  for (let at = 0; at + length <= text.length;) {
    if (window === hash) {
      kept.push(text.slice(from, at));
      from = at + length;
      at = from;
      if (at + length <= text.length) window = rollingHash(text.slice(at, at + length));
      continue;
    }
    if (at + length < text.length) {
      const first = (text.charCodeAt(at) * high) % MODULUS;
      window = ((window - first + MODULUS) * BASE + text.charCodeAt(at + length)) % MODULUS;
    }
    at++;
  }
  kept.push(text.slice(from));
  return kept.join("");
}

/** What a cursor's row held that is not new: nothing once output has moved past that row. */
export interface OldText {
  /** Length and hash of what the row showed when the cursor was made (old output, a prompt). */
  seen: number;
  /** Hash of the text the cursor last read. */
  seenHash: number;
  /** Length and rolling hash of the text then typed on it (its echo), up to its first line end. */
  echo: number;
  /** Hash of the text last typed into the pane (its echo). */
  echoHash: number;
  /**
   * Once the terminal itself echoed the text (typed while no line editor read: keys typed ahead
   * of a busy shell), the prompt drawn behind that echo (its length and hash) and the rows left to
   * find the line editor's own echo of it in, after that prompt; 0 rows: not looking.
   */
  prompt: number;
  /** Hash of the prompt rows under the cursor. */
  promptHash: number;
  /** How many rows that prompt took. */
  promptRows: number;
}

/** A row with nothing old on it. */
export const NOTHING_OLD: OldText = {
  seen: 0,
  seenHash: 0,
  echo: 0,
  echoHash: 0,
  prompt: 0,
  promptHash: 0,
  promptRows: 0,
};

/** The fields of an {@linkcode OldText}, all whole numbers. */
export const OLD_FIELDS = [
  "seen",
  "seenHash",
  "echo",
  "echoHash",
  "prompt",
  "promptHash",
  "promptRows",
] as const;

/** Just the {@linkcode OldText} fields of `state` (a cursor's, say). */
export function oldTextOf(state: OldText): OldText {
  const { seen, seenHash, echo, echoHash, prompt, promptHash, promptRows } = state;
  return { seen, seenHash, echo, echoHash, prompt, promptHash, promptRows };
}

/** The old text of a row showing `current`, with `typed` about to be typed on it. */
export function oldText(current: string, typed: string | null): OldText {
  const echo = typed === null ? "" : typed.split(/[\r\n]/, 1)[0];
  return {
    ...NOTHING_OLD,
    seen: current.length,
    seenHash: hashLines([current]),
    echo: echo.length,
    echoHash: rollingHash(echo),
  };
}

/** A line that begins at the cursor's row, less what that row showed then (a row rewritten since,
 * which no longer begins with it, is all new). */
function withoutSeen(line: string, old: OldText): string {
  if (old.seen === 0) return line;
  if (line.length < old.seen || hashLines([line.slice(0, old.seen)]) !== old.seenHash) return line;
  return line.slice(old.seen);
}

/** New text read from a cursor: its lines and current row, and what of its old text is left. */
export interface NewText {
  /** The complete lines. */
  lines: string[];
  /** The line still being written (the cursor's), possibly empty. */
  current: string;
  /** The echo of typed text not met yet: the next read looks for it (else nothing is old). */
  echoLeft: OldText;
  /** The echo was taken out of the current row (which the next read reads again). */
  echoInCurrent: boolean;
}

/**
 * Complete rows after a terminal's own echo in which the line editor's echo of the same text may
 * still come (each Enter typed ahead of the text draws a prompt row of its own first).
 */
const LINE_EDITOR_ROWS = 16;

/** The echo still to be met, carried to the next read. */
function echoOf(old: OldText): OldText {
  return { ...old, seen: 0, seenHash: 0 };
}

/**
 * Takes the echo out of the first row it shows on, wherever on the row; returns the row after
 * it and what is left to look for. A row still being written is looked at again by the next
 * read. Text typed ahead of a busy shell is echoed twice: by the terminal, at the start of its
 * row with the shell's prompt then drawn behind it, and by the line editor after that prompt.
 */
function takeEcho(rows: string[], complete: number, old: OldText): { from: number; left: OldText } {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const without = removeHashed(row, old.echo, old.echoHash);
    if (without === row) continue;
    rows[i] = without;
    if (i >= complete) return { from: rows.length, left: echoOf(old) };
    const terminal = without !== "" && without.length === row.length - old.echo &&
      rollingHash(row.slice(0, old.echo)) === old.echoHash;
    if (!terminal) return { from: rows.length, left: NOTHING_OLD };
    const left = {
      ...echoOf(old),
      prompt: without.length,
      promptHash: hashLines([without]),
      promptRows: LINE_EDITOR_ROWS,
    };
    return { from: i + 1, left };
  }
  return { from: rows.length, left: echoOf(old) };
}

/**
 * Takes the line editor's echo out of the first row from `from` that begins with the prompt a
 * terminal's echo was followed by and then the echo, within the rows left to look in.
 */
function takeLineEditorEcho(rows: string[], complete: number, from: number, old: OldText): OldText {
  let left = old;
  for (let i = from; i < rows.length && left.promptRows > 0; i++) {
    const row = rows[i];
    const end = left.prompt + left.echo;
    if (
      row.length >= end && hashLines([row.slice(0, left.prompt)]) === left.promptHash &&
      rollingHash(row.slice(left.prompt, end)) === left.echoHash
    ) {
      rows[i] = row.slice(0, left.prompt) + row.slice(end);
      return i < complete ? NOTHING_OLD : left;
    }
    if (i < complete) left = { ...left, promptRows: left.promptRows - 1 };
  }
  return left.promptRows > 0 ? left : NOTHING_OLD;
}

/**
 * The lines and current row of a read that begins at the cursor's row, less what that row showed
 * then and the echo of what was typed there. The echo is taken out of the first row it shows on,
 * wherever on the row: a prompt drawn after the cursor was made (a shell still finishing its last
 * command) puts it further along, keys typed before it (an Enter) a row further down, and a
 * terminal's own echo before the line editor's puts it there twice, or on two rows (the line
 * editor's after the prompt the shell drew behind the terminal's). Until it shows, later reads
 * look for it; a program that echoes nothing (a password prompt) leaves nothing to take out.
 */
export function newText(lines: string[], current: string, old: OldText): NewText {
  const rows = [...lines, current];
  const complete = lines.length;
  let left = NOTHING_OLD;
  // The line editor's echo is found by the prompt before it, which the cursor's row may have
  // shown already: looked for before that is taken off.
  if (old.promptRows > 0) left = takeLineEditorEcho(rows, complete, 0, old);
  rows[0] = withoutSeen(rows[0], old);
  if (old.promptRows === 0 && old.echo > 0) {
    const taken = takeEcho(rows, complete, old);
    left = taken.left.promptRows > 0
      ? takeLineEditorEcho(rows, complete, taken.from, taken.left)
      : taken.left;
  }
  // A complete row that held only old text and echo (a typed command line) is not output.
  const kept = rows.slice(0, complete).filter((row, i) => row !== "" || lines[i] === "");
  const echoInCurrent = rows[complete] !== (complete === 0 ? withoutSeen(current, old) : current);
  return { lines: kept, current: rows[complete], echoLeft: left, echoInCurrent };
}

/**
 * The old text of a cursor made now on a row showing `current`, after a read from an earlier
 * cursor (made as text was typed) that may not have met the text's echo yet: the whole row is
 * old, and the echo is still looked for unless the row shows it after its start (a line
 * editor's, after the prompt). At the row's start it may be the terminal's, the line editor's
 * still to come.
 */
export function oldTextNow(current: string, read: NewText): OldText {
  const left = read.echoLeft;
  const shown = read.echoInCurrent &&
    rollingHash(current.slice(0, left.echo)) !== left.echoHash;
  return {
    ...(shown ? NOTHING_OLD : left),
    seen: current.length,
    seenHash: hashLines([current]),
  };
}
