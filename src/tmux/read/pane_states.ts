/**
 * Every pane's state in one call, for a person or agent supervising many: the program in front,
 * whether it waits for input (the kernel's word, one look for all panes), a full screen, a
 * person's client, and what an agent in the pane reported through its hook lines (see
 * agent_report.ts), or, with none, what the look infers. One tmux command lists the panes and
 * clients; one more looks at all of them (a shell on tmux's host for up to 40 panes).
 *
 * @module
 */

import { listPanesAndClients, type Pane, type PaneFilter } from "../objects/objects.ts";
import { classifyProcess } from "../shells.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import {
  AGENT_MESSAGE_OPTION,
  AGENT_OPTION,
  agentMessage,
  type AgentState,
  parseAgentMark,
  type WaitReason,
} from "./agent_report.ts";
import { lookAtPanes, type LookAtPanesOptions } from "./wait/input_wait.ts";

/** What an agent in a pane does, as it reported it or as the look infers it. */
export interface AgentReport {
  /** working, waiting (for its person) or done (its turn ended). */
  state: AgentState;
  /** Why it waits: permission, question, idle or input; null otherwise. */
  reason: WaitReason | null;
  /** What it said (its notification, its last answer), cut; null when none. */
  message: string | null;
  /** Seconds since it reported it; null when inferred. */
  age_seconds: number | null;
  /** When it reported it, in seconds since the epoch by the tmux server's clock; null: inferred. */
  since: number | null;
  /** reported: its hook lines said so; inferred: the kernel's look at a program with none. */
  source: "reported" | "inferred";
}

/** One pane's state. */
export interface PaneState {
  /** The program in front (tmux's pane_current_command). */
  program: string;
  /** It waits for terminal input, as the kernel tells it; null: it cannot be told here. */
  waits_for_input: boolean | null;
  /** A full-screen program (the alternate screen). */
  full_screen: boolean;
  /** A person's client: typing in this pane (a key in the last 2 s), attached to its session. */
  person: "typing" | "attached" | null;
  /** The agent in the pane; null: a shell at its prompt, or a pane that cannot be told. */
  agent: AgentReport | null;
  /** It waits for whoever drives it: an agent waiting or done, or a program waiting for input. */
  needs_you: boolean;
}

/** A pane with its state. */
export type PaneWithState = Pane & { state: PaneState };

/** A key this recent (seconds) is a person typing. */
const TYPING_S = 2;

const EXTRA = ["pane_tty", AGENT_OPTION, AGENT_MESSAGE_OPTION] as const;

/** Which panes {@linkcode paneStates} tells of: those {@linkcode PaneFilter} keeps, or some of them. */
export interface PaneStateFilter extends PaneFilter {
  /** Only these panes (ids like %3). */
  paneIds?: readonly string[];
}

/**
 * Every pane in scope (or those of a session, a window, a list), each with its state; with
 * `kernel` false, the agents' reports alone (whether a program waits is not looked at).
 */
export async function paneStates(
  socket: TmuxSocket,
  filter: PaneStateFilter = {},
  options: LookAtPanesOptions = {},
): Promise<PaneWithState[]> {
  const listed = await listPanesAndClients(socket, filter, EXTRA);
  const clients = listed.clients;
  const panes = filter.paneIds === undefined
    ? listed.panes
    : listed.panes.filter(({ pane }) => filter.paneIds!.includes(pane.pane_id));
  const marks = new Map(
    panes.map(({ pane, extra }) => [pane.pane_id, parseAgentMark(extra[AGENT_OPTION])]),
  );
  const looks = panes.length === 0 ? new Map() : await lookAtPanes(
    socket,
    panes.filter(({ pane }) => !pane.pane_dead).map(({ pane, extra }) => ({
      paneId: pane.pane_id,
      tty: extra.pane_tty,
      pid: pane.pane_pid,
      claimedPid: marks.get(pane.pane_id)?.pid,
    })),
    options,
  );
  const now = Math.floor(Date.now() / 1000);
  const people = clients.filter((client) => client.person);
  return panes.map(({ pane, extra }) => {
    const look = looks.get(pane.pane_id);
    const mark = marks.get(pane.pane_id) ?? null;
    const shell = classifyProcess(pane.pane_current_command) !== "other";
    const waits = look?.waiting ?? null;
    let agent: AgentReport | null = null;
    if (mark !== null && look?.claimedLives === true) {
      agent = {
        state: mark.state,
        reason: mark.reason,
        message: mark.state === "working" ? null : agentMessage(extra[AGENT_MESSAGE_OPTION]),
        age_seconds: Math.max(0, now - mark.since),
        since: mark.since,
        source: "reported",
      };
    } else if (!shell && !pane.pane_dead && waits !== null) {
      agent = {
        state: waits ? "waiting" : "working",
        reason: waits ? "input" : null,
        message: null,
        age_seconds: null,
        since: null,
        source: "inferred",
      };
    }
    const typing = people.some((client) =>
      client.pane_id === pane.pane_id && now - client.activity <= TYPING_S
    );
    const attached = people.some((client) => client.session_id === pane.session_id);
    return {
      ...pane,
      state: {
        program: pane.pane_current_command,
        waits_for_input: waits,
        full_screen: pane.alternate_on,
        person: typing ? "typing" : attached ? "attached" : null,
        agent,
        needs_you: agent !== null && agent.state !== "working",
      },
    };
  });
}
