// A run that may still start is settled by what its pane shows, whichever server process looks.

import { assertEquals } from "../deps.ts";
import { endedUnused, pendingMark, superseded } from "../../src/tmux/run/base/pending.ts";
import { callNames, ENDED_OPTION, RUNNING_OPTION } from "../../src/tmux/run/base/shell.ts";
import type { RunRecord } from "../../src/tmux/run/base/record.ts";

const X = callNames("00000000000000aa");
const Y = callNames("00000000000000bb");
const W = callNames("00000000000000cc");

function record(after: string | null): RunRecord {
  return {
    anchor: { history: 0, y: 0, x: 0, pid: 7 },
    typed: "x",
    created: 0,
    ...(after === null ? {} : { pending: { after } }),
  };
}

function pane(ended: string, running = "", path = "/home"): Record<string, string> {
  return { [ENDED_OPTION]: ended, [RUNNING_OPTION]: running, pane_path: path };
}

Deno.test("a pending run is superseded once the pane shows a later run ended or started", () => {
  const cases: [string, RunRecord, Record<string, string>, boolean][] = [
    ["nothing ended since", record(W.channel), pane(W.channel), false],
    ["a later run ended", record(W.channel), pane(Y.channel), true],
    [
      "the run itself ended (its status is read instead)",
      record(W.channel),
      pane(X.channel),
      false,
    ],
    [
      "the name went with the pane's records: unknown, never guessed",
      record(W.channel),
      pane(""),
      false,
    ],
    [
      "a later run holds the pane, started",
      record(X.channel),
      pane(X.channel, `${Y.channel}:7`, Y.startMarker),
      true,
    ],
    [
      "a later run holds the pane, not started",
      record(X.channel),
      pane(X.channel, `${Y.channel}:7`),
      false,
    ],
    ["a mark that is not ours", record(X.channel), pane(X.channel, "junk", Y.startMarker), false],
    ["not pending", record(null), pane(Y.channel), false],
  ];
  for (const [what, run, state, expected] of cases) {
    assertEquals(superseded(run, state, X.channel), expected, what);
  }
});

Deno.test("a run going pending keeps the name the pane shows, or its own when none", () => {
  assertEquals(pendingMark("%1", { channel: X.channel, ended: "" }).after, X.channel);
  assertEquals(pendingMark("%1", { channel: X.channel, ended: W.channel }).after, W.channel);
});

Deno.test("the name of the last ended run goes only with the pane's last record", () => {
  assertEquals(endedUnused([ENDED_OPTION, RUNNING_OPTION]), true);
  assertEquals(endedUnused([ENDED_OPTION, X.record]), false);
  assertEquals(endedUnused([ENDED_OPTION, X.quietRecord]), false);
  assertEquals(endedUnused([RUNNING_OPTION]), false);
});
