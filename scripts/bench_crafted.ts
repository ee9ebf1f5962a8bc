/**
 * The bench's crafted-output figures: what a megabyte of output made to be costly (a far column
 * on every line, a carriage return or backspace over a long line, rewrites of the rows above)
 * costs the reducer and the run's log, beside a megabyte of plain short lines, in one process.
 *
 * @module
 */

import { LineReducer } from "../src/tmux/run/output/terminal_text.ts";
import { RunOutput } from "../src/tmux/run/output/run_output.ts";
import type { Report } from "./bench_fanout_flood.ts";

/** Milliseconds to reduce `text` into a run's output, fed in chunks as a stream brings it. */
function reduceMs(text: string): number {
  const reducer = new LineReducer(new RunOutput({ maxBytes: 16 * 1024, maxLines: 100 }));
  const started = performance.now();
  for (let i = 0; i < text.length; i += 4096) reducer.push(text.slice(i, i + 4096));
  reducer.finish();
  return performance.now() - started;
}

/** Milliseconds per MB, the best of three. */
function perMB(text: string): number {
  const runs = [0, 1, 2].map(() => reduceMs(text));
  return Math.min(...runs) / (text.length / 1e6);
}

/** Reports each crafted output's cost per MB as a ratio to plain text's. */
export function craftedOutput(report: Report, options: { megabytes: number }): void {
  const size = Math.round(options.megabytes * 1e6);
  const fill = (unit: string, head = ""): string => head + unit.repeat(size / unit.length);
  const long = "y".repeat(60_000);
  const plain = perMB(fill("abcdefghi\n"));
  report("crafted_plain_ms_per_mb", "reducing plain short lines", plain, {
    unit: " ms/MB",
    target: { text: "the base of the ratios below", met: true },
  });
  const crafted: Array<[string, string, string]> = [
    ["far_column", "ESC [ 65000 G x, every line", fill("\x1b[65000Gx\n")],
    ["cr_over_long", "CR and a character over a 60,000-character line", fill("\rx", long)],
    ["bs_over_long", "backspace over a 60,000-character line", fill("\bx\b", long)],
    [
      "erase_over_long",
      "erase to the cursor over a long line",
      fill("\rx\x1b[60000G\x1b[1K", long),
    ],
    ["rewrite_above", "up 64 rows and back", fill("\x1b[64A\x1b[64B", "z".repeat(4000) + "\n")],
  ];
  for (const [key, label, text] of crafted) {
    const ratio = perMB(text) / plain;
    report(`crafted_${key}_ratio`, `  ${label}`, ratio, {
      unit: " times plain",
      target: { text: "target <= 3", met: ratio <= 3 },
    });
  }
}
