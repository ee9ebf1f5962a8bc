/**
 * The runs a server started, as it last saw them (list_runs): running, waiting for input, or
 * ended with a status, collected or not; and the moment each ends, told to whoever listens (the
 * pushed end of a run). Bounded: the oldest ended runs go first.
 *
 * @module
 */

import { lookForInputWait } from "../../read/wait/input_wait.ts";
import { socketKey } from "../../transport/spawn/exec.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { mayCollect, nothingLeft, type RunEnd, type RunResult } from "../base/mod.ts";

/** Where a run stands. */
export type RunState = "running" | "waiting_for_input" | "may_start" | "ended";

/** A run as the list keeps it. */
export interface ListedRun {
  /** Its id, as run_command returned it. */
  run_id: string;
  /** Its pane. */
  pane_id: string;
  /** The command typed (never shown as it is: see list_runs). */
  command: string;
  /** Where it stands. */
  state: RunState;
  /** Its exit status once ended (null: still going, or ended with none). */
  exit_status: number | null;
  /** When its call began (ms since the epoch). */
  started_at: number;
  /** When this server saw it end (ms since the epoch), else null. */
  ended_at: number | null;
  /** A result carried its end (run_command's, or wait_for_command's). */
  collected: boolean;
  /** Bytes of output seen so far. */
  output_bytes: number;
  /** Whose run it is (see owner.ts); null: anyone's. */
  owner: string | null;
  /** The tmux server it ran on (its socket's key). */
  socket: string;
  /** The server follows its byte stream after its call: its end will be seen. */
  followed: boolean;
}

/** A run's end, as told to listeners. */
export interface RunEndEvent {
  /** The run as it ended. */
  run: Readonly<ListedRun>;
  /** It ended after its call returned (timed out, or waiting for input then): no result said so. */
  unanswered: boolean;
}

/** The most runs the list keeps. */
const RUNS_MAX = 256;

/** The status a trailer's end gives (none for a refusal). */
function statusOf(end: RunEnd | null | undefined): number | null {
  return end === null || end === undefined || end.kind === "refused" ? null : end.status;
}

/** The runs of one server process. */
export class RunList {
  #runs = new Map<string, ListedRun>();
  #listeners = new Set<(event: RunEndEvent) => void>();

  /** A run's call began. */
  begin(
    runId: string,
    run: { socket: TmuxSocket; paneId: string; command: string; owner: string | null },
  ): void {
    this.#runs.set(runId, {
      run_id: runId,
      pane_id: run.paneId,
      command: run.command,
      state: "running",
      exit_status: null,
      started_at: Date.now(),
      ended_at: null,
      collected: false,
      output_bytes: 0,
      owner: run.owner,
      socket: socketKey(run.socket),
      followed: false,
    });
    this.#trim();
  }

  /** A call's result (run_command's or wait_for_command's) says where the run stands. */
  answered(runId: string, result: RunResult): void {
    const run = this.#runs.get(runId);
    if (run === undefined) return;
    if (result.started === false) {
      this.#runs.delete(runId);
      return;
    }
    run.output_bytes = Math.max(run.output_bytes, result.output_total_bytes);
    run.followed = result.output_source === "stream";
    if (result.waiting_for_input) run.state = "waiting_for_input";
    else if (result.started === null) run.state = "may_start";
    else if (result.timed_out) run.state = "running";
    else {
      run.collected = true;
      this.#end(run, result.exit_status, false);
    }
    // Its run_id names nothing any more: nothing to list.
    if (nothingLeft(result)) this.#runs.delete(runId);
  }

  /** A call that threw: whatever it typed is not listed (a run it started is left to its pane). */
  drop(runId: string): void {
    this.#runs.delete(runId);
  }

  /** A followed run ended after its call: its trailer's status, and its output's size. */
  ended(runId: string, end: { end: RunEnd | null | undefined; bytes: number }): void {
    const run = this.#runs.get(runId);
    if (run === undefined || run.state === "ended") return;
    run.output_bytes = Math.max(run.output_bytes, end.bytes);
    this.#end(run, statusOf(end.end), true);
  }

  #end(run: ListedRun, status: number | null, unanswered: boolean): void {
    const seen = run.state === "ended";
    run.state = "ended";
    run.exit_status = status ?? run.exit_status;
    run.ended_at ??= Date.now();
    if (seen) return;
    for (const listener of this.#listeners) listener({ run: { ...run }, unanswered });
  }

  /** The runs `owner` may see on a tmux server, newest first. */
  list(socket: TmuxSocket, owner: string | null): ListedRun[] {
    const key = socketKey(socket);
    return [...this.#runs.values()]
      .filter((run) => run.socket === key && mayCollect(run.owner, owner))
      .reverse()
      .map((run) => ({ ...run }));
  }

  /** One run, when `owner` may see it. */
  get(runId: string, owner: string | null): ListedRun | undefined {
    const run = this.#runs.get(runId);
    return run !== undefined && mayCollect(run.owner, owner) ? { ...run } : undefined;
  }

  /** Marks a run seen waiting for input, or running again, by a look at its pane. */
  looked(runId: string, waiting: boolean): void {
    const run = this.#runs.get(runId);
    if (run === undefined || run.state === "ended") return;
    run.state = waiting ? "waiting_for_input" : "running";
  }

  /** Calls `listener` at every run's end; returns what stops it. */
  onEnd(listener: (event: RunEndEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Drops the oldest runs past the bound, ended ones first. */
  #trim(): void {
    if (this.#runs.size <= RUNS_MAX) return;
    const ended = [...this.#runs.values()].find((run) => run.state === "ended");
    const oldest = ended ?? this.#runs.values().next().value;
    if (oldest !== undefined) this.#runs.delete(oldest.run_id);
  }
}

/** The most running runs a listing looks at (one tmux command each). */
const LOOKS_MAX = 16;

/**
 * The runs `owner` may see on a tmux server, newest first, those still going (and followed, so an
 * end would have been seen) looked at: whether their program waits for terminal input, as the
 * kernel tells it.
 */
export async function listRuns(
  runs: RunList,
  request: { socket: TmuxSocket; owner: string | null },
): Promise<ListedRun[]> {
  const going = runs.list(request.socket, request.owner)
    .filter((run) => run.followed && run.state !== "ended" && run.state !== "may_start")
    .slice(0, LOOKS_MAX);
  await Promise.all(going.map(async (run) => {
    const told = await lookForInputWait(request.socket, run.pane_id).catch(() => null);
    if (told?.waiting != null) runs.looked(run.run_id, told.waiting);
  }));
  return runs.list(request.socket, request.owner);
}
