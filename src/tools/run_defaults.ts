/**
 * The run result fields left out of `structuredContent` when they hold their default: most runs
 * end in time, started, with all their output shown from the stream, and a result that spelled
 * all that out cost ten times its text. The outputSchema gives each one's default; the text
 * block says the same in words.
 *
 * @module
 */

/** Each field's default, as absent means. */
export const RUN_DEFAULTS: Readonly<Record<string, unknown>> = {
  timed_out: false,
  started: true,
  not_started_reason: null,
  no_status_reason: null,
  effective_timeout: 30,
  output_from_line: 1,
  output_total_lines: 0,
  output_total_bytes: 0,
  output_truncated: false,
  output_truncated_lines: 0,
  output_truncated_bytes: 0,
  output_omitted: null,
  output_cut_lines: 0,
  output_more: null,
  output_source: "stream",
  lines_missed: false,
  anchor_lost: false,
  alternate_screen: false,
  invalid_utf8: false,
  output_head: [],
  output: [],
};

/** A result without the fields that hold their default (see {@linkcode RUN_DEFAULTS}). */
export function withoutDefaults<T extends Record<string, unknown>>(
  result: T,
  defaults: Readonly<Record<string, unknown>>,
): Partial<T> {
  const lean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (!(key in defaults) || JSON.stringify(value) !== JSON.stringify(defaults[key])) {
      lean[key] = value;
    }
  }
  return lean as Partial<T>;
}
