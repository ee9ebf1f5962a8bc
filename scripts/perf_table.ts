/**
 * The Performance table of docs/performance.md, written from the bench's JSON
 * (bench-results.json, as `deno task bench` leaves it): each figure as the run printed it, beside
 * its target, and beside the same figure of an earlier run (another commit's, measured in the same
 * sitting) when given.
 *
 *     deno task perf-table [--before OTHER.json] [--write docs/performance.md]
 *
 * Without --write it prints the table; with it, it replaces the table between the page's
 * markers.
 *
 * @module
 */

import { parseArgs } from "node:util";

/** One figure of a bench run, as it printed it. */
export interface BenchFigure {
  /** Its key in `results`. */
  key: string;
  /** What it measures. */
  label: string;
  /** Its value and unit, as printed. */
  shown: string;
  /** What it should be, and whether the run met it (null: no target). */
  target: { text: string; met: boolean } | null;
}

/** What `deno task bench` writes. */
export interface BenchRun {
  /** The commit measured. */
  commit: string;
  /** When (ISO 8601). */
  date: string;
  /** The CPU and the cores the run had. */
  machine: string;
  /** A `--quick` run: a fifth of the calls. */
  quick: boolean;
  /** Every figure in the order printed. */
  figures: BenchFigure[];
  /** The figures by key, with a few more (curves). */
  results: Record<string, unknown>;
}

/** The page's markers around the table. */
export const TABLE_START = "<!-- bench table: written by deno task perf-table -->";
/** The marker after it. */
export const TABLE_END = "<!-- end of bench table -->";

function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

/**
 * A label as the table shows it: the bench indents a figure that belongs to the one above it by
 * two spaces a level, which a table cell would drop; a dash a level says it.
 */
function label(text: string): string {
  const level = Math.floor((text.length - text.trimStart().length) / 2);
  return `${"– ".repeat(level)}${text.trim()}`;
}

/** The table (Markdown) of `run`, and of `before` beside it when given. */
export function perfTable(run: BenchRun, before: BenchRun | null = null): string {
  const earlier = new Map(before?.figures.map((figure) => [figure.key, figure.shown]));
  const head = before === null
    ? ["figure", run.commit, "target"]
    : ["figure", run.commit, before.commit, "target"];
  const rows = run.figures.map((figure) => {
    const target = figure.target === null
      ? ""
      : `${figure.target.text}: ${figure.target.met ? "met" : "MISSED"}`;
    const values = before === null
      ? [figure.shown]
      : [figure.shown, earlier.get(figure.key) ?? "not measured"];
    return [label(figure.label), ...values, target.replace(/^target /, "")];
  });
  const line = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const when = `${run.date.slice(0, 10)}, ${run.machine}${run.quick ? ", --quick" : ""}`;
  return [
    `Measured by \`deno task bench\` on ${when}` +
    (before === null ? "." : `; ${before.commit} in the same sitting.`),
    "",
    line(head),
    line(head.map(() => "---")),
    ...rows.map(line),
  ].join("\n");
}

/** `page` with the table between its markers replaced by `table`. */
export function withTable(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`the page has no ${TABLE_START} ... ${TABLE_END} markers`);
  }
  return `${page.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${page.slice(end)}`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { before: { type: "string" }, write: { type: "string" } },
  });
  const read = async (path: string): Promise<BenchRun> => JSON.parse(await Deno.readTextFile(path));
  const table = perfTable(
    await read("bench-results.json"),
    values.before === undefined ? null : await read(values.before),
  );
  if (values.write === undefined) console.log(table);
  else {
    await Deno.writeTextFile(values.write, withTable(await Deno.readTextFile(values.write), table));
    const formatted = await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--quiet", values.write],
    }).output();
    if (!formatted.success) throw new Error(`deno fmt failed on ${values.write}`);
    console.error(`perf-table: wrote the table into ${values.write}`);
  }
}
