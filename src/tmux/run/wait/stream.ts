/**
 * A run read from the pane's byte stream: exactly what the command wrote between its start and
 * end markers (OSC 7 sequences naming the call's nonce, which the typed line's echo does not
 * contain), reduced to lines, and how it ended (the end marker carries the exit status).
 * Independent of history-limit, pane width, echo, `clear` and prompts.
 *
 * @module
 */

import { abortable } from "../../../util/mod.ts";
import type { Excerpt } from "../../read/text/mod.ts";
import { LineReducer, type RunOutput, Utf8Check } from "../output/mod.ts";
import type { LauncherRefusal } from "../line/mod.ts";
import { type TypingOptions, type Unread, UnreadWatch } from "./unread_watch.ts";
import { SettleWatch } from "./settle_watch.ts";
import { type CallNames, endMarkerPrefix, parseRunEnd, type RunEnd } from "../base/mod.ts";

const OSC7 = "\x1b]7;";
const ST = "\x1b\\";

/** The longest status field an end marker carries ("k255"). */
const STATUS_MAX = 4;

/**
 * How many characters at the end of `text` could be the start of `marker` (which begins with
 * ESC): they wait for the next bytes, the rest can be read now. The longest such end counts: a
 * start marker holds a second ESC (its ST), and tmux may cut the output right after it.
 */
function markerStart(text: string, marker: string): number {
  for (let from = Math.max(0, text.length - marker.length + 1); from < text.length; from++) {
    from = text.indexOf("\x1b", from);
    if (from < 0) return 0;
    if (marker.startsWith(text.slice(from))) return text.length - from;
  }
  return 0;
}

/** How long a run's stream may lag behind its end, once the run is known to have ended. */
export const STREAM_END_MS = 2000;

/** Collects one run's output; feed it the pane's bytes with {@linkcode RunStream.push}. */
export class RunStream {
  #decoder = new TextDecoder();
  #utf8 = new Utf8Check();
  #pending = "";
  #phase: "before" | "inside" | "after" = "before";
  #output: RunOutput;
  #reducer: LineReducer;
  #channel: string;
  #start: string;
  #end: string;
  /** How it ended: undefined until then, null when the status field was not one. */
  #how: RunEnd | null | undefined = undefined;
  #markEnded!: () => void;
  #ended: Promise<void> = new Promise((resolve) => this.#markEnded = resolve);
  /**
   * The shell after the end marker: `settled` once the run function has written its last bytes
   * (the OSC 7 that puts the pane path back, after its tmux command has run), `prompted` once it
   * wrote more (its prompt is being drawn: a read of the pane now finds it, not an empty row).
   */
  readonly afterEnd: SettleWatch = new SettleWatch();
  /** The shell's answer to a line it did not run. */
  #watch: UnreadWatch;
  #unread: Unread | null = null;

  /** `functionName`: the run function the typed line calls (null: it calls none). */
  constructor(names: CallNames, output: RunOutput, functionName: string | null) {
    this.#output = output;
    this.#watch = new UnreadWatch(functionName);
    this.#reducer = new LineReducer(output);
    this.#channel = names.channel;
    this.#start = `${OSC7}${names.startMarker}${ST}`;
    this.#end = `${OSC7}${endMarkerPrefix(names)}`;
  }

  /** Whether the end marker came by: every byte of the output is in. */
  get done(): boolean {
    return this.#phase === "after";
  }

  /** Whether the start marker came by: the shell ran the line and the command started. */
  get started(): boolean {
    return this.#started;
  }
  #started = false;
  #markStarted!: () => void;

  /** Resolves once the start marker came by. */
  readonly whenStarted: Promise<void> = new Promise((resolve) => this.#markStarted = resolve);

  /** How the run ended (see {@linkcode RunStream.done}); null: its status field was not valid. */
  get end(): RunEnd | null | undefined {
    return this.#how;
  }

  /**
   * Set when the shell answered the typed line without running the function: it said it has no
   * such command, or its line editor (bash, zsh) reads again with no start marker in between
   * (a continuation prompt took the line, say). The stream then counts as done.
   */
  get unread(): Unread | null {
    return this.#unread;
  }

  /** Whether the pane wrote bytes that are not UTF-8 (they read as U+FFFD). */
  get invalidUtf8(): boolean {
    return !this.#utf8.valid;
  }

  /** Whether the command switched to the alternate screen. */
  get alternateScreen(): boolean {
    return this.#reducer.alternateScreen;
  }

  /** Whether the command's output asked the terminal something tmux answers (see LineReducer). */
  get queriedTerminal(): boolean {
    return this.#reducer.queriedTerminal;
  }

  /**
   * Names the line about to be typed. The shell's answer to it comes after its echo: what comes
   * before (the prompt that a C-c or an Enter typed just earlier brings) answers something else.
   */
  typing(line: string, options: TypingOptions = {}): void {
    this.#watch.typing(line, this.#channel, options);
  }

  /** What the typed launcher line prints, instead of running, when it will not run. */
  expectRefusals(refusals: readonly LauncherRefusal[]): void {
    this.#watch.expectRefusals(refusals);
  }

  /** The run's output (its log, and the excerpt a result shows). */
  get output(): RunOutput {
    return this.#output;
  }

  /** When the pane last wrote output (ms since the epoch; the stream's start before any). */
  get lastOutput(): number {
    return this.#lastOutput;
  }
  #lastOutput = Date.now();

  /** Feeds the pane's next output bytes. */
  push(bytes: Uint8Array): void {
    this.#lastOutput = Date.now();
    this.#feed(bytes);
    this.#output.flush();
  }

  #feed(bytes: Uint8Array): void {
    if (this.#phase === "after") {
      if (!this.afterEnd.done) this.afterEnd.see(this.#decoder.decode(bytes, { stream: true }));
      else this.afterEnd.wrote();
      return;
    }
    this.#utf8.push(bytes);
    let text = this.#pending + this.#decoder.decode(bytes, { stream: true });
    this.#pending = "";
    if (this.#phase === "before") {
      const start = text.indexOf(this.#start);
      const end = text.indexOf(this.#end);
      // The function refused the command: an end without a start.
      if (end >= 0 && (start < 0 || end < start)) {
        this.#finish(text.slice(end));
        return;
      }
      if (start < 0) {
        const keep = Math.max(markerStart(text, this.#start), markerStart(text, this.#end));
        this.#pending = text.slice(text.length - keep);
        this.#watchUnread(text.slice(0, text.length - keep));
        return;
      }
      text = text.slice(start + this.#start.length);
      this.#phase = "inside";
      this.#started = true;
      this.#markStarted();
    }
    const end = text.indexOf(this.#end);
    if (end < 0) {
      const keep = markerStart(text, this.#end);
      this.#reducer.push(text.slice(0, text.length - keep));
      this.#pending = text.slice(text.length - keep);
      return;
    }
    this.#reducer.push(text.slice(0, end));
    this.#reducer.finish();
    this.#finish(text.slice(end));
  }

  /** Looks in what the shell wrote before any marker for its answer to a line it did not run. */
  #watchUnread(text: string): void {
    const unread = this.#watch.see(text);
    if (unread === null) return;
    this.#unread = unread;
    this.#phase = "after";
    this.#markEnded();
    this.afterEnd.now();
  }

  /** Reads the status of an end marker at the start of `text`, or keeps it for more bytes. */
  #finish(text: string): void {
    const field = text.slice(this.#end.length);
    const close = field.indexOf(ST);
    if (close < 0 && field.length <= STATUS_MAX + 1) {
      this.#pending = text;
      return;
    }
    this.#how = close < 0 ? null : parseRunEnd(field.slice(0, close));
    this.#phase = "after";
    this.#markEnded();
    this.afterEnd.see(close < 0 ? "" : field.slice(close + ST.length));
  }

  /** Resolves once the end marker came by, or when `signal` aborts first. */
  async ended(signal: AbortSignal): Promise<boolean> {
    if (this.done) return true;
    await abortable(this.#ended, signal);
    return this.done;
  }

  /** The excerpt a result shows of the output so far (a line still being written included). */
  excerpt(): Excerpt {
    return this.#output.excerpt(this.#partialLine());
  }

  /**
   * Whether an excerpt ends with a line still being written: the next read shows it again,
   * whole (a progress bar's 45% comes back as its last state).
   */
  get partial(): boolean {
    return this.#partialLine() !== null;
  }

  #partialLine(): string | null {
    return this.done ? null : this.#reducer.current();
  }
}
