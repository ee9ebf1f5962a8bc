/**
 * tmux format strings built from fixed field names and parsed back into records. User text is never
 * interpolated into a format: only the names listed by our own code are.
 *
 * Every tmux prints a record differently: 3.4 and later pass command output through vis(3) (a
 * control character, the old field separator 0x1f among them, becomes `\037`; a backslash stays as
 * it is), older ones print it raw. So no byte can separate fields by itself. Each value goes
 * through tmux's own `q:` modifier instead, the same in 3.2a to master: it puts a backslash before
 * every backslash and before `|` and `&`, which then separate fields and end records. In what comes
 * back, an unescaped `|` or `&` is ours, a backslash before one of the characters `q:` escapes is
 * `q:`'s, and any other backslash is vis(3)'s (`\n`, `\r`, ..., `\ooo`).
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/** Separates the fields of a record. */
const FIELD_END = "|";
/** Ends a record (a value may hold a newline, so lines cannot). */
const RECORD_END = "&";
/** What `q:` puts a backslash before (format_quote_shell in tmux's format.c, 3.2a to master). */
const QUOTED = new Set("|&;<>()$`\\\"'*?[# =%");
/** vis(3)'s C-style escapes (VIS_CSTYLE). */
const VIS_CSTYLE: Record<string, string> = {
  n: "\n",
  r: "\r",
  b: "\b",
  a: "\x07",
  v: "\v",
  t: "\t",
  f: "\f",
  s: " ",
  "0": "\0",
};
const OCTAL = /^[0-7]{3}$/;

/** Builds the format of one record of the given format variable names (see the module doc). */
export function formatOf(fields: readonly string[]): string {
  return fields.map((field) => `#{q:${field}}`).join(FIELD_END) + RECORD_END;
}

/**
 * Splits tmux output made of records built by {@linkcode formatOf} (whatever their fields) into
 * their values, and returns the text after the last whole record (lines of other commands).
 */
export function splitRecords(output: string): { records: string[][]; rest: string } {
  const records: string[][] = [];
  let fields: string[] = [];
  let value = "";
  let recordStart = 0;
  let i = 0;
  while (i < output.length) {
    const c = output[i];
    if (c === "\\" && i + 1 < output.length) {
      const [text, length] = unescape(output, i + 1);
      value += text;
      i += 1 + length;
      continue;
    }
    i++;
    if (c === FIELD_END || c === RECORD_END) {
      fields.push(value);
      value = "";
    }
    if (c === RECORD_END) {
      records.push(fields);
      fields = [];
      if (output[i] === "\n") i++;
      recordStart = i;
    } else if (c !== FIELD_END) {
      value += c;
    }
  }
  return { records, rest: output.slice(recordStart) };
}

/** The character an escape stands for and how many characters after the backslash it took. */
function unescape(output: string, at: number): [string, number] {
  const next = output[at];
  if (QUOTED.has(next)) return [next, 1];
  const octal = output.slice(at, at + 3);
  if (OCTAL.test(octal)) {
    const byte = parseInt(octal, 8);
    // vis(3) writes a byte of broken UTF-8 this way; decoding would have replaced it.
    return [byte < 0x80 ? String.fromCharCode(byte) : "\ufffd", 3];
  }
  if (next in VIS_CSTYLE) return [VIS_CSTYLE[next], 1];
  return ["\\", 0];
}

/** Parses tmux output made only of records built by {@linkcode formatOf} with the same fields. */
export function parseRecords<K extends string>(
  output: string,
  fields: readonly K[],
): Array<Record<K, string>> {
  const { records, rest } = splitRecords(output);
  if (rest.trim() !== "") {
    throw new TmuxError("tmux_error", "unexpected tmux output: a record without its end");
  }
  return records.map((values) => recordOf(values, fields));
}

/** Names the values of one record, failing loudly when their count is not the fields'. */
export function recordOf<K extends string>(
  values: readonly string[],
  fields: readonly K[],
): Record<K, string> {
  if (values.length !== fields.length) {
    throw new TmuxError(
      "tmux_error",
      `unexpected tmux output: ${values.length} fields where ${fields.length} were asked for`,
    );
  }
  const record = {} as Record<K, string>;
  fields.forEach((field, i) => record[field] = values[i]);
  return record;
}

/** Parses a decimal integer field, failing loudly on anything else. */
export function intField(value: string, name: string): number {
  if (!/^-?\d+$/.test(value)) {
    throw new TmuxError(
      "tmux_error",
      `unexpected tmux value for ${name}: ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}
