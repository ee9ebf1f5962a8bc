/**
 * Newline-delimited records from a child's standard output, as bytes: a line is handed on only
 * once whole, however the pipe split it.
 *
 * @module
 */

import { abortable, ABORTED, deadline } from "../../async.ts";
import { chunkReader } from "../../streams.ts";

const NEWLINE = 0x0a;

/**
 * Yields each complete line of a byte stream (without its newline); an unfinished tail is
 * dropped. A line is valid only until the next one is asked for (the read buffer is reused).
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = chunkReader(stream);
  let pending = new Uint8Array(0);
  for (let chunk = await reader.read(); chunk !== null; chunk = await reader.read()) {
    let data = chunk;
    if (pending.length > 0) {
      data = new Uint8Array(pending.length + chunk.length);
      data.set(pending);
      data.set(chunk, pending.length);
    }
    let from = 0;
    for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE, from)) {
      yield data.subarray(from, end);
      from = end + 1;
    }
    pending = data.slice(from);
  }
}

/** How long a child may take to exit after SIGTERM before SIGKILL. */
const KILL_AFTER_MS = 2000;

/**
 * Sends SIGTERM to a child that may already have exited, SIGKILL if it is still there a moment
 * later (a stopped process takes no SIGTERM until it runs again), then waits until it is reaped.
 */
export async function terminate(child: Deno.ChildProcess): Promise<void> {
  const signal = (name: Deno.Signal): void => {
    try {
      child.kill(name);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  using limit = deadline(KILL_AFTER_MS);
  if (await abortable(child.status, limit.signal) === ABORTED) signal("SIGKILL");
  await child.status;
}
