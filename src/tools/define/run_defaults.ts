/**
 * The run result fields left out of `structuredContent` when they hold their default, or tell
 * nothing the rest does not: most runs end in time, started, with all their output shown from
 * the stream, and a result that spelled all that out cost ten times its text. The outputSchema
 * gives each one's default, or says when it is absent; the text block says the same in words.
 *
 * @module
 */

import { nothingLeft } from "../../tmux/mod.ts";

/** Each field's default, as absent means. */
export const RUN_DEFAULTS: Readonly<Record<string, unknown>> = {
  timed_out: false,
  started: true,
  not_started_reason: null,
  no_status_reason: null,
  effective_timeout: 30,
  output_from_line: 1,
  output_truncated: false,
  output_truncated_lines: 0,
  output_truncated_bytes: 0,
  output_omitted: null,
  output_cut_lines: 0,
  output_not_text_lines: 0,
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

/**
 * A run result as `structuredContent` carries it: without its fields at their default, without
 * `run_id` once nothing of the run is left to collect or read (it ended, or never started, and
 * all its output was shown), and without the totals when `output` holds every line from the
 * first, whole, each its own entry.
 */
export function leanRunResult(result: Record<string, unknown>): Record<string, unknown> {
  const lean: Record<string, unknown> = withoutDefaults(result, RUN_DEFAULTS);
  if (nothingLeft(result as Parameters<typeof nothingLeft>[0])) delete lean.run_id;
  const whole = result.output_from_line === 1 && result.output_truncated === false &&
    result.output_omitted === null && result.output_cut_lines === 0 &&
    result.output_not_text_lines === 0;
  if (whole) {
    delete lean.output_total_lines;
    delete lean.output_total_bytes;
  }
  return lean;
}
