// One sequence of the randomized interruption test: a fresh pane running one shell, agent actions
// interleaved with faults, then the invariants every sequence must keep. See interruption_test.ts.

import type { CallToolResult } from "../deps.ts";
import type { Dialect } from "./dialects.ts";
import { type Connection, textOf } from "./mcp.ts";
import type { Random } from "./random.ts";
import type { TestSshd } from "./sshd.ts";
import type { TestTmux } from "./tmux.ts";
import { controlClients, signal } from "./processes.ts";

type Json = Record<string, unknown>;

/** Beyond its timeout, the most a call may take to answer. */
const MARGIN_MS = 2000;
/** The ceiling the server is started with (`--wait-max-seconds`): calls without a timeout. */
export const WAIT_MAX_SECONDS = 10;

/** Where a sequence runs: the server, the tmux its pane lives in, and the host to name. */
export interface World {
  conn: Connection;
  tmux: TestTmux;
  /** The declared remote host the pane is on (its tmux reached over ssh), or none: local. */
  host?: string;
  sshd?: TestSshd;
}

/** A run_command the sequence made, and what it was told about it. */
interface Run {
  word: string;
  runId: string | null;
  started: boolean | null | "cancelled";
  collected: boolean;
}

/** What one sequence keeps while it runs. */
interface State {
  world: World;
  rng: Random;
  shell: Dialect;
  pane: string;
  home: string;
  runs: Run[];
  log: string[];
  steps: number;
}

/** A failed invariant, with the steps that led to it. */
export class SequenceFailure extends Error {}

/** Waits `ms` milliseconds. */
export async function pause(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** How long the client waits for any answer before it gives up on a call. */
const NO_ANSWER_MS = 60_000;

/** Calls a tool, failing the sequence when the answer comes later than its deadline allows. */
export async function call(
  state: State,
  name: string,
  args: Json,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const host = state.world.host === undefined ? {} : { host: state.world.host };
  const started = Date.now();
  const result = await state.world.conn.client.callTool(
    { name, arguments: { ...host, ...("run_id" in args ? {} : { pane_id: state.pane }), ...args } },
    undefined,
    { signal, timeout: NO_ANSWER_MS },
  ).catch((error) => {
    // The client gave up on the call: a call that never answers fails its sequence.
    if (signal?.aborted === true) throw error;
    fail(state, `${name} got no answer in ${NO_ANSWER_MS} ms: ${error}`);
  }) as CallToolResult;
  const took = Date.now() - started;
  const seconds = typeof args.timeout === "number" ? args.timeout : WAIT_MAX_SECONDS;
  state.log.push(`  -> ${took} ms: ${textOf(result).split("\n")[0].slice(0, 160)}`);
  if (took > seconds * 1000 + MARGIN_MS) {
    fail(state, `${name} answered in ${took} ms, its timeout being ${seconds} s`);
  }
  return result;
}

function fail(state: State, message: string): never {
  throw new SequenceFailure(`${message}\nsteps:\n${state.log.join("\n")}`);
}

function command(state: State, word: string, kind: string): string {
  const append = state.shell.append(word, `${state.home}/ran`);
  if (kind === "fail") return `${append}; ${state.shell.fail}`;
  if (kind === "slow") return `${append}; ${state.shell.sleep(state.rng.int(2, 30) / 10)}`;
  return append;
}

/** Runs a command, recording what the result said about it. */
async function runCommand(state: State, timeout: number, signal?: AbortSignal): Promise<void> {
  const word = `w${state.rng.seed}x${state.steps}`;
  const kind = state.rng.pick(["quick", "fail", "slow"]);
  state.log.push(`run_command ${kind} ${word} timeout ${timeout}${signal ? " (cancelled)" : ""}`);
  const run: Run = { word, runId: null, started: "cancelled", collected: false };
  state.runs.push(run);
  try {
    const result = await call(state, "run_command", {
      command: command(state, word, kind),
      timeout,
    }, signal);
    const out = result.structuredContent as Json | undefined;
    if (out === undefined) return;
    run.runId = out.run_id as string | null;
    run.started = out.started as boolean | null;
    // A run that ended, or never started, has nothing left to collect.
    run.collected = out.timed_out !== true || run.started === false;
  } catch (error) {
    if (signal?.aborted !== true) throw error;
    state.log.push("  -> cancelled");
  }
}

/** Presses a key, or types text (`text`: always text, without Enter) and waits not to see it. */
async function sendKeys(state: State, text = false): Promise<void> {
  if (!text && state.rng.chance(0.7)) {
    const key = state.rng.pick(["C-c", "C-c", "Enter", "C-\\"]);
    state.log.push(`send_keys ${key}`);
    await call(state, "send_keys", { keys: [key] });
    return;
  }
  const typed = `typed${state.rng.seed}x${state.steps}`;
  const enter = !text && state.rng.chance(0.5);
  state.log.push(`send_keys text echo ${typed}${enter ? " + Enter" : ""}`);
  const sent = await call(state, "send_keys", { text: `echo ${typed}`, enter });
  if (!enter) {
    // What was typed is on the command line, not output: a wait for it must not find it there,
    // from now or from the cursor send_keys returned (taken before the text was typed).
    const cursor = (sent.structuredContent as Json | undefined)?.cursor;
    const from = typeof cursor === "string" && state.rng.chance(0.5) ? { cursor } : {};
    state.log.push(`wait_for_text ${typed}${"cursor" in from ? " from the send's cursor" : ""}`);
    const wait = await call(state, "wait_for_text", {
      // The typed line's end (a regular expression: `$` as text would match nothing).
      patterns: [`${typed}$`],
      regex: true,
      timeout: 0.5,
      ...from,
    });
    const out = wait.structuredContent as Json | undefined;
    if (out?.matched === true) fail(state, `wait_for_text matched the typed line ${typed}`);
  }
}

/** Waits for a run not collected yet; during an outage (`unreachable`) an error may say so. */
async function waitForCommand(state: State, unreachable = false): Promise<void> {
  const runs = state.runs.filter((run) => run.runId !== null && !run.collected);
  if (runs.length === 0) return;
  const run = state.rng.pick(runs);
  const timeout = state.rng.pick([0.1, 1, 3]);
  state.log.push(`wait_for_command ${run.word} timeout ${timeout}`);
  const result = await call(state, "wait_for_command", { run_id: run.runId, timeout });
  if (result.isError && unreachable) return;
  if (result.isError) fail(state, `wait_for_command on ${run.word}: ${textOf(result)}`);
  run.collected = (result.structuredContent as Json).timed_out !== true;
}

async function cancelled(state: State): Promise<void> {
  const controller = new AbortController();
  const after = state.rng.int(10, 600);
  setTimeout(() => controller.abort(), after);
  state.log.push(`(cancel after ${after} ms)`);
  await runCommand(state, 5, controller.signal);
}

/**
 * Stops the server's tmux clients while a call runs, then lets them go on: for a moment, or for
 * longer than any call's timeout and margin (a debugger, a loaded machine), which the call must
 * not wait out.
 */
async function stopClients(state: State): Promise<void> {
  const clients = await controlClients(state.world.conn.serverPid);
  const stopped = state.rng.chance(0.7) ? state.rng.int(300, 2500) : state.rng.int(6000, 8000);
  state.log.push(`SIGSTOP ${clients.length} clients for ${stopped} ms`);
  signal(clients, "SIGSTOP");
  const resume = pause(stopped).then(() => signal(clients, "SIGCONT"));
  try {
    await runCommand(state, state.rng.pick([0.5, 1, 3]));
  } finally {
    await resume;
  }
}

async function killClients(state: State): Promise<void> {
  const clients = await controlClients(state.world.conn.serverPid);
  state.log.push(`SIGKILL ${clients.length} clients`);
  signal(clients, "SIGKILL");
}

/** A call during an outage: run_command, or wait_for_command on a run not collected yet. */
async function callDuring(state: State): Promise<void> {
  const waiting = state.runs.some((run) => run.runId !== null && !run.collected);
  if (waiting && state.rng.chance(0.5)) return await waitForCommand(state, true);
  await runCommand(state, state.rng.pick([0.5, 2]));
}

async function dropLink(state: State, sshd: TestSshd): Promise<void> {
  const fault = state.rng.pick(["dropped", "down", "stalled"]);
  if (fault === "dropped") {
    state.log.push("ssh connections dropped");
    await sshd.dropConnections();
    return;
  }
  state.log.push(fault === "down" ? "host down during a call" : "host stalled during a call");
  await (fault === "down" ? sshd.down() : sshd.stall());
  try {
    await callDuring(state);
  } finally {
    await (fault === "down" ? sshd.up() : sshd.resume());
  }
}

/** One agent action or fault, chosen at random. */
export async function step(state: State): Promise<void> {
  state.steps++;
  if (state.rng.chance(0.5)) await pause(state.rng.int(0, 400));
  const roll = state.rng.next();
  if (roll < 0.3) return await runCommand(state, state.rng.pick([0.05, 0.3, 1, 5]));
  if (roll < 0.35) {
    // An agent's habit: the next line typed the moment a run's result is back.
    await runCommand(state, 5);
    return await sendKeys(state, true);
  }
  if (roll < 0.55) return await sendKeys(state);
  if (roll < 0.65) return await waitForCommand(state);
  if (roll < 0.75) return await cancelled(state);
  if (roll < 0.85) return await stopClients(state);
  const sshd = state.world.sshd;
  if (state.world.host !== undefined && sshd !== undefined && state.rng.chance(0.6)) {
    return await dropLink(state, sshd);
  }
  await killClients(state);
}

export type { Run, State };
