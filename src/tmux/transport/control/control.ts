/**
 * A persistent tmux control-mode client (`tmux -C attach -f no-output,ignore-size`) per socket,
 * so queries and commands cost a line on a pipe instead of a process spawn. Arguments are quoted
 * for tmux's command language (see {@linkcode quoteArg}): nothing in them is expanded. Commands
 * that need standard input are not sent here.
 *
 * @module
 */

import { errorFromStderr, TmuxError } from "../../errors.ts";
import {
  controlLine,
  MAX_ANSWER_BYTES,
  MAX_LINE_BYTES,
  type RemoteLink,
  type SocketAddress,
  socketKey,
  spawnRun,
  unreachableWhenDown,
} from "../spawn/mod.ts";
import {
  allLines,
  type ClientGates,
  endClient,
  gated,
  startClient,
  type StartedClient,
} from "./gate.ts";
import { privateName } from "../../names.ts";
import { withinCall } from "../../call_deadline.ts";

interface Pending {
  /** Blocks still to come: each command's, then the nonce's after it. */
  remaining: number;
  output: string[];
  /**
   * Printed by a command added after every command of the line: each command's block must be
   * followed by a block holding just this, so pane text that imitates a block's end (it can guess
   * tmux's time and command number, not this) shows up as a forgery instead of cutting a result.
   */
  nonce: string;
  /** Whether a line of the answer was longer than a line may be (see `readLines`). */
  cut: boolean;
  /** Bytes of the answer kept so far, and whether it went past {@linkcode MAX_ANSWER_BYTES}. */
  bytes: number;
  over: boolean;
  /** Each line is wanted only in its start, this long: cut lines are no fault. */
  maxLineBytes: number | null;
  resolve: (text: string) => void;
  reject: (error: TmuxError) => void;
}

/** A live control client. */
interface Control {
  /** The tmux server it is a client of. */
  socket: SocketAddress;
  /** The `tmux -C` process. */
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  queue: Pending[];
  alive: boolean;
}

/** The message of the error that commands in flight get when the control client goes away. */
export const CONTROL_EXITED = "tmux control client exited";

/** The message of the error for a command that ran but whose output was forged by pane content. */
export const CONTROL_FORGED = "tmux control output was forged";

function controlExited(): TmuxError {
  return new TmuxError("tmux_unavailable", CONTROL_EXITED);
}

/**
 * The command clients of one owner (see `TmuxClient`), one per socket, and when a socket that
 * failed to connect may be tried again.
 */
export interface ControlPool {
  /**
   * The client of each socket name ("" for tmux's default), or null while it cannot be had.
   * @ignore
   */
  readonly clients: Map<string, Promise<Control | null>>;
  /** Per socket name, the time (ms since the epoch) before which no new connection is tried. */
  readonly retryAfter: Map<string, number>;
  /** The queues control clients start and end through (shared with the watchers). */
  readonly gates: ClientGates;
}

/** A socket whose commands may go over its owner's control client. */
export interface ControlledSocket extends SocketAddress {
  /** The owner's control clients; null: every command spawns its own tmux. */
  readonly controls: ControlPool | null;
  /** The owner's output watchers, for their gates (see gate.ts); null: none attach. */
  readonly watchers: { readonly gates: ClientGates } | null;
}

/** An empty pool whose clients start and end through `gates`. */
export function createControlPool(gates: ClientGates): ControlPool {
  return { clients: new Map(), retryAfter: new Map(), gates };
}

const encoder = new TextEncoder();

/** Don't try to connect again for this long after a failure (e.g. no session to attach to). */
const RETRY_MS = 1000;

/**
 * Pane content (or a path, a title) imitated the protocol: nothing read on this client is
 * trusted. The command in flight did run (tmux runs a line at once), only its output is lost; the
 * client is ended and the next command connects anew.
 */
function forged(control: Control, end: () => void): void {
  const pending = control.queue.shift();
  pending?.reject(new TmuxError("tmux_unavailable", CONTROL_FORGED));
  fail(control, controlExited());
  end();
}

function lineTooLong(): TmuxError {
  return new TmuxError(
    "memory_limited",
    `tmux answered with a line longer than the ${MAX_LINE_BYTES / 1024 / 1024} MiB a line may ` +
      "be (a pane set an option or buffer that large?): the answer is refused, not cut",
  );
}

function tooLarge(): TmuxError {
  return new TmuxError(
    "memory_limited",
    `tmux answered with more than the ${MAX_ANSWER_BYTES / 1024 / 1024} MiB one answer may ` +
      "hold: refused, not cut",
  );
}

/** One command's block of output as it comes: its lines kept within the bound, the rest counted. */
interface Block {
  time: string;
  number: string;
  mine: boolean;
  lines: string[];
  bytes: number;
  cut: boolean;
  over: boolean;
}

/**
 * Adds a line (`bytes` long as read) to a block of ours: cut to what the command wants of each
 * line, and kept only while the block holds at most {@linkcode MAX_ANSWER_BYTES} (past that it
 * is refused, so the rest is only counted). Others' blocks are dropped at their end: nothing of
 * them is kept.
 */
function addLine(
  block: Block,
  line: { text: string; bytes: number },
  maxLineBytes: number | null,
): void {
  if (!block.mine) return;
  const kept = maxLineBytes === null ? line.text : line.text.slice(0, maxLineBytes);
  block.bytes += (maxLineBytes === null ? line.bytes : Math.min(line.bytes, maxLineBytes)) + 1;
  if (block.bytes > MAX_ANSWER_BYTES) block.over = true;
  else block.lines.push(kept);
}

function fail(control: Control, error: TmuxError): void {
  control.alive = false;
  for (const pending of control.queue.splice(0)) pending.reject(error);
}

/**
 * Gives an ended block of ours to the command waiting first (its output, its error, or the end
 * of its answer); false when the block cannot be ours (a nonce's block with other text: pane
 * text forged the protocol).
 */
function answered(control: Control, ended: Block, error: boolean): boolean {
  const pending = control.queue[0];
  if (!pending) return true;
  if (error) {
    // tmux skips the rest of a command list after an error.
    control.queue.shift();
    pending.reject(errorFromStderr(ended.lines.join("\n"), []));
    return true;
  }
  if (pending.remaining % 2 === 0) {
    pending.remaining--;
    // Never a silent part of an answer: refused once the rest of the list has come.
    pending.cut ||= ended.cut && pending.maxLineBytes === null;
    pending.bytes += ended.bytes;
    pending.over ||= ended.over || pending.bytes > MAX_ANSWER_BYTES;
    // Not push(...lines): a capture of a long history has more lines than a call has room for
    // arguments.
    if (ended.lines.length > 0 && !pending.over) {
      pending.output.push(`${ended.lines.join("\n")}\n`);
    }
    return true;
  }
  // A command that `if-shell -F` ran comes as a block of its own, after the if-shell's and
  // before the nonce's: one with no output (ours set options) is let by.
  if (ended.lines.length === 0) return true;
  pending.remaining--;
  if (ended.lines.length !== 1 || ended.lines[0] !== pending.nonce) return false;
  if (pending.remaining > 0) return true;
  control.queue.shift();
  if (pending.over) pending.reject(tooLarge());
  else if (pending.cut) pending.reject(lineTooLong());
  else pending.resolve(pending.output.join(""));
  return true;
}

async function readLoop(
  control: Control,
  started: StartedClient,
  hooks: { end: () => void; done: () => void },
): Promise<void> {
  const decoder = new TextDecoder();
  let block: Block | null = null;
  let cutSeen = 0;
  try {
    for await (const bytes of allLines(started)) {
      if (!control.alive) break;
      const cut = started.cut.lines !== cutSeen;
      cutSeen = started.cut.lines;
      const line = decoder.decode(bytes);
      const fields = line.split(" ");
      if (block === null) {
        if (fields[0] === "%begin" && fields.length === 4) {
          block = {
            time: fields[1],
            number: fields[2],
            mine: fields[3] === "1",
            lines: [],
            bytes: 0,
            cut: false,
            over: false,
          };
        } else if (fields[0] === "%end" || fields[0] === "%error") {
          // A block's end outside a block: pane text ended the last block early.
          forged(control, hooks.end);
          break;
        }
        // Everything else outside a block is a notification: ignored.
        continue;
      }
      const closes = (fields[0] === "%end" || fields[0] === "%error") && fields.length === 4 &&
        fields[1] === block.time && fields[2] === block.number;
      if (!closes) {
        addLine(
          block,
          { text: line, bytes: bytes.length },
          control.queue[0]?.maxLineBytes ?? null,
        );
        block.cut ||= cut;
        continue;
      }
      const ended = block;
      block = null;
      if (ended.mine && !answered(control, ended, fields[0] === "%error")) {
        forged(control, hooks.end);
        break;
      }
    }
  } catch {
    // The pipe broke: treated as the client exiting.
  }
  fail(control, controlExited());
  hooks.done();
}

/**
 * The session a command client attaches to: one a person already has attached, where one more
 * attached client changes nothing (tmux sends focus-in to the current pane, and clears the current
 * window's alert flags, when a session gains its first client), else the first.
 */
async function sessionToAttach(socket: SocketAddress): Promise<string | null> {
  const listing = await spawnRun(socket, [
    "list-sessions",
    "-F",
    "#{session_attached} #{session_id}",
  ]);
  const sessions = listing.split("\n").filter((line) => line !== "").map((line) => line.split(" "));
  return (sessions.find(([attached]) => attached !== "0") ?? sessions[0])?.[1] ?? null;
}

/**
 * Starts a command client (no output, no effect on sizes) attached to a session of the socket;
 * `onExit` runs when it goes away. Null when none can be had (no session yet, tmux gone); then the
 * socket is not tried again for a moment.
 */
async function connectControl(
  socket: SocketAddress,
  options: { pool: ControlPool; onExit: (control: Control) => void },
): Promise<Control | null> {
  const { pool } = options;
  const key = socketKey(socket);
  if ((pool.retryAfter.get(key) ?? 0) > Date.now()) return null;
  const session = await sessionToAttach(socket).catch(() => null);
  const started = session === null ? null : await startClient(pool.gates, socket, [
    // -E: the session's environment stays as it is (update-environment would take our process's).
    ...["attach-session", "-E", "-f", "no-output,ignore-size", "-t", session],
  ]);
  if (started === null) {
    pool.retryAfter.set(key, Date.now() + RETRY_MS);
    return null;
  }
  const control: Control = {
    socket,
    child: started.child,
    writer: started.writer,
    queue: [],
    alive: true,
  };
  readLoop(control, started, {
    end: () => endClient(pool.gates, socket, control),
    done: () => options.onExit(control),
  });
  started.child.status.then(() => fail(control, controlExited()));
  return control;
}

/**
 * Runs a command over the socket's control client, connecting on first use. Resolves null when no
 * control client can be had (none wanted, no session yet, tmux gone), so the caller spawns instead.
 */
export async function runControl(
  socket: ControlledSocket,
  args: readonly string[],
  options: { maxLineBytes?: number } = {},
): Promise<string | null> {
  const pool = socket.controls;
  if (pool === null) return null;
  const key = socketKey(socket);
  let pending = pool.clients.get(key);
  if (!pending) {
    pending = connectControl(socket, { pool, onExit: () => pool.clients.delete(key) });
    pool.clients.set(key, pending);
  }
  const control = await withinCall(pending, "a connection").catch((error) => {
    throw unreachableWhenDown(socket.remote, error);
  });
  if (control === null || !control.alive) {
    if (pool.clients.get(key) === pending) pool.clients.delete(key);
    return null;
  }
  return await gated(
    socket,
    args,
    () => withinCall(sendControl(control, args, options.maxLineBytes ?? null), "a command"),
  );
}

/** Sends a command line to a live control client and resolves with its output. */
function sendControl(
  control: Control,
  args: readonly string[],
  maxLineBytes: number | null,
): Promise<string> {
  const nonce = privateName("ctl");
  const { line, commands } = controlLine(args, nonce);
  return new Promise<string>((resolve, reject) => {
    control.queue.push({
      remaining: 2 * commands,
      output: [],
      nonce,
      cut: false,
      bytes: 0,
      over: false,
      maxLineBytes,
      resolve,
      reject,
    });
    control.writer.write(encoder.encode(`${line}\n`)).catch(() => {
      fail(control, controlExited());
    });
  });
}

/** Ends the command clients over one remote host's link, which is to close (it sat idle). */
export async function closeControlsOf(pool: ControlPool, remote: RemoteLink): Promise<void> {
  await Promise.all(
    pool.clients.entries().map(async ([key, pending]) => {
      const control = await pending;
      if (control === null || control.socket.remote !== remote) return;
      if (pool.clients.get(key) === pending) pool.clients.delete(key);
      await endClient(pool.gates, control.socket, control);
    }),
  );
}

/** Ends every command client of a pool (at shutdown). */
export async function closeControlPool(pool: ControlPool): Promise<void> {
  const all = await Promise.all(pool.clients.values());
  pool.clients.clear();
  await Promise.all(all.map(async (control) => {
    if (control !== null) await endClient(pool.gates, control.socket, control, { last: true });
  }));
}
