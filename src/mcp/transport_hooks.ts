/**
 * A transport that passes everything through to another, with hooks on the messages: the one
 * shape of the wrappers that answer some requests before the server sees them.
 *
 * @module
 */

import type { JSONRPCMessage, Transport } from "../deps.ts";

/** What a wrapper does with the messages passing through. */
export interface TransportHooks {
  /** Sees each message on its way to the client. */
  sending?: (message: JSONRPCMessage) => void;
  /**
   * Sees each message from the client: `pass` hands it on to the server, `fail` reports an error
   * (a reply that could not be sent) as the transport's own.
   */
  receiving: (message: JSONRPCMessage, pass: () => void, fail: (error: Error) => void) => void;
}

/** Wraps `inner` so that `hooks` see (and may answer) the messages passing through. */
export function hookTransport(inner: Transport, hooks: TransportHooks): Transport {
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => {
      hooks.sending?.(message);
      return inner.send(message, options);
    },
    close: () => inner.close(),
    get sessionId(): string | undefined {
      return inner.sessionId;
    },
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
  };
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (error) => outer.onerror?.(error);
  inner.onmessage = (message, extra) =>
    hooks.receiving(
      message,
      () => outer.onmessage?.(message, extra),
      (error) => outer.onerror?.(error),
    );
  return outer;
}
