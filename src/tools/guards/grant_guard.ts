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

/** Throws `out_of_scope` unless every pane the call acts on is granted, or the person grants it. */
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
  // A fan-out's panes (a remote host's, `web1:%3`, are that host's to guard).
  for (const pane of Array.isArray(args.pane_ids) ? args.pane_ids : []) {
    if (typeof pane === "string" && pane.startsWith("%")) targets.add(pane);
  }
  for (const target of targets) {
    const panes = await panesGranted(socket, target);
    for (const pane of panes) noteSeen(call, pane);
    const missing = panes.filter((pane) => !pane.granted);
    if (missing.length === 0) continue;
    const answer = await askFor(call, target, missing);
    if (answer === null) throw notGranted(target, missing, call.ask !== undefined);
    await grant(socket, answer, answer === "pane" ? missing[0].paneId : missing[0].sessionId);
    call.audit?.({ event: "grant", by: "prompt", reach: answer, target, tool: call.tool });
  }
}

/** Logs a pane's grant when it differs from what was last seen (a binding's, the CLI's). */
function noteSeen(call: GrantCall, pane: GrantedPane): void {
  const key = lockKey(call.socket, pane.paneId);
  const before = seen.get(key);
  seen.set(key, pane.granted);
  if (before !== undefined && before !== pane.granted) {
    call.audit?.({ event: pane.granted ? "grant_seen" : "revoke_seen", pane_id: pane.paneId });
  }
}

/** The person's answer for the panes of `target` not granted; null when they cannot be asked. */
async function askFor(
  call: GrantCall,
  target: string,
  missing: GrantedPane[],
): Promise<GrantAnswer> {
  if (call.ask === undefined) return null;
  const reaches: GrantReach[] = target.startsWith("%") ? ["pane", "session"] : ["session"];
  const what = missing.length === 1
    ? missing[0].description
    : `${missing.length} panes of ${target}`;
  const answer = await call.ask(
    `The agent asks to use ${what} (${call.tool}). It may run programs and type there.`,
    reaches,
  );
  if (answer === null) call.audit?.({ event: "grant_refused", target, tool: call.tool });
  return answer;
}

function notGranted(target: string, missing: GrantedPane[], asked: boolean): TmuxError {
  return new TmuxError(
    "out_of_scope",
    `${missing[0].description}${missing.length > 1 ? ` and ${missing.length - 1} more` : ""} ` +
      `${missing.length > 1 ? "are" : "is"} not granted to the agent (--granted-panes)` +
      (asked ? ": the person said no" : "") + `; nothing was done to ${target}. A person ` +
      "grants a pane with the key binding in the README, `tmux-mcp grant <pane>`, or a yes to " +
      "the client's prompt; reading tools work everywhere",
  );
}
