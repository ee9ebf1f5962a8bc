/**
 * One output watcher: a control client attached to a session, which reports `%output` for every
 * pane there, reads it, and answers round trips. Which watcher serves which session, and when one
 * starts, moves or ends, is watcher_pool.ts's; what calls do with the output is watch.ts's.
 *
 * @module
 */

import { lineEditorSeen } from "./line_editor.ts";
import { type SocketAddress, socketKey } from "../spawn/mod.ts";
import { allLines, type ClientGates, endClient, startClient } from "../control/mod.ts";
import { privateName } from "../../names.ts";
import { abortable, ABORTED } from "../../../util/mod.ts";

/** Receives a pane's output bytes, as the pane wrote them (valid only during the call). */
export type OutputListener = (bytes: Uint8Array) => void;

/** One control client attached to a session, that only reads. */
export interface Watcher {
  /** Its key in the pool: socket and session id. */
  key: string;
  /** The tmux server it is a client of. */
  socket: SocketAddress;
  /** The `tmux -C` process. */
  child: Deno.ChildProcess;
  /** Its standard input. */
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Per pane, who gets its output bytes. */
  listeners: Map<string, Set<OutputListener>>;
  /** Calls using it now (and a switch under way); an idle one has none. */
  users: number;
  /** When it was last left by its last user (ms since the epoch). */
  lastUsed: number;
  /** Lines the watcher's own commands are waiting for (see {@linkcode roundTrip}). */
  awaited: Map<string, () => void>;
  /** False once its process is gone or being ended. */
  alive: boolean;
  /** Called when it has gone away or moved to another session (each tap's loss). */
  onGone: Set<() => void>;
  /**
   * Per pane, called when tmux paused the pane for this watcher (it fell
   * {@linkcode PAUSE_AFTER_SECONDS} behind): its taps have lost bytes.
   */
  onPanePaused: Map<string, Set<() => void>>;
  /** Whether it answered a command: from then on it reports every byte. */
  ready: Promise<boolean> | null;
  /** Ends it once it has been idle for LINGER_MS. */
  idle: ReturnType<typeof setTimeout> | undefined;
  /** How far behind its panes tmux last said it was (`%extended-output`'s age, ms). */
  behindMs: number;
  /** Called, once each, when tmux says it held a pane's output {@linkcode BEHIND_MS} or more. */
  onBehind: Set<() => void>;
  /** When it last read a line (ms since the epoch). */
  lastLine: number;
  /** Looks every second whether tmux owes it lines it does not send (see {@linkcode nudge}). */
  nudger: ReturnType<typeof setInterval> | undefined;
  /** Reused for unescaped output bytes (listeners read them at once). */
  scratch: Uint8Array;
  /**
   * Per pane, whether a line editor was reading a command line when its output was last seen
   * (bracketed paste switched on, `ESC [ ? 2004 h`) or had handed the terminal on (`... l`).
   * Known only for what this watcher saw since it attached.
   */
  lineEditor: Map<string, boolean>;
  /** Called with the pane each time its line editor is seen switching (see `lineEditor`). */
  editorReported: Set<(paneId: string) => void>;
  /** Per followed pane, the end of its last `%output` line (see `lineEditorSeen`). */
  editorTails: Map<string, Uint8Array>;
  /**
   * Panes a call follows through this watcher, or followed a moment ago (see `grace`): their
   * output keeps coming.
   */
  followed: Set<string>;
  /**
   * Per followed pane that nobody listens to any more, how much more of its output the watcher
   * reads (for its line editor's state, the prompt after a run) before it pauses the pane: tmux
   * before 3.8 crashes when a pane is respawned with output still queued for a control client,
   * so output nobody needs is not let queue.
   */
  grace: Map<string, { bytes: number; until: number }>;
  /**
   * Panes this watcher paused (`refresh-client -A %N:pause`, tmux 3.2 on): nobody follows them,
   * and tmux sends a control client every byte of every pane of its session, holding all of them
   * back while it cannot keep up: eight panes printing as fast as they can made a run in a ninth
   * twelve times slower. (Not switched `off`: on a pane with output queued, that crashes tmux
   * before 3.7; `pause` discards what is queued.)
   */
  paused: Set<string>;
  /**
   * Per pane, the `%pause` lines tmux owes this watcher for pauses it asked for: only a `%pause`
   * beyond them is tmux's own (see {@linkcode PAUSE_AFTER_SECONDS}). A call may follow the pane
   * again before the line of an earlier pause of ours arrives.
   */
  ownPauses: Map<string, number>;
}

/** The watchers of one owner (see `TmuxClient`), one per socket and session. */
export interface WatcherPool {
  /** The live watchers, by socket and session. */
  readonly live: Map<string, Watcher>;
  /** Watchers being started, by socket and session. */
  readonly starting: Map<string, Promise<Watcher | null>>;
  /** The queues control clients start and end through (shared with the command clients). */
  readonly gates: ClientGates;
  /** Panes nothing of ours may follow for now, by socket and pane (see `whilePaneHeld`). */
  readonly held: Map<string, Promise<void>>;
}

/** A socket whose panes can be watched through its owner's watchers (null: none are started). */
export interface WatchedSocket extends SocketAddress {
  /** The owner's watchers. */
  readonly watchers: WatcherPool | null;
}

/** An empty pool whose watchers start and end through `gates`. */
export function createWatcherPool(gates: ClientGates): WatcherPool {
  return { live: new Map(), starting: new Map(), gates, held: new Map() };
}

const encoder = new TextEncoder();

const decoder = new TextDecoder();

const BACKSLASH = 0x5c;

const OUTPUT_PREFIX = encoder.encode("%output %");
const EXTENDED_OUTPUT_PREFIX = encoder.encode("%extended-output %");
const PAUSE_PREFIX = encoder.encode("%pause %");

/**
 * How far behind a pane's output a watcher may fall before tmux pauses the pane for it, dropping
 * what it queued (`pause-after`, tmux 3.2 on; it then reports output as `%extended-output`):
 * queued output is what tmux before 3.8 crashes on when the pane is respawned, and without it
 * tmux ends a watcher five minutes behind, losing every pane it follows.
 */
export const PAUSE_AFTER_SECONDS = 15;

/**
 * How long a watcher nobody uses stays attached: long enough to follow a pane between an agent's
 * calls (see {@linkcode lineEditorState}), and to start watchers rarely.
 */
export const LINGER_MS = 10 * 60_000;

/**
 * What a followed pane may still write once its last listener has left, and for how long, before
 * it is paused: a prompt, not a flood (a person's `respawn-pane` then meets nothing queued).
 */
const GRACE_BYTES = 4096;
const GRACE_MS = 2000;

/** How long a new watcher may take to answer its first command. */
const READY_MS = 2000;

/** How long tmux held output for a watcher before the runs it follows are told it fell behind. */
export const BEHIND_MS = 2000;

/** How far behind a watcher must have fallen, and how long gone quiet, to be nudged. */
const NUDGE_BEHIND_MS = 2000;
const NUDGE_QUIET_MS = 1000;

/**
 * Asks tmux for a line when it may owe the watcher some it does not send. Every release (master
 * too) stops writing to a control client when its pause-after pauses the last of its panes with
 * output queued: the `%pause` lines wait, with nothing to write them, until something else is
 * written to that client. Calls following the paused panes waited for their whole timeout (a
 * flood of 16 runs, each far behind its pane): a command's reply flushes them.
 */
function nudge(watcher: Watcher): void {
  if (!watcher.alive || watcher.users === 0 || watcher.behindMs < NUDGE_BEHIND_MS) return;
  if (Date.now() - watcher.lastLine < NUDGE_QUIET_MS) return;
  watcher.behindMs = 0;
  watcher.writer.write(encoder.encode("display-message -p ''\n")).catch(() => {});
}

function isOctal(data: Uint8Array, at: number): boolean {
  for (let i = at; i < at + 3; i++) if (data[i] < 48 || data[i] > 55) return false;
  return true;
}

/**
 * The bytes of a `%output` line's data: tmux writes bytes below 0x20 and the backslash as
 * three-digit octal escapes, everything else (UTF-8 included) as it is. Written into `into` when
 * it is large enough.
 */
export function unescapeOutput(
  data: Uint8Array,
  into: Uint8Array = new Uint8Array(data.length),
): Uint8Array {
  const out = into.length >= data.length ? into : new Uint8Array(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] === BACKSLASH && i + 3 < data.length && isOctal(data, i + 1)) {
      out[n++] = (data[i + 1] - 48) * 64 + (data[i + 2] - 48) * 8 + (data[i + 3] - 48);
      i += 3;
      continue;
    }
    out[n++] = data[i];
  }
  return out.subarray(0, n);
}

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

/** Asks tmux to pause (or continue) sending this watcher a pane's output. */
export function pausePane(watcher: Watcher, paneId: string, pause: boolean): void {
  // tmux says `%pause` for a pane that was flowing: that line is ours, not pause-after's.
  if (pause && !watcher.paused.has(paneId)) {
    watcher.ownPauses.set(paneId, (watcher.ownPauses.get(paneId) ?? 0) + 1);
  }
  if (pause) watcher.paused.add(paneId);
  else watcher.paused.delete(paneId);
  // Pane ids are %N: nothing to quote. The reply is a block nobody waits for.
  const state = pause ? "pause" : "continue";
  watcher.writer.write(encoder.encode(`refresh-client -A '${paneId}:${state}'\n`))
    .catch(() => {});
}

/** Starts a pane's grace: its last listener has left (see {@linkcode Watcher.grace}). */
export function startGrace(watcher: Watcher, paneId: string): void {
  watcher.grace.set(paneId, { bytes: GRACE_BYTES, until: Date.now() + GRACE_MS });
}

/**
 * Stops following a pane at once, its last listener gone with nothing more to read (a timed-out
 * run's call ended): no grace, so nothing of its output queues for this watcher from now on.
 */
export function stopFollowing(watcher: Watcher, paneId: string): void {
  if (watcher.followed.has(paneId)) letGo(watcher, paneId, { pausedByTmux: false });
}

/**
 * Stops following a pane: paused (by us, or by tmux for a watcher too far behind), so tmux drops
 * what it queued, and what the watcher knew of its line editor forgotten (it no longer sees it
 * switch).
 */
function letGo(watcher: Watcher, paneId: string, options: { pausedByTmux: boolean }): void {
  watcher.followed.delete(paneId);
  watcher.grace.delete(paneId);
  watcher.lineEditor.delete(paneId);
  watcher.editorTails.delete(paneId);
  // tmux's own pause is already in `paused` (see handleLine).
  if (!options.pausedByTmux) pausePane(watcher, paneId, true);
  for (const reported of watcher.editorReported) reported(paneId);
}

/**
 * A pane's output line (`%output %N DATA`, or `%extended-output %N AGE : DATA`, AGE the ms tmux
 * held it); null: none.
 */
function outputOf(line: Uint8Array): { pane: string; data: Uint8Array; age: number } | null {
  const extended = startsWith(line, EXTENDED_OUTPUT_PREFIX);
  if (!extended && !startsWith(line, OUTPUT_PREFIX)) return null;
  const from = (extended ? EXTENDED_OUTPUT_PREFIX : OUTPUT_PREFIX).length;
  const space = line.indexOf(0x20, from);
  if (space < 0) return null;
  const pane = decoder.decode(line.subarray(from - 1, space));
  if (!extended) return { pane, data: line.subarray(space + 1), age: 0 };
  // The age is digits: the first colon after the pane is the one before the data.
  const colon = line.indexOf(0x3a, space);
  if (colon < 0) return null;
  const age = Number(decoder.decode(line.subarray(space + 1, colon)).trim());
  return { pane, data: line.subarray(colon + 2), age: Number.isFinite(age) ? age : 0 };
}

/** Whether output of `size` bytes from a followed pane is still read (see `grace`). */
function heard(watcher: Watcher, paneId: string, size: number): boolean {
  if ((watcher.listeners.get(paneId)?.size ?? 0) > 0) return true;
  const grace = watcher.grace.get(paneId);
  if (grace === undefined || Date.now() > grace.until || grace.bytes < size) return false;
  grace.bytes -= size;
  return true;
}

function handleLine(watcher: Watcher, line: Uint8Array): void {
  watcher.lastLine = Date.now();
  const output = outputOf(line);
  if (output !== null) {
    const { pane, data } = output;
    watcher.behindMs = output.age;
    if (output.age >= BEHIND_MS && watcher.onBehind.size > 0) {
      const told = [...watcher.onBehind];
      watcher.onBehind.clear();
      for (const behind of told) behind();
    }
    if (!watcher.followed.has(pane)) {
      if (!watcher.paused.has(pane)) pausePane(watcher, pane, true);
      return;
    }
    if (!heard(watcher, pane, data.length)) return letGo(watcher, pane, { pausedByTmux: false });
    const seen = lineEditorSeen(watcher.editorTails.get(pane), data);
    watcher.editorTails.set(pane, seen.tail);
    if (seen.reading !== null) {
      watcher.lineEditor.set(pane, seen.reading);
      for (const reported of watcher.editorReported) reported(pane);
    }
    const listeners = watcher.listeners.get(pane);
    if (!listeners || listeners.size === 0) return;
    if (watcher.scratch.length < data.length) watcher.scratch = new Uint8Array(data.length);
    const bytes = unescapeOutput(data, watcher.scratch);
    for (const listener of listeners) listener(bytes);
    return;
  }
  if (startsWith(line, PAUSE_PREFIX)) {
    const pane = decoder.decode(line.subarray(PAUSE_PREFIX.length - 1)).trim();
    // tmux's answer to a pause of ours, which a call may have followed by a continue since.
    const own = watcher.ownPauses.get(pane) ?? 0;
    if (own > 0) {
      if (own === 1) watcher.ownPauses.delete(pane);
      else watcher.ownPauses.set(pane, own - 1);
      return;
    }
    // tmux paused it for this watcher (pause-after): what it sends resumes only on a continue.
    watcher.paused.add(pane);
    if (!watcher.followed.has(pane)) return;
    letGo(watcher, pane, { pausedByTmux: true });
    for (const lost of watcher.onPanePaused.get(pane) ?? []) lost();
    return;
  }
  if (watcher.awaited.size > 0) watcher.awaited.get(decoder.decode(line))?.();
}

/** Starts a watcher attached to a session (through the gate); null when it could not connect. */
export async function start(
  socket: SocketAddress,
  pool: WatcherPool,
  target: { sessionId: string; key: string },
): Promise<Watcher | null> {
  const started = await startClient(pool.gates, socket, [
    // Not read-only: from tmux 3.7 send-keys refuses to run when the client it picks for a
    // command that names none is read-only, and a watcher can be that client for anyone's
    // `tmux send-keys`. A watcher never sends keys itself.
    // -E: the session's environment stays as it is (update-environment would take our process's).
    ...["attach-session", "-E", "-f", `ignore-size,pause-after=${PAUSE_AFTER_SECONDS}`],
    ...["-t", target.sessionId],
  ]);
  if (started === null) return null;
  const watcher: Watcher = {
    key: target.key,
    socket,
    child: started.child,
    writer: started.writer,
    listeners: new Map(),
    users: 0,
    lastUsed: Date.now(),
    awaited: new Map(),
    alive: true,
    onGone: new Set(),
    onPanePaused: new Map(),
    scratch: new Uint8Array(4096),
    ready: null,
    idle: undefined,
    behindMs: 0,
    onBehind: new Set(),
    lastLine: Date.now(),
    nudger: undefined,
    lineEditor: new Map(),
    editorReported: new Set(),
    editorTails: new Map(),
    followed: new Set(),
    grace: new Map(),
    paused: new Set(),
    ownPauses: new Map(),
  };
  watcher.nudger = setInterval(() => nudge(watcher), NUDGE_QUIET_MS);
  // Not a reason for the process to stay up at its end.
  Deno.unrefTimer(watcher.nudger);
  (async () => {
    try {
      for await (const line of allLines(started)) handleLine(watcher, line);
    } catch {
      // The watcher went away; waits fall back to their timer, runs to the screen.
    }
    watcher.alive = false;
    clearTimeout(watcher.idle);
    clearInterval(watcher.nudger);
    for (const wake of watcher.awaited.values()) wake();
    if (pool.live.get(target.key) === watcher) pool.live.delete(target.key);
    for (const gone of watcher.onGone) gone();
  })();
  return watcher;
}

/**
 * Resolves true once the watcher answers a command. tmux queues a control client's command replies
 * behind the output it already queued for it, so the answer also means every byte tmux had read
 * from the session's panes when the command was sent has been reported (and, for a new watcher,
 * that from then on it reports every byte). With `session`, only an answer that shows the watcher
 * in the expected session counts.
 */
export async function roundTrip(
  watcher: Watcher,
  session: { format: string; expect: string } = { format: "", expect: "" },
): Promise<boolean> {
  const nonce = privateName("ready");
  const answer = `${nonce}${session.expect}`;
  const answered = new Promise<void>((resolve) => watcher.awaited.set(answer, resolve));
  try {
    await watcher.writer.write(encoder.encode(`display-message -p '${nonce}${session.format}'\n`));
    const outcome = await abortable(answered, AbortSignal.timeout(READY_MS));
    return outcome !== ABORTED && watcher.alive;
  } catch {
    return false;
  } finally {
    watcher.awaited.delete(answer);
  }
}

/** Ends a watcher (through the gate) and takes it out of its pool. */
export async function stop(
  socket: SocketAddress,
  pool: WatcherPool,
  watcher: Watcher,
  options: { last?: boolean } = {},
): Promise<void> {
  clearTimeout(watcher.idle);
  watcher.alive = false;
  if (pool.live.get(watcher.key) === watcher) pool.live.delete(watcher.key);
  await endClient(pool.gates, socket, watcher, options);
}

/** A watcher's key in its pool: the socket and a session id (or a held pane's id). */
export function keyOf(socket: SocketAddress, sessionId: string): string {
  return `${socketKey(socket)}\x00${sessionId}`;
}
