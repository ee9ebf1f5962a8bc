/**
 * How a run ended, as its trailer's status field says: the codes the run function and launcher
 * write, read back strictly (a pane can write the field too). Pure.
 *
 * @module
 */

/**
 * How a run ended, as its trailer reports it: the command's exit status; why the function
 * refused to run the command it fetched from a buffer; or the status the shell saw when the
 * function's subshell was killed or stopped before its trailer (128 + the signal).
 */
export type RunEnd =
  | { kind: "exit"; status: number }
  | { kind: "refused"; reason: string }
  | { kind: "killed"; status: number };

/** The status field the trailer writes when the fetched command was not the one sent. */
export const TAMPERED = "x";
/** The status field the trailer writes when the pane's shell has no SHA-256 tool. */
export const NO_HASH_TOOL = "n";
/** The status field the trailer writes when the pane's shell cannot find tmux. */
export const NO_TMUX = "t";
/** The status field's prefix when the function's subshell ended before its trailer. */
export const KILLED = "k";

/** Why a shell without tmux on its PATH is refused. */
export const NO_TMUX_REASON: string =
  "the pane's shell cannot run tmux: it is not on the shell's PATH, and " +
  "a run's bookkeeping needs it, so nothing was run; put tmux's directory on that PATH (or start " +
  "the shell with one that has it)";

/** Why a run was refused, by the trailer's status field. */
const REFUSALS: Record<string, string> = {
  [TAMPERED]: "the command text was changed by another tmux client before the shell read it " +
    "from its buffer, so nothing was run",
  [NO_HASH_TOOL]: "the pane's shell has no SHA-256 tool (sha256sum, shasum or openssl) to check " +
    "a command sent through a buffer (longer than 2000 characters, or not plain ASCII), so " +
    "nothing was run; send a shorter plain-ASCII command",
  [NO_TMUX]: NO_TMUX_REASON,
};

/** Signal names by number (Linux), for the ones a command's shell sees most. */
const SIGNALS: Record<number, string> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  6: "SIGABRT",
  9: "SIGKILL",
  13: "SIGPIPE",
  15: "SIGTERM",
  19: "SIGSTOP",
  20: "SIGTSTP",
  21: "SIGTTIN",
  22: "SIGTTOU",
};

/** Signals that stop a process rather than end it. */
const STOPS = new Set([19, 20, 21, 22]);

/** Why a run whose subshell ended before its trailer (shell status 128 + signal) has no status. */
export function killedReason(status: number): string {
  const signal = status - 128;
  const name = SIGNALS[signal] ?? `signal ${signal}`;
  return STOPS.has(signal)
    ? `the command was stopped (${name}, C-z) and the shell took the terminal back: the run is ` +
      "over for this server (fg in the pane would resume it, outside any run)"
    : `the subshell running the command was killed (${name}) before it could report the ` +
      "command's status";
}

/**
 * Parses a trailer's status field strictly: 0 to 255, a refusal code, or `k` and 128 to 255;
 * null otherwise.
 */
export function parseRunEnd(text: string): RunEnd | null {
  if (/^(?:0|[1-9]\d{0,2})$/.test(text)) {
    const status = Number(text);
    return status <= 255 ? { kind: "exit", status } : null;
  }
  if (/^k1\d\d$|^k2[0-4]\d$|^k25[0-5]$/.test(text)) {
    const status = Number(text.slice(KILLED.length));
    return status >= 128 ? { kind: "killed", status } : null;
  }
  const reason = REFUSALS[text];
  return reason === undefined ? null : { kind: "refused", reason };
}
