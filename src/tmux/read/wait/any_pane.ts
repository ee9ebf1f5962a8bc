/**
 * A wait for any of many panes to need their caller (see pane_states.ts): an agent that reported
 * waiting or done, a program waiting for input, the program in front ending, or a pattern on its
 * screen. Agents' hook lines signal tmux's channel `tmux_mcp_agent` as they set their state
 * (docs/agents.md), which wakes the wait at once; the panes are looked at again every 2 s for
 * the rest (the kernel's look at all of them in one command, their screens when patterns are
 * given).
 *
 * @module
 */

import { AGENT_CHANNEL, AGENT_OPTION, type AgentMark, parseAgentMark } from "../agent_report.ts";
import {
  type AgentReport,
  type PaneStateFilter,
  paneStates,
  type PaneWithState,
} from "../pane_states.ts";
import { runTmux } from "../../transport/control/command.ts";
import { lockKey } from "../../transport/spawn/exec.ts";
import { captureSince } from "../capture/capture_since.ts";
import { capturePane } from "../capture/capture.ts";
import { cutLine } from "../text/mod.ts";
import { classifyProcess } from "../../shells.ts";
import { BoundedMap } from "../../../util/mod.ts";
import { waitForChannel } from "../../objects/channels.ts";
import { TmuxError } from "../../errors.ts";
import type { TmuxSocket } from "../../transport/socket.ts";

/** How often the panes are looked at again with no agent's signal (ms). */
const LOOK_AGAIN_MS = 2000;

/** Options for {@linkcode waitForAnyPane}. */
export interface AnyPaneOptions extends PaneStateFilter {
  /** How long to wait, in ms. */
  timeoutMs: number;
  /** Only a pane whose state changed since the wait began counts (else one already waiting does). */
  onlyNew: boolean;
  /** A pane whose screen shows one of these (literal, case as given) needs its caller too. */
  patterns?: readonly string[];
  /** Cancels the wait. */
  signal?: AbortSignal;
}

/** Why a pane needs its caller. */
export type NeedReason = "agent" | "input" | "ended" | "pattern";

/** How a wait for any pane ended. */
export interface AnyPaneEnd {
  /** A pane needs its caller, or none did within the timeout. */
  outcome: "needs_you" | "timeout";
  /** The pane, with its state; null at a timeout. */
  pane: PaneWithState | null;
  /**
   * Why: its agent reported waiting or done, its program waits for input, the program that was in
   * front when the wait began ended, or its screen shows a pattern; null at a timeout.
   */
  why: NeedReason | null;
  /** The pattern its screen shows (why "pattern"), else null. */
  pattern: string | null;
  /**
   * What the pane wrote since the last wait of this process answered with it (its screen's last
   * lines the first time), at most {@linkcode TEXT_LINES_MAX} lines, the last ones.
   */
  text: string[];
  /** Panes waited on. */
  panes: number;
}

/** Lines of a pane's text an answer gives at most. */
export const TEXT_LINES_MAX = 40;

/** Where each pane's text was read up to by the last answer that named it. */
const readUpTo = new BoundedMap<string, string>(4096);

/** The pane's text since the last answer that named it, and where it now ends. */
async function newText(socket: TmuxSocket, paneId: string): Promise<string[]> {
  const key = lockKey(socket, paneId);
  const last = readUpTo.get(key);
  const since = await captureSince(socket, paneId, last ?? null);
  readUpTo.set(key, since.cursor);
  const lines = last !== undefined
    ? [...since.lines, since.current_line]
    : await capturePane(socket, paneId, { start: 0, end: null });
  while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
  return lines.slice(-TEXT_LINES_MAX).map((line) => cutLine(line, 2000).line);
}

/** What of a pane's state makes it new for `onlyNew`. */
function stateKey(pane: PaneWithState): string {
  const { agent } = pane.state;
  return `${pane.state.needs_you} ${agent?.state} ${agent?.reason} ${agent?.source} ${agent?.since}`;
}

/** Why the pane needs its caller by its state alone, or null. */
function stateReason(pane: PaneWithState): NeedReason | null {
  if (!pane.state.needs_you) return null;
  return pane.state.agent?.source === "reported" ? "agent" : "input";
}

/** Whether the program in front when the wait began (not a shell) has ended. */
function programEnded(pane: PaneWithState, first: PaneWithState | undefined): boolean {
  if (first === undefined || classifyProcess(first.state.program) !== "other") return false;
  return pane.pane_dead || pane.pane_pid !== first.pane_pid ||
    classifyProcess(pane.state.program) !== "other";
}

/** The first pattern the pane's screen shows, or null. */
async function patternShown(
  socket: TmuxSocket,
  paneId: string,
  patterns: readonly string[],
): Promise<string | null> {
  const screen = await capturePane(socket, paneId, { start: 0, end: null }).catch(() => []);
  return patterns.find((pattern) => screen.some((line) => line.includes(pattern))) ?? null;
}

/** Waits until any of the panes needs its caller (see the module doc), or the timeout. */
export async function waitForAnyPane(
  socket: TmuxSocket,
  options: AnyPaneOptions,
): Promise<AnyPaneEnd> {
  const end = Date.now() + options.timeoutMs;
  const patterns = options.patterns ?? [];
  let before: Map<string, string> | null = null;
  let first: Map<string, PaneWithState> | null = null;
  const shownBefore = new Set<string>();
  // Woken by an agent's signal, only the agents' reports are looked at (a ps for each live one),
  // unless the last look at every pane is LOOK_AGAIN_MS old.
  let woken = false;
  let lookedAt = 0;
  const answer = async (
    pane: PaneWithState,
    why: NeedReason,
    pattern: string | null = null,
  ): Promise<AnyPaneEnd> => {
    const text = await newText(socket, pane.pane_id).catch(() => []);
    return { outcome: "needs_you", pane, why, pattern, text, panes: first?.size ?? 1 };
  };
  for (;;) {
    const kernel = !woken || Date.now() - lookedAt >= LOOK_AGAIN_MS;
    if (kernel) lookedAt = Date.now();
    const panes = await paneStates(socket, options, { kernel });
    // A pane asked for and gone (or out of scope) is an error, not a pane that never needs you.
    const missing = options.paneIds?.filter((id) => !panes.some((pane) => pane.pane_id === id));
    if (missing !== undefined && missing.length > 0) {
      throw new TmuxError("not_found", `no such pane here: ${missing.join(" ")}`);
    }
    first ??= new Map(panes.map((pane) => [pane.pane_id, pane]));
    for (const pane of panes) {
      const why = stateReason(pane);
      if (
        why !== null &&
        (!options.onlyNew ||
          before?.has(pane.pane_id) && before.get(pane.pane_id) !== stateKey(pane))
      ) {
        return await answer(pane, why);
      }
      if (kernel && programEnded(pane, first.get(pane.pane_id))) return await answer(pane, "ended");
    }
    if (kernel && patterns.length > 0) {
      for (const pane of panes) {
        const shown = await patternShown(socket, pane.pane_id, patterns);
        // With onlyNew, a pattern its screen showed as the wait began does not count.
        if (
          shown !== null && !(options.onlyNew && (before === null || shownBefore.has(pane.pane_id)))
        ) {
          return await answer(pane, "pattern", shown);
        }
        if (shown !== null && before === null) shownBefore.add(pane.pane_id);
      }
    }
    // A pane that changed to a state that does not need its caller starts afresh; a look at the
    // reports alone knows nothing of the other panes.
    if (options.onlyNew && kernel) {
      before = new Map(panes.map((pane) => [pane.pane_id, stateKey(pane)]));
    }
    const left = end - Date.now();
    if (left <= 0) {
      return {
        outcome: "timeout",
        pane: null,
        why: null,
        pattern: null,
        text: [],
        panes: panes.length,
      };
    }
    const wait = Math.min(left, LOOK_AGAIN_MS) / 1000;
    woken =
      await waitForChannel(socket, AGENT_CHANNEL, { timeout: wait, signal: options.signal }) ===
        "signalled";
  }
}

/** The agent's mark in a pane as it stands (null: none, or not one a hook line writes). */
export async function agentMarkOf(socket: TmuxSocket, paneId: string): Promise<AgentMark | null> {
  const value = await runTmux(socket, [
    "show-options",
    "-p",
    "-q",
    "-v",
    "-t",
    paneId,
    AGENT_OPTION,
  ]);
  return parseAgentMark(value.replace(/\n$/, ""));
}

function sameMark(a: AgentMark | null, b: AgentMark | null): boolean {
  return a === b || a !== null && b !== null && a.state === b.state && a.pid === b.pid &&
      a.since === b.since && a.reason === b.reason;
}

/** Options for {@linkcode untilAgentReports}. */
export interface AgentReportWaitOptions {
  /** The mark before (read before the caller typed): a report must differ from it. */
  before: AgentMark | null;
  /** Ends the wait (it then answers null). */
  signal: AbortSignal;
}

/**
 * Waits until the agent in the pane reports waiting or done with a mark other than `before`, and
 * its process lives there; null when the pane is gone or `signal` ends the wait. Woken by the
 * agents' channel, and looked at every 2 s.
 */
export async function untilAgentReports(
  socket: TmuxSocket,
  paneId: string,
  options: AgentReportWaitOptions,
): Promise<AgentReport | null> {
  while (!options.signal.aborted) {
    let mark: AgentMark | null;
    try {
      mark = await agentMarkOf(socket, paneId);
    } catch (error) {
      if (error instanceof TmuxError && error.code === "not_found") return null;
      throw error;
    }
    if (mark !== null && mark.state !== "working" && !sameMark(mark, options.before)) {
      const [pane] = await paneStates(socket, { paneIds: [paneId] }, { kernel: false });
      if (pane === undefined) return null;
      if (pane.state.agent?.source === "reported") return pane.state.agent;
    }
    const timeout = LOOK_AGAIN_MS / 1000;
    if (
      await waitForChannel(socket, AGENT_CHANNEL, { timeout, signal: options.signal }).catch(() =>
        null
      ) === null
    ) {
      return null;
    }
  }
  return null;
}

/** Options for {@linkcode followAgentReports}. */
export interface FollowReportsOptions {
  /** Ends the following. */
  signal: AbortSignal;
  /** Called with the panes whose agent reported waiting or done, each time that set changes. */
  changed(panes: PaneWithState[]): Promise<void>;
}

/**
 * Follows the agents' reports (see docs/agents.md) until `signal`: woken by their channel, it
 * looks at the reports alone (a `ps` for each), and tells `changed` when the panes that need
 * their caller are others, or report anew. Nothing runs between reports but one `tmux wait-for`
 * this process shares.
 */
export async function followAgentReports(
  socket: TmuxSocket,
  options: FollowReportsOptions,
): Promise<void> {
  let told = "";
  while (!options.signal.aborted) {
    const woke = await waitForChannel(socket, AGENT_CHANNEL, {
      timeout: 600,
      signal: options.signal,
    })
      .catch(() => null);
    if (woke === null) return;
    if (woke === "timeout") continue;
    const panes = await paneStates(socket, {}, { kernel: false }).catch(() => null);
    if (panes === null) continue;
    const needing = panes.filter((pane) => pane.state.needs_you);
    const now = JSON.stringify(needing.map((pane) => [pane.pane_id, stateKey(pane)]));
    if (now === told) continue;
    told = now;
    await options.changed(needing).catch(() => {});
  }
}
