/**
 * Resources: read-only views on the server's default socket.
 *
 * @module
 */

import { type McpServer, resourceTemplate } from "../deps.ts";
import {
  capturePane,
  checkId,
  checkInScope,
  DEFAULT_BUDGET,
  followAgentReports,
  getPane,
  listSessions,
  listWindows,
  paneStates,
  type PaneWithState,
  sessionIdByName,
  type TmuxSocket,
} from "../tmux/mod.ts";
import {
  jsonContents as json,
  paneText,
  renderPaneText,
  socketOf,
  templateValue as one,
  type ToolContext,
} from "./define/mod.ts";

/** The panes whose agent reported waiting or done (see docs/agents.md): subscribe to be told. */
const AGENTS_URI = "tmux://agents";

/** What the agents' resource says of the panes that need their caller. */
function needing(panes: readonly PaneWithState[]): Array<Record<string, unknown>> {
  return panes.map((pane) => ({ pane_id: pane.pane_id, ...pane.state.agent }));
}

/**
 * Registers the agents' resource: a read tells which panes' agents reported waiting or done; a
 * subscription is told each time that changes (an update, and a channel event where the client
 * takes them), until the session closes.
 */
function registerAgentsResource(server: McpServer, context: ToolContext, socket: TmuxSocket): void {
  const push = context.push;
  server.registerResource("agents", AGENTS_URI, {
    title: "Panes whose agent needs you",
    description: "The panes whose agent reported waiting or done through its hook lines " +
      "(docs/agents.md); subscribe to be told as that changes.",
    mimeType: "application/json",
  }, async (uri) => {
    const panes = await paneStates(socket, {}, { kernel: false });
    return json(uri, { panes: needing(panes.filter((pane) => pane.state.needs_you)) });
  });
  push?.onSubscribe(AGENTS_URI, () => {
    followAgentReports(socket, {
      signal: push.closed,
      async changed(panes) {
        await push.updated(AGENTS_URI);
        const told = panes.map((pane) => `${pane.pane_id} ${pane.state.agent?.state}`).join(", ");
        await push.event(`agents needing you: ${told || "none"}`, { uri: AGENTS_URI });
      },
    });
  });
}

/** Registers the resources. */
export function registerResources(server: McpServer, context: ToolContext): void {
  const socket = socketOf(context, {});
  server.registerResource("capabilities", "tmux://capabilities", {
    title: "What this server offers",
    description: "Safety tier, toolsets on and available, tools in force, wait ceiling and " +
      "default socket.",
    mimeType: "application/json",
  }, (uri) =>
    json(uri, {
      safety: context.config.policy.tier,
      toolsets: context.config.policy.toolsets,
      // What --toolsets can turn on, with the tools each would add within this tier.
      toolsets_available: context.available,
      tools: [...context.offered],
      excluded: context.config.policy.exclude,
      wait_max_seconds: context.config.waitMaxSeconds,
      socket_name: context.config.socketName,
    }));
  server.registerResource("sessions", "tmux://sessions", {
    title: "Sessions",
    description: "Every session on the default socket.",
    mimeType: "application/json",
  }, async (uri) => json(uri, await listSessions(socket)));
  server.registerResource(
    "session",
    resourceTemplate("tmux://sessions/{name}"),
    {
      title: "A session",
      description: "One session (by exact name) with its windows.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const id = await sessionIdByName(socket, one(variables.name));
      await checkInScope(socket, id);
      const session = (await listSessions(socket)).find((s) => s.session_id === id);
      const windows = (await listWindows(socket)).filter((w) => w.session_id === id);
      return json(uri, { session, windows });
    },
  );
  server.registerResource(
    "pane",
    resourceTemplate("tmux://panes/{pane_id}"),
    {
      title: "A pane",
      description: "One pane's state (pane_id like %3, URL-encoded %253).",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const paneId = checkId("pane_id", one(variables.pane_id));
      await checkInScope(socket, paneId);
      return json(uri, await getPane(socket, paneId));
    },
  );
  server.registerResource(
    "pane_content",
    resourceTemplate("tmux://panes/{pane_id}/content"),
    {
      title: "A pane's screen",
      description: "The visible screen of one pane, as text.",
      mimeType: "text/plain",
    },
    async (uri, variables) => {
      const paneId = checkId("pane_id", one(variables.pane_id));
      await checkInScope(socket, paneId);
      const lines = await capturePane(socket, paneId, { start: 0, end: null });
      const text = renderPaneText(paneId, paneText(lines, DEFAULT_BUDGET));
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text }] };
    },
  );
  registerAgentsResource(server, context, socket);
}
