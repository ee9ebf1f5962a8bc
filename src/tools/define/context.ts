/**
 * What every tool handler is given: the server's settings and the shared tmux state.
 *
 * @module
 */

import {
  DEFAULT_BUDGET,
  LOCAL_HOST,
  type OutputBudget,
  type RemoteHost,
  type Scope,
  type SshOptions,
  type TmuxClient,
  type TmuxSocket,
} from "../../tmux/mod.ts";
import type { SessionPush } from "./push.ts";
import type { ToolPolicy } from "./policy.ts";

/** Server-wide settings, from flags (and environment variables where permitted). */
export interface ServerConfig {
  /** Default tmux `-L` socket name; null: tmux's own default. */
  socketName: string | null;
  /** Ceiling for any wait, in seconds (1 to 600). */
  waitMaxSeconds: number;
  /** Ceiling for the pane text one result shows, in bytes. */
  maxOutputBytes: number;
  /** Default for run_command's suppress_history. */
  suppressHistory: boolean;
  /** Every session may collect and read every run (else a run is its session's). */
  shareRuns: boolean;
  /** The tmux sessions calls may see and touch; null: all of them. */
  scope: Scope | null;
  /** Calls act only on panes a person granted (see tools/guards/grant_guard.ts). */
  grantedPanes: boolean;
  /** Which tools are offered. */
  policy: ToolPolicy;
  /** The pane this server runs in, when known (`$TMUX_PANE`, if readable): never killed. */
  ownPane: string | null;
  /** Log each tool call as a JSON line on stderr. */
  audit: boolean;
  /** Use a persistent tmux control client per socket. */
  control: boolean;
  /** A run shows itself in its pane's title while under way (see objects/activity_mark.ts). */
  activityTitle: boolean;
  /**
   * A run's end that no result told is pushed as a Claude Code channel event to every client;
   * else only to clients that declare the `claude/channel` capability.
   */
  channelEvents: boolean;
  /** Where the panes runs type into are recorded (asciicast files); null: not recorded. */
  recordDir: string | null;
  /** What the recordings hold together, in bytes (`--record-max-mb`). */
  recordMaxBytes: number;
  /** Calls may name another tmux server (`socket_name`); else every call uses `socketName`. */
  anySocket: boolean;
  /** The directory tmux keeps its sockets under (`TMUX_TMPDIR`); null: tmux's own choice. */
  tmuxTmpdir: string | null;
  /** Hosts whose tmux calls may reach over ssh (`host`), as the operator declared them. */
  remotes: RemoteHost[];
  /** How ssh reaches them. */
  ssh: SshOptions;
  /** How long a remote host may go unnamed before its ssh connection closes, in seconds. */
  remoteIdleSeconds: number;
}

/** Shared by the tools of every MCP session this process serves. */
export interface ToolContext {
  /** The server's settings. */
  config: ServerConfig;
  /** The process's one tmux client. */
  tmux: TmuxClient;
  /** The names of the tools offered: the policy applied once, at start. */
  offered: ReadonlySet<string>;
  /** The toolsets not on, with the tools each would add within the tier. */
  available: Readonly<Record<string, readonly string[]>>;
  /** The runs of the session these tools serve (null: runs are shared; see `newOwner`). */
  owner: string | null;
  /** How the session these tools serve is told things without a call (null: no session yet). */
  push: SessionPush | null;
}

/**
 * The socket a call talks to: on its `host` (default this machine), its own `socket_name`, else
 * the server's default (a remote host's declared socket).
 */
export function socketOf(
  context: ToolContext,
  args: { socketName?: string | null; host?: string | null },
): TmuxSocket {
  const host = args.host ?? LOCAL_HOST;
  const fallback = host === LOCAL_HOST ? context.config.socketName : null;
  return context.tmux.socket(args.socketName ?? fallback, host);
}

/**
 * How much pane text a call's result shows: `max_output_bytes` (default 16 KiB, at most the
 * server's ceiling) and either `max_lines` last lines or, by default, the first and last of 400.
 */
export function budgetOf(
  context: ToolContext,
  args: { max_output_bytes?: number | null; max_lines?: number | null },
): OutputBudget {
  const maxBytes = Math.min(
    args.max_output_bytes ?? DEFAULT_BUDGET.maxBytes,
    context.config.maxOutputBytes,
  );
  return args.max_lines == null
    ? { maxBytes, maxLines: DEFAULT_BUDGET.maxLines }
    : { maxBytes, maxLines: args.max_lines, tailOnly: true };
}

/** Seconds actually enforced for a requested wait. */
export function clampTimeout(context: ToolContext, seconds: number): number {
  return Math.min(seconds, context.config.waitMaxSeconds);
}
