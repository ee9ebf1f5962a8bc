/**
 * tmux format strings built from fixed field names and parsed back into records. User text is never
 * interpolated into a format: only the names listed by our own code are.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/** Separates fields in one record; tmux escapes control characters inside names and titles. */
export const FIELD_SEPARATOR = "\x1f";

/** Builds `#{a}<sep>#{b}...` for the given format variable names. */
export function formatOf(fields: readonly string[]): string {
  return fields.map((field) => `#{${field}}`).join(FIELD_SEPARATOR);
}

/** Parses tmux output (one record a line) produced by {@linkcode formatOf} with the same fields. */
export function parseRecords<K extends string>(
  output: string,
  fields: readonly K[],
): Array<Record<K, string>> {
  const lines = output.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => {
    const values = line.split(FIELD_SEPARATOR);
    if (values.length !== fields.length) {
      throw new TmuxError(
        "tmux_error",
        `unexpected tmux output: ${values.length} fields where ${fields.length} were asked for`,
      );
    }
    const record = {} as Record<K, string>;
    fields.forEach((field, i) => record[field] = values[i]);
    return record;
  });
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
