/**
 * Waiting for a call's done channel, and reading what its trailer left.
 *
 * @module
 */

import { runTmux } from "../transport/command.ts";
import { abortable, ABORTED, deadline, delay } from "../../async.ts";
import { TmuxError } from "../errors.ts";
import { THEN, type TmuxChild } from "../transport/exec.ts";
import { formatOf, parseRecords } from "../format.ts";
import { splitCapture } from "../output.ts";
import { queryPane } from "../target.ts";
import { drain, type PaneCall } from "./state.ts";
import type { CallNames } from "./shell.ts";
import type { ChannelWait } from "../transport/waiter.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import {
  type Current,
  CURRENT_FIELDS,
  currentPosition,
  parseCurrent,
  type Position,
  type RunRequest,
} from "./types.ts";

const SETTLE_TRIES = 400;
const SETTLE_STEP_MS = 5;

/** Options for {@linkcode readTrailer}. */
export interface ReadTrailerOptions {
  /** Release the trailer in the same round trip (when the output needs no capture while it holds). */
  release?: boolean;
  /** The output of {@linkcode trailerCommands} when the waiter already ran them. */
  output?: string | null;
}

/**
 * The commands that read and remove the trailer's option and read the pane's position, then, with
 * `release`, release the trailer: last, so a line cut short by an error never released it.
 */
export function trailerCommands(call: PaneCall, options: ReadTrailerOptions = {}): string[] {
  const { paneId, names } = call;
  return [
    ...["show-options", "-p", "-v", "-t", paneId, names.option, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option, THEN],
    ...["display-message", "-p", "-t", paneId, formatOf(CURRENT_FIELDS)],
    ...(options.release ? [THEN, "wait-for", "-S", names.release] : []),
  ];
}

/**
 * Reads and removes the trailer's option: exit status and end position. The position is exact
 * when tmux had already parsed the OSC 7 end marker then; otherwise tmux is still behind on the
 * pane's output, and since the trailer holds the shell, waiting for the marker to show up in
 * `#{pane_path}` gives the exact end.
 */
export async function readTrailer(
  call: PaneCall,
  options: ReadTrailerOptions = {},
): Promise<{ status: number; end: Position; now: Current }> {
  const { socket, paneId, names } = call;
  const output = options.output ?? await runTmux(socket, trailerCommands(call, options));
  const [value = "", ...rest] = splitCapture(output);
  const trailer = parseTrailerValue(value);
  let now = parseCurrent(parseRecords(rest.join("\n"), CURRENT_FIELDS)[0]);
  const status = trailer.status;
  if (trailer.path === names.channel) return { status, end: trailer.end, now };
  for (let i = 0; i < SETTLE_TRIES && now.path !== names.channel; i++) {
    await delay(SETTLE_STEP_MS);
    now = await currentPosition(socket, paneId);
  }
  return { status, end: now, now };
}

/** A trailer's option value: `status:history_size:cursor_y:cursor_x:pane_path`. */
export function parseTrailerValue(value: string): { status: number; end: Position; path: string } {
  const match = value.match(/^(\d+):(\d+):(\d+):(\d+):(.*)$/);
  if (!match) {
    throw new TmuxError("tmux_error", `unexpected trailer value ${JSON.stringify(value)}`);
  }
  return {
    status: Number(match[1]),
    end: { history: +match[2], y: +match[3], x: +match[4] },
    path: match[5],
  };
}

type WaitOutcome = "signalled" | "timeout" | "aborted" | "pane_gone";

/** How often a waiting call checks that its pane still exists (a closed pane never signals). */
const PANE_CHECK_MS = 1000;

/**
 * Waits for a waiter child (`wait-for` on the call's channel) until it returns, the timeout
 * passes, the call is cancelled, or the pane goes away (checked every {@linkcode PANE_CHECK_MS}).
 */
export async function waitFor(
  waiter: TmuxChild,
  request: Pick<RunRequest, "socket" | "paneId" | "timeout" | "signal">,
  started: number,
  progress?: () => Promise<void>,
): Promise<WaitOutcome> {
  let check: ReturnType<typeof setInterval> | undefined;
  const gone = new Promise<"pane_gone">((resolve) => {
    let busy = false;
    check = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        await (progress ? progress() : queryPane(request.socket, request.paneId, []));
      } catch (error) {
        if (error instanceof TmuxError && error.code === "not_found") resolve("pane_gone");
      } finally {
        busy = false;
      }
    }, PANE_CHECK_MS);
  });
  const signal = deadline(started + request.timeout * 1000 - Date.now(), request.signal);
  try {
    const outcome = await abortable(
      Promise.race([waiter.done.then((r) => r.success ? "signalled" as const : r), gone]),
      signal,
    );
    if (outcome === ABORTED) return request.signal?.aborted ? "aborted" : "timeout";
    if (typeof outcome === "object") {
      // wait-for only fails when the server went away.
      throw new TmuxError(
        "tmux_unavailable",
        `tmux server went away while waiting: ${outcome.stderr.trim() || "wait-for failed"}`,
      );
    }
    return outcome;
  } finally {
    clearInterval(check);
  }
}

/** How long a waiter woken at the timeout may take to answer. */
const WAKE_MS = 1000;

/**
 * At the timeout the waiter is woken, not killed: a trailer that signalled just then has been read
 * by it (true: the call ended), where killing it could lose that read with the status consumed. A
 * trailer that has not run leaves the read failing on the missing option, and nothing consumed.
 * Our own signal may then stay on the channel: it is drained.
 */
export async function endedAtTimeout(
  socket: TmuxSocket,
  call: { names: CallNames; waiter: ChannelWait },
): Promise<boolean> {
  const { names, waiter } = call;
  await runTmux(socket, ["wait-for", "-S", names.channel]).catch(() => {});
  const late = await abortable(waiter.done, AbortSignal.timeout(WAKE_MS));
  if (late === ABORTED || late.output === null) return false;
  await drain(socket, names.channel);
  return true;
}
