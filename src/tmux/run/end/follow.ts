/**
 * The follow stage of a run: its byte stream until the run ends or the stream is lost, during its
 * call and, for a run that timed out, after it; and what a run leaves going once its call ends.
 *
 * @module
 */

import { abortable, deadline } from "../../../util/mod.ts";
import { outsideCall } from "../../call_deadline.ts";
import type { OutputTap } from "../../transport/watch/watch.ts";
import { KEEP_MS } from "../output/mod.ts";
import { forgetQuietRecord } from "./settle.ts";
import type { RunContext } from "./results.ts";
import type { PaneCall, Runner } from "../turn/mod.ts";
import { runTmux } from "../../transport/control/command.ts";
import { untilProgramWaits } from "../../read/wait/program_turn.ts";
import type { RunStream } from "../wait/mod.ts";

/** How long the shell may take to read again, before and after the key that clears its line. */
const REPLIES_WAIT_MS = 2000;

/**
 * The command asked the terminal something (a binary's bytes do: device attributes, XTVERSION),
 * and tmux's answers came as input, after the command read none of them: they sit on the
 * shell's command line, where the next line typed would join them. Once the shell reads again,
 * C-c drops them (the line editor's own way to abandon a line), and the shell is let read again
 * before the pane's next call types.
 */
async function clearReplies(call: PaneCall, stream: RunStream): Promise<void> {
  const { socket, paneId } = call;
  const lastOutput = () => stream.lastOutput;
  const reading = await untilProgramWaits(socket, paneId, {
    signal: AbortSignal.timeout(REPLIES_WAIT_MS),
    lastOutput,
  });
  if (reading === null) return;
  const sent = Date.now();
  await runTmux(socket, ["send-keys", "-t", paneId, "C-c"]);
  await untilProgramWaits(socket, paneId, {
    signal: AbortSignal.timeout(REPLIES_WAIT_MS),
    lastOutput: () => Math.max(sent, lastOutput()),
  });
}

/** How long a run's shell may take to finish after its end marker (its trailer's tmux command). */
const SETTLE_MS = 1000;
/** How long a shell that finished may take to start drawing its prompt. */
const PROMPT_MS = 250;

/** A run as its call ended, for {@linkcode afterRun}. */
export interface EndedCall {
  /** The pane's lock key. */
  key: string;
  /** The run's id. */
  runId: string;
  /** The run's stream and the tap feeding it, when the server followed it (else null). */
  stream: RunStream | null;
  /** The run's output tap; null: none was had. */
  tap: OutputTap | null;
  /** Its context, once the line was typed and waited for (else null). */
  context: RunContext | null;
}

/**
 * What a run leaves going once its call ends: a timed-out run's stream followed (see
 * {@linkcode follow}); for one that ended, the tap kept until its shell has settled at its prompt
 * (bounded: the pane's next call waits for that), and a remote run's record cleared in the
 * background (a next call finds it harmless, and stopping waits for it); else the tap closed.
 */
export function afterRun(runner: Runner, ended: EndedCall): void {
  const { key, stream, tap, context } = ended;
  if (tap !== null && stream !== null && context?.followed) {
    outsideCall(() => follow(runner, { runId: ended.runId, stream, tap }));
    return;
  }
  if (tap === null || stream === null || !stream.done) {
    tap?.close();
    return;
  }
  const limit = deadline(SETTLE_MS);
  // Settled once the shell draws its prompt: a read of the pane then finds it (bounded: a
  // prompt of no bytes draws nothing).
  const prompted = stream.afterEnd.settled.then(() =>
    abortable(stream.afterEnd.prompted, AbortSignal.timeout(PROMPT_MS))
  );
  const seen = Promise.race([prompted, tap.lost]);
  const settled: Promise<void> = abortable(seen, limit.signal).then(async () => {
    limit[Symbol.dispose]();
    if (stream.queriedTerminal && context !== null) {
      await outsideCall(() => clearReplies(context.call, stream)).catch(() => {});
    }
    tap.close();
    if (runner.settling.get(key) === settled) runner.settling.delete(key);
  });
  runner.settling.set(key, settled);
  if (context?.recorded) {
    const forgot = outsideCall(() => forgetQuietRecord(context));
    const cleared: Promise<void> = abortable(forgot, limit.signal)
      .then(() => void runner.inFlight.delete(cleared));
    runner.inFlight.add(cleared);
  }
}

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
    stored.log.settle();
    if (run.stream.done) {
      runner.runs.ended(run.runId, { end: run.stream.end, bytes: stored.log.bytes });
    }
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
