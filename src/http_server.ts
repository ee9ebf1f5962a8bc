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

/** Options for {@linkcode serveHttp1}. */
export interface Http1Options {
  hostname: string;
  port: number;
  /** Connections open at once; more are answered 503 and closed (default 128). */
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
const HEAD_END = encoder.encode("\r\n\r\n");
const CRLF = encoder.encode("\r\n");
const READ_SIZE = 16 * 1024;

/** A failure that has an HTTP status to answer with before closing. */
class HttpFailure extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** A connection with a read buffer; at most one read is outstanding at a time. */
class BufferedConn {
  #conn: Deno.Conn;
  /** Buffered bytes are `#data[#start..#end]`; the capacity doubles as needed. */
  #data = new Uint8Array(READ_SIZE);
  #start = 0;
  #end = 0;
  #pending: Promise<boolean> | null = null;
  #eof = false;
  closed = false;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  get buffered(): number {
    return this.#end - this.#start;
  }

  get #buffer(): Uint8Array {
    return this.#data.subarray(this.#start, this.#end);
  }

  /** Reads more into the buffer: false at end of input (or once closed). */
  fill(): Promise<boolean> {
    if (this.#eof || this.closed) return Promise.resolve(false);
    this.#pending ??= (async () => {
      if (this.#data.length - this.#end < READ_SIZE) {
        const size = this.buffered + READ_SIZE;
        const next = new Uint8Array(
          Math.max(size, this.#data.length * (size > this.#data.length / 2 ? 2 : 1)),
        );
        next.set(this.#buffer);
        this.#data = next;
        this.#end -= this.#start;
        this.#start = 0;
      }
      let n: number | null = null;
      try {
        n = await this.#conn.read(this.#data.subarray(this.#end, this.#end + READ_SIZE));
      } catch {
        n = null;
      }
      this.#pending = null;
      if (n === null) {
        this.#eof = true;
        return false;
      }
      this.#end += n;
      return true;
    })();
    return this.#pending;
  }

  /** Index of `needle` in the buffer, or -1. */
  indexOf(needle: Uint8Array, from = 0): number {
    const buffer = this.#buffer;
    outer: for (let i = from; i <= buffer.length - needle.length; i++) {
      for (let j = 0; j < needle.length; j++) if (buffer[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  /** Removes and returns the first `n` buffered bytes. */
  take(n: number): Uint8Array<ArrayBuffer> {
    const taken = this.#data.slice(this.#start, this.#start + n);
    this.#start += n;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return taken;
  }

  async write(data: Uint8Array): Promise<void> {
    let written = 0;
    while (written < data.length) written += await this.#conn.write(data.subarray(written));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }
}

/** Runs `work` with the connection closed if `ms` pass first (the pending read then ends). */
async function within<T>(conn: BufferedConn, ms: number, work: () => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  const onAbort = () => conn.close();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await work();
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

interface Head {
  method: string;
  target: string;
  headers: Headers;
  /** Whether the connection stays open after the response (HTTP/1.1 unless "close"). */
  keepAlive: boolean;
}

/** Reads a request head; null when the peer closed before sending one. */
async function readHead(conn: BufferedConn, maxBytes: number): Promise<Head | null> {
  let end: number;
  while ((end = conn.indexOf(HEAD_END)) < 0) {
    if (conn.buffered > maxBytes) throw new HttpFailure(431, "request header too large");
    if (!await conn.fill()) {
      if (conn.buffered === 0) return null;
      throw new HttpFailure(400, "incomplete request");
    }
  }
  if (end > maxBytes) throw new HttpFailure(431, "request header too large");
  const text = new TextDecoder().decode(conn.take(end + HEAD_END.length).subarray(0, end));
  const [requestLine, ...fields] = text.split("\r\n");
  const parts = requestLine.split(" ");
  if (parts.length !== 3 || !/^HTTP\/1\.[01]$/.test(parts[2]) || !parts[1].startsWith("/")) {
    throw new HttpFailure(400, "bad request line");
  }
  const headers = new Headers();
  for (const field of fields) {
    const colon = field.indexOf(":");
    if (colon <= 0) throw new HttpFailure(400, "bad header");
    try {
      headers.append(field.slice(0, colon), field.slice(colon + 1).trim());
    } catch {
      throw new HttpFailure(400, "bad header");
    }
  }
  const connection = headers.get("connection")?.toLowerCase() ?? "";
  const keepAlive = parts[2] === "HTTP/1.1" ? connection !== "close" : connection === "keep-alive";
  return { method: parts[0], target: parts[1], headers, keepAlive };
}

/** Reads exactly `n` bytes. */
async function readExact(conn: BufferedConn, n: number): Promise<Uint8Array<ArrayBuffer>> {
  while (conn.buffered < n) {
    if (!await conn.fill()) throw new HttpFailure(400, "incomplete body");
  }
  return conn.take(n);
}

/** Reads a line (without its CRLF) of at most `max` bytes. */
async function readLine(conn: BufferedConn, max: number): Promise<string> {
  let end: number;
  while ((end = conn.indexOf(CRLF)) < 0) {
    if (conn.buffered > max) throw new HttpFailure(400, "bad chunk");
    if (!await conn.fill()) throw new HttpFailure(400, "incomplete body");
  }
  const line = new TextDecoder().decode(conn.take(end + 2).subarray(0, end));
  return line;
}

async function readBody(
  conn: BufferedConn,
  head: Head,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const encoding = head.headers.get("transfer-encoding");
  if (encoding !== null) {
    if (encoding.toLowerCase() !== "chunked") throw new HttpFailure(501, "unsupported encoding");
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const size = parseInt((await readLine(conn, 1024)).split(";")[0], 16);
      if (!Number.isFinite(size) || size < 0) throw new HttpFailure(400, "bad chunk");
      if (size === 0) break;
      total += size;
      if (total > maxBytes) throw new HttpFailure(413, "request body too large");
      parts.push(await readExact(conn, size));
      await readExact(conn, 2);
    }
    // Trailer fields, up to the empty line.
    while ((await readLine(conn, 8192)) !== "");
    const body = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      body.set(part, at);
      at += part.length;
    }
    return body;
  }
  const length = head.headers.get("content-length");
  if (length === null) return new Uint8Array(0);
  if (!/^\d{1,15}$/.test(length)) throw new HttpFailure(400, "bad content-length");
  if (Number(length) > maxBytes) throw new HttpFailure(413, "request body too large");
  return await readExact(conn, Number(length));
}

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
  const headerMs = options.headerTimeoutMs ?? 10_000;
  const bodyMs = options.bodyTimeoutMs ?? 30_000;
  const idleMs = options.idleTimeoutMs ?? 30_000;
  const maxHeader = options.maxHeaderBytes ?? 16 * 1024;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const writeMs = options.writeTimeoutMs ?? 30_000;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr as Deno.NetAddr;
  const open = new Set<BufferedConn>();
  const running = new Set<Promise<void>>();
  const origin = `http://${
    addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname
  }:${addr.port}`;

  async function serveConn(conn: BufferedConn): Promise<void> {
    for (let first = true; !conn.closed; first = false) {
      try {
        // Waiting for a first request counts as reading its head; later ones may idle first.
        if (!first) {
          const more = await within(
            conn,
            idleMs,
            () => conn.buffered > 0 ? Promise.resolve(true) : conn.fill(),
          );
          if (!more) break;
        }
        const request = await within(conn, headerMs, () => readHead(conn, maxHeader));
        if (request === null) break;
        const url = `${origin}${request.target}`;
        const refusal = options.admit?.(
          new Request(url, { method: request.method, headers: request.headers }),
        );
        if (refusal) {
          await writeResponse(conn, refusal, {
            keepAlive: false,
            head: false,
            maxBuffered: 0,
            writeMs,
          });
          break;
        }
        if (request.headers.get("expect")?.toLowerCase() === "100-continue") {
          await conn.write(encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"));
        }
        const body = await within(conn, bodyMs, () => readBody(conn, request, maxBody));
        const abort = new AbortController();
        let response: Response;
        try {
          response = await handler(
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
            maxBuffered: maxHeader + maxBody,
            writeMs,
          });
        } finally {
          abort.abort();
        }
        if (!request.keepAlive) break;
      } catch (error) {
        if (error instanceof HttpFailure && !conn.closed) await answerFailure(conn, error);
        break;
      }
    }
    conn.close();
  }

  const accepting = (async () => {
    for (;;) {
      let raw: Deno.Conn;
      try {
        raw = await listener.accept();
      } catch {
        break;
      }
      const conn = new BufferedConn(raw);
      if (open.size >= maxConnections) {
        // Refused before reading anything: a full house is never held longer by a slow peer.
        answerFailure(conn, new HttpFailure(503, "too many connections")).finally(() =>
          conn.close()
        );
        continue;
      }
      open.add(conn);
      const task = serveConn(conn).finally(() => {
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
      for (const conn of open) conn.close();
      await Promise.allSettled([...running]);
    })();
  return { addr, finished: accepting.then(() => shutdown()), shutdown };
}
