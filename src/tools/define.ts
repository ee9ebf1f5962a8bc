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
export function registerSpec(server: McpServer, spec: AnyToolSpec, context: ToolContext): void {
  if (!allowed(spec, context.config.policy)) return;
  server.registerTool(spec.name, {
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
  }, (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> =>
    guarded(async () => {
      const result = await spec.run(args, context, extra);
      const text = spec.text ? spec.text(result) : JSON.stringify(result);
      return {
        isError: spec.failed?.(result) ?? false,
        content: [{
          type: "text",
          text: text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX)}...` : text,
        }],
        structuredContent: result,
      };
    }));
}
