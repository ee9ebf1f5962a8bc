/**
 * Resources (read-only views on the server's default socket) and prompts.
 *
 * @module
 */

import { type McpServer, ResourceTemplate, z } from "../deps.ts";
import {
  capturePane,
  checkId,
  getPane,
  listSessions,
  listWindows,
  sessionIdByName,
} from "../tmux/mod.ts";
import { socketFor, type ToolContext } from "./context.ts";
import { allowed } from "./policy.ts";
import type { AnyToolSpec } from "./define.ts";

function json(
  uri: URL,
  value: unknown,
): { contents: Array<{ uri: string; mimeType: string; text: string }> } {
  return {
    contents: [{
      uri: uri.href,
      mimeType: "application/json",
      text: JSON.stringify(value, null, 2),
    }],
  };
}

function one(value: string | string[]): string {
  return decodeURIComponent(Array.isArray(value) ? value[0] ?? "" : value);
}

/** Registers the resources. */
export function registerResources(
  server: McpServer,
  context: ToolContext,
  tools: AnyToolSpec[],
): void {
  const socket = socketFor(context, null);
  server.registerResource("capabilities", "tmux://capabilities", {
    title: "What this server offers",
    description: "Safety tier, tools in force, wait ceiling and default socket.",
    mimeType: "application/json",
  }, (uri) =>
    json(uri, {
      safety: context.config.policy.tier,
      tools: tools.filter((t) => allowed(t, context.config.policy)).map((t) => t.name),
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
    new ResourceTemplate("tmux://sessions/{name}", { list: undefined }),
    {
      title: "A session",
      description: "One session (by exact name) with its windows.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const id = await sessionIdByName(socket, one(variables.name));
      const session = (await listSessions(socket)).find((s) => s.session_id === id);
      const windows = (await listWindows(socket)).filter((w) => w.session_id === id);
      return json(uri, { session, windows });
    },
  );
  server.registerResource(
    "pane",
    new ResourceTemplate("tmux://panes/{pane_id}", { list: undefined }),
    {
      title: "A pane",
      description: "One pane's state (pane_id like %3, URL-encoded %253).",
      mimeType: "application/json",
    },
    async (uri, variables) =>
      json(uri, await getPane(socket, checkId("pane_id", one(variables.pane_id)))),
  );
  server.registerResource(
    "pane_content",
    new ResourceTemplate("tmux://panes/{pane_id}/content", { list: undefined }),
    {
      title: "A pane's screen",
      description: "The visible screen of one pane, as text.",
      mimeType: "text/plain",
    },
    async (uri, variables) => {
      const paneId = checkId("pane_id", one(variables.pane_id));
      const lines = await capturePane(socket, paneId, { start: 0, end: null });
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text: lines.join("\n") }] };
    },
  );
}

/** Registers the prompts. */
export function registerPrompts(server: McpServer): void {
  const text = (t: string) => ({
    messages: [{ role: "user" as const, content: { type: "text" as const, text: t } }],
  });
  server.registerPrompt("run_and_wait", {
    title: "Run a command and report",
    description: "Run a shell command in a pane with run_command and report its outcome.",
    argsSchema: { command: z.string(), pane_id: z.string().optional() },
  }, ({ command, pane_id }) =>
    text(
      `Use the run_command tool to run this command${pane_id ? ` in pane ${pane_id}` : ""}:\n\n` +
        `${command}\n\nThen report the exit status and the relevant part of the output. If it ` +
        "timed out, say so and check the pane with capture_pane before doing anything else.",
    ));
  server.registerPrompt("diagnose_failing_pane", {
    title: "Diagnose a failing pane",
    description: "Look at a pane's recent output and explain what went wrong.",
    argsSchema: { pane_id: z.string() },
  }, ({ pane_id }) =>
    text(
      `Pane ${pane_id} seems to have a problem. Use get_pane_info to see what runs there, then ` +
        "capture_pane with scrollback: true and max_lines: 200 to read its recent output. " +
        "Explain the first error you find, what likely caused it, and the command that would " +
        "fix or investigate it. Do not type anything into the pane.",
    ));
  server.registerPrompt("interrupt_gracefully", {
    title: "Stop what runs in a pane, gently",
    description: "Interrupt a pane's foreground program, escalating only as needed.",
    argsSchema: { pane_id: z.string() },
  }, ({ pane_id }) =>
    text(
      `Stop the program running in pane ${pane_id}, gently. Use send_keys with literal: false: ` +
        "first C-c, then wait_for_text for a shell prompt for a few seconds; if it is still " +
        "running, send C-c once more; then C-\\\\ (quit). For full-screen programs try q or " +
        "Escape first. Never kill the pane. Report what it took.",
    ));
}
