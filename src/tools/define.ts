/**
 * How a tool is described once (tier, schemas, handler) and registered with the safety policy
 * applied: tools above the server's tier, or filtered out by name, are neither listed nor callable.
 *
 * @module
 */

import type {
  CallToolResult,
  McpServer,
  RequestHandlerExtra,
  ServerNotification,
  ServerRequest,
} from "../deps.ts";
import { z } from "../deps.ts";
import type { ToolContext } from "./context.ts";
import { allowed, type Tier } from "./policy.ts";
import { guarded } from "./errors.ts";
import { toHex } from "../hex.ts";

/** The MCP request context a handler gets (cancellation signal, progress token...). */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Everything about one tool. */
export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  tier: Tier;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Whether the tool reaches beyond tmux's own state (runs programs, types into shells). */
  openWorld?: boolean;
  /** Offered only when named by --tools or --with-tools (an alias for other clients). */
  optIn?: boolean;
  /** Whether it may destroy things (default: the destructive tier only). */
  destructive?: boolean;
  idempotent?: boolean;
  run(
    args: z.infer<z.ZodObject<I>>,
    context: ToolContext,
    extra: Extra,
  ): Promise<z.infer<z.ZodObject<O>>>;
  /** The short text block; default: compact JSON. */
  text?(result: z.infer<z.ZodObject<O>>): string;
  /** Marks a result as an error while still returning it as structured content. */
  failed?(result: z.infer<z.ZodObject<O>>): boolean;
}

/** Keeps a spec's types tied together (identity at run time). */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  spec: ToolSpec<I, O>,
): ToolSpec<I, O> {
  return spec;
}

/** A spec of any shape, as lists of tools hold them. */
// deno-lint-ignore no-explicit-any
export type AnyToolSpec = ToolSpec<any, any>;

const TEXT_MAX = 4000;

/** Registers a tool (when the policy allows it) with error mapping and structured output. */
/** What registerTool takes for a tool, besides its name and handler. */
interface ToolConfig {
  title: string;
  description: string;
  // deno-lint-ignore no-explicit-any
  inputSchema: z.ZodObject<any>;
  // deno-lint-ignore no-explicit-any
  outputSchema: z.ZodObject<any>;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

/** Each spec's schemas and annotations, built once per process, not once per HTTP session. */
const configs = new WeakMap<AnyToolSpec, ToolConfig>();

function configOf(spec: AnyToolSpec): ToolConfig {
  let config = configs.get(spec);
  if (config === undefined) {
    config = {
      title: spec.title,
      description: spec.description,
      inputSchema: z.strictObject(spec.input),
      outputSchema: z.object(spec.output),
      annotations: {
        title: spec.title,
        readOnlyHint: spec.tier === "readonly",
        destructiveHint: spec.destructive ?? spec.tier === "destructive",
        idempotentHint: spec.idempotent ?? spec.tier === "readonly",
        openWorldHint: spec.openWorld ?? false,
      },
    };
    configs.set(spec, config);
  }
  return config;
}

export function registerSpec(server: McpServer, spec: AnyToolSpec, context: ToolContext): void {
  if (!allowed(spec, context.config.policy)) return;
  server.registerTool(spec.name, configOf(spec), async (
    args: Record<string, unknown>,
    extra: Extra,
  ): Promise<CallToolResult> => {
    const started = Date.now();
    const result = await guarded(async () => {
      const value = await spec.run(args, context, extra);
      const text = spec.text ? spec.text(value) : JSON.stringify(value);
      return {
        isError: spec.failed?.(value) ?? false,
        content: [{
          type: "text",
          text: text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX)}...` : text,
        }],
        structuredContent: value,
      };
    });
    if (context.config.audit) await audit(spec.name, args, result, Date.now() - started);
    return result;
  });
}

/** Argument fields whose text is never logged, only its length and a hash. */
const REDACTED = ["command", "keys", "text"];
/** Argument fields logged as they are: ids and the socket. */
const LOGGED = ["pane_id", "window_id", "session_id", "socket_name"];

async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return toHex(new Uint8Array(hash).slice(0, 8));
}

/** One JSON line on stderr per call; command text is reduced to its length and a hash. */
async function audit(
  tool: string,
  args: Record<string, unknown>,
  result: CallToolResult,
  ms: number,
): Promise<void> {
  const entry: Record<string, unknown> = { time: new Date().toISOString(), tool };
  for (const field of LOGGED) if (typeof args[field] === "string") entry[field] = args[field];
  for (const field of REDACTED) {
    const value = args[field];
    if (typeof value === "string") {
      entry[field] = { length: value.length, sha256: await digest(value) };
    }
  }
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  entry.ok = !result.isError;
  if (result.isError) entry.code = /^[a-z_]+(?=:)/.exec(text)?.[0] ?? "error";
  entry.ms = ms;
  console.error(JSON.stringify(entry));
}
