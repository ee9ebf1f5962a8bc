/**
 * A small HTTP/1.1 server on `Deno.listen`, because `Deno.serve` puts no limit on how long a peer
 * may take to send its headers or body, nor on how many connections it may hold open. Here every
 * read from a peer has a size and a time limit, and connections are capped at accept, before a
 * byte of theirs is read (so unauthenticated ones count too). Requests become web `Request`s and
 * responses are written with chunked encoding, so streamed (SSE) bodies work; keep-alive is
 * supported, pipelining is not needed by MCP clients and is not offered.
 *
 * @module
 */

import { BufferedConn, type Head, HttpFailure, readBody, readHead, within } from "./http1_conn.ts";
import { urlHost } from "../util/mod.ts";

/**
 * Bytes per millisecond (10 kB/s) from which a request is arriving steadily: a connection
 * closed to make room for a new one is one below this pace, before any above it.
 */
const STEADY_PACE = 10;

/** Options for {@linkcode serveHttp1}. */
export interface Http1Options {
  /** The address to listen on. */
  hostname: string;
  /** The port to listen on (0: a free one). */
  port: number;
  /**
   * Connections open at once (default 128). A new one beyond that closes, of the connections
   * waiting for their peer, the one whose request arrives slowest when that is under 10 kB/s,
   * else the one waiting longest for a request to begin (a kept-alive connection waiting for its
   * next request, or one not read from yet), else the slowest. One whose bytes are in, being read
   * or answered, is never closed for a new one, which gets 503 when no other can go.
   */
  maxConnections?: number;
  /** Time for a request's line and headers to arrive, in ms (default 10 s). */
  headerTimeoutMs?: number;
  /** Time for a request's body to arrive, in ms (default 30 s). */
  bodyTimeoutMs?: number;
  /** How long a kept-alive connection may wait for its next request, in ms (default 30 s). */
  idleTimeoutMs?: number;
  /** Largest request line plus headers, in bytes (default 16 KiB). */
  maxHeaderBytes?: number;
  /** Largest request body, in bytes (default 4 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Time a peer may take to take in each piece of a response, in ms (default 30 s). */
  writeTimeoutMs?: number;
  /** Looks at each request before its body is read. */
  admit?: Http1Admit;
}

/** A running server. */
export interface Http1Server {
  /** The bound address. */
  addr: Deno.NetAddr;
  /** Resolves once the server has stopped and every connection is closed. */
  finished: Promise<void>;
  /** Stops accepting, closes every connection and waits for them. */
  shutdown(): Promise<void>;
}

/** What answers a request. */
export type Http1Handler = (request: Request) => Response | Promise<Response>;

/**
 * Looks at a request before its body is read (the `Request` has no body): a response refuses it,
 * and the connection is closed, so a peer that is refused never gets a body buffered.
 */
export type Http1Admit = (request: Request) => Response | null;

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");

/** Header fields of a response that belong to the connection, which this server sets itself. */
const HOP_BY_HOP = new Set(["connection", "content-length", "keep-alive", "transfer-encoding"]);

function statusLine(status: number, statusText: string): string {
  return `HTTP/1.1 ${status} ${statusText.replace(/[\r\n]/g, "") || "Status"}\r\n`;
}

/** Writes a response; a streamed body ends early when the peer goes away (it is cancelled). */
async function writeResponse(
  conn: BufferedConn,
  response: Response,
  options: { keepAlive: boolean; head: boolean; maxBuffered: number; writeMs: number },
): Promise<void> {
  const write = (data: Uint8Array) => within(conn, options.writeMs, () => conn.write(data));
  let head = statusLine(response.status, response.statusText);
  for (const [name, value] of response.headers) {
    if (!HOP_BY_HOP.has(name)) head += `${name}: ${value}\r\n`;
  }
  head += `connection: ${options.keepAlive ? "keep-alive" : "close"}\r\n`;
  const body = options.head ? null : response.body;
  if (body === null) {
    await response.body?.cancel().catch(() => {});
    await write(encoder.encode(`${head}content-length: 0\r\n\r\n`));
    return;
  }
  await write(encoder.encode(`${head}transfer-encoding: chunked\r\n\r\n`));
  const reader = body.getReader();
  let streaming = true;
  // The peer going away (end of input) cancels the body, so a stream's producer stops. What it
  // sends meanwhile is kept for its next request, up to a limit.
  (async () => {
    while (streaming && await conn.fill()) {
      if (conn.buffered > options.maxBuffered) conn.close();
    }
    if (streaming) await reader.cancel().catch(() => {});
  })();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value.length === 0) continue;
      await write(encoder.encode(`${value.length.toString(16)}\r\n`));
      await write(value);
      await write(CRLF);
    }
    await write(encoder.encode("0\r\n\r\n"));
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    streaming = false;
  }
}

async function answerFailure(conn: BufferedConn, failure: HttpFailure): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    error: { code: -32000, message: failure.message },
    id: null,
  });
  await conn.write(encoder.encode(
    statusLine(failure.status, failure.message) +
      `content-type: application/json\r\ncontent-length: ${encoder.encode(body).length}\r\n` +
      `connection: close\r\n\r\n${body}`,
  )).catch(() => {});
}

/** Serves HTTP/1.1 on a TCP address with the limits in {@linkcode Http1Options}. */
export function serveHttp1(handler: Http1Handler, options: Http1Options): Http1Server {
  const maxConnections = options.maxConnections ?? 128;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;
  const served: Served = {
    handler,
    admit: options.admit,
    limits: {
      headerMs: options.headerTimeoutMs ?? 10_000,
      bodyMs: options.bodyTimeoutMs ?? 30_000,
      idleMs: options.idleTimeoutMs ?? 30_000,
      maxHeader: options.maxHeaderBytes ?? 16 * 1024,
      maxBody: options.maxBodyBytes ?? 4 * 1024 * 1024,
      writeMs: options.writeTimeoutMs ?? 30_000,
    },
    open: new Map(),
    origin: `http://${urlHost(addr.hostname)}:${addr.port}`,
  };
  const { open } = served;
  const running = new Set<Promise<void>>();
  const accepting = (async () => {
    for (;;) {
      let raw: Deno.Conn;
      try {
        raw = await listener.accept();
      } catch {
        break;
      }
      const conn = new BufferedConn(raw);
      if (open.size >= maxConnections && !evictSlowest(open)) {
        // Refused before reading anything: a full house is never held longer by a slow peer.
        answerFailure(conn, new HttpFailure(503, "too many connections")).finally(() =>
          conn.close()
        );
        continue;
      }
      open.set(conn, false);
      const task = serveConn(conn, served).finally(() => {
        open.delete(conn);
        running.delete(task);
      });
      running.add(task);
    }
  })();

  let stopping: Promise<void> | null = null;
  const shutdown = (): Promise<void> =>
    stopping ??= (async () => {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      await accepting;
      for (const conn of open.keys()) conn.close();
      await Promise.allSettled([...running]);
    })();
  return { addr, finished: accepting.then(() => shutdown()), shutdown };
}

/** The limits every connection is served within (see {@linkcode Http1Options}). */
interface Limits {
  headerMs: number;
  bodyMs: number;
  idleMs: number;
  maxHeader: number;
  maxBody: number;
  writeMs: number;
}

/** What serving a connection needs of its server. */
interface Served {
  handler: Http1Handler;
  admit?: Http1Admit;
  limits: Limits;
  /** Open connections, each with whether it is being answered. */
  open: Map<BufferedConn, boolean>;
  /** `http://host:port`, the base of the requests' URLs. */
  origin: string;
}

/** Serves one connection's requests, one after another, until it closes or fails. */
async function serveConn(conn: BufferedConn, server: Served): Promise<void> {
  const { limits, open } = server;
  for (let first = true; !conn.closed; first = false) {
    if (!first) {
      open.set(conn, false);
      conn.nextRequest();
    }
    try {
      // Waiting for a first request counts as reading its head; later ones may idle first.
      if (!first) {
        const more = await within(
          conn,
          limits.idleMs,
          () => conn.buffered > 0 ? Promise.resolve(true) : conn.fill(),
        );
        if (!more) break;
      }
      const request = await within(conn, limits.headerMs, () => readHead(conn, limits.maxHeader));
      if (request === null) break;
      const url = `${server.origin}${request.target}`;
      const refusal = server.admit?.(
        new Request(url, { method: request.method, headers: request.headers }),
      );
      if (refusal) {
        const writing = { keepAlive: false, head: false, maxBuffered: 0, writeMs: limits.writeMs };
        await writeResponse(conn, refusal, writing);
        break;
      }
      if (request.headers.get("expect")?.toLowerCase() === "100-continue") {
        await conn.write(encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"));
      }
      const body = await within(conn, limits.bodyMs, () => readBody(conn, request, limits.maxBody));
      open.set(conn, true);
      await answer(conn, server, { request, url, body });
      if (!request.keepAlive) break;
    } catch (error) {
      if (error instanceof HttpFailure && !conn.closed) await answerFailure(conn, error);
      break;
    }
  }
  conn.close();
}

/** Answers one request with the handler's response (an internal error when the handler fails). */
async function answer(
  conn: BufferedConn,
  server: Served,
  asked: { request: Head; url: string; body: Uint8Array<ArrayBuffer> },
): Promise<void> {
  const { request, url, body } = asked;
  const abort = new AbortController();
  let response: Response;
  try {
    response = await server.handler(
      new Request(url, {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" || request.method === "HEAD" ? null : body,
        signal: abort.signal,
      }),
    );
  } catch {
    response = Response.json({
      jsonrpc: "2.0",
      error: { code: -32603, message: "internal error" },
      id: null,
    }, { status: 500 });
  }
  try {
    await writeResponse(conn, response, {
      keepAlive: request.keepAlive,
      head: request.method === "HEAD",
      maxBuffered: server.limits.maxHeader + server.limits.maxBody,
      writeMs: server.limits.writeMs,
    });
  } finally {
    abort.abort();
  }
}

/**
 * Of the connections waiting for their peer, closes the first of: the request arriving slowest
 * (below {@linkcode STEADY_PACE}), the connection waiting longest for a request to begin, the
 * request arriving slowest; false when none waits for its peer. So peers that trickle bytes, or
 * reconnect to do it again, go first, then connections not read from yet (however far accepting
 * runs ahead of reading), and a client whose bytes keep coming goes last, however busy the
 * machine or slow the link between its pieces.
 */
function evictSlowest(open: Map<BufferedConn, boolean>): boolean {
  const now = performance.now();
  let slowest: BufferedConn | null = null;
  let slowestRank = [Infinity, Infinity];
  for (const [conn, answering] of open) {
    if (answering || !conn.waiting) continue;
    const pace = conn.pace(now);
    const rank = pace === null ? [1, conn.requestFrom] : [pace < STEADY_PACE ? 0 : 2, pace];
    if (rank[0] < slowestRank[0] || (rank[0] === slowestRank[0] && rank[1] < slowestRank[1])) {
      slowest = conn;
      slowestRank = rank;
    }
  }
  if (slowest === null) return false;
  open.delete(slowest);
  slowest.close();
  return true;
}
