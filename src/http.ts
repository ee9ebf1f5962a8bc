/**
 * Streamable HTTP transport on `Deno.serve`, one MCP server per session, with its guards:
 * - a bearer token (constant-time compare) when one is set, which it must be beyond loopback;
 * - on loopback, the Host header must name our address (DNS rebinding);
 * - a browser Origin must be this server's own;
 * - request bodies are capped, and so is the number of sessions; idle sessions are closed.
 *
 * @module
 */

import { type McpServer, WebStandardStreamableHTTPServerTransport } from "./deps.ts";
import { connectServer, type ToolContext } from "./server.ts";

/** Options for {@linkcode serveHttp}. */
export interface HttpOptions {
  host: string;
  port: number;
  /** Bearer token required on every request; null: none (loopback only). */
  token?: string | null;
  /** Sessions idle longer than this are closed (default 30 minutes). */
  sessionIdleSeconds?: number;
  /** Largest request body accepted, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Most sessions open at once; more get 503 (default 64). */
  maxSessions?: number;
  /** Called once listening, with the MCP endpoint URL. */
  onListen?: (url: string) => void;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

/** A running HTTP server. */
export interface HttpHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:8765/mcp. */
  url: string;
  /** Closes every session and stops listening. */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
}

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

function jsonError(status: number, message: string): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message }, id: null },
    { status },
  );
}

const encoder = new TextEncoder();

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function isLoopbackHost(host: string): boolean {
  return ["127.0.0.1", "localhost", "::1"].includes(host);
}

/** Options for {@linkcode guardRequest}. */
export interface GuardOptions {
  host: string;
  port: number;
  token: string | null;
}

/** The Host/Origin/token checks: null when the request may proceed, else the refusal. */
export function guardRequest(req: Request, options: GuardOptions): Response | null {
  const names = isLoopbackHost(options.host) ? LOOPBACK_NAMES : [
    options.host.includes(":") ? `[${options.host}]` : options.host,
    ...LOOPBACK_NAMES,
  ];
  const allowed = new Set(names.map((name) => `${name}:${options.port}`));
  const host = req.headers.get("host");
  // Beyond loopback the token stands in for the Host check (clients reach us by many names).
  const checkHost = options.token === null || isLoopbackHost(options.host);
  if (checkHost && (host === null || !allowed.has(host.toLowerCase()))) {
    return jsonError(403, "forbidden: Host header does not name this server");
  }
  const origin = req.headers.get("origin");
  if (origin !== null) {
    let originHost: string | null = null;
    try {
      const url = new URL(origin);
      originHost = url.protocol === "http:" ? url.host.toLowerCase() : null;
    } catch {
      originHost = null;
    }
    const own = host !== null && originHost === host.toLowerCase();
    if (originHost === null || !(allowed.has(originHost) || (!checkHost && own))) {
      return jsonError(403, "forbidden: Origin is not this server");
    }
  }
  if (options.token !== null) {
    const given = req.headers.get("authorization") ?? "";
    const match = given.match(/^Bearer (.+)$/);
    if (!match || !constantTimeEqual(match[1], options.token)) {
      return new Response(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32001, message: "unauthorized" },
          id: null,
        }),
        {
          status: 401,
          headers: { "content-type": "application/json", "www-authenticate": "Bearer" },
        },
      );
    }
  }
  return null;
}

/** Serves MCP over Streamable HTTP at `/mcp`. */
export function serveHttp(context: ToolContext, options: HttpOptions): HttpHandle {
  const sessions = new Map<string, Session>();
  const idleMs = (options.sessionIdleSeconds ?? 1800) * 1000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 64;
  let boundPort = options.port;

  async function closeSession(id: string): Promise<void> {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => {});
  }

  async function newSession(req: Request): Promise<Response> {
    let sessionId: string | null = null;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        maxRequestBodySize: maxBody,
        sessionIdGenerator: () => crypto.randomUUID(),
        // Called from handleRequest below, once the server is connected.
        onsessioninitialized: (id) => {
          sessionId = id;
          sessions.set(id, { transport, server, lastSeen: Date.now() });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
    const server = await connectServer(context, transport);
    const response = await transport.handleRequest(req);
    if (sessionId === null) await server.close().catch(() => {});
    return response;
  }

  async function handle(req: Request): Promise<Response> {
    if (new URL(req.url).pathname !== "/mcp") return jsonError(404, "not found: use /mcp");
    const refusal = guardRequest(req, {
      host: options.host,
      port: boundPort,
      token: options.token ?? null,
    });
    if (refusal) return refusal;
    const id = req.headers.get("mcp-session-id");
    if (id === null) {
      if (req.method !== "POST") return jsonError(400, "bad request: no session id");
      if (sessions.size >= maxSessions) {
        return jsonError(503, "too many sessions: close one (DELETE) or wait for one to expire");
      }
      return await newSession(req);
    }
    const session = sessions.get(id);
    if (!session) return jsonError(404, "session not found (expired or closed)");
    session.lastSeen = Date.now();
    const declared = Number(req.headers.get("content-length") ?? "0");
    if (declared > maxBody) return jsonError(413, "request body too large");
    return await session.transport.handleRequest(req);
  }

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (now - session.lastSeen > idleMs) closeSession(id);
    }
  }, Math.min(idleMs, 60_000));

  const httpServer = Deno.serve({
    hostname: options.host,
    port: options.port,
    onListen: () => {},
  }, handle);
  boundPort = httpServer.addr.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${host}:${boundPort}/mcp`;
  options.onListen?.(url);
  return {
    url,
    async shutdown(): Promise<void> {
      clearInterval(sweeper);
      await Promise.all([...sessions.keys()].map(closeSession));
      await httpServer.shutdown();
    },
    finished: httpServer.finished.then(() => clearInterval(sweeper)),
  };
}
