/**
 * A run read from the pane's byte stream: exactly what the command wrote between its start and
 * end markers (OSC 7 sequences naming the call's nonce, which the typed line's echo does not
 * contain), reduced to lines, and how it ended (the end marker carries the exit status).
 * Independent of history-limit, pane width, echo, `clear` and prompts.
 *
 * @module
 */

import { abortable } from "../../../util/mod.ts";
import type { Excerpt } from "../../read/text/excerpt.ts";
import { typedToken } from "../../read/text/output.ts";
import { EchoScan, LineReducer, type RunOutput, Utf8Check } from "../output/mod.ts";
import type { LauncherRefusal } from "../line/mod.ts";
import { type CallNames, endMarkerPrefix, parseRunEnd, type RunEnd } from "../base/mod.ts";

const OSC7 = "\x1b]7;";
const ST = "\x1b\\";

/** The longest status field an end marker carries ("k255"). */
const STATUS_MAX = 4;

/** Text looked through after the end marker for the function's last OSC 7 before giving up. */
const SETTLE_SCAN_MAX = 8192;

/** A line editor switches bracketed paste off as it accepts a line, on as it reads the next. */
const BRACKET_OFF = "\x1b[?2004l";
const BRACKET_ON = "\x1b[?2004h";

/** Text kept from before the start marker, for the shell's answer to the typed line. */
const BEFORE_MAX = 512;

/** The shell read the typed line and did not run the function. */
export interface Unread {
  /** The shell said it has no such command: it lacks the run function. */
  lacksFunction: boolean;
  /** The launcher said why it would not run (see `launcherRefusals`); null otherwise. */
  refused: string | null;
  /** The launcher could not fetch its script by `$TMUX`: the socket's line may. */
  fallback: boolean;
}

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

/** Options for {@linkcode RunStream.typing}. */
export interface TypingOptions {
  /**
   * Whether the shell's line editor reads as the line is typed: false when it is known not to
   * (the terminal canonical, the editor not started yet), so the terminal's own echo of the line
   * is not taken for the editor's; null or absent when not known.
   */
  editorReads?: boolean | null;
}

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
  #ended: Promise<void>;
  #markEnded!: () => void;
  /** What came after the end marker, until the function's last OSC 7 is in it. */
  #after = "";
  #isSettled = false;
  #settled: Promise<void>;
  #markSettled!: () => void;
  #prompted: Promise<void>;
  #markPrompted!: () => void;
  /** What the shell says when it has no run function (bash, dash and ksh, zsh). */
  #missing: string[];
  /** The last of the text before the start marker. */
  #before = "";
  /** Finds the typed line's echo; none until the line is known. */
  #echo: EchoScan | null = null;
  /** A line editor accepted a line since the typed line's echo. */
  #accepted = false;
  /** The token of the typed line, whose echo is looked for. */
  #token = "";
  /** Whether a line editor reads, by its last bracketed-paste switch seen (null: not known). */
  #editorReads: boolean | null = null;
  /** The last of the text a switch was looked for in (a switch may come in two pieces). */
  #switchTail = "";
  #unread: Unread | null = null;

  /** `functionName`: the run function the typed line calls (null: it calls none). */
  constructor(names: CallNames, output: RunOutput, functionName: string | null) {
    this.#output = output;
    this.#missing = functionName === null ? [] : [
      `${functionName}: command not found`,
      `${functionName}: not found`,
      `command not found: ${functionName}`,
    ];
    this.#reducer = new LineReducer(output);
    this.#channel = names.channel;
    this.#start = `${OSC7}${names.startMarker}${ST}`;
    this.#end = `${OSC7}${endMarkerPrefix(names)}`;
    this.#ended = new Promise((resolve) => this.#markEnded = resolve);
    this.#settled = new Promise((resolve) => this.#markSettled = resolve);
    this.#prompted = new Promise((resolve) => this.#markPrompted = resolve);
  }

  /**
   * Resolves once the shell wrote something after the run function's last bytes: its prompt is
   * being drawn (a read of the pane now finds it, not an empty row).
   */
  get prompted(): Promise<void> {
    return this.#prompted;
  }

  /**
   * Resolves once the run function has written its last bytes (the OSC 7 that puts the pane path
   * back, after its tmux command has run): the shell is about to draw its prompt.
   */
  get settled(): Promise<void> {
    return this.#settled;
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
    this.#token = typedToken(line, this.#channel);
    this.#echo = new EchoScan(this.#token);
    this.#editorReads = options.editorReads ?? null;
  }

  /** What the typed launcher line prints, instead of running, when it will not run. */
  expectRefusals(refusals: readonly LauncherRefusal[]): void {
    this.#refusals = refusals;
  }
  #refusals: readonly LauncherRefusal[] = [];

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
      if (!this.#isSettled) this.#settle(this.#decoder.decode(bytes, { stream: true }));
      else this.#markPrompted();
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
    const window = this.#before = (this.#before + text).slice(-BEFORE_MAX);
    const lacksFunction = this.#missing.some((said) => window.includes(said));
    const refusal = this.#refusals.find(({ said }) => window.includes(said));
    const refused = refusal?.reason ?? null;
    // A launched shell's editor may read again around the program it starts (nu was seen to),
    // so only a called function's line is judged by it; a launcher's line unread is withdrawn
    // at its timeout.
    const readsAgain = this.#missing.length > 0 && this.#readsAgain(text);
    if (!readsAgain && !lacksFunction && refused === null) return;
    this.#unread = { lacksFunction, refused, fallback: refusal?.fallback === true };
    this.#phase = "after";
    this.#isSettled = true;
    this.#markEnded();
    this.#markSettled();
  }

  /** Whether a line editor accepted a line after the typed line's echo, and reads again. */
  #readsAgain(text: string): boolean {
    if (this.#echo === null) return false;
    while (!this.#echo.seen) {
      const after = this.#echo.scan(text);
      this.#followSwitches(after < 0 ? text : text.slice(0, after));
      if (after < 0) return false;
      text = text.slice(after);
      // Echoed by the terminal (canonical, typed ahead of a line editor not reading yet): the
      // editor shows the line again when it reads it, after any line typed before it.
      if (this.#editorReads === false) this.#echo = new EchoScan(this.#token);
    }
    // The editor accepted a line (switched bracketed paste off) after the echo, and its latest
    // switch says it reads again.
    this.#accepted ||= (this.#switchTail + text).includes(BRACKET_OFF);
    this.#followSwitches(text);
    return this.#accepted && this.#editorReads === true;
  }

  /** Follows the line editor's bracketed-paste switches through `text`. */
  #followSwitches(text: string): void {
    const seen = this.#switchTail + text;
    const on = seen.lastIndexOf(BRACKET_ON);
    const off = seen.lastIndexOf(BRACKET_OFF);
    if (on >= 0 || off >= 0) this.#editorReads = on > off;
    this.#switchTail = seen.slice(-(BRACKET_ON.length - 1));
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
    this.#settle(close < 0 ? "" : field.slice(close + ST.length));
  }

  /** Looks for the function's last OSC 7 in what followed the end marker. */
  #settle(text: string): void {
    this.#after += text;
    const start = this.#after.indexOf(OSC7);
    const end = start < 0 ? -1 : this.#after.indexOf(ST, start);
    const done = end >= 0 || this.#after.length > SETTLE_SCAN_MAX;
    if (!done) return;
    // The prompt may have come in the same bytes.
    if (end >= 0 && end + ST.length < this.#after.length) this.#markPrompted();
    this.#isSettled = true;
    this.#after = "";
    this.#markSettled();
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
