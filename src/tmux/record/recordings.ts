/**
 * Recordings of what the panes the server types into show (`--record-dir`): one asciicast file a
 * pane and session of use, begun as the session's first run there starts with the screen as it
 * was, then every byte the pane writes, timed, until the session ends, the pane goes or the file
 * is full. Each run is a marker naming it, its command as the audit log shows it (its length and
 * a digest): the file never holds a command's text beyond what the pane itself showed.
 *
 * @module
 */

import { styledRows } from "../read/capture/styled_screen.ts";
import { socketKey } from "../transport/spawn/exec.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { type OutputTap, tapOutput } from "../transport/watch/watch.ts";
import { CastFile } from "./cast_file.ts";
import { digest } from "../../util/mod.ts";

/** A pane being recorded. */
interface PaneRecording {
  path: string;
  cast: CastFile;
  tap: OutputTap;
  owner: string | null;
}

/** What {@linkcode Recordings.start} needs. */
export interface RecordedRun {
  /** The pane's tmux server. */
  socket: TmuxSocket;
  /** The pane. */
  paneId: string;
  /** Its session (its output is watched through it). */
  sessionId: string;
  /** The MCP session whose run it is (null: runs are shared). */
  owner: string | null;
  /** The run's id, for its marker. */
  runId: string;
  /** The command, shown in the marker only as its length and digest. */
  command: string;
}

/** The most panes recorded at once. */
const RECORDINGS_MAX = 64;

/**
 * The screen as it shows now, as bytes a terminal draws it from: cleared, each row with its
 * styles, the cursor put back (hidden where the program hid it).
 */
async function screenNow(
  socket: TmuxSocket,
  paneId: string,
): Promise<{ width: number; height: number; frame: string }> {
  const { width, height, cursor, rows } = await styledRows(socket, paneId);
  return {
    width,
    height,
    frame: `\x1b[0m\x1b[H\x1b[2J${rows.join("\r\n")}\x1b[0m` +
      `\x1b[${cursor.y + 1};${cursor.x + 1}H${cursor.visible ? "" : "\x1b[?25l"}`,
  };
}

/** The recordings of one server process. */
export class Recordings {
  #dir: string;
  #panes = new Map<string, PaneRecording>();
  #starting = new Map<string, Promise<PaneRecording | null>>();

  /** Recordings written into `dir`. */
  constructor(dir: string) {
    this.#dir = dir.replace(/\/+$/, "");
  }

  /**
   * The recording of a run's pane for its session, begun now if need be, with the run's marker;
   * its file's path, or null when none can be had (no watcher, the pane gone, too many).
   */
  async start(run: RecordedRun): Promise<string | null> {
    const key = `${socketKey(run.socket)} ${run.paneId} ${run.owner ?? ""}`;
    let recording = this.#panes.get(key);
    if (recording === undefined) {
      let starting = this.#starting.get(key);
      if (starting === undefined) {
        starting = this.#begin(key, run).finally(() => this.#starting.delete(key));
        this.#starting.set(key, starting);
      }
      recording = await starting ?? undefined;
    }
    if (recording === undefined) return null;
    recording.cast.marker(
      `run ${run.runId}: command of ${run.command.length} characters ` +
        `(sha256 ${await digest(run.command)})`,
    );
    return recording.path;
  }

  async #begin(key: string, run: RecordedRun): Promise<PaneRecording | null> {
    if (this.#panes.size >= RECORDINGS_MAX) return null;
    const decoder = new TextDecoder();
    const early: Uint8Array[] = [];
    let cast: CastFile | null = null;
    const tap = await tapOutput(run.socket, { sessionId: run.sessionId, paneId: run.paneId }, (
      bytes,
    ) => {
      if (cast === null) early.push(bytes.slice());
      else cast.output(decoder.decode(bytes, { stream: true }));
    });
    if (tap === null) return null;
    const screen = await screenNow(run.socket, run.paneId).catch(() => null);
    if (screen === null) {
      tap.close();
      return null;
    }
    const stamp = new Date().toISOString().replaceAll(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    const path = `${this.#dir}/tmux-mcp-${stamp}-pane${run.paneId.slice(1)}-` +
      `${crypto.randomUUID().slice(0, 8)}.cast`;
    let made: CastFile;
    try {
      made = await CastFile.create(path, {
        width: screen.width,
        height: screen.height,
        title: `tmux-mcp: pane ${run.paneId}`,
      });
    } catch {
      tap.close();
      return null;
    }
    made.output(screen.frame);
    // Bytes that came between the tap and the read may show twice (drawn on the screen read,
    // then again): a pane a run looked at is quiet, so none are expected.
    for (const bytes of early) made.output(decoder.decode(bytes, { stream: true }));
    cast = made;
    const recording: PaneRecording = { path, cast: made, tap, owner: run.owner };
    this.#panes.set(key, recording);
    tap.lost.then(() => this.#end(key, recording));
    return recording;
  }

  async #end(key: string, recording: PaneRecording): Promise<void> {
    if (this.#panes.get(key) !== recording) return;
    this.#panes.delete(key);
    recording.tap.close();
    await recording.cast.close();
  }

  /** Ends the recordings of one session (null: shared runs'), or every one. */
  async end(owner?: string | null): Promise<void> {
    await Promise.all(
      [...this.#panes.entries()]
        .filter(([, recording]) => owner === undefined || recording.owner === owner)
        .map(([key, recording]) => this.#end(key, recording)),
    );
  }

  /** Resolves once what every recording holds so far is written. */
  async flushed(): Promise<void> {
    await Promise.all([...this.#panes.values()].map((recording) => recording.cast.flushed()));
  }
}
