/**
 * Recordings of what the panes the server types into show (`--record-dir`): one asciicast file a
 * pane and MCP session of use, written while the server's runs there follow the pane's output:
 * each run begins with the screen as it is then (styles and cursor), then every byte the pane
 * writes, timed, through the run's own output tap, until the shell is back at its prompt. Nothing
 * is followed between runs: a pane followed for a recording alone is one a person's respawn could
 * crash tmux on (before 3.8, with output queued for us), so what the pane shows between runs is
 * caught up by the next run's first screen, and a recording ends on the screen as it is when its
 * session ends. Each run is a marker naming it and its command as the
 * audit log shows it (its length and a digest): the file holds no command's text beyond what the
 * pane itself showed.
 *
 * @module
 */

import { styledRows } from "../read/capture/styled_screen.ts";
import { socketKey } from "../transport/spawn/mod.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { CastBudget, CastFile } from "./cast_file.ts";
import { digest } from "../../util/mod.ts";

/** What {@linkcode Recordings.start} needs. */
export interface RecordedRun {
  /** The pane's tmux server. */
  socket: TmuxSocket;
  /** The pane. */
  paneId: string;
  /** The MCP session whose run it is (null: runs are shared). */
  owner: string | null;
  /** The run's id, for its marker. */
  runId: string;
  /** The command, shown in the marker only as its length and digest. */
  command: string;
}

/** Where one run's output goes in its pane's recording. */
export interface RunRecording {
  /** The recording's file. */
  path: string;
  /** Writes bytes the pane wrote (the run's output tap's). */
  write(bytes: Uint8Array): void;
}

/** A pane's recording file. */
interface PaneRecording {
  path: string;
  cast: CastFile;
  owner: string | null;
  socket: TmuxSocket;
  paneId: string;
  /** Its end is under way. */
  ending: boolean;
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

/** Options for {@linkcode Recordings}. */
export interface RecordingsOptions {
  /** What all the server's recordings may hold together, in bytes. */
  maxBytes: number;
  /** Told once, when that bound is reached (the server's log). */
  onSpent?: (message: string) => void;
}

/** The default of `--record-max-mb`: what a server's recordings hold together. */
export const RECORDINGS_MAX_BYTES = 256 * 1024 * 1024;

/** The recordings of one server process. */
export class Recordings {
  #dir: string;
  #panes = new Map<string, Promise<PaneRecording | null>>();
  /** Recordings being ended. */
  #ending = new Set<Promise<void>>();
  #budget: CastBudget;
  #onSpent: ((message: string) => void) | undefined;

  /** Recordings written into `dir`, within `options.maxBytes` together. */
  constructor(dir: string, options: RecordingsOptions) {
    this.#dir = dir.replace(/\/+$/, "");
    this.#budget = new CastBudget(options.maxBytes);
    this.#onSpent = options.onSpent;
  }

  /**
   * A run's part of its pane's recording (the file made at the session's first run there): the
   * screen as it is now and the run's marker, written at once; null when none can be had (the
   * pane gone, the file not made, too many, the recordings' total reached).
   */
  async start(run: RecordedRun): Promise<RunRecording | null> {
    if (this.#budget.spent) {
      this.#onSpent?.(
        `recordings reached their total of ${this.#budget.max / 1024 / 1024} MiB ` +
          "(--record-max-mb): no more are written by this server",
      );
      this.#onSpent = undefined;
      return null;
    }
    const key = `${socketKey(run.socket)} ${run.paneId} ${run.owner ?? ""}`;
    const screen = await screenNow(run.socket, run.paneId).catch(() => null);
    if (screen === null) return null;
    let made = this.#panes.get(key);
    if (made === undefined) {
      if (this.#panes.size >= RECORDINGS_MAX) return null;
      made = this.#create(run, screen);
      this.#panes.set(key, made);
    }
    const recording = await made;
    if (recording === null) {
      if (this.#panes.get(key) === made) this.#panes.delete(key);
      return null;
    }
    const { cast } = recording;
    cast.marker(
      `run ${run.runId}: command of ${run.command.length} characters ` +
        `(sha256 ${await digest(run.command)})`,
    );
    cast.output(screen.frame);
    const decoder = new TextDecoder();
    return {
      path: recording.path,
      write: (bytes) => cast.output(decoder.decode(bytes, { stream: true })),
    };
  }

  async #create(
    run: RecordedRun,
    screen: { width: number; height: number },
  ): Promise<PaneRecording | null> {
    const stamp = new Date().toISOString().replaceAll(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    const path = `${this.#dir}/tmux-mcp-${stamp}-pane${run.paneId.slice(1)}-` +
      `${crypto.randomUUID().slice(0, 8)}.cast`;
    try {
      const cast = await CastFile.create(path, {
        width: screen.width,
        height: screen.height,
        title: `tmux-mcp: pane ${run.paneId}`,
      }, this.#budget);
      return {
        path,
        cast,
        owner: run.owner,
        socket: run.socket,
        paneId: run.paneId,
        ending: false,
      };
    } catch {
      return null;
    }
  }

  /**
   * Ends the recordings of one session (null: shared runs'), or every one: each with the screen
   * as it is now (what the pane drew after its last run's output was followed), then closed.
   * Resolves once every recording being ended, by this call or another, is written.
   */
  async end(owner?: string | null): Promise<void> {
    for (const [key, made] of this.#panes) {
      const ending: Promise<void> = made.then(async (recording) => {
        if (recording === null || recording.ending) return;
        if (owner !== undefined && recording.owner !== owner) return;
        recording.ending = true;
        if (this.#panes.get(key) === made) this.#panes.delete(key);
        const screen = await screenNow(recording.socket, recording.paneId).catch(() => null);
        if (screen !== null) {
          recording.cast.marker("the session ended");
          recording.cast.output(screen.frame);
        }
        await recording.cast.close();
      }).finally(() => this.#ending.delete(ending));
      this.#ending.add(ending);
    }
    await Promise.all([...this.#ending]);
  }
}
