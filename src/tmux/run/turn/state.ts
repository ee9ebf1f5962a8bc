/**
 * State shared by every call of one server: per-pane queues, calls given up on, and where the
 * last call's output ended.
 *
 * @module
 */

import { drainChannels } from "../../transport/spawn/waiter.ts";
import { runTmux } from "../../transport/control/command.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import { lockKey } from "../../transport/spawn/exec.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { acquire, createKeyedLock, type KeyedLock } from "../../lock.ts";
import { TmuxError } from "../../errors.ts";
import { restoreText } from "../../objects/activity_mark.ts";
import { queryPane } from "../../objects/target.ts";
import { type CallNames, markOutlivedShell, type Position, RUNNING_OPTION } from "../base/mod.ts";
import { type PaneShell, type RunFunction, runFunction } from "../line/mod.ts";
import { BoundedMap } from "../../../util/mod.ts";
import { OutputStore } from "../output/mod.ts";
import { RunList } from "./run_list.ts";
import type { Recordings } from "../../record/mod.ts";

/** State shared by all calls of one server: per-pane queues and leftovers of calls given up. */
export interface Runner {
  /** One run at a time per pane. */
  locks: KeyedLock;
  /**
   * Per pane, calls whose server waited on their channel and gave up (cancelled) while the command
   * ran: their trailer will still signal the channel and keep its option.
   */
  orphans: Map<string, CallNames[]>;
  /**
   * Per pane, runs whose call was cancelled while their command may still run. Their record lets
   * wait_for_command collect them, but only a later call's busy refusal names their run_id (the
   * cancelled call's answer reaches no one): one that ends unnamed has its record dropped.
   */
  cancelled: Map<string, CancelledRun[]>;
  /** Per pane, where the last finished call's output ended: until the cursor leaves that spot, the
   * shell has not drawn its prompt yet. */
  lastEnds: Map<string, Position>;
  /**
   * Per pane, until the shell of the last run read from the stream is done (its trailer's tmux
   * command has run): the next call waits for it rather than looking at the pane again and again.
   */
  settling: Map<string, Promise<void>>;
  /** Per pane, the run function its shell was given (`name:pane_pid`), so it is sent once. */
  functions: Map<string, string>;
  /** Per socket path, the run function (its digest is computed once). */
  definitions: Map<string, Promise<RunFunction>>;
  /** Shells looked at where a pane's command name does not tell (see `paneShell`). */
  shells: Map<string, PaneShell>;
  /** Runs' output kept for reading later (read_command_output, wait_for_command). */
  store: OutputStore;
  /** The runs this server started, as it last saw them (list_runs, their pushed ends). */
  runs: RunList;
  /** Recordings of the panes runs type into (`--record-dir`); null: none are made. */
  recordings: Recordings | null;
  /** Aborted by {@linkcode stopRunner}: every wait ends as if cancelled. */
  stop: AbortController;
  /** The calls in flight, ended when the server stops. */
  inFlight: Set<Promise<unknown>>;
  /**
   * Per pane, until when (ms since the epoch) a shell this server started there (a new session,
   * window or split, a respawn) may still be reading its startup files: a run waits for it.
   */
  starting: Map<string, number>;
}

/** A run whose call was cancelled while its command may still run (see `Runner.cancelled`). */
export interface CancelledRun {
  /** The run's names. */
  names: CallNames;
  /** Whether a busy refusal has named its run_id: then its record stays to be collected. */
  named: boolean;
}

/** Panes (or pane processes) each per-pane map remembers, the oldest going first. */
const PANES_REMEMBERED_MAX = 1024;

/** Makes the state shared by the calls of one server, recording into `recordings` if given. */
export function createRunner(recordings: Recordings | null = null): Runner {
  return {
    locks: createKeyedLock(),
    orphans: new Map(),
    cancelled: new BoundedMap(PANES_REMEMBERED_MAX),
    lastEnds: new BoundedMap(PANES_REMEMBERED_MAX),
    settling: new Map(),
    functions: new BoundedMap(PANES_REMEMBERED_MAX),
    definitions: new Map(),
    shells: new BoundedMap(PANES_REMEMBERED_MAX),
    store: new OutputStore(),
    runs: new RunList(),
    recordings,
    stop: new AbortController(),
    inFlight: new Set(),
    starting: new BoundedMap(PANES_REMEMBERED_MAX),
  };
}

/** How long a shell the server started may take to read its startup files, at most. */
export const SHELL_START_MS = 30_000;

/** Notes that a shell this server started in the pane may still be starting. */
export function shellStarting(runner: Runner, key: string): void {
  runner.starting.set(key, Date.now() + SHELL_START_MS);
}

/**
 * Ends every call in flight the way a cancellation does and waits for them, so a stopping server
 * leaves nothing behind in tmux.
 */
export async function stopRunner(runner: Runner): Promise<void> {
  runner.stop.abort();
  await Promise.allSettled([...runner.inFlight]);
}

/**
 * Remembers that a pane's shell was given a run function (a bounded map, oldest out first); null:
 * its shell is given none (a launcher runs its commands), so nothing changes.
 */
export function rememberFunction(runner: Runner, key: string, value: string | null): void {
  if (value !== null) runner.functions.set(key, value);
}

/** The run function for a socket path (its digest is computed once). */
export function functionFor(runner: Runner, socketPath: string): Promise<RunFunction> {
  let run = runner.definitions.get(socketPath);
  if (run === undefined) {
    run = runFunction(socketPath);
    runner.definitions.set(socketPath, run);
  }
  return run;
}

/**
 * Waits for the pane's turn, until `deadline` (ms since the epoch): its release, or a pane_busy
 * error (a cancelled one when `signal` aborted).
 */
export async function paneTurn(
  runner: Runner,
  key: string,
  wait: { paneId: string; deadline: number; signal?: AbortSignal },
): Promise<() => void> {
  const release = await acquire(runner.locks, key, wait);
  if (release !== null) return release;
  if (wait.signal?.aborted) throw new TmuxError("cancelled", "run_command was cancelled");
  throw new TmuxError(
    "pane_busy",
    `pane ${wait.paneId} was busy with another run_command for the whole timeout`,
  );
}

/**
 * Resolves once the pane's last run has settled: its shell finished the run's bookkeeping and is
 * drawing its prompt (bounded: see SETTLE_MS in follow.ts). A cursor taken before that would
 * count the prompt as new output, and text typed before it would be echoed where the prompt goes.
 */
export async function runSettled(
  runner: Runner,
  socket: TmuxSocket,
  paneId: string,
): Promise<void> {
  await runner.settling.get(lockKey(socket, paneId));
}

/** Remembers where a pane's last output ended, for the next call's wait for the prompt. */
export function rememberEnd(runner: Runner, key: string, end: Position): void {
  runner.lastEnds.set(key, { history: end.history, y: end.y, x: end.x });
}

/** A call in a pane, named by its nonce. */
export interface PaneCall {
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane. */
  paneId: string;
  /** The call's names (channel, markers, buffers). */
  names: CallNames;
}

/** Remembers a waited call given up on, whose trailer will still signal and keep its option. */
export function addOrphan(runner: Runner, call: PaneCall): void {
  const key = lockKey(call.socket, call.paneId);
  const list = runner.orphans.get(key) ?? [];
  runner.orphans.set(key, [...list, call.names]);
}

/**
 * Removes what a run left in its pane: its record and status option, and a signal pending on its
 * channel.
 */
export async function forgetRun(call: PaneCall): Promise<void> {
  const { socket, paneId, names } = call;
  await runTmux(socket, [
    ...["set-option", "-p", "-u", "-t", paneId, names.record, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.quietRecord, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option, THEN],
    // A title no trailer took back (its mark was cleared by another hand) goes with the run.
    ...["if-shell", "-F", "-t", paneId, `#{==:#{${RUNNING_OPTION}},}`, restoreText(paneId)],
  ]).catch(() => {});
  await drainChannels(socket, [names.channel]).catch(() => {});
}

/** Remembers a run whose call was cancelled while its command may still run. */
export function addCancelled(runner: Runner, call: PaneCall): void {
  const key = lockKey(call.socket, call.paneId);
  const list = runner.cancelled.get(key) ?? [];
  runner.cancelled.set(key, [...list, { names: call.names, named: false }]);
}

/** A busy refusal named the run holding the pane (its running mark): it may be collected. */
export function namedInRefusal(runner: Runner, key: string, mark: string): void {
  for (const run of runner.cancelled.get(key) ?? []) {
    if (mark.startsWith(`${run.names.channel}:`)) run.named = true;
  }
}

/**
 * Settles calls given up on in this pane. A waited call's whose command still runs is kept; one
 * whose trailer has run (it is no longer the pane's running mark), or whose shell is gone, has
 * its option removed and its signal drained. A cancelled run that ended without a refusal naming
 * it goes the same way, its record too: no one can learn its run_id any more.
 */
export async function sweepOrphans(
  runner: Runner,
  socket: TmuxSocket,
  paneId: string,
): Promise<void> {
  const key = lockKey(socket, paneId);
  const list = runner.orphans.get(key) ?? [];
  const cancelled = runner.cancelled.get(key) ?? [];
  if (list.length === 0 && cancelled.length === 0) return;
  runner.orphans.delete(key);
  runner.cancelled.delete(key);
  let state: Record<"pane_pid" | "pane_dead" | typeof RUNNING_OPTION, string>;
  try {
    state = await queryPane(socket, paneId, ["pane_pid", "pane_dead", RUNNING_OPTION]);
  } catch {
    return;
  }
  const mark = state[RUNNING_OPTION];
  const shellAlive = state.pane_dead !== "1" && !markOutlivedShell(mark, state.pane_pid);
  const runs = (names: CallNames) => shellAlive && mark.startsWith(`${names.channel}:`);
  const keep = list.filter(runs);
  const done = list.filter((names) => !keep.includes(names));
  if (keep.length > 0) runner.orphans.set(key, keep);
  const stillCancelled = cancelled.filter((run) => runs(run.names));
  if (stillCancelled.length > 0) runner.cancelled.set(key, stillCancelled);
  const unnamed = cancelled.filter((run) => !runs(run.names) && !run.named)
    .map((run) => run.names);
  if (done.length === 0 && unnamed.length === 0) return;
  await runTmux(
    socket,
    [
      ...done.flatMap((names) => ["set-option", "-p", "-u", "-t", paneId, names.option, THEN]),
      ...unnamed.flatMap((names) => [
        ...["set-option", "-p", "-u", "-t", paneId, names.record, THEN],
        ...["set-option", "-p", "-u", "-t", paneId, names.quietRecord, THEN],
        ...["set-option", "-p", "-u", "-t", paneId, names.option, THEN],
      ]),
    ].slice(0, -1),
  ).catch(() => {});
  const channels = [...done, ...unnamed].map((names) => names.channel);
  await drainChannels(socket, channels).catch(() => {});
}
