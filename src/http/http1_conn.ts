/**
 * The reading side of the HTTP/1.1 server: a buffered connection, and request heads and bodies
 * read from it with size limits (time limits are the caller's, through {@linkcode within}).
 *
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEAD_END = encoder.encode("\r\n\r\n");
const CRLF = encoder.encode("\r\n");
const READ_SIZE = 16 * 1024;
/** The least time {@linkcode BufferedConn.pace} divides by. */
const PACE_WINDOW_MS = 100;

/** A failure that has an HTTP status to answer with before closing. */
export class HttpFailure extends Error {
  /** Answers with `status` and `message`, then closes. */
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** A connection with a read buffer; at most one read is outstanding at a time. */
export class BufferedConn {
  #conn: Deno.Conn;
  /** Buffered bytes are `#data[#start..#end]`; the capacity doubles as needed. */
  #data = new Uint8Array(READ_SIZE);
  #start = 0;
  #end = 0;
  #pending: Promise<boolean> | null = null;
  #eof = false;
  /** Set once the connection was closed. */
  closed = false;

  /** Wraps an accepted connection. */
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  #waiting = false;
  /** When the current request began: accepted, or the last one answered (`performance.now()`). */
  #requestFrom = performance.now();
  /** When the current request's first bytes came, or null before any did; and its bytes so far. */
  #firstBytesAt: number | null = null;
  #requestBytes = 0;

  /** Whether a read is under way: the connection waits for its peer rather than for us. */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** When the current request began: the connection was accepted, or the last one answered. */
  get requestFrom(): number {
    return this.#requestFrom;
  }

  /**
   * How fast the current request arrives: its bytes per millisecond since its first bytes came,
   * the first {@linkcode PACE_WINDOW_MS} counted whatever came sooner (a few bytes just in are no
   * pace); null before any came.
   */
  pace(now: number): number | null {
    if (this.#firstBytesAt === null) return null;
    return this.#requestBytes / (now - this.#firstBytesAt + PACE_WINDOW_MS);
  }

  /** Starts a new request: its time counts from now, and the bytes already buffered are its. */
  nextRequest(): void {
    this.#requestFrom = performance.now();
    this.#requestBytes = this.buffered;
    this.#firstBytesAt = this.buffered > 0 ? this.#requestFrom : null;
  }

  /** Bytes read from the peer and not yet consumed. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  get #buffer(): Uint8Array {
    return this.#data.subarray(this.#start, this.#end);
  }

  /** Reads more into the buffer: false at end of input (or once closed). */
  fill(): Promise<boolean> {
    if (this.#eof || this.closed) return Promise.resolve(false);
    if (this.#pending !== null) return this.#pending;
    this.#waiting = true;
    this.#pending = (async () => {
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
      this.#waiting = false;
      if (n === null) {
        this.#eof = true;
        return false;
      }
      this.#end += n;
      this.#firstBytesAt ??= performance.now();
      this.#requestBytes += n;
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

  /** Removes the first `n` buffered bytes, copied into `target` at `at`. */
  takeInto(target: Uint8Array, at: number, n: number): void {
    target.set(this.#data.subarray(this.#start, this.#start + n), at);
    this.#start += n;
    if (this.#start === this.#end) this.#start = this.#end = 0;
  }

  /** Removes and returns the first `n` buffered bytes. */
  take(n: number): Uint8Array<ArrayBuffer> {
    const taken = this.#data.slice(this.#start, this.#start + n);
    this.#start += n;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return taken;
  }

  /** Writes all of `data` to the peer. */
  async write(data: Uint8Array): Promise<void> {
    let written = 0;
    while (written < data.length) written += await this.#conn.write(data.subarray(written));
  }

  /** Closes the connection (again: nothing). */
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
export async function within<T>(
  conn: BufferedConn,
  ms: number,
  work: () => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  const onAbort = () => conn.close();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await work();
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** A request's head. */
export interface Head {
  /** The request method (`POST`). */
  method: string;
  /** The request target (`/mcp`). */
  target: string;
  /** The request's headers. */
  headers: Headers;
  /** Whether the connection stays open after the response (HTTP/1.1 unless "close"). */
  keepAlive: boolean;
}

/** Reads a request head; null when the peer closed before sending one. */
export async function readHead(conn: BufferedConn, maxBytes: number): Promise<Head | null> {
  let end: number;
  while ((end = conn.indexOf(HEAD_END)) < 0) {
    if (conn.buffered > maxBytes) throw new HttpFailure(431, "request header too large");
    if (!await conn.fill()) {
      if (conn.buffered === 0) return null;
      throw new HttpFailure(400, "incomplete request");
    }
  }
  if (end > maxBytes) throw new HttpFailure(431, "request header too large");
  const text = decoder.decode(conn.take(end + HEAD_END.length).subarray(0, end));
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

/** Waits until at least `n` bytes are buffered. */
async function buffer(conn: BufferedConn, n: number): Promise<void> {
  while (conn.buffered < n) {
    if (!await conn.fill()) throw new HttpFailure(400, "incomplete body");
  }
}

/** Reads a line (without its CRLF) of at most `max` bytes. */
async function readLine(conn: BufferedConn, max: number): Promise<string> {
  let end: number;
  while ((end = conn.indexOf(CRLF)) < 0) {
    if (conn.buffered > max) throw new HttpFailure(400, "bad chunk");
    if (!await conn.fill()) throw new HttpFailure(400, "incomplete body");
  }
  return decoder.decode(conn.take(end + 2).subarray(0, end));
}

/** A chunk's size line (RFC 9112 7.1): hex digits only, then maybe extensions. */
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,8})[ \t]*(?:;.*)?$/;

/**
 * Chunks one body may come in: a sender's writes, not its bytes (4 MiB in one-byte chunks held
 * 1.5 GB as four million arrays).
 */
const CHUNKS_MAX = 16 * 1024;

/** Reads a chunked body of at most `maxBytes` into one buffer that grows as it fills. */
async function readChunked(conn: BufferedConn, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  let body = new Uint8Array(Math.min(maxBytes, READ_SIZE));
  let total = 0;
  for (let chunks = 1;; chunks++) {
    const size = (await readLine(conn, 1024)).match(CHUNK_SIZE);
    if (size === null) throw new HttpFailure(400, "bad chunk size");
    const n = parseInt(size[1], 16);
    if (n === 0) break;
    if (chunks > CHUNKS_MAX) {
      throw new HttpFailure(400, `bad chunked body: more than ${CHUNKS_MAX} chunks`);
    }
    if (total + n > maxBytes) throw new HttpFailure(413, "request body too large");
    if (total + n > body.length) {
      const grown = new Uint8Array(Math.min(maxBytes, Math.max(total + n, body.length * 2)));
      grown.set(body.subarray(0, total));
      body = grown;
    }
    await buffer(conn, n + 2);
    conn.takeInto(body, total, n);
    total += n;
    if (conn.indexOf(CRLF) !== 0) throw new HttpFailure(400, "bad chunk: no CRLF after its data");
    conn.take(2);
  }
  // Trailer fields, up to the empty line.
  for (let fields = 0; (await readLine(conn, 8192)) !== ""; fields++) {
    if (fields >= 64) throw new HttpFailure(400, "bad chunked body: too many trailer fields");
  }
  return body.slice(0, total);
}

/** Reads a request body (Content-Length or chunked) of at most `maxBytes`. */
export async function readBody(
  conn: BufferedConn,
  head: Head,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const encoding = head.headers.get("transfer-encoding");
  const length = head.headers.get("content-length");
  if (encoding !== null) {
    // Both, and the two ends may read the body's end differently (RFC 9112 6.1: request smuggling).
    if (length !== null) throw new HttpFailure(400, "Content-Length with Transfer-Encoding");
    if (encoding.toLowerCase() !== "chunked") throw new HttpFailure(501, "unsupported encoding");
    return await readChunked(conn, maxBytes);
  }
  if (length === null) return new Uint8Array(0);
  if (!/^\d{1,15}$/.test(length)) throw new HttpFailure(400, "bad content-length");
  if (Number(length) > maxBytes) throw new HttpFailure(413, "request body too large");
  await buffer(conn, Number(length));
  return conn.take(Number(length));
}
