/**
 * Whether a pane's line editor reads a command line, as its output says: bash's readline, zsh's
 * zle, fish and nushell switch bracketed paste on while they read and off when they hand the
 * terminal to a program. tmux cuts a pane's output into `%output` lines wherever it likes, so a
 * switch can start in one line and end in the next: the end of each line is kept for the next.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Bracketed paste switched on or off, as `%output` escapes it. */
const BRACKET_ON = encoder.encode("\\033[?2004h");
const BRACKET_OFF = encoder.encode("\\033[?2004l");

/** Bytes kept from one line for the next: a switch less its last byte. */
const KEEP = BRACKET_ON.length - 1;

const QUESTION = 0x3f;

/** Where `needle` (which holds a `?`) last occurs in `data`: found from its `?`, natively. */
function lastIndexOf(data: Uint8Array, needle: Uint8Array): number {
  const mark = needle.indexOf(QUESTION);
  // (lastIndexOf from -1 would count from the end again: the loop stops at 0 itself.)
  outer: for (
    let at = data.lastIndexOf(QUESTION);
    at >= 0;
    at = at === 0 ? -1 : data.lastIndexOf(QUESTION, at - 1)
  ) {
    const start = at - mark;
    if (start < 0 || start + needle.length > data.length) continue;
    for (let j = 0; j < needle.length; j++) if (data[start + j] !== needle[j]) continue outer;
    return start;
  }
  return -1;
}

/** The last switch in `data`: true on, false off, null none. */
function lastSwitch(data: Uint8Array): boolean | null {
  const on = lastIndexOf(data, BRACKET_ON);
  const off = lastIndexOf(data, BRACKET_OFF);
  return on === off ? null : on > off;
}

/** What a stretch of a pane's escaped output says of its line editor. */
export interface LineEditorSeen {
  /** True: it switched bracketed paste on last (it reads); false: off; null: neither. */
  reading: boolean | null;
  /** What to pass as `tail` with the pane's next stretch. */
  tail: Uint8Array;
}

/**
 * The last bracketed-paste switch in `data` (one `%output` line's escaped bytes, which may be
 * reused once this returns), counting one that began in `tail`, the end of the pane's line before
 * (undefined: none yet).
 */
export function lineEditorSeen(tail: Uint8Array | undefined, data: Uint8Array): LineEditorSeen {
  const before = tail ?? new Uint8Array(0);
  const joined = new Uint8Array(before.length + Math.min(data.length, KEEP));
  joined.set(before);
  joined.set(data.subarray(0, KEEP), before.length);
  // A switch wholly in `data` comes after any that began in `tail`.
  const reading = lastSwitch(data) ?? lastSwitch(joined);
  const next = data.length >= KEEP ? data.slice(data.length - KEEP) : joined.slice(-KEEP);
  return { reading, tail: next };
}
