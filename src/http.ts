/**
 * Streamable HTTP transport on `Deno.serve`, one MCP server per session, with the guards that keep
 * other web pages out: the Host header must name our loopback address (DNS rebinding) and a
 * browser Origin must be ours too.
 *
 * @module
 */

import { type McpServer, WebStandardStreamableHTTPServerTransport } from "./deps.ts";
import { createServer, type ToolContext } from "./server.ts";

/** Options for {@linkcode serveHttp}. */
export interface HttpOptions {
  host: string;
  port: number;
  /** Sessions idle longer than this are closed (default 30 minutes). */
  sessionIdleSeconds?: number;
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

/** The Host/Origin check: null when the request may proceed, else the refusal. */
export function guardRequest(req: Request, port: number): Response | null {
  const allowed = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  const host = req.headers.get("host");
  if (host === null || !allowed.has(host.toLowerCase())) {
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
    if (originHost === null || !allowed.has(originHost)) {
      return jsonError(403, "forbidden: Origin is not this server");
    }
  }
  return null;
}

/** Serves MCP over Streamable HTTP at `/mcp`. */
export function serveHttp(context: ToolContext, options: HttpOptions): HttpHandle {
  const sessions = new Map<string, Session>();
  const idleMs = (options.sessionIdleSeconds ?? 1800) * 1000;
  let boundPort = options.port;

  async function closeSession(id: string): Promise<void> {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => {});
  }

  async function newSession(req: Request): Promise<Response> {
    const server = createServer(context);
    let sessionId: string | null = null;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessionId = id;
        sessions.set(id, { transport, server, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    const response = await transport.handleRequest(req);
    if (sessionId === null) await server.close().catch(() => {});
    return response;
  }

  async function handle(req: Request): Promise<Response> {
    if (new URL(req.url).pathname !== "/mcp") return jsonError(404, "not found: use /mcp");
    const refusal = guardRequest(req, boundPort);
    if (refusal) return refusal;
    const id = req.headers.get("mcp-session-id");
    if (id === null) {
      if (req.method !== "POST") return jsonError(400, "bad request: no session id");
      return await newSession(req);
    }
    const session = sessions.get(id);
    if (!session) return jsonError(404, "session not found (expired or closed)");
    session.lastSeen = Date.now();
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
