/**
 * The run/wait/capture machinery behind `run_command`: one shell command in one pane, waited for
 * through a private `tmux wait-for` channel, its exit status read from a private pane option and its
 * own output cut from the pane between the anchor and the trailer's cursor position.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { runTmux } from "./command.ts";
import { spawnTmux, THEN, type TmuxChild, type TmuxSocket } from "./exec.ts";
import { formatOf, intField, parseRecords } from "./format.ts";
import { queryPane } from "./target.ts";
import { historyTrim, type PanePosition, parsePosition, POSITION_FIELDS } from "./position.ts";
import { captureSince } from "./capture.ts";
import { acquire, createKeyedLock, type KeyedLock } from "./lock.ts";
import { cellsOf, cutAtCursor, outputAfter, splitCapture, truncateTail } from "./output.ts";
import {
  buildTypedLine,
  type CallNames,
  callNames,
  classifyProcess,
  isInlineSafe,
  markOutlivedShell,
  NAME_PREFIX,
  NONCE_BYTES,
  RUNNING_OPTION,
  runningMark,
  statusOptionNonce,
} from "./shell.ts";
import { randomHex } from "../hex.ts";
import {
  encodeRecord,
  parseRecord,
  parseRunId,
  RECORD_TTL_MS,
  recordOptionNonce,
  runIdOf,
} from "./run_record.ts";

/** Why a line that was typed did not start within the timeout. */
const NEVER_STARTED = "the line was typed but the shell did not run it within the timeout: it " +
  "is probably waiting at a continuation prompt (an unclosed quote or bracket) or was read as " +
  "input by a program; it may still run if that input is completed, so look at the pane " +
  "(capture_pane) before retrying";

/** C-u: line editors' unix-line-discard, and the terminal's kill character. */
const KILL_LINE = "\x15";

/** A call whose wait was given up while its command may still finish and run its trailer. */
interface Orphan {
  names: CallNames;
}

/** State shared by all calls of one server: per-pane queues and leftovers of timed-out calls. */
export interface Runner {
  locks: KeyedLock;
  orphans: Map<string, Orphan[]>;
  /** Per pane, where the last finished call's output ended: until the cursor leaves that spot, the
   * shell has not drawn its prompt yet. */
  lastEnds: Map<string, Position>;
  /** Aborted by {@linkcode stopRunner}: every wait ends as if cancelled. */
  stop: AbortController;
  inFlight: Set<Promise<unknown>>;
}

/** Makes the shared state for {@linkcode runCommand}. */
export function createRunner(): Runner {
  return {
    locks: createKeyedLock(),
    orphans: new Map(),
    lastEnds: new Map(),
    stop: new AbortController(),
    inFlight: new Set(),
  };
}

/**
 * Ends every call in flight the way a cancellation does (wait-for children killed, trailers
 * released) and waits for them, so a stopping server leaves nothing behind in tmux.
 */
export async function stopRunner(runner: Runner): Promise<void> {
  runner.stop.abort();
  await Promise.allSettled([...runner.inFlight]);
}

/** One request, already validated and resolved to a pane. */
export interface RunRequest {
  socket: TmuxSocket;
  paneId: string;
  command: string;
  /** Seconds, already clamped to the server's ceiling. */
  timeout: number;
  maxLines: number | null;
  suppressHistory: boolean;
  signal?: AbortSignal;
  /** Called about once a second while waiting, with the output lines that are new since. */
  onProgress?: (update: { elapsed: number; lines: string[] }) => void;
}

/** The outcome, in the contract's wire names. */
export interface RunResult {
  pane_id: string;
  /** Names this run for wait_for_command. */
  run_id: string;
  exit_status: number | null;
  timed_out: boolean;
  started: boolean;
  /** Why the command was not started (when started is false). */
  not_started_reason: string | null;
  elapsed_seconds: number;
  effective_timeout: number;
  output: string[];
  output_truncated: boolean;
  output_truncated_lines: number;
  output_truncated_bytes: number;
  lines_missed: boolean;
  anchor_lost: boolean;
}

const STATE_FIELDS = [
  "pane_in_mode",
  "pane_mode",
  "pane_dead",
  "pane_pid",
  "pane_current_command",
  "history_size",
  "history_limit",
  "cursor_y",
  "cursor_x",
  "socket_path",
  "pane_path",
  RUNNING_OPTION,
] as const;

/** The position and `#{pane_path}`, which shows the trailer's end marker once tmux parsed it. */
const CURRENT_FIELDS = [...POSITION_FIELDS, "pane_path"] as const;

/** A cursor position: rows of history above the screen plus the cursor on it. */
interface Position {
  history: number;
  y: number;
  x: number;
}

interface Anchor extends Position {
  pid: number;
}

interface Current extends PanePosition {
  path: string;
}

function parseCurrent(record: Record<(typeof CURRENT_FIELDS)[number], string>): Current {
  return { ...parsePosition(record), path: record.pane_path };
}

function lockKey(socket: TmuxSocket, paneId: string): string {
  return `${socket.socketName ?? ""}\x00${paneId}`;
}

/** Runs a command in a pane and waits for it, as the run_command contract says. */
export async function runCommand(runner: Runner, request: RunRequest): Promise<RunResult> {
  if (runner.stop.signal.aborted) {
    throw new TmuxError("cancelled", "the server is shutting down");
  }
  const signal = request.signal
    ? AbortSignal.any([request.signal, runner.stop.signal])
    : runner.stop.signal;
  const call = runQueued(runner, { ...request, signal });
  runner.inFlight.add(call);
  try {
    return await call;
  } finally {
    runner.inFlight.delete(call);
  }
}

async function runQueued(runner: Runner, request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const { socket, paneId } = request;
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const nonce = randomHex(NONCE_BYTES);
  const names = callNames(nonce);
  const base = {
    pane_id: paneId,
    run_id: runIdOf(paneId, nonce),
    effective_timeout: request.timeout,
    output: [] as string[],
    output_truncated: false,
    output_truncated_lines: 0,
    output_truncated_bytes: 0,
    lines_missed: false,
    anchor_lost: false,
  };
  const key = lockKey(socket, paneId);
  const release = await acquire(runner.locks, key, {
    deadline: started + request.timeout * 1000,
    signal: request.signal,
  });
  if (release === null) {
    if (request.signal?.aborted) throw new TmuxError("cancelled", "run_command was cancelled");
    throw new TmuxError(
      "pane_busy",
      `pane ${paneId} was busy with another run_command for the whole timeout`,
    );
  }
  try {
    await sweepOrphans(runner, socket, paneId);
    let state = await idleState(socket, paneId, runner.lastEnds.get(key));
    runner.lastEnds.delete(key);
    if (!ready(state, undefined) && await reconcile(socket, paneId, state)) {
      state = await idleState(socket, paneId, undefined);
    }
    if (state.pane_dead === "1") {
      throw new TmuxError("pane_dead", `pane ${paneId} is dead (its process has exited)`);
    }
    if (state.pane_in_mode === "1") {
      throw new TmuxError(
        "pane_in_mode",
        `pane ${paneId} is in ${
          state.pane_mode || "a mode"
        }; leave it (q or Escape) before running commands`,
      );
    }
    const running = state[RUNNING_OPTION];
    const kind = foreground(state);
    if (kind === "unsupported_shell") {
      throw new TmuxError(
        "unsupported_shell",
        `pane ${paneId} runs ${state.pane_current_command}, which is not a POSIX shell`,
      );
    }
    if (kind === "other") {
      return {
        ...base,
        exit_status: null,
        timed_out: false,
        started: false,
        not_started_reason: running === ""
          ? `pane ${paneId} is running ${
            JSON.stringify(state.pane_current_command)
          }, not an idle shell`
          : `pane ${paneId} is still running an earlier run_command (${RUNNING_OPTION} ${running})`,
        elapsed_seconds: elapsed(),
      };
    }
    const anchor: Anchor = {
      history: intField(state.history_size, "history_size"),
      y: intField(state.cursor_y, "cursor_y"),
      x: intField(state.cursor_x, "cursor_x"),
      pid: intField(state.pane_pid, "pane_pid"),
    };
    const inline = isInlineSafe(request.command);
    const typed = buildTypedLine(request.command, {
      names,
      paneId,
      socketPath: state.socket_path,
      // A trailer that never got to put the path back (its shell was killed) left its marker.
      panePath: isMarker(state.pane_path) ? "" : state.pane_path,
      suppressHistory: request.suppressHistory,
      inline,
    });
    // Where progress reports start reading: before the line is typed.
    const progressCursor = request.onProgress
      ? (await captureSince(socket, paneId, null)).cursor
      : null;
    // One paste, into this pane alone (keys sent with send-keys would reach every pane of a
    // synchronized window): C-u first, as text someone left unsent at the prompt would otherwise
    // prefix our line (line editors keep it in their kill ring; without one, the terminal's kill
    // character drops it), then the line and its Enter.
    const paste = [
      ...["set-option", "-p", "-t", paneId, RUNNING_OPTION, runningMark(names, anchor.pid), THEN],
      ...["set-buffer", "-b", names.pasteBuffer, "--", `${KILL_LINE}${typed}\r`, THEN],
      ...["paste-buffer", "-d", "-b", names.pasteBuffer, "-t", paneId],
    ];
    try {
      await runTmux(
        socket,
        inline ? paste : ["load-buffer", "-b", names.commandBuffer, "-", THEN, ...paste],
        inline ? {} : { stdin: request.command },
      );
    } catch (error) {
      if (!inline) await deleteBuffer(socket, names.commandBuffer);
      await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION])
        .catch(() => {});
      throw error;
    }
    // Spawned once the line is on its way, so the shell starts meanwhile. A signal sent before
    // the waiter arrives is kept by tmux until it does.
    let waiter: TmuxChild;
    try {
      waiter = spawnTmux(socket, ["wait-for", names.channel]);
    } catch (error) {
      addOrphan(runner, socket, paneId, names);
      throw error;
    }
    /** Stops waiting: the child is killed and reaped, an unfetched command buffer deleted. */
    const abandon = async (): Promise<void> => {
      await waiter.kill();
      if (!inline) await deleteBuffer(socket, names.commandBuffer);
    };
    const progress = progressCursor === null
      ? undefined
      : progressReporter(request, { cursor: progressCursor, typed, names, started });
    const outcome = await waitFor(waiter, request, started, progress);
    const collect = { socket, paneId, anchor, typed, names };
    if (outcome === "pane_gone") {
      await abandon();
      throw new TmuxError("not_found", `pane ${paneId} was closed while the command ran`);
    }
    if (outcome !== "signalled") {
      await abandon();
      addOrphan(runner, socket, paneId, names);
      // Released ahead, so the trailer will not hold when the command ends later.
      if (outcome === "aborted") {
        await runTmux(socket, ["wait-for", "-S", names.release]).catch(() => {});
        throw new TmuxError("cancelled", "run_command was cancelled");
      }
      // Kept in the pane until collected (wait_for_command) or expired; the trailer keeps its
      // status for it. Set before the capture below releases the trailer.
      const record = { anchor, typed, created: Date.now() };
      await runTmux(socket, ["set-option", "-p", "-t", paneId, names.record, encodeRecord(record)]);
      const now = await currentPosition(socket, paneId);
      const cut = await collectOutput({ ...collect, end: now, now });
      // The shell never started the line (its start marker never showed): a continuation
      // prompt or a program reading input took it. No mark of ours stays behind (the trailer,
      // should the line run later, was released above with the capture).
      const started = now.path === names.startMarker || now.path === names.channel;
      if (!started) {
        await runTmux(socket, [
          ...["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION, THEN],
          ...["set-option", "-p", "-u", "-t", paneId, names.record],
        ]).catch(() => {});
      }
      return {
        ...base,
        ...shapeOutput(cut, request.maxLines),
        exit_status: null,
        timed_out: true,
        started,
        not_started_reason: started ? null : NEVER_STARTED,
        elapsed_seconds: elapsed(),
      };
    }
    const { status, end, now } = await readTrailer(socket, paneId, names);
    const cut = await collectOutput({ ...collect, end, now });
    rememberEnd(runner, key, now);
    return {
      ...base,
      ...shapeOutput(cut, request.maxLines),
      exit_status: status,
      timed_out: false,
      started: true,
      not_started_reason: null,
      elapsed_seconds: elapsed(),
    };
  } finally {
    release();
  }
}

type PaneState = Record<(typeof STATE_FIELDS)[number], string>;

function foreground(state: PaneState): ReturnType<typeof classifyProcess> {
  // While our wrapper runs, the foreground process is a subshell named like the shell itself.
  return state[RUNNING_OPTION] === "" ? classifyProcess(state.pane_current_command) : "other";
}

/** How long, in ms, a pane that is not at an idle shell is watched for getting there. */
const IDLE_WAIT_MS = 150;

/** Looks taken back to back before sleeping between them: a shell is usually back within 2 ms. */
const IDLE_QUICK_LOOKS = 8;

const MARKER = new RegExp(`^${NAME_PREFIX}[0-9a-f]{${2 * NONCE_BYTES}}(_s)?$`);

/**
 * Whether `#{pane_path}` shows one of our OSC 7 markers: a call's start marker while its command
 * runs, its end marker until the trailer puts the path back.
 */
function isMarker(path: string): boolean {
  return MARKER.test(path);
}

/** How long a drain of a call's done channel may wait: it returns at once when signalled. */
const DRAIN_MS = 100;

/**
 * Brings a pane's bookkeeping in tmux back in line with what tmux reports, whichever server
 * process left it (one killed mid-call, say); true when anything changed:
 * - a running mark set for another pane process (respawned) or a dead pane is removed;
 * - a trailer that finished but whose call is gone (its status option is still set: nobody
 *   collected it) is released, its option removed and its done signal drained.
 * Only called for a pane that is not at an idle shell, so the common path pays nothing.
 */
async function reconcile(socket: TmuxSocket, paneId: string, state: PaneState): Promise<boolean> {
  const commands: string[] = [];
  const mark = state[RUNNING_OPTION];
  if (mark !== "" && (state.pane_dead === "1" || markOutlivedShell(mark, state.pane_pid))) {
    commands.push("set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION, THEN);
  }
  const listing = await runTmux(socket, ["show-options", "-p", "-t", paneId]);
  const options = new Set(listing.split("\n").map((line) => line.slice(0, line.indexOf(" "))));
  const held: CallNames[] = [];
  const recorded: CallNames[] = [];
  for (const name of options) {
    const status = statusOptionNonce(name);
    if (status !== null && !options.has(callNames(status).record)) held.push(callNames(status));
    const nonce = recordOptionNonce(name);
    if (nonce !== null) recorded.push(callNames(nonce));
  }
  if (recorded.length > 0) {
    const values = await queryPane(socket, paneId, recorded.map((names) => names.record));
    for (const names of recorded) {
      if (!recordExpired(values[names.record], state)) continue;
      commands.push("set-option", "-p", "-u", "-t", paneId, names.record, THEN);
      commands.push("set-option", "-p", "-u", "-t", paneId, names.option, THEN);
    }
  }
  for (const names of held) {
    commands.push("wait-for", "-S", names.release, THEN);
    commands.push("set-option", "-p", "-u", "-t", paneId, names.option, THEN);
  }
  if (commands.length === 0) return false;
  await runTmux(socket, commands.slice(0, -1));
  await Promise.all(held.map((names) => drain(socket, names.channel)));
  return true;
}

/** Whether a run record is past keeping: too old, unreadable, or made for a pane process gone. */
function recordExpired(value: string, state: { pane_pid: string; pane_dead: string }): boolean {
  const record = parseRecord(value);
  return record === null || Date.now() - record.created > RECORD_TTL_MS ||
    String(record.anchor.pid) !== state.pane_pid || state.pane_dead === "1";
}

/** Consumes a signal left on a channel whose waiter is gone; gives up after {@linkcode DRAIN_MS}. */
async function drain(socket: TmuxSocket, channel: string): Promise<void> {
  const waiter = spawnTmux(socket, ["wait-for", channel]);
  const signal = AbortSignal.timeout(DRAIN_MS);
  const giveUp = () => waiter.kill();
  signal.addEventListener("abort", giveUp, { once: true });
  await waiter.done;
  signal.removeEventListener("abort", giveUp);
}

/**
 * The pane's state, looked at again for a moment when it is not at an idle shell yet. Right after
 * a command the shell takes the terminal back: until then tmux names the pane by its start
 * command (e.g. "env" for `env X=1 bash`), or a trailer of ours is still finishing (its end marker
 * is the pane path, or the cursor still sits where the last output ended, before the prompt).
 * Text typed before the line editor is back would be echoed twice.
 */
async function idleState(
  socket: TmuxSocket,
  paneId: string,
  lastEnd: Position | undefined,
): Promise<PaneState> {
  const waitUntil = Date.now() + IDLE_WAIT_MS;
  let state = await queryPane(socket, paneId, STATE_FIELDS);
  for (let look = 1; !ready(state, lastEnd) && Date.now() < waitUntil; look++) {
    if (state.pane_in_mode === "1" || state.pane_dead === "1") break;
    if (look > IDLE_QUICK_LOOKS) {
      const sleep = Math.min(2 ** (look - IDLE_QUICK_LOOKS - 1), 10);
      await new Promise((resolve) => setTimeout(resolve, sleep));
    }
    state = await queryPane(socket, paneId, STATE_FIELDS);
  }
  return state;
}

function ready(state: PaneState, lastEnd: Position | undefined): boolean {
  if (foreground(state) === "other" || isMarker(state.pane_path)) return false;
  return lastEnd === undefined || String(lastEnd.history) !== state.history_size ||
    String(lastEnd.y) !== state.cursor_y || String(lastEnd.x) !== state.cursor_x;
}

/** Panes remembered by {@linkcode rememberEnd} at most; the oldest is forgotten first. */
const LAST_ENDS_MAX = 1024;

function rememberEnd(runner: Runner, key: string, end: Position): void {
  runner.lastEnds.set(key, { history: end.history, y: end.y, x: end.x });
  if (runner.lastEnds.size > LAST_ENDS_MAX) {
    runner.lastEnds.delete(runner.lastEnds.keys().next().value!);
  }
}

const SETTLE_TRIES = 400;
const SETTLE_STEP_MS = 5;

/**
 * Reads and removes the trailer's option: exit status and end position. The position is exact
 * when tmux had already parsed the OSC 7 end marker then; otherwise tmux is still behind on the
 * pane's output, and since the trailer holds the shell, waiting for the marker to show up in
 * `#{pane_path}` gives the exact end.
 */
async function readTrailer(
  socket: TmuxSocket,
  paneId: string,
  names: CallNames,
): Promise<{ status: number; end: Position; now: Current }> {
  const output = await runTmux(socket, [
    ...["show-options", "-p", "-v", "-t", paneId, names.option, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option, THEN],
    ...["display-message", "-p", "-t", paneId, formatOf(CURRENT_FIELDS)],
  ]);
  const [value = "", ...rest] = splitCapture(output);
  const trailer = parseTrailerValue(value);
  let now = parseCurrent(parseRecords(rest.join("\n"), CURRENT_FIELDS)[0]);
  const status = trailer.status;
  if (trailer.path === names.channel) return { status, end: trailer.end, now };
  for (let i = 0; i < SETTLE_TRIES && now.path !== names.channel; i++) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_STEP_MS));
    now = await currentPosition(socket, paneId);
  }
  return { status, end: now, now };
}

/** A trailer's option value: `status:history_size:cursor_y:cursor_x:pane_path`. */
function parseTrailerValue(value: string): { status: number; end: Position; path: string } {
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

async function waitFor(
  waiter: TmuxChild,
  request: Pick<RunRequest, "socket" | "paneId" | "timeout" | "signal">,
  started: number,
  progress?: () => Promise<void>,
): Promise<WaitOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let check: ReturnType<typeof setInterval> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<WaitOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve("timeout"),
      Math.max(0, started + request.timeout * 1000 - Date.now()),
    );
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
    onAbort = () => resolve("aborted");
    if (request.signal?.aborted) resolve("aborted");
    request.signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([
      waiter.done.then((r) => r.success ? "signalled" as const : r),
      stop,
    ]);
    if (typeof outcome === "object") {
      // wait-for only fails when the server went away.
      throw new TmuxError(
        "tmux_unavailable",
        `tmux server went away while waiting: ${outcome.stderr.trim() || "wait-for failed"}`,
      );
    }
    return outcome;
  } finally {
    clearTimeout(timer);
    clearInterval(check);
    if (onAbort) request.signal?.removeEventListener("abort", onAbort);
  }
}

/** Lines looked through for the typed line before progress reports give up on finding it. */
const PROGRESS_SEARCH_LINES = 1000;

/**
 * Reports output while a command runs: complete lines since the last report, read the way
 * capture_since reads them (so none is repeated or skipped), from the typed line on. Throws
 * not_found when the pane is gone.
 */
function progressReporter(
  request: RunRequest,
  call: { cursor: string; typed: string; names: CallNames; started: number },
): () => Promise<void> {
  let cursor = call.cursor;
  // Lines read before the typed line showed up; null once it has.
  let before: string[] | null = [];
  return async () => {
    const since = await captureSince(request.socket, request.paneId, cursor);
    cursor = since.cursor;
    let lines = since.lines;
    if (before !== null) {
      before = before.concat(lines);
      const after = outputAfter(before, call.typed, call.names.channel);
      lines = after ?? [];
      if (after !== null || before.length > PROGRESS_SEARCH_LINES) before = null;
    }
    request.onProgress?.({ elapsed: (Date.now() - call.started) / 1000, lines });
  };
}

async function currentPosition(socket: TmuxSocket, paneId: string): Promise<Current> {
  return parseCurrent(await queryPane(socket, paneId, CURRENT_FIELDS));
}

interface CollectOptions {
  socket: TmuxSocket;
  paneId: string;
  anchor: Anchor;
  /** Where output ended, in the coordinates of the moment it was recorded. */
  end: Position;
  now: Current;
  typed: string;
  names: CallNames;
  /** Release the trailer (default true): false when it was released already. */
  release?: boolean;
}

interface Collected {
  lines: string[];
  linesMissed: boolean;
  anchorLost: boolean;
}

interface Rows {
  /** First row (negative: history); null: the start of history. */
  from: number | null;
  to: number;
  /** Cursor column on the last row: what is right of it came after the output. */
  cursorX: number;
  /** tmux commands to chain after the capture. */
  then: string[];
}

/** Captures rows with -J (wrapped lines joined), the last one cut at the cursor. */
async function captureRows(socket: TmuxSocket, paneId: string, rows: Rows): Promise<string[]> {
  const capture = (from: string, to: number) => [
    ...["capture-pane", "-p", "-J", "-t", paneId, "-S", from, "-E", String(to)],
  ];
  const args = capture(rows.from === null ? "-" : String(rows.from), rows.to);
  // A last line without its newline shares its row with whatever came next: capture that row too.
  const partial = rows.cursorX !== 0;
  if (partial) args.push(THEN, ...capture(String(rows.to), rows.to));
  if (rows.then.length > 0) args.push(THEN, ...rows.then);
  const lines = splitCapture(await runTmux(socket, args));
  if (!partial) return lines;
  const row = lines.pop() ?? "";
  return cutAtCursor(lines, row, rows.cursorX);
}

/** How many trim counts are tried before the whole history is searched for the typed line. */
const TRIM_GUESSES = 3;

/**
 * Captures from the anchor to the end position, drops the typed line, and releases the trailer
 * (exactly once, chained to the first capture). Row numbers count from the top of history, which
 * moves when tmux drops old lines, so the typed line is looked for where the anchor and the
 * trims since say, and over the whole history when it is not there.
 */
async function collectOutput(options: CollectOptions): Promise<Collected> {
  const { socket, paneId, anchor, end, now } = options;
  let release = options.release === false ? [] : ["wait-for", "-S", options.names.release];
  const capture = async (from: number | null, to: number): Promise<string[]> => {
    const then = release;
    release = [];
    return await captureRows(socket, paneId, { from, to, cursorX: end.x, then });
  };
  try {
    const respawned = now.pid !== anchor.pid;
    const endAbsolute = end.history + end.y - (end.x === 0 ? 1 : 0);
    const endRow = now.history >= end.history
      ? endAbsolute - now.history
      : endAbsolute - end.history;
    const find = (lines: string[]): string[] | null =>
      outputAfter(lines, options.typed, options.names.channel);
    if (!respawned) {
      // tmux drops a tenth of history-limit each time history fills up: the anchor row is where
      // it was, less some number of such trims; the fewest that fit are tried first.
      const trim = historyTrim(now.limit);
      const fewest = Math.max(0, Math.ceil((anchor.history - now.history) / trim));
      for (let trims = fewest; trims < fewest + TRIM_GUESSES; trims++) {
        const startRow = anchor.history + anchor.y - trims * trim - now.history;
        if (startRow < -now.history) break;
        // Output ends above where it started: the screen was cleared (see below).
        if (endRow < startRow) continue;
        const output = find(await capture(startRow, endRow));
        if (output !== null) return { lines: output, linesMissed: false, anchorLost: false };
      }
    }
    const lines = await capture(null, endRow);
    const output = find(lines);
    if (output !== null) return { lines: output, linesMissed: false, anchorLost: respawned };
    // The typed line is gone: scrolled out of a full history (its tail is the output)...
    const full = Math.max(anchor.history, end.history, now.history) >= now.limit * 0.9;
    if (respawned) return { lines: [], linesMissed: false, anchorLost: true };
    if (full) return { lines, linesMissed: true, anchorLost: false };
    // ...or never drawn (the terminal's echo is off: output starts on the prompt's row, or on
    // the next one when the row holds no more than the prompt), or the screen and history were
    // cleared (output starts at the top of the screen). Either way no earlier output is
    // returned, and the result says the anchor could not be checked.
    const anchorRow = anchor.history + anchor.y - now.history;
    if (anchorRow > endRow || anchorRow < -now.history) {
      const lines = endRow < 0 ? [] : await capture(0, endRow);
      return { lines, linesMissed: false, anchorLost: true };
    }
    const rows = await capture(anchorRow, endRow);
    const promptOnly = rows.length > 0 && cellsOf(rows[0]) <= anchor.x;
    return { lines: promptOnly ? rows.slice(1) : rows, linesMissed: false, anchorLost: true };
  } finally {
    if (release.length > 0) await runTmux(socket, release).catch(() => {});
  }
}

function shapeOutput(
  collected: Collected,
  maxLines: number | null,
): Pick<
  RunResult,
  | "output"
  | "output_truncated"
  | "output_truncated_lines"
  | "output_truncated_bytes"
  | "lines_missed"
  | "anchor_lost"
> {
  const cut = truncateTail(collected.lines, maxLines);
  return {
    output: cut.lines,
    output_truncated: cut.droppedLines > 0,
    output_truncated_lines: cut.droppedLines,
    output_truncated_bytes: cut.droppedBytes,
    lines_missed: collected.linesMissed,
    anchor_lost: collected.anchorLost,
  };
}

async function deleteBuffer(socket: TmuxSocket, name: string): Promise<void> {
  try {
    await runTmux(socket, ["delete-buffer", "-b", name]);
  } catch {
    // Already fetched and deleted by the shell, or the server is gone.
  }
}

function addOrphan(runner: Runner, socket: TmuxSocket, paneId: string, names: CallNames): void {
  const key = lockKey(socket, paneId);
  const list = runner.orphans.get(key) ?? [];
  list.push({ names });
  runner.orphans.set(key, list);
}

/**
 * Settles calls given up on in this pane (timed out, cancelled): one whose command still runs is
 * kept; one whose trailer has run left a signal on its done channel, drained here (the trailer,
 * released ahead, removes its own option); one whose shell is gone is forgotten.
 */
async function sweepOrphans(runner: Runner, socket: TmuxSocket, paneId: string): Promise<void> {
  const key = lockKey(socket, paneId);
  const list = runner.orphans.get(key);
  if (!list) return;
  let state: Record<"pane_pid" | "pane_dead" | typeof RUNNING_OPTION, string>;
  try {
    state = await queryPane(socket, paneId, ["pane_pid", "pane_dead", RUNNING_OPTION]);
  } catch {
    runner.orphans.delete(key);
    return;
  }
  const mark = state[RUNNING_OPTION];
  const keep: Orphan[] = [];
  for (const orphan of list) {
    if (!mark.startsWith(`${orphan.names.channel}:`)) {
      await drain(socket, orphan.names.channel);
    } else if (state.pane_dead !== "1" && !markOutlivedShell(mark, state.pane_pid)) {
      keep.push(orphan);
    }
  }
  if (keep.length > 0) runner.orphans.set(key, keep);
  else runner.orphans.delete(key);
}

/** One wait_for_command request. */
export interface ResumeRequest {
  socket: TmuxSocket;
  /** As run_command returned it. */
  runId: string;
  /** Seconds, already clamped to the server's ceiling. */
  timeout: number;
  maxLines: number | null;
  signal?: AbortSignal;
}

/**
 * Waits again for a run that timed out, by its run id, and once it has ended returns its real
 * exit status and output and forgets it. Works from any server process: what it needs is kept
 * in the pane (see `run_record.ts`).
 */
export async function waitForRun(runner: Runner, request: ResumeRequest): Promise<RunResult> {
  const started = Date.now();
  const id = parseRunId(request.runId);
  if (id === null) {
    throw new TmuxError("invalid_argument", "run_id must look like 3.0123456789abcdef");
  }
  const { socket } = request;
  const { paneId, nonce } = id;
  const names = callNames(nonce);
  const signal = request.signal
    ? AbortSignal.any([request.signal, runner.stop.signal])
    : runner.stop.signal;
  // This call drains the run's done signal now, not a later sweep.
  forgetOrphan(runner, socket, paneId, names);
  const fields = [names.record, names.option] as const;
  let state = await queryPane(socket, paneId, fields);
  const record = parseRecord(state[names.record]);
  if (record === null) {
    throw new TmuxError(
      "not_found",
      `run ${request.runId} is unknown: it finished within its run_command, was collected ` +
        "already, or expired",
    );
  }
  let waited = false;
  if (state[names.option] === "") {
    const waiter = spawnTmux(socket, ["wait-for", names.channel]);
    const limits = { socket, paneId, timeout: request.timeout, signal };
    const outcome = await waitFor(waiter, limits, started).finally(() => waiter.kill());
    if (outcome === "pane_gone") throw new TmuxError("not_found", `pane ${paneId} was closed`);
    if (outcome === "aborted") throw new TmuxError("cancelled", "wait_for_command was cancelled");
    waited = outcome === "signalled";
    state = await queryPane(socket, paneId, fields);
  }
  const base = {
    pane_id: paneId,
    run_id: request.runId,
    effective_timeout: request.timeout,
    started: true,
    not_started_reason: null,
  };
  const collect = { socket, paneId, anchor: record.anchor, typed: record.typed, names };
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  if (state[names.option] === "") {
    const now = await currentPosition(socket, paneId);
    const cut = await collectOutput({ ...collect, end: now, now, release: false });
    return {
      ...base,
      ...shapeOutput(cut, request.maxLines),
      exit_status: null,
      timed_out: true,
      elapsed_seconds: elapsed(),
    };
  }
  const trailer = parseTrailerValue(state[names.option]);
  const now = await currentPosition(socket, paneId);
  const cut = await collectOutput({ ...collect, end: trailer.end, now, release: false });
  await runTmux(socket, [
    ...["set-option", "-p", "-u", "-t", paneId, names.record, THEN],
    ...["set-option", "-p", "-u", "-t", paneId, names.option],
  ]);
  if (!waited) await drain(socket, names.channel);
  return {
    ...base,
    ...shapeOutput(cut, request.maxLines),
    exit_status: trailer.status,
    timed_out: false,
    elapsed_seconds: elapsed(),
  };
}

function forgetOrphan(runner: Runner, socket: TmuxSocket, paneId: string, names: CallNames): void {
  const key = lockKey(socket, paneId);
  const list = runner.orphans.get(key)?.filter((o) => o.names.channel !== names.channel) ?? [];
  if (list.length > 0) runner.orphans.set(key, list);
  else runner.orphans.delete(key);
}
