/**
 * A run's output as the server keeps it: every line goes to the run's log (kept for reading
 * later, bounded) and to the excerpt its result shows (bounded by the call's budget); nothing
 * else holds lines. The store keeps the logs of runs whose results did not show everything, and
 * of runs still going, for an hour after they end, within one limit for them all.
 *
 * @module
 */

import {
  type Excerpt,
  ExcerptBuilder,
  type LineEnds,
  type OutputBudget,
} from "../../read/text/mod.ts";
import { LOG_LIMITS, type LogLimits, OutputLog } from "./output_log.ts";
import type { LineSink } from "./terminal_text.ts";
import type { Anchor, CallNames, MoreFrom } from "../base/mod.ts";
import type { TmuxSocket } from "../../transport/socket.ts";

/** Characters gathered before they go to the log, which then encodes them at once. */
const LOG_PIECE = 32 * 1024;

/**
 * One run's output: its log and the excerpt of it a result shows. Lines reach the log in pieces
 * (encoding line by line costs a call a line); {@linkcode RunOutput.flush} brings it up to date.
 */
export class RunOutput implements LineSink {
  /** Every line so far, kept for reading later (bounded), up to the last flush. */
  readonly log: OutputLog;
  #excerpt: ExcerptBuilder;
  /** Text not yet in the log, in pieces. */
  #pending: string[] = [];
  #pendingLength = 0;

  /** An empty output, its excerpt within `budget`, its log within `limits`. */
  constructor(budget: OutputBudget, limits: LogLimits = LOG_LIMITS) {
    this.log = new OutputLog(limits);
    this.#excerpt = new ExcerptBuilder(budget);
  }

  #add(text: string): void {
    this.#pending.push(text);
    this.#pendingLength += text.length;
    if (this.#pendingLength >= LOG_PIECE) this.flush();
  }

  /** Brings the log up to date with every line passed on so far. */
  flush(): void {
    if (this.#pendingLength === 0) return;
    this.log.append(this.#pending.join(""));
    this.#pending = [];
    this.#pendingLength = 0;
  }

  /** A line that ended. */
  line(text: string): void {
    this.#add(text);
    this.#add("\n");
    this.#excerpt.push(text);
  }

  /** More text of a long line. */
  longText(text: string): void {
    this.#add(text);
  }

  /** A long line ended. */
  longEnd(ends: LineEnds): void {
    this.#add("\n");
    this.#excerpt.push(ends);
  }

  /**
   * The last lines were rewritten: they are taken back from the log and the excerpt and these
   * follow, or when either no longer holds them all, these follow them (shown twice, never lost).
   */
  rewrite(lines: string[]): void {
    this.flush();
    if (this.#excerpt.canTakeBack(lines.length) && this.log.takeBack(lines.length)) {
      this.#excerpt.takeBack(lines.length);
    }
    for (const line of lines) this.line(line);
  }

  /** The excerpt of the lines so far, and of a line still being written when given. */
  excerpt(current?: string | null): Excerpt {
    return this.#excerpt.finish(current ?? undefined);
  }
}

/** A run's log in the store. */
export interface StoredRun {
  /** The run's output log. */
  log: OutputLog;
  /** When the run ended (ms since the epoch), null while it goes on. */
  ended: number | null;
  /** When it was stored (ms since the epoch). */
  stored: number;
  /** Lines of it results have shown so far (the next wait_for_command starts after them). */
  shown: number;
  /** Called when the store lets the run go (what waits for its end can stop). */
  onDrop?: () => void;
  /** What the stream saw that its lines cannot tell, when the log was filled from one. */
  seen?: {
    readonly alternateScreen: boolean;
    readonly invalidUtf8: boolean;
    /** When the pane last wrote output (ms since the epoch). */
    readonly lastOutput: number;
  };
  /** Whose run it is (see owner.ts); null: anyone's. */
  owner: string | null;
  /**
   * Set once the run is no longer followed (its call timed out: nothing follows a pane between
   * calls): the log holds what the stream brought, the rest is read from the screen when asked for.
   */
  screen?: ScreenPart;
}

/** Where the rest of a run no longer followed is read from, and how far its log has it. */
export interface ScreenPart {
  /** The run's pane, its server and the call's names. */
  call: { socket: TmuxSocket; paneId: string; names: CallNames };
  /** Where its line was typed. */
  anchor: Anchor;
  /** The line typed. */
  typed: string;
  /** The last complete lines the log has (at most a few): where the screen's lines go on. */
  tail: string[];
  /** Lines were lost between the stream and the screen (tmux's history had dropped them). */
  missed: boolean;
  /** The screen no longer showed where the run began (its history cleared, the pane respawned). */
  anchorLost: boolean;
  /** Where its output ended, once its trailer told it (in that moment's coordinates). */
  end?: { history: number; y: number; x: number };
  /** A read of the screen under way: the next waits for it. */
  reading: Promise<void>;
}

/** How long a run's log is kept after the run ended, and how long one is kept at all. */
export const KEEP_MS = 60 * 60 * 1000;

/**
 * Bytes all kept logs may hold (default 8 MiB): what a server holds once its runs are over, so
 * its memory comes back near where it started. The oldest keep less of their middles first,
 * then go.
 */
export const STORE_MAX_BYTES = 8 * 1024 * 1024;

/** Runs kept at most, whatever their size. */
const STORE_MAX_RUNS = 1024;

/** The logs a server keeps, by run id. */
export class OutputStore {
  #runs = new Map<string, StoredRun>();
  #maxBytes: number;

  /** An empty store, holding at most `maxBytes` of logs. */
  constructor(maxBytes = STORE_MAX_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Keeps a run's log (or updates the run kept under the same id). */
  put(runId: string, run: Omit<StoredRun, "stored">): StoredRun {
    const stored = Object.assign(this.#runs.get(runId) ?? { stored: Date.now() }, run);
    this.#runs.delete(runId);
    this.#runs.set(runId, stored);
    // Lines shown and then rewritten are shown again by the next wait.
    stored.log.follow(stored);
    this.sweep();
    // A run that ended has its whole output: what is kept of its log moves to the slab of kept
    // logs (see byte_chunks.ts).
    if (stored.ended !== null && this.#runs.get(runId) === stored) stored.log.settle();
    return stored;
  }

  /** A kept run, or undefined (never kept, expired, or dropped for room). */
  get(runId: string): StoredRun | undefined {
    this.sweep();
    return this.#runs.get(runId);
  }

  /** Whether the store holds `log` as the run's, as it is now (nothing is swept). */
  keeps(runId: string, log: OutputLog): boolean {
    return this.#runs.get(runId)?.log === log;
  }

  #drop(runId: string): void {
    const run = this.#runs.get(runId);
    this.#runs.delete(runId);
    run?.onDrop?.();
    run?.log.release();
  }

  /** When a kept run's log expires (ms since the epoch). */
  expires(run: StoredRun): number {
    return (run.ended ?? run.stored) + KEEP_MS;
  }

  /**
   * Drops runs past keeping, then the oldest while the logs hold more than the limit (or there
   * are too many of them). Logs still growing count too: they are dropped last of all.
   */
  sweep(): void {
    const now = Date.now();
    for (const [id, run] of this.#runs) {
      if (now > this.expires(run)) this.#drop(id);
    }
    let bytes = 0;
    for (const run of this.#runs.values()) bytes += run.log.kept;
    const oldest = [...this.#runs.entries()].sort(([, a], [, b]) =>
      (a.ended === null ? 1 : 0) - (b.ended === null ? 1 : 0) || a.stored - b.stored
    );
    for (const [, run] of oldest) {
      if (bytes <= this.#maxBytes) break;
      const before = run.log.kept;
      run.log.shrinkTo(Math.max(run.log.least, before - (bytes - this.#maxBytes)));
      bytes -= before - run.log.kept;
    }
    for (const [id, run] of oldest) {
      if (bytes <= this.#maxBytes && this.#runs.size <= STORE_MAX_RUNS) break;
      bytes -= run.log.kept;
      this.#drop(id);
    }
  }
}

/** The excerpt of a kept log's lines from line `from` on. */
export function logExcerpt(log: OutputLog, from: number, budget: OutputBudget): Excerpt {
  const builder = new ExcerptBuilder(budget);
  for (const entry of log.entries(from, budget.maxBytes)) {
    if (typeof entry === "object" && "skipped" in entry) {
      builder.skip(entry.skipped.lines, entry.skipped.bytes);
    } else {
      builder.push(entry);
    }
  }
  return builder.finish();
}

/**
 * Where a result points for what it did not show: the run's log, kept in the store from the
 * moment a result needs it.
 */
export function keepLog(
  store: OutputStore,
  run: { runId: string; log: OutputLog; ended: boolean; shown: number; owner: string | null },
): MoreFrom {
  return (firstNotShown) => {
    const stored = store.put(run.runId, {
      log: run.log,
      ended: run.ended ? Date.now() : null,
      shown: run.shown,
      owner: run.owner,
    });
    return {
      run_id: run.runId,
      from_line: firstNotShown,
      expires_at: new Date(store.expires(stored)).toISOString(),
    };
  };
}
