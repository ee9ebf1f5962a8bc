/**
 * The follow stage of a run: its byte stream until the run ends or the stream is lost, during its
 * call and, for a run that timed out, after it.
 *
 * @module
 */

import { deadline } from "../../async.ts";
import type { OutputTap } from "../transport/watch.ts";
import { KEEP_MS } from "./run_output.ts";
import type { Runner } from "./state.ts";
import type { RunStream } from "./stream.ts";

/**
 * Follows a timed-out run's stream after its call, so its log keeps filling (for
 * read_command_output and wait_for_command), until the run ends, the stream goes, the store lets
 * the run go, or an hour passes.
 */
export function follow(
  runner: Runner,
  run: { runId: string; stream: RunStream; tap: OutputTap },
): void {
  const stored = runner.store.get(run.runId);
  if (stored === undefined) {
    run.tap.close();
    return;
  }
  const stop = new AbortController();
  stored.onDrop = () => stop.abort();
  const limit = deadline(KEEP_MS, stop.signal);
  stored.following = Promise.race([run.stream.ended(limit.signal), run.tap.lost]).then(() => {
    limit[Symbol.dispose]();
    run.tap.close();
    stored.ended ??= Date.now();
    stored.following = undefined;
  });
}

/** The stream's end, or its loss (the watcher went away). */
export function streamEnd(stream: RunStream, tap: OutputTap): Promise<"ended" | "stream_lost"> {
  const controller = new AbortController();
  return Promise.race([
    stream.ended(controller.signal).then(() => "ended" as const),
    tap.lost.then(() => stream.done ? "ended" as const : "stream_lost" as const),
  ]).finally(() => controller.abort());
}
