/**
 * What every tool handler is given: the server's settings and the shared tmux state.
 *
 * @module
 */

import type { TmuxClient, TmuxSocket } from "../tmux/mod.ts";
import type { ToolPolicy } from "./policy.ts";

/** Server-wide settings, from flags (and environment variables where permitted). */
export interface ServerConfig {
  /** Default tmux `-L` socket name; null: tmux's own default. */
  socketName: string | null;
  /** Ceiling for any wait, in seconds (1 to 600). */
  waitMaxSeconds: number;
  /** Default for run_command's suppress_history. */
  suppressHistory: boolean;
  /** Which tools are offered. */
  policy: ToolPolicy;
  /** The pane this server runs in, when known (`$TMUX_PANE`, if readable): never killed. */
  ownPane: string | null;
  /** Log each tool call as a JSON line on stderr. */
  audit: boolean;
  /** Use a persistent tmux control client per socket. */
  control: boolean;
}

/** Shared by the tools of every MCP session this process serves. */
export interface ToolContext {
  config: ServerConfig;
  /** The process's one tmux client. */
  tmux: TmuxClient;
  /** The names of the tools offered: the policy applied once, at start. */
  offered: ReadonlySet<string>;
}

/** The socket a call talks to: its own `socket_name`, else the server default. */
export function socketOf(context: ToolContext, socketName?: string | null): TmuxSocket {
  return context.tmux.socket(socketName ?? context.config.socketName);
}

/** Seconds actually enforced for a requested wait. */
export function clampTimeout(context: ToolContext, seconds: number): number {
  return Math.min(seconds, context.config.waitMaxSeconds);
}
