/**
 * A TCP proxy on 127.0.0.1 that holds every chunk for a while each way, in order: a network
 * round trip longer by twice that, for the bench's remote figures.
 *
 * @module
 */

/** A running proxy. */
export interface DelayProxy {
  port: number;
  close(): Promise<void>;
}

/** Forwards `from` to `to`, each chunk leaving `delayMs` after it came. */
async function pipe(from: Deno.Conn, to: Deno.Conn, delayMs: number): Promise<void> {
  let sent = Promise.resolve();
  try {
    for await (const chunk of from.readable) {
      const due = performance.now() + delayMs;
      sent = sent.then(async () => {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const writer = to.writable.getWriter();
        await writer.write(chunk).finally(() => writer.releaseLock());
      });
    }
    await sent;
  } catch {
    // Either side went away: the other is closed below.
  }
  try {
    to.close();
  } catch {
    // Already closed.
  }
}

/** Starts a proxy to `127.0.0.1:targetPort` adding `oneWayMs` each way. */
export function startDelayProxy(targetPort: number, oneWayMs: number): DelayProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const conn of listener) {
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
      // The delay is the only one added: no waiting to fill segments (Nagle) in the proxy.
      conn.setNoDelay(true);
      upstream.setNoDelay(true);
      conns.add(conn).add(upstream);
      pipe(conn, upstream, oneWayMs);
      pipe(upstream, conn, oneWayMs);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close(): Promise<void> {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
      await serving;
    },
  };
}
