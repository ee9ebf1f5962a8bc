/**
 * Typed failures of the tmux layer. Each carries a stable code (the wire name clients match on) and
 * a human message; the tools layer maps them once to MCP `isError` results.
 *
 * @module
 */

/** Stable error codes. */
export type TmuxErrorCode =
  | "invalid_argument"
  | "not_found"
  | "already_exists"
  | "tmux_unavailable"
  | "tmux_too_old"
  | "tmux_error"
  | "pane_in_mode"
  | "pane_dead"
  | "pane_busy"
  | "person_typing"
  | "unsupported_shell"
  | "host_unreachable"
  | "host_key_unknown"
  | "auth_failed"
  | "cancelled"
  | "memory_limited"
  | "out_of_scope"
  | "internal_error";

/** A failure with a code and a message fit to show to a person or an agent. */
export class TmuxError extends Error {
  /** The stable code. */
  readonly code: TmuxErrorCode;

  /** Builds an error from its code and message. */
  constructor(code: TmuxErrorCode, message: string) {
    super(message);
    this.name = "TmuxError";
    this.code = code;
  }
}

const NOT_FOUND_PATTERNS = [
  /can't find (pane|window|session|client)/i,
  /no such (pane|window|session)/i,
  /(pane|window|session) not found/i,
];

const EXISTS_PATTERNS = [/duplicate session/i];

/** What tmux says when no server listens on the socket (as opposed to one it cannot reach). */
const NO_SERVER = /no server running|error connecting to .*\(No such file or directory\)/i;

/** Whether a failure means that no tmux server runs on the socket. */
export function isNoServer(error: unknown): boolean {
  return error instanceof TmuxError && error.code === "tmux_unavailable" &&
    NO_SERVER.test(error.message);
}

const UNAVAILABLE_PATTERNS = [
  /no server running/i,
  /error connecting to/i,
  /server exited unexpectedly/i,
  /lost server/i,
];

/** The most of tmux's (or a host's) standard error an error message repeats. */
const SAID_MAX = 1000;

/** Classifies tmux's stderr into a typed error. */
export function errorFromStderr(stderr: string, args: readonly string[]): TmuxError {
  const said = stderr.trim();
  const text = said.length > SAID_MAX
    ? `${said.slice(0, SAID_MAX)}… [${said.length - SAID_MAX} more characters]`
    : said || `tmux ${args[0] ?? ""} failed`;
  if (UNAVAILABLE_PATTERNS.some((p) => p.test(text))) {
    return new TmuxError("tmux_unavailable", `tmux server is not running or unreachable: ${text}`);
  }
  if (NOT_FOUND_PATTERNS.some((p) => p.test(text))) {
    return new TmuxError("not_found", text);
  }
  if (EXISTS_PATTERNS.some((p) => p.test(text))) {
    return new TmuxError("already_exists", `${text}: pick another name`);
  }
  return new TmuxError("tmux_error", text);
}
