/**
 * Ends the response of every request the client cancels. The SDK stops a cancelled request's
 * handler and, as the spec advises, sends nothing for it; over Streamable HTTP that leaves the
 * request's POST stream, and the connection under it, open for good (about 128 cancellations by
 * an ordinary client filled the server's connection cap). Here a cancelled request still in
 * flight is answered with a JSON-RPC error, which the transport takes as the end of its stream;
 * the spec lets a client ignore a response that arrives after its cancellation.
 *
 * @module
 */

import type { JSONRPCMessage, Transport } from "../deps.ts";
import { hookTransport } from "./transport_hooks.ts";

/** JSON-RPC error code for a request its sender cancelled (as LSP defines it). */
const REQUEST_CANCELLED = -32800;

/** Requests tracked at once: far beyond what one session has in flight. */
const IN_FLIGHT_MAX = 4096;

type Id = string | number;

function requestId(message: JSONRPCMessage): Id | null {
  return "method" in message && "id" in message ? message.id : null;
}

function responseId(message: JSONRPCMessage): Id | null {
  return !("method" in message) && "id" in message ? message.id as Id : null;
}

function cancelledId(message: JSONRPCMessage): Id | null {
  if (!("method" in message) || message.method !== "notifications/cancelled") return null;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** Wraps a transport so that cancelled requests get an answer that ends their response. */
export function endCancelledRequests(inner: Transport): Transport {
  const inFlight = new Set<Id>();
  return hookTransport(inner, {
    sending(message) {
      const id = responseId(message);
      if (id !== null) inFlight.delete(id);
    },
    receiving(message, pass) {
      const id = requestId(message);
      if (id !== null && inFlight.size < IN_FLIGHT_MAX) inFlight.add(id);
      pass();
      const cancelled = cancelledId(message);
      if (cancelled === null || !inFlight.delete(cancelled)) return;
      inner.send({
        jsonrpc: "2.0",
        id: cancelled,
        error: { code: REQUEST_CANCELLED, message: "request cancelled" },
      }, { relatedRequestId: cancelled }).catch(() => {});
    },
  });
}
