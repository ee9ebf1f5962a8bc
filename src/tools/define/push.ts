/**
 * What one session is told without a call, as it asked: resources it subscribed to, updated as
 * they change (`notifications/resources/updated`), and Claude Code channel events
 * (`notifications/claude/channel`) when its client declares the `claude/channel` capability, or
 * the operator turned them on for every client (`--channel-events`). Nothing else is pushed.
 *
 * @module
 */

import { handleSubscriptions, type McpServer, sendExtensionNotification } from "../../deps.ts";

/** How a session is told things. */
export interface SessionPush {
  /** Tells the session that `uri` changed, if it subscribed to it. */
  updated(uri: string): Promise<void>;
  /** Whether channel events reach this session's client. */
  channel(): boolean;
  /** Sends a channel event, if they reach the client; `meta` keys are identifiers. */
  event(content: string, meta: Record<string, string>): Promise<void>;
  /** Aborted when the session closes. */
  closed: AbortSignal;
  /** Calls `start` the first time the session subscribes to `uri` (a feed begins). */
  onSubscribe(uri: string, start: () => void): void;
}

/** The most subscriptions one session keeps. */
const SUBSCRIPTIONS_MAX = 1024;

/**
 * Declares, on a session's server before it connects, resource subscriptions and the
 * `claude/channel` capability, and returns how that session is told things. `channelEvents`:
 * channel events go to its client even if it does not declare the capability.
 */
export function sessionPush(
  server: McpServer,
  options: { channelEvents: boolean },
): SessionPush {
  const subscribed = new Set<string>();
  const starts = new Map<string, () => void>();
  handleSubscriptions(server, {
    subscribe(uri) {
      if (subscribed.size < SUBSCRIPTIONS_MAX) subscribed.add(uri);
      const start = starts.get(uri);
      starts.delete(uri);
      start?.();
    },
    unsubscribe(uri) {
      subscribed.delete(uri);
    },
  });
  server.server.registerCapabilities({ experimental: { "claude/channel": {} } });
  const closing = new AbortController();
  const closed = server.server.onclose;
  server.server.onclose = () => {
    closing.abort();
    closed?.();
  };
  const channel = () =>
    options.channelEvents ||
    server.server.getClientCapabilities()?.experimental?.["claude/channel"] !== undefined;
  return {
    async updated(uri) {
      if (subscribed.has(uri)) await server.server.sendResourceUpdated({ uri });
    },
    channel,
    async event(content, meta) {
      if (!channel()) return;
      await sendExtensionNotification(server, {
        method: "notifications/claude/channel",
        params: { content, meta },
      });
    },
    closed: closing.signal,
    onSubscribe(uri, start) {
      starts.set(uri, start);
    },
  };
}
