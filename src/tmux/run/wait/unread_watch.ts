/**
 * What the shell answers a typed line it did not run, read from the bytes before any marker: it
 * has no run function (it says so), the launcher refused (it says why), or its line editor read
 * the line and reads again with no start marker in between (a continuation prompt took it).
 *
 * @module
 */

import { typedToken } from "../../read/text/output.ts";
import { EchoScan } from "../output/mod.ts";
import type { LauncherRefusal } from "../line/mod.ts";

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

/** Options for {@linkcode UnreadWatch.typing}. */
export interface TypingOptions {
  /**
   * Whether the shell's line editor reads as the line is typed: false when it is known not to
   * (the terminal canonical, the editor not started yet), so the terminal's own echo of the line
   * is not taken for the editor's; null or absent when not known.
   */
  editorReads?: boolean | null;
}

/** Looks through the bytes before a run's start marker for the shell's answer to its line. */
export class UnreadWatch {
  /** What the shell says when it has no run function (bash, dash and ksh, zsh). */
  #missing: string[];
  /** What the typed launcher line prints, instead of running, when it will not run. */
  #refusals: readonly LauncherRefusal[] = [];
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

  /** `functionName`: the run function the typed line calls (null: it calls none). */
  constructor(functionName: string | null) {
    this.#missing = functionName === null ? [] : [
      `${functionName}: command not found`,
      `${functionName}: not found`,
      `command not found: ${functionName}`,
    ];
  }

  /** Names the line about to be typed (its token in `channel`'s call), as {@linkcode RunStream.typing} says. */
  typing(line: string, channel: string, options: TypingOptions = {}): void {
    this.#token = typedToken(line, channel);
    this.#echo = new EchoScan(this.#token);
    this.#editorReads = options.editorReads ?? null;
  }

  /** What the typed launcher line prints, instead of running, when it will not run. */
  expectRefusals(refusals: readonly LauncherRefusal[]): void {
    this.#refusals = refusals;
  }

  /** Reads more of what the shell wrote before any marker; the shell's answer once it gave one. */
  see(text: string): Unread | null {
    const window = this.#before = (this.#before + text).slice(-BEFORE_MAX);
    const lacksFunction = this.#missing.some((said) => window.includes(said));
    const refusal = this.#refusals.find(({ said }) => window.includes(said));
    const refused = refusal?.reason ?? null;
    // A launched shell's editor may read again around the program it starts (nu was seen to),
    // so only a called function's line is judged by it; a launcher's line unread is withdrawn
    // at its timeout.
    const readsAgain = this.#missing.length > 0 && this.#readsAgain(text);
    if (!readsAgain && !lacksFunction && refused === null) return null;
    return { lacksFunction, refused, fallback: refusal?.fallback === true };
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
}
