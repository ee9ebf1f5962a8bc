/**
 * A server started with `--granted-panes` acts only on panes a person granted (see
 * `tmux/objects/grants.ts`): a call that can change something, on a pane, window or session with
 * a pane not granted, asks the person through the client's prompt (MCP elicitation, when the
 * client offers it) and is refused with `out_of_scope` when they say no or cannot be asked.
 * Reading tools are not guarded. Every grant seen or given, and every one taken back, is in the
 * audit log (`--audit-log`).
 *
 * @module
 */

import {
  grant,
  type GrantedPane,
  type GrantReach,
  lockKey,
  panesGranted,
  parseRunId,
  TmuxError,
  type TmuxSocket,
} from "../../tmux/mod.ts";
import { BoundedMap } from "../../util/mod.ts";
import type { McpServer, RequestHandlerExtra } from "../../deps.ts";

/** Argument fields that name one pane, window or session by id. */
const NAMED = ["pane_id", "window_id", "session_id", "source_pane_id", "target_pane_id"] as const;

/** The person's answer to a prompt: what they grant, or null for no. */
export type GrantAnswer = GrantReach | null;

/** One call, as the grant guard sees it. */
export interface GrantCall {
  /** The tmux server the call acts on. */
  socket: TmuxSocket;
  /** The tool. */
  tool: string;
  /** The declared target, resolved (null: none). */
  target: string | null;
  /** The call's arguments. */
  args: Record<string, unknown>;
  /** Asks the person (undefined: the client cannot be asked). */
  ask?: (message: string, reaches: GrantReach[]) => Promise<GrantAnswer>;
  /** Writes an audit line (undefined: no audit log). */
  audit?: (entry: Record<string, unknown>) => void;
}

/** The answers a person's prompt offers, by what they grant. */
const CHOICES: Record<GrantReach | "no", string> = {
  pane: "yes, this pane",
  session: "yes, every pane of its session",
  no: "no",
};

/**
 * How a call asks the person, through the client's prompt (a form with one choice), in the
 * call's own request; undefined when the client offers no prompt.
 */
export function askPerson(
  server: McpServer,
  extra: RequestHandlerExtra,
): GrantCall["ask"] {
  if (server.server.getClientCapabilities()?.elicitation === undefined) return undefined;
  return async (message, reaches) => {
    const choices = [...reaches, "no"] as (GrantReach | "no")[];
    const result = await server.server.elicitInput({
      mode: "form",
      message,
      requestedSchema: {
        type: "object",
        properties: {
          grant: {
            type: "string",
            title: "Grant it to the agent?",
            enum: choices,
            enumNames: choices.map((choice) => CHOICES[choice]),
          },
        },
        required: ["grant"],
      },
    }, { signal: extra.signal, relatedRequestId: extra.requestId });
    const answer = result.action === "accept" ? result.content?.grant : undefined;
    return reaches.find((reach) => reach === answer) ?? null;
  };
}

/** Panes whose grant was last seen, to log when it changes. */
const seen = new BoundedMap<string, boolean>(4096);

/**
 * The prompts open now, by socket and target: calls on the same pane (or session) wait for the one
 * answer rather than stack a wall of dialogs a person might say yes to just to clear.
 */
const asking = new Map<string, Promise<GrantAnswer>>();

/** How long a person's "no" holds before a call on the same target may ask again. */
export const REFUSAL_HOLDS_MS = 60_000;

/** When a person last said no, by socket and target. */
const refused = new BoundedMap<string, number>(4096);

/** A pane a fan-out names: on the call's tmux server, or a declared host's. */
export interface FannedPane {
  /** The tmux server of the pane. */
  socket: TmuxSocket;
  /** The pane's id. */
  paneId: string;
}

/**
 * Throws `out_of_scope` unless every pane the call acts on is granted, or the person grants it:
 * its target and every pane, window, session or run it names. A fan-out's panes, each on its own
 * server, are checked by {@linkcode checkPanesGranted} once the handler has resolved them.
 */
export async function checkGrants(call: GrantCall): Promise<void> {
  const { socket, args } = call;
  if (args.scope === "server" || args.global === true) {
    throw new TmuxError(
      "out_of_scope",
      "the server's and the global options reach every pane, granted or not (--granted-panes)",
    );
  }
  const targets = new Set<string>();
  if (call.target !== null) targets.add(call.target);
  for (const field of NAMED) {
    if (typeof args[field] === "string") targets.add(args[field] as string);
  }
  const run = typeof args.run_id === "string" ? parseRunId(args.run_id) : null;
  if (run !== null) targets.add(run.paneId);
  for (const target of targets) await checkTarget(call, socket, target);
}

/** Throws `out_of_scope` unless every pane of a fan-out is granted, or the person grants it. */
export async function checkPanesGranted(
  call: Omit<GrantCall, "socket" | "target" | "args">,
  panes: readonly FannedPane[],
): Promise<void> {
  for (const pane of panes) await checkTarget(call, pane.socket, pane.paneId);
}

/** One target's panes granted, or granted now by the person, else `out_of_scope`. */
async function checkTarget(
  call: Omit<GrantCall, "socket" | "target" | "args">,
  socket: TmuxSocket,
  target: string,
): Promise<void> {
  const panes = await panesGranted(socket, target);
  for (const pane of panes) noteSeen(call, socket, pane);
  const missing = panes.filter((pane) => !pane.granted);
  if (missing.length === 0) return;
  const key = lockKey(socket, target);
  const said = refused.get(key);
  if (said !== undefined && Date.now() - said < REFUSAL_HOLDS_MS) {
    throw notGranted(target, missing, { said, asked: false });
  }
  let answer = asking.get(key);
  if (answer === undefined) {
    answer = askFor(call, socket, { target, missing }).finally(() => asking.delete(key));
    asking.set(key, answer);
  }
  const reach = await answer;
  if (reach === null) {
    if (call.ask === undefined) throw notGranted(target, missing, { said: null, asked: false });
    throw notGranted(target, missing, { said: refused.get(key) ?? Date.now(), asked: true });
  }
}

/** Logs a pane's grant when it differs from what was last seen (a binding's, the CLI's). */
function noteSeen(
  call: Pick<GrantCall, "audit">,
  socket: TmuxSocket,
  pane: GrantedPane,
): void {
  const key = lockKey(socket, pane.paneId);
  const before = seen.get(key);
  seen.set(key, pane.granted);
  if (before !== undefined && before !== pane.granted) {
    call.audit?.({ event: pane.granted ? "grant_seen" : "revoke_seen", pane_id: pane.paneId });
  }
}

/**
 * Asks the person for the panes of `target` not granted, and grants what they said yes to; null
 * when they said no (remembered, see {@linkcode REFUSAL_HOLDS_MS}) or cannot be asked.
 */
async function askFor(
  call: Omit<GrantCall, "socket" | "target" | "args">,
  socket: TmuxSocket,
  asked: { target: string; missing: GrantedPane[] },
): Promise<GrantAnswer> {
  const { target, missing } = asked;
  if (call.ask === undefined) return null;
  const reaches: GrantReach[] = target.startsWith("%") ? ["pane", "session"] : ["session"];
  const what = missing.length === 1
    ? missing[0].description
    : `${missing.length} panes of ${target}`;
  const answer = await call.ask(
    `The agent asks to use ${what} (${call.tool}). It may run programs and type there.`,
    reaches,
  );
  if (answer === null) {
    refused.set(lockKey(socket, target), Date.now());
    call.audit?.({ event: "grant_refused", target, tool: call.tool });
    return null;
  }
  await grant(socket, answer, answer === "pane" ? missing[0].paneId : missing[0].sessionId);
  call.audit?.({ event: "grant", by: "prompt", reach: answer, target, tool: call.tool });
  return answer;
}

function notGranted(
  target: string,
  missing: GrantedPane[],
  answer: { said: number | null; asked: boolean },
): TmuxError {
  const { said } = answer;
  const holds = said === null ? 0 : Math.ceil((said + REFUSAL_HOLDS_MS - Date.now()) / 1000);
  const no = said === null
    ? ""
    : answer.asked
    ? `: the person said no (not asked again for ${holds} s)`
    : `: the person said no ${
      Math.round((Date.now() - said) / 1000)
    } s ago, and is not asked again for ${holds} s`;
  return new TmuxError(
    "out_of_scope",
    `${missing[0].description}${missing.length > 1 ? ` and ${missing.length - 1} more` : ""} ` +
      `${missing.length > 1 ? "are" : "is"} not granted to the agent (--granted-panes)` +
      no + `; nothing was done to ${target}. A person ` +
      "grants a pane with the key binding in docs/security.md, `tmux-mcp grant <pane>`, or a yes to " +
      "the client's prompt; reading tools work everywhere",
  );
}
