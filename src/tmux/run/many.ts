/**
 * One command in many panes: each pane gets a run of its own under the single-pane contract (its
 * nonce, its queue, its refusals, its record), a window of them in flight at once. One pane that
 * hangs, is busy or is gone never holds up the others.
 *
 * @module
 */

import type { PersonPolicy } from "../read/person.ts";
import { TmuxError, type TmuxErrorCode } from "../errors.ts";
import type { OutputBudget } from "../read/text/mod.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { hostName, socketKey } from "../transport/spawn/exec.ts";
import { listPanes } from "../objects/objects.ts";
import { checkId } from "../objects/target.ts";
import { runCommand } from "./runner.ts";
import type { Runner } from "./turn/mod.ts";
import type { RunResult } from "./base/mod.ts";

/** One pane of a fan-out: its `%N` id on a tmux server (of this host or another). */
export interface PaneTarget {
  /** The tmux server. */
  socket: TmuxSocket;
  /** The pane. */
  paneId: string;
}

/** Options for {@linkcode runMany}. */
export interface RunManyRequest {
  /** The tmux server of a window's or session's panes. */
  socket: TmuxSocket;
  /**
   * The panes: those listed (each once, on any servers), then every other pane of a window
   * and of a session (null: none).
   */
  panes: { targets: readonly PaneTarget[]; windowId: string | null; sessionId: string | null };
  /** The command, run in every pane. */
  command: string;
  /** Seconds each pane's run may take (already clamped). */
  timeout: number;
  /** Seconds the whole call may take: a pane whose turn comes later is not started. */
  deadline: number;
  /** Runs in flight at once. */
  concurrency: number;
  /** Start no more panes once one has failed (any end but exit status 0). */
  stopOnFailure: boolean;
  /**
   * What the results show in all: each pane's gets an even share (its `maxLines` as given when
   * `tailOnly`, a caller's per-pane count).
   */
  budget: OutputBudget;
  /** Keep the typed lines out of shell history. */
  suppressHistory: boolean;
  /** Leave the pager variables as the shells have them. */
  pagers: boolean;
  /** When a person may be typing in a pane; absent: refuse. */
  person?: PersonPolicy;
  /** Cancels the call: panes not started yet are not, runs in flight end as cancelled. */
  signal?: AbortSignal;
  /** Called as each pane's part ends, with how many have and how many there are. */
  onPaneDone?: (done: number, total: number, outcome: PaneOutcome) => void;
  /** Whose runs they are (see owner.ts); null or absent: anyone's. */
  owner?: string | null;
}

/** How one pane's part of the call went; `host`: the pane's, null for this machine's. */
export type PaneOutcome =
  & { paneId: string; host: string | null }
  & (
    | { kind: "ran"; result: RunResult }
    | { kind: "error"; code: TmuxErrorCode; message: string }
    | { kind: "skipped"; reason: string }
  );

/** Why a pane was never given its run. */
const SKIPPED = {
  deadline: "the call's deadline passed before this pane's turn",
  failure: "an earlier pane failed and stop_on_failure is set",
  cancelled: "the call was cancelled before this pane's turn",
};

/** The least of the output budget a pane's result gets, however many panes share it. */
const SHARE_MIN = { bytes: 512, lines: 4 };

/** Panes a call may name: a fan-out wider than this is refused. */
export const MANY_MAX = 256;

/** A pane as messages and results name it: `%3`, or `web1:%3` on a remote host. */
export function paneLabel(host: string | null | undefined, paneId: string): string {
  return host == null ? paneId : `${host}:${paneId}`;
}

/** A pane's key among a request's: its server and id. */
function targetKey(target: PaneTarget): string {
  return `${socketKey(target.socket)}\0${target.paneId}`;
}

/**
 * The panes a request names, checked: the listed ones well formed and each once, then a window's
 * and a session's panes (in tmux's order) not listed already.
 */
async function panesOf(request: RunManyRequest): Promise<PaneTarget[]> {
  const { panes, socket } = request;
  const targets = panes.targets.map((target) => ({
    ...target,
    paneId: checkId("pane_id", target.paneId),
  }));
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(targetKey(target))) {
      throw new TmuxError(
        "invalid_argument",
        `pane ${paneLabel(hostName(target.socket), target.paneId)} is named twice`,
      );
    }
    seen.add(targetKey(target));
  }
  const groups = [
    ...panes.windowId === null ? [] : [{ windowId: panes.windowId, sessionId: null }],
    ...panes.sessionId === null
      ? []
      : [{ windowId: null, sessionId: checkId("session_id", panes.sessionId) }],
  ];
  for (const filter of groups) {
    const listed = await listPanes(socket, filter);
    if (listed.length === 0) {
      throw new TmuxError("not_found", `no pane in ${filter.windowId ?? filter.sessionId}`);
    }
    for (const pane of listed) {
      const target = { socket, paneId: pane.pane_id };
      if (seen.has(targetKey(target))) continue;
      seen.add(targetKey(target));
      targets.push(target);
    }
  }
  if (targets.length > MANY_MAX) {
    throw new TmuxError(
      "invalid_argument",
      `${targets.length} panes: at most ${MANY_MAX} in one call`,
    );
  }
  return targets;
}

/**
 * Runs one command in every pane a request names, at most `concurrency` at a time, and returns
 * one outcome per pane, in the order given (a window's or session's in tmux's order).
 */
export async function runMany(runner: Runner, request: RunManyRequest): Promise<PaneOutcome[]> {
  const targets = await panesOf(request);
  const started = Date.now();
  const { maxBytes, maxLines, tailOnly } = request.budget;
  const budget: OutputBudget = {
    maxBytes: Math.max(SHARE_MIN.bytes, Math.floor(maxBytes / targets.length)),
    maxLines: tailOnly
      ? maxLines
      : Math.max(SHARE_MIN.lines, Math.floor(maxLines / targets.length)),
    tailOnly,
  };
  const ends = started + request.deadline * 1000;
  const outcomes: PaneOutcome[] = new Array(targets.length);
  let next = 0;
  let failed = false;
  const skipReason = (): string | null =>
    request.signal?.aborted
      ? SKIPPED.cancelled
      : failed
      ? SKIPPED.failure
      : Date.now() >= ends
      ? SKIPPED.deadline
      : null;
  let done = 0;
  const settle = (index: number, outcome: PaneOutcome): void => {
    outcomes[index] = outcome;
    request.onPaneDone?.(++done, targets.length, outcome);
  };
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const index = next++;
      const { socket, paneId } = targets[index];
      const pane = { paneId, host: hostName(socket) };
      const skip = skipReason();
      if (skip !== null) {
        settle(index, { ...pane, kind: "skipped", reason: skip });
        continue;
      }
      const startedAt = Date.now();
      try {
        const result = await runCommand(runner, {
          socket,
          paneId,
          command: request.command,
          // A run never outlasts the call's deadline.
          timeout: Math.min(request.timeout, Math.max(0.001, (ends - startedAt) / 1000)),
          budget,
          suppressHistory: request.suppressHistory,
          pagers: request.pagers,
          person: request.person,
          signal: request.signal,
          owner: request.owner,
        });
        if (result.exit_status !== 0) failed ||= request.stopOnFailure;
        settle(index, { ...pane, kind: "ran", result });
      } catch (error) {
        if (!(error instanceof TmuxError)) throw error;
        failed ||= request.stopOnFailure;
        settle(index, { ...pane, kind: "error", code: error.code, message: error.message });
      }
    }
  };
  const workers = Math.min(request.concurrency, targets.length);
  await Promise.all(Array.from({ length: workers }, worker));
  return outcomes;
}
