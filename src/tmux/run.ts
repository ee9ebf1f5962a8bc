/**
 * The run/wait/capture machinery behind `run_command`: one shell command in one pane, waited for
 * through a private `tmux wait-for` channel, its exit status read from a private pane option and its
 * own output cut from the pane between the anchor and the trailer's cursor position.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { runTmux, spawnTmux, type TmuxChild, type TmuxSocket } from "./exec.ts";
import { formatOf, intField, parseRecords } from "./format.ts";
import { queryPane } from "./target.ts";
import { acquire, createKeyedLock, type KeyedLock } from "./lock.ts";
import { cutAtCursor, outputStart, splitCapture, truncateTail } from "./output.ts";
import {
  buildTypedLine,
  type CallNames,
  callNames,
  classifyProcess,
  isInlineSafe,
  RUNNING_OPTION,
} from "./shell.ts";

/** A call whose wait was given up while its command may still finish and run its trailer. */
interface Orphan {
  names: CallNames;
}

/** State shared by all calls of one server: per-pane queues and leftovers of timed-out calls. */
export interface Runner {
  locks: KeyedLock;
  orphans: Map<string, Orphan[]>;
}

/** Makes the shared state for {@linkcode runCommand}. */
export function createRunner(): Runner {
  return { locks: createKeyedLock(), orphans: new Map() };
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
}

/** The outcome, in the contract's wire names. */
export interface RunResult {
  pane_id: string;
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
  RUNNING_OPTION,
] as const;

const POSITION_FIELDS = [
  "history_size",
  "history_limit",
  "cursor_y",
  "cursor_x",
  "pane_pid",
] as const;

/** A cursor position: rows of history above the screen plus the cursor on it. */
interface Position {
  history: number;
  y: number;
  x: number;
}

interface Anchor extends Position {
  pid: number;
}

interface Current extends Position {
  pid: number;
  limit: number;
}

function parsePosition(record: Record<(typeof POSITION_FIELDS)[number], string>): Current {
  return {
    history: intField(record.history_size, "history_size"),
    y: intField(record.cursor_y, "cursor_y"),
    x: intField(record.cursor_x, "cursor_x"),
    pid: intField(record.pane_pid, "pane_pid"),
    limit: intField(record.history_limit, "history_limit"),
  };
}

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function lockKey(socket: TmuxSocket, paneId: string): string {
  return `${socket.socketName ?? ""}\x00${paneId}`;
}

/** Runs a command in a pane and waits for it, as the run_command contract says. */
export async function runCommand(runner: Runner, request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  const { socket, paneId } = request;
  const elapsed = (): number => Math.round(Date.now() - started) / 1000;
  const base = {
    pane_id: paneId,
    effective_timeout: request.timeout,
    output: [] as string[],
    output_truncated: false,
    output_truncated_lines: 0,
    output_truncated_bytes: 0,
    lines_missed: false,
    anchor_lost: false,
  };
  const release = await acquire(runner.locks, lockKey(socket, paneId), {
    deadline: started + request.timeout * 1000,
    signal: request.signal,
  });
  if (release === null) {
    throw new TmuxError(
      "pane_busy",
      `pane ${paneId} was busy with another run_command for the whole timeout`,
    );
  }
  try {
    await sweepOrphans(runner, socket, paneId);
    const state = await queryPane(socket, paneId, STATE_FIELDS);
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
    // While our wrapper runs, the foreground process is a subshell named like the shell itself.
    const running = state[RUNNING_OPTION];
    const kind = running === "" ? classifyProcess(state.pane_current_command) : "other";
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
    const names = callNames(randomNonce());
    const inline = isInlineSafe(request.command);
    const typed = buildTypedLine(request.command, {
      names,
      paneId,
      socketPath: state.socket_path,
      suppressHistory: request.suppressHistory,
      inline,
    });
    const waiter = spawnTmux(socket, ["wait-for", names.channel]);
    const paste = [
      "set-option",
      "-p",
      "-t",
      paneId,
      RUNNING_OPTION,
      names.channel,
      ";",
      "set-buffer",
      "-b",
      names.pasteBuffer,
      "--",
      `${typed}\n`,
      ";",
      "paste-buffer",
      "-d",
      "-b",
      names.pasteBuffer,
      "-t",
      paneId,
    ];
    try {
      await runTmux(
        socket,
        inline ? paste : ["load-buffer", "-b", names.commandBuffer, "-", ";", ...paste],
        inline ? {} : { stdin: request.command },
      );
    } catch (error) {
      await waiter.kill();
      if (!inline) await deleteBuffer(socket, names.commandBuffer);
      await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, RUNNING_OPTION])
        .catch(() => {});
      throw error;
    }
    const outcome = await waitFor(waiter, request, started);
    if (outcome !== "signalled") {
      await waiter.kill();
      if (!inline) await deleteBuffer(socket, names.commandBuffer);
      addOrphan(runner, socket, paneId, names);
      if (outcome === "aborted") {
        throw new TmuxError("cancelled", "run_command was cancelled");
      }
      const now = await currentPosition(socket, paneId);
      const end = { history: now.history, y: now.y, x: now.x };
      const cut = await collectOutput(socket, paneId, { anchor, end, now, typed, names });
      return {
        ...base,
        ...shapeOutput(cut, request.maxLines),
        exit_status: null,
        timed_out: true,
        started: true,
        not_started_reason: null,
        elapsed_seconds: elapsed(),
      };
    }
    const finish = await runTmux(socket, [
      "show-options",
      "-p",
      "-v",
      "-t",
      paneId,
      names.option,
      ";",
      "set-option",
      "-p",
      "-u",
      "-t",
      paneId,
      names.option,
      ";",
      "display-message",
      "-p",
      "-t",
      paneId,
      formatOf(POSITION_FIELDS),
    ]);
    const [statusLine, ...rest] = splitCapture(finish);
    const parts = (statusLine ?? "").split(":");
    if (parts.length !== 4) {
      throw new TmuxError("tmux_error", `unexpected trailer value ${JSON.stringify(statusLine)}`);
    }
    const [status, history, y, x] = parts.map((p, i) => intField(p, `trailer field ${i}`));
    const now = parsePosition(parseRecords(rest.join("\n"), POSITION_FIELDS)[0]);
    const cut = await collectOutput(socket, paneId, {
      anchor,
      end: { history, y, x },
      now,
      typed,
      names,
    });
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

type WaitOutcome = "signalled" | "timeout" | "aborted";

async function waitFor(
  waiter: TmuxChild,
  request: RunRequest,
  started: number,
): Promise<WaitOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<WaitOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve("timeout"),
      Math.max(0, started + request.timeout * 1000 - Date.now()),
    );
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
    if (onAbort) request.signal?.removeEventListener("abort", onAbort);
  }
}

async function currentPosition(socket: TmuxSocket, paneId: string): Promise<Current> {
  return parsePosition(await queryPane(socket, paneId, POSITION_FIELDS));
}

interface CollectOptions {
  anchor: Anchor;
  /** Where output ended, in the coordinates of the moment it was recorded. */
  end: Position;
  now: Current;
  typed: string;
  names: CallNames;
}

interface Collected {
  lines: string[];
  linesMissed: boolean;
  anchorLost: boolean;
}

/**
 * Captures the rows from the anchor to the end position and drops the typed line. Row numbers stay
 * valid while history is not full; once it is, rows shift as old ones are dropped, so the whole
 * history is captured and the typed line is found by its text.
 */
async function collectOutput(
  socket: TmuxSocket,
  paneId: string,
  options: CollectOptions,
): Promise<Collected> {
  const { anchor, end, now } = options;
  const anchorLost = now.pid !== anchor.pid || end.history < anchor.history ||
    now.history < end.history;
  const saturated = end.history >= now.limit;
  const endAbsolute = end.history + end.y - (end.x === 0 ? 1 : 0);
  const endRow = endAbsolute - (saturated ? end.history : now.history);
  const startRow = saturated || anchorLost ? null : anchor.history + anchor.y - now.history;
  if (startRow !== null && endRow < startRow) {
    return { lines: [], linesMissed: false, anchorLost };
  }
  const range = ["-S", startRow === null ? "-" : String(startRow), "-E", String(endRow)];
  const args = ["capture-pane", "-p", "-J", "-t", paneId, ...range];
  // A last line without its newline shares its row with whatever came next: capture that row too.
  const partial = end.x !== 0;
  if (partial) {
    args.push(
      ";",
      "capture-pane",
      "-p",
      "-J",
      "-t",
      paneId,
      "-S",
      String(endRow),
      "-E",
      String(endRow),
    );
  }
  let lines = splitCapture(await runTmux(socket, args));
  if (partial) {
    const row = lines.pop() ?? "";
    lines = cutAtCursor(lines, row, end.x);
  }
  const start = outputStart(lines, options.typed, options.names.channel);
  if (start >= 0) return { lines: lines.slice(start), linesMissed: false, anchorLost };
  // The typed line is gone: scrolled out of history, or the screen was reset.
  return { lines, linesMissed: saturated && !anchorLost, anchorLost };
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
 * Settles calls that timed out on this pane: a trailer that has run since left a value in its
 * option and a remembered signal on its channel, both consumed here; a trailer that can no longer
 * run (no command of ours is running there and it left no value) is forgotten.
 */
async function sweepOrphans(runner: Runner, socket: TmuxSocket, paneId: string): Promise<void> {
  const key = lockKey(socket, paneId);
  const list = runner.orphans.get(key);
  if (!list) return;
  const fields = [RUNNING_OPTION, ...list.map((o) => o.names.option)];
  let record: Record<string, string>;
  try {
    record = parseRecords(
      await runTmux(socket, ["display-message", "-p", "-t", paneId, formatOf(fields)]),
      fields,
    )[0];
  } catch {
    runner.orphans.delete(key);
    return;
  }
  const stillRunning = record[RUNNING_OPTION] !== "";
  const keep: Orphan[] = [];
  for (const orphan of list) {
    if (record[orphan.names.option] !== "") {
      const drain = spawnTmux(socket, ["wait-for", orphan.names.channel]);
      const timer = setTimeout(() => drain.kill(), 1000);
      await drain.done;
      clearTimeout(timer);
      await runTmux(socket, ["set-option", "-p", "-u", "-t", paneId, orphan.names.option])
        .catch(() => {});
    } else if (stillRunning) {
      keep.push(orphan);
    }
  }
  if (keep.length > 0) runner.orphans.set(key, keep);
  else runner.orphans.delete(key);
}
