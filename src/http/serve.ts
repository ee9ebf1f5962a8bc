/**
 * The Streamable HTTP transport, on our own HTTP/1.1 server (`http1_server.ts`), one MCP server
 * per session, behind its guards (`guard.ts`):
 * - a bearer token (constant-time compare) when one is set, which it must be beyond loopback;
 * - on loopback, the Host header must name our address (DNS rebinding);
 * - a browser Origin must be this server's own;
 * - connections are capped, and every read from a peer has a size and a time limit (see
 *   `http1_server.ts`);
 * - sessions are capped: a new one closes the least recently used session with no request in
 *   flight (a stream held open does not count), and only when every session is busy with a
 *   request is it refused; sessions idle too long are closed;
 * - a batch is refused before any session is made, and one of more than 100 messages in a
 *   session, unparsed (`batch.ts`).
 *
 * @module
 */

import {
  isInitializeRequest,
  loadHttpTransport,
  type McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  type WebStandardStreamableHTTPServerTransport,
} from "../deps.ts";
import { endCancelledRequests, requestIdOf } from "../mcp/mod.ts";
import { serveHttp1 } from "./http1_server.ts";
import { guardRequest, jsonError } from "./guard.ts";
import { urlHost } from "../util/mod.ts";
import { BATCH_MAX, batchElements, isBatch } from "./batch.ts";
import { connectServer, type ToolContext } from "../server.ts";

/** Options for {@linkcode serveHttp}. */
export interface HttpOptions {
  /** The address to listen on. */
  host: string;
  /** The port to listen on (0: a free one). */
  port: number;
  /** Bearer token required on every request; null: none (loopback only). */
  token?: string | null;
  /** Sessions idle longer than this are closed (default 30 minutes). */
  sessionIdleSeconds?: number;
  /** Largest request body accepted, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Most sessions open at once (default 64): a new one closes the least recently used idle one. */
  maxSessions?: number;
  /** Most connections open at once, authenticated or not (default 128). */
  maxConnections?: number;
  /** Called once listening, with the MCP endpoint URL. */
  onListen?: (url: string) => void;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
  /**
   * Requests being handled, and their responses still streaming. A stream the client opened to
   * hear from the server (GET) is not counted: it may stay open as long as the session lives, and
   * does not keep the session from being closed to make room.
   */
  requests: number;
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

/** Why a batch is refused before any session is made. */
const BATCH_REFUSED = "bad request: a session starts with one initialize request, not a batch";

/** Why a batch over {@linkcode BATCH_MAX} messages is refused. */
const BATCH_TOO_LARGE = `bad request: a batch holds at most ${BATCH_MAX} messages`;

/**
 * A request without a session that would be refused anyway, answered before a session is made
 * or, at the cap, evicted: one naming a protocol version this server does not speak (a client
 * probing for the newest), one that is not JSON, and one that does not start a session.
 */
async function refusedWithoutSession(req: Request): Promise<Response | null> {
  const version = req.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonError(
      400,
      `unsupported protocol version: this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    );
  }
  const text = await req.clone().text();
  // Refused unparsed: a batch of a million elements took seconds and 680 MB to parse.
  if (isBatch(text)) return jsonError(400, BATCH_REFUSED);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return jsonError(400, "parse error: the body is not JSON");
  }
  if (!isInitializeRequest(body)) {
    return jsonError(400, "bad request: no session id (a session starts with initialize)");
  }
  return null;
}

/**
 * An error answer (status 400 and up, JSON) with `id: null` gets the id of the request it
 * answers, when the request was one message naming one.
 */
async function withRequestId(request: Request | null, response: Response): Promise<Response> {
  const json = response.headers.get("content-type")?.includes("application/json") ?? false;
  if (request === null || response.status < 400 || !json) return response;
  const text = await response.text();
  let answer: { id?: unknown; error?: unknown } | null;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = null;
  }
  // The request is read only for an error that names none.
  const unnamed = answer !== null && typeof answer === "object" && answer.id === null &&
    answer.error !== undefined;
  const body = unnamed ? await request.text() : "";
  // A batch names no one request; it is not parsed to learn that.
  const id = unnamed && !isBatch(body) ? requestIdOf(parsed(body)) : null;
  const patched = id === null ? text : JSON.stringify({ ...answer, id });
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(patched, { status: response.status, headers });
}

/** JSON text parsed, or null when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A request of a session is over (`counted`: one of its `requests`): it counts as activity. */
function settle(session: Session, counted: boolean): void {
  if (counted) session.requests--;
  session.lastSeen = Date.now();
}

/** The response, with its session kept busy until its body has been sent or cancelled. */
function tracked(session: Session, response: Response, counted: boolean): Response {
  if (response.body === null) {
    settle(session, counted);
    return response;
  }
  const reader = response.body.getReader();
  let open = true;
  const finish = () => {
    if (open) settle(session, counted);
    open = false;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read().catch((error) => {
        finish();
        throw error;
      });
      if (done) {
        finish();
        controller.close();
      } else {
        controller.enqueue(value);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Serves MCP over Streamable HTTP at `/mcp`. */
export function serveHttp(context: ToolContext, options: HttpOptions): HttpHandle {
  const idleMs = (options.sessionIdleSeconds ?? 1800) * 1000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessions: Sessions = {
    context,
    open: new Map(),
    maxBody,
    maxSessions: options.maxSessions ?? 64,
  };
  let boundPort = options.port;
  /** Path, Host, Origin and token: checked before a request's body is read. */
  const admit = (req: Request): Response | null => {
    if (new URL(req.url).pathname !== "/mcp") return jsonError(404, "not found: use /mcp");
    return guardRequest(req, { host: options.host, port: boundPort, token: options.token ?? null });
  };
  /** Answers a request; an error answer names the request's id wherever it could be read. */
  const handle = async (req: Request): Promise<Response> => {
    // Read only when the answer is an error; the body is in memory already (http1_server.ts).
    const copy = req.method === "POST" ? req.clone() : null;
    return await withRequestId(copy, await route(sessions, req));
  };
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions.open) {
      if (now - session.lastSeen > idleMs) closeSession(sessions, id);
    }
  }, Math.min(idleMs, 60_000));
  const httpServer = serveHttp1(handle, {
    admit,
    hostname: options.host,
    port: options.port,
    maxBodyBytes: maxBody,
    maxConnections: options.maxConnections,
  });
  boundPort = httpServer.addr.port;
  const url = `http://${urlHost(options.host)}:${boundPort}/mcp`;
  options.onListen?.(url);
  return {
    url,
    async shutdown(): Promise<void> {
      clearInterval(sweeper);
      await Promise.all([...sessions.open.keys()].map((id) => closeSession(sessions, id)));
      await httpServer.shutdown();
    },
    finished: httpServer.finished.then(() => clearInterval(sweeper)),
  };
}

/** The MCP sessions of one HTTP server. */
interface Sessions {
  context: ToolContext;
  /** By session id. */
  open: Map<string, Session>;
  /** Largest request body accepted, in bytes. */
  maxBody: number;
  /** Most sessions open at once. */
  maxSessions: number;
}

async function closeSession(sessions: Sessions, id: string): Promise<void> {
  const session = sessions.open.get(id);
  if (!session) return;
  sessions.open.delete(id);
  await session.server.close().catch(() => {});
}

/** A request to its session, or one that starts a session (at the cap, an idle one goes). */
async function route(sessions: Sessions, req: Request): Promise<Response> {
  const id = req.headers.get("mcp-session-id");
  if (id === null) {
    if (req.method !== "POST") return jsonError(400, "bad request: no session id");
    const refused = await refusedWithoutSession(req);
    if (refused !== null) return refused;
    if (sessions.open.size >= sessions.maxSessions && !await evictIdleSession(sessions)) {
      return jsonError(503, "too many sessions, all busy: close one (DELETE) or try later");
    }
    return await newSession(sessions, req);
  }
  const session = sessions.open.get(id);
  if (!session) return jsonError(404, "session not found (expired or closed)");
  // Counted unparsed, before the SDK parses every element of it.
  if (req.method === "POST") {
    const text = await req.clone().text();
    if (isBatch(text) && batchElements(text, BATCH_MAX) > BATCH_MAX) {
      return jsonError(400, BATCH_TOO_LARGE);
    }
  }
  session.lastSeen = Date.now();
  const counted = req.method !== "GET";
  if (counted) session.requests++;
  let response: Response;
  try {
    response = await session.transport.handleRequest(req);
  } catch (error) {
    settle(session, counted);
    throw error;
  }
  return tracked(session, response, counted);
}

/** A session for an initialize request: kept once the SDK gave it an id. */
async function newSession(sessions: Sessions, req: Request): Promise<Response> {
  let sessionId: string | null = null;
  const makeTransport = await loadHttpTransport();
  const transport: WebStandardStreamableHTTPServerTransport = makeTransport({
    maxRequestBodySize: sessions.maxBody,
    sessionIdGenerator: () => crypto.randomUUID(),
    // Called from handleRequest below, once the server is connected.
    onsessioninitialized: (id) => {
      sessionId = id;
      sessions.open.set(id, { transport, server, lastSeen: Date.now(), requests: 0 });
    },
    onsessionclosed: (id) => {
      sessions.open.delete(id);
    },
  });
  const server = await connectServer(sessions.context, endCancelledRequests(transport));
  const response = await transport.handleRequest(req);
  if (sessionId === null) await server.close().catch(() => {});
  return response;
}

/**
 * Closes the least recently used session with no request in flight (a stream it holds open does
 * not count: 63 sessions each holding one locked every new client out); false when there is none.
 */
async function evictIdleSession(sessions: Sessions): Promise<boolean> {
  let oldest: [string, Session] | null = null;
  for (const entry of sessions.open) {
    if (entry[1].requests === 0 && (oldest === null || entry[1].lastSeen < oldest[1].lastSeen)) {
      oldest = entry;
    }
  }
  if (oldest === null) return false;
  await closeSession(sessions, oldest[0]);
  return true;
}
