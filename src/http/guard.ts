/**
 * The checks every HTTP request passes before MCP sees it (Host, Origin, bearer token), and the
 * JSON-RPC error answers the transport gives.
 *
 * @module
 */

import { isLoopback, LOOPBACK_NAMES, urlHost } from "../util/mod.ts";

/** A JSON-RPC error answer with no request id, at an HTTP status. */
export function jsonError(status: number, message: string): Response {
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

/** Options for {@linkcode guardRequest}. */
export interface GuardOptions {
  /** The address the server listens on. */
  host: string;
  /** The port it listens on. */
  port: number;
  /** The bearer token every request must carry; null: none. */
  token: string | null;
}

/** The Host/Origin/token checks: null when the request may proceed, else the refusal. */
export function guardRequest(req: Request, options: GuardOptions): Response | null {
  const names = isLoopback(options.host)
    ? LOOPBACK_NAMES
    : [urlHost(options.host), ...LOOPBACK_NAMES];
  const allowed = new Set(names.map((name) => `${name}:${options.port}`));
  const host = req.headers.get("host");
  // Beyond loopback the token stands in for the Host check (clients reach us by many names).
  const checkHost = options.token === null || isLoopback(options.host);
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
