/**
 * Which tmux a server is (`#{version}`), and the few behaviours that differ between 3.2a and
 * master, each read from tmux's sources: one code path per behaviour, chosen by version.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/** A tmux server's version, as `#{version}` reports it. */
export interface TmuxVersion {
  /** As tmux says it: `3.3a`, `3.7c`, `next-3.8`, `openbsd-7.6`. */
  text: string;
  /** Major and minor as one number (`3.7c` → 307); unknown forms count as the newest. */
  rank: number;
}

/** The oldest tmux every tool works on (`attach-session -f`, `refresh-client -A`, `q:`). */
export const OLDEST_SUPPORTED = "3.2a";

/** Ranks newer than any release, for `master` and forms whose number says nothing of tmux's. */
const NEWEST = 99_999;

/** Parses `#{version}` (or `tmux -V` less its first word). */
export function parseVersion(text: string): TmuxVersion {
  const match = /^(?:next-)?(\d{1,3})\.(\d{1,3})[a-z]?$/.exec(text.trim());
  return {
    text: text.trim(),
    rank: match === null ? NEWEST : Number(match[1]) * 100 + Number(match[2]),
  };
}

/** Whether `version` is `major.minor` or later. */
export function atLeast(version: TmuxVersion, major: number, minor: number): boolean {
  return version.rank >= major * 100 + minor;
}

/**
 * The `paste-buffer` flags that make it write a buffer's bytes as they are: from 3.7 it passes them
 * through vis(3) unless given `-S` (a C-u would reach the shell as the two characters `^U`); older
 * releases write them as they are and know no `-S`.
 */
export function verbatimPasteFlags(version: TmuxVersion): string[] {
  return atLeast(version, 3, 7) ? ["-S"] : [];
}

/**
 * Whether `capture-pane -J` pads every line with blanks to the pane's width: before 3.3 it cannot
 * stop at the last cell written (GRID_STRING_EMPTY_CELLS came in 3.3), so trailing blanks there
 * are padding, not output.
 */
export function joinedCapturePadded(version: TmuxVersion): boolean {
  return !atLeast(version, 3, 3);
}

/** Fails with `tmux_too_old` for a tmux older than {@linkcode OLDEST_SUPPORTED}. */
export function checkSupported(version: TmuxVersion): void {
  if (!atLeast(version, 3, 2)) {
    throw new TmuxError(
      "tmux_too_old",
      `this tmux server is ${version.text}; tmux-mcp needs tmux ${OLDEST_SUPPORTED} or later`,
    );
  }
}
