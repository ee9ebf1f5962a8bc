/**
 * Assembles an MCP server from the tool groups.
 *
 * @module
 */

import {
  createMcpServer,
  type JsonSchemaValidatorProvider,
  type McpServer,
  type Transport,
} from "./deps.ts";
import { createTmuxClient, newOwner, TmuxError, tmuxVersion } from "./tmux/mod.ts";
import {
  availableToolsets,
  confinementParagraph,
  offeredTools,
  registerTools,
  type ServerConfig,
  type ToolContext,
} from "./tools/mod.ts";
import { INSTRUCTIONS, leanToolList, rejectUnknownTools } from "./mcp/mod.ts";
import { SERVER_INFO } from "./version.ts";

export type { ServerConfig, ToolContext } from "./tools/mod.ts";

/** Makes the state shared by every MCP session of one process. */
export function createToolContext(config: ServerConfig): ToolContext {
  return {
    config,
    // A readonly server attaches nothing to tmux: no focus events, no alert flags cleared.
    tmux: createTmuxClient({
      control: config.control,
      attach: config.policy.tier !== "readonly",
      tmpdir: config.tmuxTmpdir,
      remotes: config.remotes,
      ssh: config.ssh,
      remoteIdleMs: config.remoteIdleSeconds * 1000,
      scope: config.scope,
      showActivity: config.activityTitle,
      recordDir: config.recordDir,
      recordMaxBytes: config.recordMaxBytes,
    }),
    offered: offeredTools(config.policy),
    available: availableToolsets(config.policy),
    owner: null,
    push: null,
  };
}

/**
 * The SDK validates elicitation answers with a JSON Schema validator it builds (Ajv, about a
 * megabyte) for every server, one per session. This server's one question (a grant: an object of
 * string choices, tools/guards/grant_guard.ts) needs only this: each property one of its `enum`.
 */
const CHOICES_ONLY: JsonSchemaValidatorProvider = {
  getValidator<T>(schema: unknown) {
    const properties = (schema as { properties?: Record<string, { enum?: unknown[] }> })
      .properties ?? {};
    return (data: unknown) => {
      const answer = data as Record<string, unknown> | null;
      const valid = typeof answer === "object" && answer !== null &&
        Object.entries(properties).every(([key, property]) =>
          property.enum?.includes(answer[key]) ?? typeof answer[key] === "string"
        );
      return valid
        ? { valid: true as const, data: data as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: "not one of the choices" };
    };
  },
};

/**
 * Makes one MCP server (one per session) over a shared context and connects it to a transport,
 * which answers calls to tools the policy does not offer with a JSON-RPC error.
 */
export async function connectServer(
  context: ToolContext,
  transport: Transport,
): Promise<McpServer> {
  const server = createMcpServer(SERVER_INFO, {
    capabilities: { logging: {} },
    instructions: [INSTRUCTIONS, confinementParagraph(context.config)].filter(Boolean).join("\n\n"),
    jsonSchemaValidator: CHOICES_ONLY,
  });
  // A run belongs to the session that started it, unless the operator shares them.
  const owner = context.config.shareRuns ? null : newOwner();
  registerTools(server, { ...context, owner });
  await server.connect(rejectUnknownTools(leanToolList(transport), context.offered));
  // The session's recordings end with it.
  const closed = server.server.onclose;
  server.server.onclose = () => {
    context.tmux.endRecordings(owner).catch(() => {});
    closed?.();
  };
  return server;
}

/** Ends the calls in flight (cleanly, as cancellations) before the process exits. */
export async function stopToolContext(context: ToolContext): Promise<void> {
  await context.tmux.close();
}

/**
 * Checks at start that tmux can be run: a missing tmux is fatal (the message says so); a missing
 * permission is only reported, since every tool then answers with the flag to add.
 */
export async function checkTmux(): Promise<{ fatal: string | null; warning: string | null }> {
  try {
    await tmuxVersion();
    return { fatal: null, warning: null };
  } catch (error) {
    const message = error instanceof TmuxError ? error.message : String(error);
    return /not permitted/.test(message)
      ? { fatal: null, warning: message }
      : { fatal: message, warning: null };
  }
}
