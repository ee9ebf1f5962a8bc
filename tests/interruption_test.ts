// The randomized interruption test. Each sequence starts one shell (any we support) in a fresh
// pane, maybe with a fault already in place (`set -e`, a program reading input, a startup file
// that stalls, a prompt drawn late), then interleaves agent actions (run_command with short
// timeouts, keys, text, waits, cancellations) with faults (the server's tmux clients stopped or
// killed, the ssh link dropped, the host down or stalled). After it, every sequence must keep
// the invariants: the pane's shell is the same process, the next run_command works at its
// prompt, no call answered later than its timeout plus 2 s, no command ran twice or ran after
// "not started", nothing of ours was read by a program, and run_command and wait_for_command
// agree on every run.
//
// Sequences are seeded: a failure prints its seed; TMUX_MCP_SEED=<seed> TMUX_MCP_SEQUENCES=1
// replays it. TMUX_MCP_SEQUENCES sets how many each transport runs (CI: the default below).

import { type Dialect, DIALECTS } from "./helpers/dialects.ts";
import {
  call,
  pause,
  SequenceFailure,
  type State,
  step,
  WAIT_MAX_SECONDS,
  type World,
} from "./helpers/interruption.ts";
import { withLab } from "./helpers/lab.ts";
import { startServer, textOf } from "./helpers/mcp.ts";
import { seededRandom } from "./helpers/random.ts";
import { controlClients, output, signal } from "./helpers/processes.ts";
import { installed, SSH, testNeeding } from "./helpers/prerequisites.ts";
import { startTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

// Every run draws fresh seeds, printed with its summary (and a failure's replay line), so each
// run looks somewhere new; TMUX_MCP_SEED=<seed> fixes them. `deno task interrupt` with
// TMUX_MCP_SEQUENCES and TMUX_MCP_KEEP_GOING surveys more.
const ASKED = Deno.env.get("TMUX_MCP_SEED") ?? "random";
const SEED = ASKED === "random" ? Math.floor(Math.random() * 1e9) : Number(ASKED);
if (!Number.isSafeInteger(SEED)) throw new Error(`TMUX_MCP_SEED must be a number: ${ASKED}`);
const SEQUENCES = Number(Deno.env.get("TMUX_MCP_SEQUENCES") ?? 6);
const KEEP_GOING = Deno.env.get("TMUX_MCP_KEEP_GOING") !== undefined;
const PRELUDES = ["none", "none", "set -e", "reader", "slow start", "slow prompt"] as const;

/** A prompt drawn 0.3 s after each command, as a `git status` in it does (bash and zsh). */
const SLOW_PROMPTS: Record<string, string> = {
  bash: "PROMPT_COMMAND='sleep 0.3'",
  zsh: "precmd() { sleep 0.3 }",
};

/** What the runs of one transport did, for the summary line. */
interface Tally {
  /** Sequences that failed, when TMUX_MCP_KEEP_GOING asks to run them all. */
  failures: string[];
  sequences: number;
  shells: Map<string, number>;
  events: Map<string, number>;
  checks: number;
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Starts the shell in a new pane (prelude applied) and returns the pane and its shell's pid. */
async function startPane(
  world: World,
  shell: Dialect,
  prelude: string,
  home: string,
): Promise<{ pane: string; pid: string }> {
  await shell.prepare?.(home);
  const start = prelude === "slow start" ? await shell.slowStart!(home, 3) : { args: shell.args };
  const env = Object.entries({
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    TERM: "tmux-256color",
    ...start.env,
  }).map(([name, value]) => `${name}=${quote(value)}`);
  const line = ["env", "-i", ...env, shell.program, ...start.args.map(quote)].join(" ");
  const pane = await world.tmux.newPane(line);
  const pid = (await world.tmux.run("display-message", "-p", "-t", pane, "#{pane_pid}")).trim();
  if (prelude === "slow start") {
    // Keys come while the startup file runs: a C-c before the shell has set its handler (the
    // first milliseconds of the process) would end it, as it ends any program.
    await until(`${shell.program} runs its startup file`, () => sleeping(pid));
    return { pane, pid };
  }
  await atPrompt(world, shell, pane, pid);
  if (prelude === "set -e" || prelude === "slow prompt") {
    const setting = prelude === "set -e" ? "set -e" : SLOW_PROMPTS[shell.program];
    await world.tmux.run("send-keys", "-t", pane, setting, "Enter");
  } else if (prelude === "reader") {
    await world.tmux.run("send-keys", "-t", pane, "-l", `sh -c 'cat >> ${home}/read'`);
    await world.tmux.run("send-keys", "-t", pane, "Enter");
    // Its cat, not just any child: a shell forks helpers of its own before it starts a line's
    // program (xonsh does), and a run typed meanwhile would reach the reader as its input.
    await until("the reader runs", async () => await readerCat(home) && !(await shellIdle(pid)));
  }
  return { pane, pid };
}

/** The reader's `sh -c 'cat >> read'` processes (its cat's arguments do not name the file). */
async function readers(home: string): Promise<string[]> {
  return (await output("pgrep", ["-f", `cat >> ${home}/read`])).split("\n")
    .filter((line) => line !== "");
}

/** Whether the sequence's reader has started its cat. */
async function readerCat(home: string): Promise<boolean> {
  for (const reader of await readers(home)) {
    if ((await output("pgrep", ["-P", reader, "-x", "cat"])).trim() !== "") return true;
  }
  return false;
}

/** Whether a process has a `sleep` of its own running (its startup file's). */
async function sleeping(pid: string): Promise<boolean> {
  return (await output("pgrep", ["-P", pid, "-x", "sleep"])).trim() !== "";
}

/**
 * Whether the shell holds its terminal with nothing of its own running there: no process is in
 * the terminal's foreground group but the shell (a background job, like fish's completion
 * generator on a first start, does not count; xonsh may leave the group of a job it interrupted).
 */
async function shellIdle(pid: string): Promise<boolean> {
  const rows = (await output("ps", ["-A", "-o", "pid=,pgid=,tpgid="]))
    .trim().split("\n").map((row) => row.trim().split(/\s+/));
  const foreground = rows.find((row) => row[0] === pid)?.[2];
  return foreground !== undefined &&
    rows.every((row) => row[0] === pid || row[1] !== foreground);
}

async function atPrompt(world: World, shell: Dialect, pane: string, pid: string): Promise<void> {
  await until(`${shell.program} shows a prompt`, async () => {
    const shown = await world.tmux.run(
      "display-message",
      "-p",
      "-t",
      pane,
      "#{pane_current_command}",
    );
    const screen = await world.tmux.run("capture-pane", "-p", "-t", pane);
    return shown.trim() === shell.shown && screen.trim() !== "" &&
      await shellIdle(pid);
  });
}

/** Brings the pane back to its shell's prompt as a user would: C-c until nothing runs there. */
async function backToPrompt(state: State, pid: string): Promise<void> {
  signal(await controlClients(state.world.conn.serverPid), "SIGCONT");
  // The reader the sequence started ends as its user would end it (xonsh has its C-c ignored):
  // its cat first, then its sh.
  const started = await readers(state.home);
  for (const reader of started) await output("pkill", ["-P", reader]);
  for (const reader of started) await output("kill", [reader]);
  // The pane goes with its shell: that fails the sequence, not the harness.
  const tmux = (...args: string[]) =>
    state.world.tmux.run(...args).catch(() => {
      throw new SequenceFailure(`the pane's shell exited\nsteps:\n${state.log.join("\n")}`);
    });
  const idle = async () =>
    (await tmux("display-message", "-p", "-t", state.pane, "#{pane_current_command}")).trim() ===
      state.shell.shown && await shellIdle(pid);
  for (let i = 0; i < 40; i++) {
    // Idle at two looks apart: lines typed while the shell started (withdrawn ones too) run
    // one after another, the shell idle for a moment between them.
    if (await idle() && await pause(500).then(idle)) return;
    await tmux("send-keys", "-t", state.pane, "C-c");
    await pause(250);
  }
  const screen = await tmux("capture-pane", "-p", "-t", state.pane);
  const processes = await output("ps", ["-o", "pid,ppid,stat,args", "--ppid", pid, "-p", pid]);
  throw new SequenceFailure(
    `the pane never came back to its shell\n${screen.trimEnd()}\n${processes}\n` +
      state.log.join("\n"),
  );
}

/** The invariants after a sequence; returns how many it checked. */
async function check(state: State, pid: string): Promise<number> {
  const fail = (message: string): never => {
    throw new SequenceFailure(`${message}\nsteps:\n${state.log.join("\n")}`);
  };
  await backToPrompt(state, pid);
  const now = await state.world.tmux.run("display-message", "-p", "-t", state.pane, "#{pane_pid}");
  if (now.trim() !== pid) fail(`the pane's shell was replaced: ${pid} is now ${now.trim()}`);

  const word = `final${state.rng.seed}`;
  const final = await call(state, "run_command", {
    command: state.shell.append(word, `${state.home}/ran`),
    timeout: 5,
  });
  const out = (final.structuredContent ?? {}) as Json;
  if (out.exit_status !== 0) {
    const busy = /run_id[= ]([^ )]+)/.exec(textOf(final))?.[1];
    const wait = busy === undefined
      ? ""
      : `; wait_for_command on it: ${
        textOf(await call(state, "wait_for_command", { run_id: busy, timeout: 1 }))
      }`;
    const screen = await state.world.tmux.run("capture-pane", "-p", "-t", state.pane);
    fail(`the next run_command at the prompt failed: ${textOf(final)}${wait}\n${screen.trimEnd()}`);
  }
  for (const run of state.runs) {
    if (run.runId === null || run.collected) continue;
    const collected = await call(state, "wait_for_command", { run_id: run.runId, timeout: 5 });
    const done = collected.structuredContent as Json | undefined;
    if (collected.isError || done?.timed_out !== false) {
      fail(`wait_for_command on ${run.word}, its shell at the prompt: ${textOf(collected)}`);
    }
  }
  const ran = (await Deno.readTextFile(`${state.home}/ran`).catch(() => "")).split("\n");
  for (const run of state.runs) {
    const times = ran.filter((line) => line === run.word).length;
    if (times > 1) fail(`${run.word} ran ${times} times`);
    if (run.started === false && times > 0) fail(`${run.word} ran after "not started"`);
  }
  if (!ran.includes(word)) fail("the final command did not run");
  const read = await Deno.readTextFile(`${state.home}/read`).catch(() => "");
  const ours = state.runs.find((run) => read.includes(run.word));
  if (read.includes("tmux_mcp") || ours !== undefined) {
    fail(`a program read what run_command typed: ${JSON.stringify(read.slice(0, 300))}`);
  }
  return 6 + state.runs.length * 2;
}

/** Runs one seeded sequence in a fresh pane. */
async function sequence(world: World, seed: number, shells: string[], tally: Tally): Promise<void> {
  const rng = seededRandom(seed);
  const name = rng.pick(shells);
  const shell = DIALECTS[name];
  const prelude = rng.pick(
    PRELUDES.filter((p) =>
      (p !== "set -e" || shell.posix) && (p !== "slow start" || shell.slowStart !== undefined) &&
      (p !== "slow prompt" || name in SLOW_PROMPTS)
    ),
  );
  const home = await Deno.makeTempDir({ prefix: "tmux-mcp-interrupt-" });
  const where = world.host ?? "local";
  let pane: string | null = null;
  try {
    const started = await startPane(world, shell, prelude, home);
    pane = started.pane;
    const pid = started.pid;
    const state: State = {
      world,
      rng,
      shell,
      pane,
      home,
      runs: [],
      log: [`seed ${seed}: ${name} on ${where}, ${prelude}`],
      steps: 0,
    };
    const steps = rng.int(3, 7);
    for (let i = 0; i < steps; i++) await step(state);
    tally.checks += await check(state, pid);
    tally.sequences++;
    count(tally.shells, name);
    count(tally.events, prelude);
    for (const line of state.log) {
      const event = /^(run_command|send_keys|wait_for_command|SIGSTOP|SIGKILL|ssh|host|\(cancel)/
        .exec(line)?.[1];
      if (event !== undefined) count(tally.events, event);
    }
  } catch (error) {
    if (error instanceof SequenceFailure) {
      error.message = `replay: TMUX_MCP_SEED=${seed} TMUX_MCP_SEQUENCES=1\n${error.message}`;
    }
    throw error;
  } finally {
    if (pane !== null) await world.tmux.run("kill-pane", "-t", pane).catch(() => {});
    await until(
      "the sequence's home is removed",
      () => Deno.remove(home, { recursive: true }).then(() => true, () => false),
    );
  }
}

function shellsHere(): string[] {
  const found: string[] = [];
  for (const [name, shell] of Object.entries(DIALECTS)) {
    if (installed(shell.program)) found.push(name);
  }
  return found;
}

/**
 * Runs `count` sequences from SEED on; with TMUX_MCP_KEEP_GOING set, a failed one is noted and
 * the rest still run (to survey what a seed range finds), and all failures are thrown at the end.
 */
async function sequences(
  world: World,
  count: number,
  shells: string[],
  tally: Tally,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    try {
      await sequence(world, SEED + i, shells, tally);
    } catch (error) {
      if (!KEEP_GOING || !(error instanceof SequenceFailure)) throw error;
      // The replay line, what failed, and the sequence's shell and prelude.
      const [replay, what, , setup] = error.message.split("\n");
      tally.failures.push([replay, what.slice(0, 300), setup].join("\n  "));
    }
  }
  if (tally.failures.length > 0) throw new Error(tally.failures.join("\n"));
}

function summary(where: string, tally: Tally): string {
  const list = (map: Map<string, number>) =>
    [...map].map(([key, value]) => `${key} ${value}`).join(", ");
  return `interruption (${where}, seeds ${SEED}..${SEED + SEQUENCES - 1}): ${tally.sequences} ` +
    `sequences, ${tally.checks} invariant checks\n  shells: ${list(tally.shells)}\n  ` +
    `events: ${list(tally.events)}`;
}

function newTally(): Tally {
  return { failures: [], sequences: 0, shells: new Map(), events: new Map(), checks: 0 };
}

const SERVER_ARGS = ["--wait-max-seconds", String(WAIT_MAX_SECONDS)];

Deno.test("randomized interruptions keep every invariant (local panes)", async () => {
  const shells = shellsHere();
  const tmux = await startTmux();
  const tally = newTally();
  try {
    const conn = await startServer("stdio", {
      socketName: tmux.socketName,
      extraArgs: SERVER_ARGS,
    });
    try {
      await sequences({ conn, tmux }, SEQUENCES, shells, tally);
    } finally {
      await conn.close();
    }
  } finally {
    await tmux.close();
    console.log(summary("local", tally));
  }
});

testNeeding(SSH, "randomized interruptions keep every invariant (panes over ssh)", async () => {
  const shells = shellsHere();
  const tally = newTally();
  try {
    await withLab({ extraArgs: SERVER_ARGS }, async ({ conn, remote, sshd }) => {
      const count = Math.max(1, Math.ceil(SEQUENCES / 2));
      await sequences({ conn, tmux: remote, host: "lab", sshd }, count, shells, tally);
    });
  } finally {
    console.log(summary("ssh", tally));
  }
});
