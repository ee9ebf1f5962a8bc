// docs/performance.md's table is written from the bench's JSON (scripts/perf_table.ts).

import { assert, assertEquals, assertMatch } from "../deps.ts";
import {
  type BenchRun,
  perfTable,
  TABLE_END,
  TABLE_START,
  withTable,
} from "../../scripts/perf_table.ts";

const run = (commit: string, shown: string, met: boolean): BenchRun => ({
  commit,
  date: "2026-12-06T23:00:00.000Z",
  machine: "Some CPU, 2 cores",
  quick: false,
  figures: [
    { key: "a", label: "run_command p50", shown, target: { text: "target <= 2x", met } },
    { key: "b", label: "  a | b", shown: "1 MB", target: null },
  ],
  results: {},
});

Deno.test("perf table: each figure beside its target and an earlier run's, pipes escaped", () => {
  const table = perfTable(run("new1", "1.50x", true), run("old1", "2.50x", false)).split("\n");
  assertMatch(table[0], /^Measured by `deno task bench` on 2026-12-06, Some CPU, 2 cores; old1/);
  assertEquals(table.slice(2), [
    "| figure | new1 | old1 | target |",
    "| --- | --- | --- | --- |",
    "| run_command p50 | 1.50x | 2.50x | <= 2x: met |",
    "| – a \\| b | 1 MB | 1 MB |  |",
  ]);
});

Deno.test("perf table: written between the page's markers, and nowhere without them", () => {
  const readme = `intro\n${TABLE_START}\nold table\n${TABLE_END}\nafter\n`;
  assertEquals(withTable(readme, "T"), `intro\n${TABLE_START}\n\nT\n\n${TABLE_END}\nafter\n`);
  let refused = false;
  try {
    withTable("no markers", "T");
  } catch {
    refused = true;
  }
  assert(refused, "a page without markers was written");
});
