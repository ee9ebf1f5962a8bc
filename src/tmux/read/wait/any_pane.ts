/**
 * A wait for any of many panes to need their caller (see pane_states.ts): an agent that reported
 * waiting or done, or a program waiting for input. Agents' hook lines signal tmux's channel
 * `tmux_mcp_agent` as they set their state (docs/agents.md), which wakes the wait at once; the
 * kernel's look at programs with no hook lines is taken again every 2 s. One look a wake, at all
 * the panes together.
 *
 * @module
 */

import { AGENT_CHANNEL } from "../agent_report.ts";
import { type PaneStateFilter, paneStates, type PaneWithState } from "../pane_states.ts";
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
  /** Cancels the wait. */
  signal?: AbortSignal;
}

/** How a wait for any pane ended. */
export interface AnyPaneEnd {
  /** A pane needs its caller, or none did within the timeout. */
  outcome: "needs_you" | "timeout";
  /** The pane, with its state; null at a timeout. */
  pane: PaneWithState | null;
  /** Panes waited on. */
  panes: number;
}

/** What of a pane's state makes it new for `onlyNew`. */
function stateKey(pane: PaneWithState): string {
  const { agent } = pane.state;
  const age = agent?.age_seconds;
  const since = age === null || age === undefined ? "" : Math.floor(Date.now() / 1000) - age;
  return `${pane.state.needs_you} ${agent?.state} ${agent?.reason} ${agent?.source} ${since}`;
}

/** Waits until any of the panes needs its caller (see the module doc), or the timeout. */
export async function waitForAnyPane(
  socket: TmuxSocket,
  options: AnyPaneOptions,
): Promise<AnyPaneEnd> {
  const end = Date.now() + options.timeoutMs;
  let before: Map<string, string> | null = null;
  // Woken by an agent's signal, only the agents' reports are looked at (a ps for each live one),
  // unless the last look at every pane is LOOK_AGAIN_MS old.
  let woken = false;
  let lookedAt = 0;
  for (;;) {
    const kernel = !woken || Date.now() - lookedAt >= LOOK_AGAIN_MS;
    if (kernel) lookedAt = Date.now();
    const panes = await paneStates(socket, options, { kernel });
    // A pane asked for and gone (or out of scope) is an error, not a pane that never needs you.
    const missing = options.paneIds?.filter((id) => !panes.some((pane) => pane.pane_id === id));
    if (missing !== undefined && missing.length > 0) {
      throw new TmuxError("not_found", `no such pane here: ${missing.join(" ")}`);
    }
    const found = panes.find((pane) =>
      pane.state.needs_you &&
      (!options.onlyNew || before !== null && before.get(pane.pane_id) !== stateKey(pane))
    );
    if (found !== undefined) return { outcome: "needs_you", pane: found, panes: panes.length };
    // A pane that changed to a state that does not need its caller starts afresh; a look at the
    // reports alone knows nothing of the other panes.
    if (options.onlyNew && kernel) {
      before = new Map(panes.map((pane) => [pane.pane_id, stateKey(pane)]));
    }
    const left = end - Date.now();
    if (left <= 0) return { outcome: "timeout", pane: null, panes: panes.length };
    const wait = Math.min(left, LOOK_AGAIN_MS) / 1000;
    woken =
      await waitForChannel(socket, AGENT_CHANNEL, { timeout: wait, signal: options.signal }) ===
        "signalled";
  }
}
