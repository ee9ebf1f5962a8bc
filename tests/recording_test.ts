// Recordings (--record-dir): the panes a session's runs type into are recorded as asciicast v2
// files, named in run results; each run is a marker that names its command only as the audit log
// does; nothing is followed between runs (a person's line then shows only in the next run's first
// screen); and the recording, replayed through a terminal (a tmux pane reading its bytes), ends on
// the screen tmux showed: styles, cursor and all.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { runServerToExit, startServer, textOf } from "./helpers/mcp.ts";
import { startTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

/** A progress bar drawn over itself, colours, a full-screen program, and a corner drawn aside. */
const COMMANDS = [
  "for i in 1 2 3 4 5; do printf '\\r[%-5s] %d%%' $(printf '#%.0s' $(seq $i)) $((i*20)); " +
  "sleep 0.05; done; printf '\\n\\033[32mgreen\\033[0m \\033[1;31mred\\033[0m 日本\\n'",
  "printf '\\033[?1049h\\033[2J\\033[5;10Hin a TUI \\033[7m box \\033[0m'; sleep 0.2; " +
  "printf '\\033[?1049l'; printf '\\0337\\033[1;100H\\033[44mcorner\\033[0m\\0338'",
];

/** A screen's rows without the shell's prompt (`$ `) after the last run, if it shows. */
function beforePrompt(rows: string): string {
  const lines = rows.trimEnd().split("\n");
  return (lines.at(-1)?.trimEnd() === "$" ? lines.slice(0, -1) : lines).join("\n");
}

/**
 * A pane's rows with their styles, and its cursor. Blanks at a row's end are dropped: tmux keeps
 * as many as the row's cells were ever written (`-N`), which a replay drawing whole rows writes
 * more of (3.2a and 3.4 print them).
 */
async function screen(
  run: (...args: string[]) => Promise<string>,
  pane: string,
): Promise<{ rows: string; cursor: string }> {
  const rows = await run("capture-pane", "-p", "-e", "-N", "-t", pane);
  return {
    rows: rows.split("\n").map((row) => row.replace(/ +$/, "")).join("\n"),
    cursor: await run("display-message", "-p", "-t", pane, "#{cursor_x},#{cursor_y}"),
  };
}

Deno.test("a recording replays to the screen tmux showed, and names no command", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-rec-" });
  const tmux = await startTmux();
  try {
    const conn = await startServer("stdio", {
      socketName: tmux.socketName,
      permissions: ["--allow-run=tmux", `--allow-write=${dir}`],
      extraArgs: ["--record-dir", dir],
    });
    const recordings: string[] = [];
    let afterFirst = { rows: "", cursor: "" };
    try {
      for (const [i, command] of COMMANDS.entries()) {
        if (i === 1) {
          await until("the prompt is back", async () => {
            return (await tmux.run("capture-pane", "-p", "-t", tmux.paneId)).trimEnd().endsWith(
              "$",
            );
          });
          afterFirst = await screen(tmux.run, tmux.paneId);
          // A person's line between runs: not followed (no pane is followed for a recording
          // alone), caught up by the next run's first screen.
          await tmux.run("send-keys", "-t", tmux.paneId, "echo BETWEEN-''RUNS", "Enter");
          await until("the person's line ran", async () => {
            return (await tmux.run("capture-pane", "-p", "-t", tmux.paneId)).includes(
              "\nBETWEEN-RUNS",
            );
          });
        }
        const result = await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: tmux.paneId, command },
        }) as CallToolResult;
        const run = result.structuredContent as Json;
        assertEquals(run.exit_status, 0, textOf(result));
        recordings.push(run.recording as string);
        assert(textOf(result).includes(`recorded in ${run.recording}`), textOf(result));
      }
      // The shell's prompt after the last run is drawn, then the session ends its recording.
      await until("the prompt is back", async () => {
        return (await tmux.run("capture-pane", "-p", "-t", tmux.paneId)).trimEnd().endsWith("$");
      });
    } finally {
      await conn.close();
    }
    // One file for the pane and session, in the directory asked for.
    assertEquals(new Set(recordings).size, 1);
    assert(recordings[0].startsWith(`${dir}/`), recordings[0]);
    const [header, ...events] = (await Deno.readTextFile(recordings[0])).trimEnd().split("\n")
      .map((line) => JSON.parse(line));
    assertEquals([header.version, header.width, header.height], [2, 120, 40]);
    let last = 0;
    for (const [time, kind, data] of events) {
      assert(time >= last && ["o", "m"].includes(kind) && typeof data === "string");
      last = time;
    }
    const labels = events.filter(([, kind]) => kind === "m").map(([, , label]) => label);
    assertEquals(labels.at(-1), "the session ended");
    const markers = labels.filter((label) => label.startsWith("run "));
    assertEquals(markers.length, 2);
    for (const [i, label] of markers.entries()) {
      assert(label.includes(`command of ${COMMANDS[i].length} characters`), label);
      assert(!label.includes("printf"), label);
    }
    // The person's line shows only in whole screens (the second run's first, the last), never as
    // output followed.
    const between = events.filter(([, , text]) => text.includes("BETWEEN-RUNS"));
    assert(between.length > 0, "the person's line is not in the recording");
    for (const [, , text] of between) {
      assert(text.startsWith("\x1b[0m\x1b[H\x1b[2J"), JSON.stringify(text));
    }
    // Replayed through a terminal of the same size: the same screen. Up to the session's end (its
    // last screen), and up to the second run (its first screen), too, but for the prompt after
    // the run before, drawn as its output stopped being followed or after: each run's output was
    // recorded as the pane showed it.
    const shown = await screen(tmux.run, tmux.paneId);
    const ended = events.findLastIndex(([, kind]) => kind === "m");
    const second = events.findLastIndex(([, kind, label]) =>
      kind === "m" && label.startsWith("run ")
    );
    const replays = [[events.length, shown, true], [ended, shown, false], [
      second,
      afterFirst,
      false,
    ]];
    for (const [upTo, screenThen, withPrompt] of replays as [number, typeof shown, boolean][]) {
      const bytes = events.slice(0, upTo).filter(([, kind]) => kind === "o").map(([, , text]) =>
        text
      ).join("");
      const replay = `${dir}/replay-${upTo}.bin`;
      await Deno.writeTextFile(replay, bytes);
      const pane = await tmux.newPane(`sh -c 'stty -opost; cat ${replay}; exec sleep 600'`);
      const seen = async () => {
        const now = await screen(tmux.run, pane);
        return withPrompt ? now : { rows: beforePrompt(now.rows), cursor: "" };
      };
      const wanted = withPrompt ? screenThen : { rows: beforePrompt(screenThen.rows), cursor: "" };
      await until("the replay is drawn", async () => {
        return JSON.stringify(await seen()) === JSON.stringify(wanted);
      }).catch(() => {});
      assertEquals(await seen(), wanted);
    }
    assert(shown.rows.includes("[#####] 100%"), shown.rows);
    assert(shown.rows.includes("corner"), shown.rows);
  } finally {
    await tmux.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--record-dir without the permission to write there stops the server at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-rec-" });
  try {
    const out = await runServerToExit(["--allow-run=tmux"], ["--record-dir", dir]);
    assertEquals(out.code, 2, out.stderr);
    assert(out.stderr.includes(`--allow-write=${dir}`), out.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("recordings hold no more than --record-max-mb together: cut, said, and no new one made", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-rec-" });
  const tmux = await startTmux();
  try {
    const conn = await startServer("stdio", {
      socketName: tmux.socketName,
      permissions: ["--allow-run=tmux", `--allow-write=${dir}`],
      extraArgs: ["--record-dir", dir, "--record-max-mb", "1"],
    });
    let first: Json;
    let other: Json;
    try {
      const run = async (pane: string, command: string) =>
        (await conn.client.callTool({
          name: "run_command",
          arguments: { pane_id: pane, command, timeout: 30 },
        }) as CallToolResult).structuredContent as Json;
      // Two megabytes of output in the first pane: its recording is cut at the total.
      first = await run(tmux.paneId, "head -c 2000000 /dev/zero | tr '\\0' x | fold -w 100");
      assertEquals(first.exit_status, 0);
      // A run in another pane makes no new recording, and the server says why once.
      other = await run(await tmux.newPane(), "echo after");
      await run(tmux.paneId, "echo again");
    } finally {
      // The session's end writes what its recordings hold.
      await conn.close();
    }
    assertEquals([other.exit_status, other.recording], [0, undefined]);
    const said = conn.stderr().split("\n").filter((line) => line.includes("--record-max-mb"));
    assertEquals(said.length, 1, conn.stderr());
    assertEquals([...Deno.readDirSync(dir)].length, 1);
    const cast = await Deno.readTextFile(first.recording as string);
    assert(cast.length <= 1024 * 1024 + 512, `${cast.length} bytes`);
    const last = JSON.parse(cast.trimEnd().split("\n").at(-1)!);
    assertEquals(last.slice(1), [
      "m",
      "recording cut: this server's recordings reached their total (1 MiB, --record-max-mb)",
    ]);
  } finally {
    await tmux.close();
    await Deno.remove(dir, { recursive: true });
  }
});
