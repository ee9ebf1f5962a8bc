/**
 * The follow stage of a run: its byte stream until the run ends or the stream is lost, during its
 * call; and what a run leaves going once its call ends. Nothing follows a pane between calls (tmux
 * before 3.8 crashes when a person respawns a pane whose output a control client has not caught
 * up with): a timed-out run's end is learned from its channel, the rest of its output from the
 * screen (catch_up.ts).
 *
 * @module
 */

import { abortable, deadline, linkedSignal } from "../../../util/mod.ts";
import { outsideCall } from "../../call_deadline.ts";
import type { OutputTap } from "../../transport/watch/watch.ts";
import { KEEP_MS, readRestFromScreen } from "../output/mod.ts";
import { forgetQuietRecord } from "./settle.ts";
import type { RunContext } from "./results.ts";
import type { PaneCall, Runner } from "../turn/mod.ts";
import { runTmux } from "../../transport/control/command.ts";
import { waitChannel } from "../../transport/spawn/waiter.ts";
import { queryPane } from "../../objects/target.ts";
import { parseTrailerValue } from "../wait/mod.ts";
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
 * What a run leaves going once its call ends: a timed-out run let go (see {@linkcode letGo}); for
 * one that ended, the tap kept until its shell has settled at its prompt (bounded: the pane's next
 * call waits for that), and a remote run's record cleared in the background (a next call finds it
 * harmless, and stopping waits for it); else the tap closed.
 */
export function afterRun(runner: Runner, ended: EndedCall): void {
  const { key, stream, tap, context } = ended;
  if (tap !== null && context?.followed) {
    outsideCall(() => letGo(runner, { runId: ended.runId, tap, context }));
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

/** At most this many timed-out runs' ends are waited for at once (a tmux client each). */
const END_WAITS_MAX = 64;

/** Timed-out runs whose ends are waited for now. */
let endWaits = 0;

/**
 * Lets a timed-out run go once its call ends: the pane is no longer followed (so a person's
 * respawn meets nothing queued), its log keeps what the stream brought and reads the rest from
 * the screen when asked (catch_up.ts), and its end is waited for on its channel (a tmux client
 * that reads nothing of the pane; on this machine, at most {@linkcode END_WAITS_MAX} at once)
 * so that list_runs and the pushed events learn it with no call.
 */
function letGo(
  runner: Runner,
  run: { runId: string; tap: OutputTap; context: RunContext },
): void {
  const { runId, tap, context } = run;
  tap.close({ letGo: true });
  context.output.flush();
  const stored = runner.store.get(runId);
  if (stored === undefined) return;
  readRestFromScreen(stored, context);
  const { socket, paneId, names } = context.call;
  if (socket.remote !== null || endWaits >= END_WAITS_MAX) return;
  endWaits++;
  const waiter = waitChannel(socket, names.channel);
  const limit = deadline(KEEP_MS);
  // Not AbortSignal.any over the server's stop signal: it would keep an entry for every run.
  const ends = linkedSignal(limit.signal, runner.stop.signal);
  const kill = () => void waiter.kill();
  ends.signal.addEventListener("abort", kill, { once: true });
  stored.onDrop = kill;
  waiter.done.then(async () => {
    endWaits--;
    ends.signal.removeEventListener("abort", kill);
    ends[Symbol.dispose]();
    limit[Symbol.dispose]();
    if (ends.signal.aborted || runner.store.get(runId) !== stored) return;
    const state = await queryPane(socket, paneId, [names.option]).catch(() => null);
    const trailer = parseTrailerValue(state?.[names.option] ?? "");
    if (trailer === null) return;
    if (stored.screen !== undefined) stored.screen.end = trailer.end_position;
    runner.runs.ended(runId, { end: trailer.end, bytes: stored.log.bytes });
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
