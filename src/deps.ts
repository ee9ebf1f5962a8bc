/**
 * The one place that names third-party packages. Full, pinned `npm:` specifiers (no import map) so
 * that `deno run <URL>/main.ts` resolves them without our deno.json. The `@ts-types` lines work
 * around the SDK's export map, which points Deno at type files that do not exist.
 *
 * What the server uses of them is exported as aliases, functions and the schema builder: never
 * a package's classes or namespaces themselves, whose whole surface would then count as ours
 * (`deno doc --lint` would ask JSDoc of every member of the SDK and of zod).
 *
 * @module
 */

// Full specifiers here and only here: a remote run has no import map.
// deno-lint-ignore-file no-import-prefix

// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/mcp"
import {
  McpServer as SdkServer,
  ResourceTemplate as SdkTemplate,
} from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/index"
import type { ServerOptions as SdkServerOptions } from "npm:@modelcontextprotocol/sdk@1.32.2/server/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp"
import type {
  WebStandardStreamableHTTPServerTransport as SdkHttpTransport,
  WebStandardStreamableHTTPServerTransportOptions as SdkHttpOptions,
} from "npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/types"
import {
  type CallToolResult as SdkCallToolResult,
  type Implementation as SdkImplementation,
  isInitializeRequest as sdkIsInitializeRequest,
  type JSONRPCMessage as SdkMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  type ServerNotification as SdkNotification,
  SubscribeRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS,
  UnsubscribeRequestSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/shared/transport"
import type { Transport as SdkTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/validation/types"
import type { jsonSchemaValidator as SdkValidatorProvider } from "npm:@modelcontextprotocol/sdk@1.32.2/validation/types.js";
// Named imports, never zod's `z` namespace: a bundle keeps every member of a namespace used as
// a value, zod's 40 locales (240 KB) among them.
import {
  _default,
  array,
  boolean,
  enum as zodEnum,
  literal,
  nullable,
  number,
  object,
  optional,
  strictObject,
  string,
  toJSONSchema,
  union,
  type ZodBoolean as ZodBooleanType,
  type ZodNumber as ZodNumberType,
  type ZodRawShape as ZodShape,
  type ZodString as ZodStringType,
  type ZodType as ZodAny,
} from "npm:zod@4.6.7";
// Linear-time matching for caller regular expressions (RE2 semantics in pure JavaScript): no
// pattern can make one search stall the server, whatever flags the process was started with.
import type { RE2JS as Re2 } from "npm:re2js@2.10.0";

/** The SDK's MCP server: tools, resources and prompts registered on it, one per session. */
export type McpServer = SdkServer;
/** What {@linkcode createMcpServer} takes beside the server's name: capabilities, instructions. */
export type McpServerOptions = SdkServerOptions;
/** A server's name, title, version and the rest it says of itself at `initialize`. */
export type Implementation = SdkImplementation;
/** A resource URI template (`tmux://panes/{pane_id}`). */
export type ResourceTemplate = SdkTemplate;
/** The SDK's Streamable HTTP transport, one per session. */
export type WebStandardStreamableHTTPServerTransport = SdkHttpTransport;
/** How {@linkcode loadHttpTransport}'s transports are made. */
export type HttpTransportOptions = SdkHttpOptions;
/** A `tools/call` result. */
export type CallToolResult = SdkCallToolResult;
/** One JSON-RPC message. */
export type JSONRPCMessage = SdkMessage;
/** A notification a server may send. */
export type ServerNotification = SdkNotification;
/** A channel MCP messages go through (stdio, HTTP, or one wrapping another). */
export type Transport = SdkTransport;
/** What validates elicitation answers (a person's grant, tools/guards/grant_guard.ts). */
export type JsonSchemaValidatorProvider = SdkValidatorProvider;
/** What a tool's handler is given beside its arguments, as far as this server uses it. */
export interface RequestHandlerExtra {
  /** Aborted when the client cancels the request, or the session ends. */
  signal: AbortSignal;
  /** The request's id: a request the server sends the client for it goes with it. */
  requestId: string | number;
  /** The request's metadata: a progress token when the client asks for progress. */
  _meta?: { progressToken?: string | number };
  /** Sends a notification that belongs to the request (progress, say). */
  sendNotification(notification: ServerNotification): Promise<void>;
}
/** A compiled RE2 expression. */
export type RE2JS = Re2;

/** A new MCP server. */
export function createMcpServer(info: Implementation, options: McpServerOptions): McpServer {
  return new SdkServer(info, options);
}

/** A resource template for `uri`, with no listing of its resources. */
export function resourceTemplate(uri: string): ResourceTemplate {
  return new SdkTemplate(uri, { list: undefined });
}

/** What a server does as its client subscribes to a resource, or unsubscribes. */
export interface SubscriptionHandlers {
  /** The client subscribed to `uri`. */
  subscribe(uri: string): void;
  /** The client unsubscribed from `uri`. */
  unsubscribe(uri: string): void;
}

/**
 * Declares that a server's resources may be subscribed to, and answers `resources/subscribe` and
 * `resources/unsubscribe` with `handlers`. Before the server connects.
 */
export function handleSubscriptions(server: McpServer, handlers: SubscriptionHandlers): void {
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    handlers.subscribe(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    handlers.unsubscribe(request.params.uri);
    return {};
  });
}

/**
 * Answers `tools/list` with `list()`, in place of the list the SDK makes from the registered
 * tools (it converts every zod schema to JSON Schema at each request). After the tools are
 * registered.
 */
export function answerToolList(server: McpServer, list: () => { tools: object[] }): void {
  // deno-lint-ignore no-explicit-any
  server.server.setRequestHandler(ListToolsRequestSchema, list as () => any);
}

/**
 * Sends a notification of a method the SDK does not know (an extension's:
 * `notifications/claude/channel`).
 */
export function sendExtensionNotification(
  server: McpServer,
  notification: { method: string; params: Record<string, unknown> },
): Promise<void> {
  return server.server.notification(notification as SdkNotification);
}

/** Whether a message is an `initialize` request. */
export function isInitializeRequest(message: unknown): boolean {
  return sdkIsInitializeRequest(message);
}

/** A JSON value as a JSON-RPC message, or null when it is none. */
export function jsonRpcMessage(value: unknown): JSONRPCMessage | null {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The protocol versions the SDK speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = SDK_VERSIONS;

/**
 * The SDK's Streamable HTTP transport, loaded when HTTP is served (stdio never needs it): a
 * function that makes one.
 */
export async function loadHttpTransport(): Promise<
  (options: HttpTransportOptions) => WebStandardStreamableHTTPServerTransport
> {
  const { WebStandardStreamableHTTPServerTransport: Made } = await import(
    "npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js"
  );
  return (options) => new Made(options);
}

/** zod's schema builder: the builders the server uses. */
export const z = {
  _default,
  array,
  boolean,
  enum: zodEnum,
  literal,
  nullable,
  number,
  object,
  optional,
  strictObject,
  string,
  toJSONSchema,
  union,
} as const;
// zod's types, named here (what `deno doc` sees as ours): what its functions return, or its
// classes make.
/** The fields of an object schema. */
export type ZodRawShape = ZodShape;
/** Any schema. */
export type ZodType = ZodAny;
/** An object schema of `Shape`. */
export type ZodObject<Shape extends ZodRawShape> = ReturnType<typeof z.object<Shape>>;
/** A string schema. */
export type ZodString = ZodStringType;
/** A number schema. */
export type ZodNumber = ZodNumberType;
/** A boolean schema. */
export type ZodBoolean = ZodBooleanType;
/** An array of `Item`. */
export type ZodArray<Item extends ZodType> = ReturnType<typeof z.array<Item>>;
/** `Inner`, or null. */
export type ZodNullable<Inner extends ZodType> = ReturnType<typeof z.nullable<Inner>>;
/** `Inner`, or absent. */
export type ZodOptional<Inner extends ZodType> = ReturnType<typeof z.optional<Inner>>;
/** A schema that parses to `Output` from `Input`. */
export type ZodTypeOf<Output, Input = Output> = ZodType & {
  _zod: { output: Output; input: Input };
};
/** `Inner`, its default given when absent. */
export type ZodDefault<Inner extends ZodType> = ReturnType<typeof z._default<Inner>>;
/** The type of what a schema gives once it parsed a value. */
export type Infer<Schema extends ZodType> = Schema["_zod"]["output"];

/**
 * re2js, loaded on first use (most sessions never run a caller's regular expression): a function
 * that compiles an expression, case-insensitive unless asked.
 */
export async function loadRe2(): Promise<(source: string, caseSensitive: boolean) => RE2JS> {
  const { RE2JS: Re2Class } = await import("npm:re2js@2.10.0");
  return (source, caseSensitive) =>
    Re2Class.compile(source, caseSensitive ? 0 : Re2Class.CASE_INSENSITIVE);
}
