/**
 * How a tool is described once (tier, schemas, handler) and registered with the safety policy
 * applied: tools above the server's tier, or filtered out by name, are neither listed nor callable.
 *
 * @module
 */

import {
  answerToolList,
  type CallToolResult,
  type Infer,
  type McpServer,
  type RequestHandlerExtra,
  z,
  type ZodObject,
  type ZodRawShape,
  type ZodType,
} from "../../deps.ts";
import {
  checkId,
  LOCAL_HOST,
  type PaneSpec,
  resolvePane,
  resolveSession,
  runIdHost,
  TmuxError,
  type TmuxSocket,
  withCallDeadline,
} from "../../tmux/mod.ts";
import { type ServerConfig, socketOf, type ToolContext } from "./context.ts";
import type { Tier } from "./policy.ts";
import { guarded } from "./errors.ts";
import {
  askPerson,
  checkCallScope,
  checkGrants,
  checkPanesGranted,
  checkPanesInScope,
  type FannedPane,
} from "../guards/mod.ts";
import { confinementNote } from "./confinement.ts";
import { deadline } from "../../util/mod.ts";
import { auditCall, auditEvent } from "./audit.ts";
import {
  type JsonSchema,
  jsonSchemasOf,
  type ToolSchemas,
  writtenSchemas,
} from "./tool_schemas.ts";

/** The MCP request context a handler gets (cancellation signal, progress token...). */
export type Extra = RequestHandlerExtra;

/**
 * What a tool acts on, resolved from its arguments before its handler runs: a pane named by
 * pane_id, window_id, session_id or session_name ("pane"); a session by id or name, null for all
 * or the current one ("session"), or required ("one_session"); one exact id ("pane_id",
 * "window_id", "session_id", syntax-checked); or nothing beyond the socket ("none").
 */
export type TargetKind =
  | "none"
  | "pane"
  | "session"
  | "one_session"
  | "pane_id"
  | "window_id"
  | "session_id";

/** A target as the handler gets it. */
export type Resolved<T extends TargetKind> = T extends "none" ? null
  : T extends "session" ? string | null
  : string;

/** One call as its handler sees it: the socket and target resolved once, and the request. */
export interface ToolCall<T extends TargetKind> {
  /** The tmux server the call talks to: its socket_name, else the server's default. */
  socket: TmuxSocket;
  /** The declared target, resolved. */
  target: Resolved<T>;
  /** Server settings and the tmux client. */
  context: ToolContext;
  /** The MCP request's cancellation signal, progress token and notifier. */
  extra: Extra;
  /** Adds an image to the result's content, after its text. */
  attachImage(png: Uint8Array): void;
  /**
   * Guards the panes a fan-out resolved (each on its own tmux server) as the call's own target
   * was: in scope, and granted where the server acts only on granted panes.
   */
  guardPanes(panes: readonly FannedPane[]): Promise<void>;
}

/** Everything about one tool. */
export interface ToolSpec<I extends ZodRawShape, O extends ZodRawShape, T extends TargetKind> {
  /** The tool's name. */
  name: string;
  /** What the tool acts on (see {@linkcode TargetKind}). */
  target: T;
  /** The safety tier it needs. */
  tier: Tier;
  /** Its title. */
  title: string;
  /** Its description, as a model reads it. */
  description: string;
  /** Its input fields. */
  input: I;
  /** Its output fields. */
  output: O;
  /** Output fields listed only when remote hosts are declared (the host, a lost link). */
  remoteOutput?: ZodRawShape;
  /** Whether the tool reaches beyond tmux's own state (runs programs, types into shells). */
  openWorld?: boolean;
  /** It lists objects: with no session named, a confined server shows all those in scope. */
  lists?: boolean;
  /** Whether it may destroy things (default: the destructive tier only). */
  destructive?: boolean;
  /** Calling it twice with the same arguments does no more than once. */
  idempotent?: boolean;
  /**
   * One of the few tools an agent reaches for first: clients that defer tools behind a search
   * (Claude Code) load it up front.
   */
  alwaysLoad?: boolean;
  /** Its results carry pane text, up to the output ceiling: clients are told how large. */
  paneText?: boolean;
  /**
   * Output fields the outputSchema marks optional with these defaults: `lean` leaves them out of
   * `structuredContent` when they hold them.
   */
  defaults?: Readonly<Record<string, unknown>>;
  /** What `structuredContent` carries of a result (default: all of it). */
  lean?(result: Infer<ZodObject<O>>): Record<string, unknown>;
  /** Does the call. */
  run(args: Infer<ZodObject<I>>, call: ToolCall<T>): Promise<Infer<ZodObject<O>>>;
  /** The short text block; default: compact JSON. */
  text?(result: Infer<ZodObject<O>>): string;
  /** Marks a result as an error while still returning it as structured content. */
  failed?(result: Infer<ZodObject<O>>): boolean;
}

/** Keeps a spec's types tied together (identity at run time). */
export function defineTool<
  I extends ZodRawShape,
  O extends ZodRawShape,
  T extends TargetKind,
>(spec: ToolSpec<I, O, T>): ToolSpec<I, O, T> {
  return spec;
}

/** A spec of any shape, as lists of tools hold them. */
// deno-lint-ignore no-explicit-any
export type AnyToolSpec = ToolSpec<any, any, any>;

async function resolveTarget(
  kind: TargetKind,
  socket: TmuxSocket,
  args: PaneSpec,
): Promise<string | null> {
  switch (kind) {
    case "none":
      return null;
    case "pane":
      return await resolvePane(socket, args);
    case "session":
      return await resolveSession(socket, args);
    case "one_session": {
      const session = await resolveSession(socket, args);
      if (session === null) {
        throw new TmuxError("invalid_argument", "give session_id or session_name");
      }
      return session;
    }
    default:
      return checkId(kind, String(args[kind]));
  }
}

/**
 * Sends progress notifications for a request that carries a progress token (undefined when it
 * carries none). A notification that cannot be sent is dropped: it never fails the call. The
 * promise settles once it is sent: a caller that must have it arrive before its result (a client
 * forgets a request's progress once answered) waits for it.
 */
export function progressNotifier(
  extra: Extra,
  total: number,
): ((progress: number, message?: string) => Promise<void>) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress, message) =>
    extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken: token,
        progress,
        total,
        ...(message === undefined ? {} : { message }),
      },
    }).catch(() => {});
}

/**
 * A last guard on a text block: tools that return pane text bound it themselves (the output
 * budget), so only a bug could reach this; Claude Desktop refuses results of 1 MB.
 */
const TEXT_MAX = 512 * 1024;

/** What registerTool takes for a tool, besides its name and handler. */
interface ToolConfig {
  title: string;
  description: string;
  // deno-lint-ignore no-explicit-any
  inputSchema: ZodObject<any>;
  // deno-lint-ignore no-explicit-any
  outputSchema: ZodObject<any>;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  _meta?: Record<string, unknown>;
}

/** The most a client that honours `anthropic/maxResultSizeChars` (Claude Code) accepts. */
const RESULT_CHARS_MAX = 500_000;

/**
 * The largest result a pane-text tool sends under the output ceiling: the text may show in both
 * halves (structured and text), escaped in JSON, beside the result's other fields.
 */
export function maxResultChars(maxOutputBytes: number): number {
  return Math.min(RESULT_CHARS_MAX, 2 * maxOutputBytes + 16 * 1024);
}

function metaOf(spec: AnyToolSpec, server: ServerConfig): Record<string, unknown> | undefined {
  const meta: Record<string, unknown> = {
    ...(spec.alwaysLoad ? { "anthropic/alwaysLoad": true } : {}),
    ...(spec.paneText
      ? { "anthropic/maxResultSizeChars": maxResultChars(server.maxOutputBytes) }
      : {}),
  };
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/**
 * Each spec's schemas and annotations, built once per process (whose settings do not change), not
 * once per HTTP session.
 */
const configs = new WeakMap<AnyToolSpec, ToolConfig>();

/**
 * The input a tool takes: `socket_name` only where calls may choose their tmux server
 * (`--any-socket`); elsewhere the server's socket is the only one, and no schema repeats it.
 * `host` only when the operator declared remote hosts: its schema lists them, and a name not
 * declared is answered by the handler (invalid_argument naming the declared ones).
 */
function inputOf(spec: AnyToolSpec, config: ServerConfig): ZodRawShape {
  const { socket_name: _, ...local } = spec.input;
  const input = config.anySocket ? spec.input : local;
  if (config.remotes.length === 0) return input;
  const hosts = [LOCAL_HOST, ...config.remotes.map((remote) => remote.name)];
  return {
    ...input,
    host: z.string().max(64).optional().meta({ enum: hosts }).describe(
      "the machine whose tmux to use (default local)",
    ),
  };
}

/** Whether a tool may start a program, type into a shell or end something (not undone). */
function destructive(spec: AnyToolSpec): boolean {
  return spec.destructive ?? spec.tier === "destructive";
}

function configOf(spec: AnyToolSpec, server: ServerConfig): ToolConfig {
  let config = configs.get(spec);
  if (config === undefined) {
    config = {
      title: spec.title,
      description: spec.description + (destructive(spec) ? confinementNote(server) : ""),
      inputSchema: z.strictObject(inputOf(spec, server)),
      outputSchema: z.object(
        withDefaultsIn(
          server.remotes.length === 0 ? spec.output : { ...spec.remoteOutput, ...spec.output },
          spec.defaults ?? {},
        ),
      ),
      annotations: {
        title: spec.title,
        readOnlyHint: spec.tier === "readonly",
        destructiveHint: destructive(spec),
        idempotentHint: spec.idempotent ?? spec.tier === "readonly",
        openWorldHint: spec.openWorld ?? false,
      },
      _meta: metaOf(spec, server),
    };
    configs.set(spec, config);
  }
  return config;
}

/** A tool as tools/list gives it (lean_tool_list.ts trims its schemas on their way out). */
interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolConfig["annotations"];
  /** Not a task (the SDK's word for calls a client polls for): each call answers itself. */
  execution: { taskSupport: "forbidden" };
  _meta?: Record<string, unknown>;
}

/** Each spec as listed, made once per process (whose settings do not change). */
const listings = new WeakMap<AnyToolSpec, ListedTool>();

/** Whether the settings add no field to any tool's schemas (see tool_schemas.ts). */
function addsNoField(server: ServerConfig): boolean {
  return !server.anySocket && server.remotes.length === 0;
}

/** A tool's JSON Schemas converted from its zod schemas under `server`'s settings. */
export function zodSchemasOf(spec: AnyToolSpec, server: ServerConfig): ToolSchemas {
  const config = configOf(spec, server);
  return jsonSchemasOf({ input: config.inputSchema, output: config.outputSchema });
}

function listedTool(spec: AnyToolSpec, server: ServerConfig): ListedTool {
  let listed = listings.get(spec);
  if (listed === undefined) {
    const config = configOf(spec, server);
    const schemas = (addsNoField(server) ? writtenSchemas(spec.name) : null) ??
      zodSchemasOf(spec, server);
    listed = {
      name: spec.name,
      title: config.title,
      description: config.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      annotations: config.annotations,
      execution: { taskSupport: "forbidden" },
      ...(config._meta === undefined ? {} : { _meta: config._meta }),
    };
    listings.set(spec, listed);
  }
  return listed;
}

/**
 * Answers tools/list with `specs` (the registered ones, in order), each made once per process
 * (see tool_schemas.ts); a copy each time, as the list is trimmed on its way out.
 */
export function answerTools(
  server: McpServer,
  specs: readonly AnyToolSpec[],
  config: ServerConfig,
): void {
  answerToolList(server, () => ({
    tools: specs.map((spec) => structuredClone(listedTool(spec, config))),
  }));
}

/** An output shape whose fields with a default may be left out (the schema gives the default). */
function withDefaultsIn(
  shape: ZodRawShape,
  defaults: Readonly<Record<string, unknown>>,
): ZodRawShape {
  return Object.fromEntries(
    Object.entries(shape).map((
      [key, field],
    ) => [
      key,
      key in defaults ? (field as ZodType).optional().meta({ default: defaults[key] }) : field,
    ]),
  );
}

/**
 * The host a call names: a remote run's id starts with its host (so wait_for_command needs no
 * `host`), else its `host` argument.
 */
function callHost(args: Record<string, unknown>): string | undefined {
  const given = args.host as string | undefined;
  const ofRun = typeof args.run_id === "string" ? runIdHost(args.run_id) : null;
  if (ofRun !== null && given !== undefined && given !== ofRun) {
    throw new TmuxError("invalid_argument", `run ${args.run_id} ran on ${ofRun}, not ${given}`);
  }
  return ofRun ?? given;
}

/** Beyond a call's own time, what its last tmux exchanges (a timed-out run's record) may take. */
const CALL_MARGIN_MS = 1500;

/**
 * A call's deadline (see call_deadline.ts): its `deadline` argument where it has one, else its
 * `timeout`, else the server's ceiling; at most the ceiling; plus a margin.
 */
function callMilliseconds(args: Record<string, unknown>, config: ServerConfig): number {
  // A call with a deadline of its own (run_command_many) is bounded by it, else by the ceiling.
  const asked = "deadline" in args ? args.deadline : args.timeout;
  const seconds = Math.min(typeof asked === "number" ? asked : Infinity, config.waitMaxSeconds);
  return seconds * 1000 + CALL_MARGIN_MS;
}

/** Registers a tool (when the policy allows it) with error mapping and structured output. */
export function registerSpec(server: McpServer, spec: AnyToolSpec, context: ToolContext): void {
  server.registerTool(spec.name, configOf(spec, context.config), async (
    args: Record<string, unknown>,
    extra: Extra,
  ): Promise<CallToolResult> => {
    const started = Date.now();
    using limit = deadline(callMilliseconds(args, context.config), extra.signal);
    const result = await guarded(() =>
      withCallDeadline(limit.signal, async () => {
        const socket = socketOf(context, {
          socketName: args.socket_name as string | null | undefined,
          host: callHost(args),
        });
        const target = await resolveTarget(spec.target, socket, args);
        await checkCallScope({
          socket,
          target,
          anySession: spec.target === "session",
          lists: spec.lists ?? false,
          changes: spec.tier !== "readonly",
          args,
        });
        if (context.config.grantedPanes && spec.tier !== "readonly") {
          await checkGrants({
            socket,
            tool: spec.name,
            target,
            args,
            ask: askPerson(server, extra),
            audit: context.config.audit ? auditEvent : undefined,
          });
        }
        const images: string[] = [];
        const value = await spec.run(args, {
          socket,
          target,
          context,
          extra,
          attachImage: (png) => images.push(png.toBase64()),
          guardPanes: async (panes) => {
            await checkPanesInScope(panes);
            if (!context.config.grantedPanes) return;
            await checkPanesGranted({
              tool: spec.name,
              ask: askPerson(server, extra),
              audit: context.config.audit ? auditEvent : undefined,
            }, panes);
          },
        });
        const text = spec.text ? spec.text(value) : JSON.stringify(value);
        return {
          isError: spec.failed?.(value) ?? false,
          content: [
            {
              type: "text",
              text: text.length > TEXT_MAX
                ? `${text.slice(0, TEXT_MAX)}\n... [cut at ${TEXT_MAX} characters]`
                : text,
            },
            ...images.map((data) => ({ type: "image" as const, data, mimeType: "image/png" })),
          ],
          structuredContent: spec.lean?.(value) ?? value,
        };
      })
    );
    if (context.config.audit) await auditCall(spec.name, args, result, Date.now() - started);
    return result;
  });
}
