/**
 * tmux format strings built from fixed field names and parsed back into records. User text is never
 * interpolated into a format: only the names listed by our own code are.
 *
 * tmux releases print a record differently: 3.4 to 3.5a pass command output through vis(3) (a
 * control character, the old field separator 0x1f among them, becomes `\037`, and a backslash
 * before a `$` is doubled), older and later ones print it raw. So no byte can separate fields by
 * itself. Each value goes through tmux's own `q:` modifier instead: it puts a backslash before
 * every backslash and before `|` and `&` (and other characters, more of them in later releases),
 * which then separate fields and end records. In what comes back, an unescaped `|` or `&` is ours;
 * a backslash before a digit or one of vis(3)'s letters is vis(3)'s (`\n`, `\r`, ..., `\ooo`), before
 * anything else it is `q:`'s. A `$` comes after an odd number of backslashes, or after an even
 * number where vis(3) doubled `q:`'s one (3.4, 3.5a).
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/** Separates the fields of a record. */
const FIELD_END = "|";
/** Ends a record (a value may hold a newline, so lines cannot). */
const RECORD_END = "&";
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
 * Splits tmux output that begins with records built by {@linkcode formatOf} (whatever their
 * fields) into their values; with `count`, only that many are read as records, and what follows
 * them (another command's output: pane text, whatever it holds) is returned as it is.
 */
export function splitRecords(
  output: string,
  options: { count?: number } = {},
): { records: string[][]; rest: string } {
  const count = options.count ?? Infinity;
  const records: string[][] = [];
  let fields: string[] = [];
  let value = "";
  let recordStart = 0;
  let i = 0;
  while (i < output.length && records.length < count) {
    const c = output[i];
    if (c === "\\") {
      let run = 1;
      while (output[i + run] === "\\") run++;
      if (output[i + run] === "$") {
        value += "\\".repeat(run % 2 === 1 ? (run - 1) / 2 : (run - 2) / 2) + "$";
        i += run + 1;
        continue;
      }
      value += "\\".repeat(Math.floor(run / 2));
      i += run;
      if (run % 2 === 1 && i < output.length) {
        const [text, length] = unescape(output, i);
        value += text;
        i += length;
      }
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
  const octal = output.slice(at, at + 3);
  if (OCTAL.test(octal)) {
    const byte = parseInt(octal, 8);
    // vis(3) writes a byte of broken UTF-8 this way; decoding would have replaced it.
    return [byte < 0x80 ? String.fromCharCode(byte) : "\ufffd", 3];
  }
  return [Object.hasOwn(VIS_CSTYLE, next) ? VIS_CSTYLE[next] : next, 1];
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
