/**
 * The run function every call in a POSIX shell goes through, and the one line typed to call it:
 * defined once per shell, by a short line that fetches and checks it, or typed whole. Pure: no
 * tmux here, so it is unit-tested directly.
 *
 * @module
 */

import { restoreText } from "../../objects/activity_mark.ts";
import { NAME_PREFIX } from "../../names.ts";
import {
  type CallNames,
  dropStatus,
  ENDED_OPTION,
  KEYS_IGNORED,
  KILLED,
  NO_HASH_TOOL,
  NO_TMUX,
  PLAIN_PAGERS,
  restorablePath,
  RUNNING_OPTION,
  shellQuote,
  TAMPERED,
} from "../base/mod.ts";

/** The shell function every call runs through, and its definition. */
export interface RunFunction {
  /** `__tmux_mcp_` and a digest of the definition: a changed definition gets a new name. */
  name: string;
  /** POSIX shell text defining it, on one line (typed as part of a first call, when fetched fails). */
  definition: string;
  /**
   * What a first call sets in its own buffer for its line to fetch: the definition, then the
   * deletion of that buffer (the shell that evaluates it leaves nothing behind), then the call,
   * drawn as a later call's line in place of the fetching one (see {@linkcode FirstCall}).
   */
  fetchable(buffer: string, call: FirstCall): string;
}

/**
 * A first call, which the fetched text makes: its line, as later calls type it, is drawn where
 * the fetching line's echo starts (so a first call leaves the rows a later one does: one where
 * the command fits, not three), then run.
 */
export interface FirstCall {
  /** The call's channel: the fetch's buffer is named by it, so the line names the run. */
  channel: string;
  /** The pane. */
  paneId: string;
  /** Its cursor and history as the call looked: the fetching line's echo starts there. */
  at: { x: number; y: number; history: number };
  /** The call's line as a later call types it (see {@linkcode buildTypedLine}). */
  line: string;
}

/** A first call's fetch: its buffer, the text set in it, and the start of that text's SHA-256. */
export interface Fetch {
  /** The buffer's name (typed in the line). */
  buffer: string;
  /** What is set in it: the definition, then the buffer's deletion. */
  text: string;
  /** The first hex digits of the text's SHA-256 (typed in the line). */
  check: string;
}

/** A fetch of the run function for one first call, in a buffer of its own, the call with it. */
export async function fetchOf(run: RunFunction, call: FirstCall): Promise<Fetch> {
  // The run's name in the typed line: bash's history entry of it is found by it (see the guard).
  const buffer = `${call.channel}_f`;
  const text = run.fetchable(buffer, call);
  return { buffer, text, check: (await sha256Hex(text)).slice(0, FETCH_CHECK_DIGITS) };
}

/**
 * A short line that evaluates the call's buffer (the function's definition, then the call: see
 * `fetchable`) only when it holds exactly what was set there (its SHA-256). It reaches the
 * tmux server through the shell's own `$TMUX`, so no socket path is typed. A shell without it
 * (started with `env -i`, say) or without sha256sum says the function is "not found", as a shell
 * lacking it does (the message is built as the line runs, so its echo does not say it), and is
 * typed the whole definition instead; nothing in the line fails, so a shell under `set -e` stays.
 * Short, as every character of it is typed until the call's line is drawn over it: tmux finds
 * its server by $TMUX, the check is the hash's first 80 bits, sha256sum alone.
 */
function fetchingLine(name: string, fetch: Fetch): string {
  return `${FETCHED}=$(tmux show-buffer -b ${fetch.buffer})||:;` +
    `case $(printf %s "$${FETCHED}"|sha256sum) in ${fetch.check}*)eval "$${FETCHED}";;` +
    `*)echo ${name}"": not found;;esac`;
}

/**
 * Hex digits of a fetched text's SHA-256 a typed line checks: 80 bits. Another text with them
 * would take 2^80 hashes to find, and the buffer lives only until its shell reads it.
 */
export const FETCH_CHECK_DIGITS = 20;

/** The calling shell's variable the loader fetches the definition into. */
const FETCHED = "__tm";

/** Stands for the function's name (a digest of its text) in that text. */
const NAME = "\0";

/** Shell variables of the function: the command, its hash, its status (none names the run). */
const V = {
  command: "__tmux_mcp_c",
  hash: "__tmux_mcp_h",
  status: "__tmux_mcp_s",
  source: "__tmux_mcp_p",
};

/** A run's two record options, named in shell text from the parameter holding its channel. */
function recordsOf(parameter: string): [string, string] {
  const nonce = `\${${parameter}#${NAME_PREFIX}}`;
  return [`@${NAME_PREFIX}run_${nonce}`, `@${NAME_PREFIX}rec_${nonce}`];
}

/** zsh's err_return would return from our function at the subshell's failure: off within it. */
const ZSH_LOCAL_NO_ERR_RETURN = '[ -z "${ZSH_VERSION-}" ] || setopt local_options no_err_return';

/**
 * The function that runs one call in a pane's shell. It is defined in the typed line of a
 * shell's first call (nothing is evaluated from a buffer another tmux client could rewrite), so
 * later lines stay short. Arguments: the call's channel, the pane id, the `#{pane_path}` to put
 * back, 1 when the server waits on the channel (0: it follows the byte stream), then `c` and the
 * command, or `h` and the SHA-256 of the command waiting in the call's buffer; after the `c` or
 * `h`, `p` leaves the command's pagers as they are (else {@linkcode PLAIN_PAGERS}) and `s` keeps
 * the typed line out of bash's history. Its body (a
 * second function, `<name>b`) runs in a subshell that:
 * - turns off tracing, a DEBUG and an ERR trap (they would print the bookkeeping into the
 *   output), errexit, nounset and zsh's err_return, and survives Ctrl-C, Ctrl-\ and SIGTERM, which end only the command;
 * - refuses to run anything when tmux is not on the shell's PATH;
 * - fetches a buffered command and runs it only if its hash matches;
 * - writes the start marker as an OSC 7 path (so `#{pane_path}`, and the byte stream, tell a
 *   started command from a line the shell never ran); every marker is preceded by ST, which ends
 *   a string sequence (DCS...) the command may have left open and tmux would read the marker into;
 * - runs the command with `eval` in a subshell of its own with no positional parameters, so it
 *   cannot see the run's name;
 * - writes the end marker with the status, behind all of the command's output;
 * - in one tmux command (one tmux process): stores the status, the cursor position and
 *   `#{pane_path}` in a pane option, clears the running mark if it is still this call's, and
 *   either signals the channel and keeps the option (the server waits on it, or the run timed out
 *   and has a record) or removes the option (the server read the status from the stream);
 * - never waits for the server; puts the pane path back and exits with the command's status.
 *
 * Then, in the calling shell: a subshell that was killed (SIGKILL) or stopped (C-z) before its
 * trailer leaves the shell a status of 128 and more, and the run is ended for it: an end marker
 * `k<status>`, and in one tmux command, only while the running mark is still this call's, the
 * mark cleared and the status kept or signalled as a trailer does. A run never outlives the
 * shell's return to its prompt. The calling shell's errexit is off while the subshell runs (the
 * subshell's failure would end the shell) and back after; under it the call returns 0.
 */
export async function runFunction(socketPath: string): Promise<RunFunction> {
  const tmux = `command tmux -S ${shellQuote(socketPath)}`;
  const marker = (format: string, ...words: string[]) =>
    `printf '\\033\\\\\\033]7;${format}\\033\\\\' ${words.join(" ")}`;
  const { command, hash, status, source } = V;
  const plain = Object.entries(PLAIN_PAGERS).map(([name, value]) => `${name}=${value}`).join(" ");
  const hashers = ["sha256sum", "shasum -a 256", "openssl dgst -sha256"]
    .map((tool) => `printf %s "$${command}" | command ${tool}`).join(" || ");
  const body = [
    "set +euvx",
    `[ -z "\${BASH_VERSION-}\${ZSH_VERSION-}" ] || trap - DEBUG ERR`,
    `[ -z "\${ZSH_VERSION-}" ] || unsetopt err_return`,
    "trap : INT QUIT TERM",
    `${command}=$6 ${status}= ${source}=$5`,
    // Without tmux the run could be neither fetched nor ended: refused before it starts.
    `command -v tmux >/dev/null 2>&1 || ${status}=${NO_TMUX}`,
    `case $${status}$5 in h*) ` +
    `${command}=$(${tmux} show-buffer -b "$1_c" \\; delete-buffer -b "$1_c" 2>/dev/null); ` +
    `${hash}=$( { ${hashers}; } 2>/dev/null); ` +
    `case $${hash} in *"$6"*) ;; '') ${status}=${NO_HASH_TOOL} ;; *) ${status}=${TAMPERED} ;; ` +
    `esac ;; esac`,
    `if [ -z "$${status}" ]; then ${marker("%s_s", '"$1"')}; ` +
    `(set --; case $${source} in *p*) ;; *) export ${plain} ;; esac; eval "$${command}"); ` +
    `${status}=$?; fi`,
    marker("%s_e%s", '"$1"', `"$${status}"`),
    // From here on keys cannot end the run's bookkeeping: a C-c typed as the command ends would
    // kill the tmux below before it has set up its own handlers, leaving the running mark.
    KEYS_IGNORED,
    `${tmux} set-option -p -F -t "$2" "@$1" ` +
    `"$${status}:#{history_size}:#{cursor_y}:#{cursor_x}:#{pane_path}" \\; ` +
    `if-shell -F -t "$2" "#{${ENDED_OPTION}}" "set-option -p -t $2 ${ENDED_OPTION} $1" \\; ` +
    `if-shell -F -t "$2" "#{==:#{${RUNNING_OPTION}},$1:#{pane_pid}}" ` +
    `"set-option -p -u -t $2 ${RUNNING_OPTION} ; ${restoreText("$2", { shell: true })}" \\; ` +
    `if-shell -F -t "$2" "#{||:$4,#{@${NAME_PREFIX}run_\${1#${NAME_PREFIX}}}}" ` +
    `"wait-for -S $1" \\; if-shell -F -t "$2" "${dropStatus("$4", recordsOf("1"))}" ` +
    `"set-option -p -u -t $2 @$1"`,
    marker("%s", '"$3"'),
    `case $${status} in [0-9]*) exit "$${status}" ;; esac`,
    "exit 126",
  ];
  // In the calling shell once the subshell is gone: its status, then the arguments.
  const mark = `#{==:#{${RUNNING_OPTION}},$2:#{pane_pid}}`;
  const record = `#{@${NAME_PREFIX}run_\${2#${NAME_PREFIX}}}`;
  const drop = dropStatus("$5", recordsOf("2"));
  const guard = [
    `set -- "$?" "$@"`,
    // bash keeps a line that starts with a space unless HISTCONTROL says ignorespace; it is
    // dropped only when it is the last entry (HISTIGNORE, or history off, may have kept it out).
    `case $6 in *s*) [ -z "\${BASH_VERSION-}" ] || case :\${HISTCONTROL-}: in ` +
    `*:ignorespace:* | *:ignoreboth:*) ;; *) case $(HISTTIMEFORMAT= history 1 2>/dev/null) in ` +
    `*"$2"*) history -d -1 ;; esac ;; esac ;; esac`,
    `[ "$1" -lt 128 ] || { ${marker(`%s_e${KILLED}%s`, '"$2"', '"$1"')}; ` +
    `(${KEYS_IGNORED}; ${tmux} if-shell -F -t "$3" "${mark}" ` +
    `"set-option -p -u -t $3 ${RUNNING_OPTION} ; ${restoreText("$3", { shell: true })} ; ` +
    `if-shell -F -t $3 '#{${ENDED_OPTION}}' 'set-option -p -t $3 ${ENDED_OPTION} $2' ; ` +
    `set-option -p -F -t $3 @$2 '${KILLED}$1:#{history_size}:#{cursor_y}:#{cursor_x}:` +
    `#{pane_path}' ; if-shell -F -t $3 '#{||:$5,${record}}' 'wait-for -S $2' ; ` +
    `if-shell -F -t $3 '${drop}' 'set-option -p -u -t $3 @$2'"); ${marker("%s", '"$4"')}; }`,
    // The shell's errexit (off while the run ran) comes back; a failure returned to it would
    // end the user's shell, so under it the call returns 0.
    `case $8 in *e*) set -e; return 0 ;; esac`,
    `return "$1"`,
  ];
  // The body is a function of its own, so a shell's job messages ("Stopped") name it briefly.
  const text = `${NAME}b() { ${body.join("; ")}; }; ` +
    `${NAME}() { ${ZSH_LOCAL_NO_ERR_RETURN}; set -- "$@" "$-"; set +e; ( ${NAME}b "$@" ); ` +
    `${guard.join("; ")}; }`;
  const name = `__${NAME_PREFIX}${(await sha256Hex(text)).slice(0, 8)}`;
  const definition = text.replaceAll(NAME, name);
  // What evaluates it leaves nothing of ours in the shell: the variable it came in, the buffer.
  const fetchable = (buffer: string, call: FirstCall) =>
    `${definition}; unset ${FETCHED}; ${tmux} delete-buffer -b ${buffer} 2>/dev/null; ` +
    `${drawn(tmux, call)}; ${call.line.trimStart()}`;
  return { name, definition, fetchable };
}

/**
 * Shell text that draws the call's line where the fetching line's echo starts, clearing the rows
 * below, as tmux has the screen: that row is the one the call looked at, moved up by the rows
 * scrolled into history since (the shell ran a tmux client to fetch the function, so tmux has
 * read the echo by then). Where that row is no longer on the screen, or history is full (tmux then
 * drops a row for each it adds, and the count says nothing), the line is drawn below the echo: a
 * reader of the screen always finds it. In a subshell, so nothing of it stays in the shell.
 */
function drawn(tmux: string, call: FirstCall): string {
  const { x, y, history } = call.at;
  return `(${tmux} display-message -p -t ${call.paneId} ` +
    `'#{history_size} #{history_limit} #{cursor_y}' 2>/dev/null | { read -r h l c && ` +
    `[ "$h" -lt "$l" ] && r=$((${y + 1} - $h + ${history})) && [ "$r" -ge 1 ] && ` +
    `[ "$c" -ge "$r" ] && printf '\\033[%s;%sH\\033[J' "$r" ${x + 1}; ` +
    `printf '%s\\r\\n' ${shellQuote(call.line)}; })`;
}

/** How the command reaches the shell: typed inline, or from the call's buffer by its hash. */
export type CommandSource = { inline: string } | { sha256: string };

/** Options for {@linkcode buildTypedLine}. */
export interface TypedLineOptions {
  /** The call's names (channel, markers, buffers). */
  names: CallNames;
  /** The pane the line is typed into. */
  paneId: string;
  /** The function the line calls. */
  run: RunFunction;
  /**
   * Define the function first, in the same line (the shell lacks it): fetched from a buffer
   * (a {@linkcode Fetch}), or `typed` whole; `none`: the shell has it.
   */
  define: Fetch | "typed" | "none";
  /** The pane's `#{pane_path}` (OSC 7) before the call, put back when the command has ended. */
  panePath: string;
  /** Keep the line out of history: a space first (ignorespace), and bash drops it otherwise. */
  suppressHistory: boolean;
  /** True: the server waits on the channel (the trailer signals it); false: it follows the stream. */
  waited: boolean;
  /** The command, or the hash of the command waiting in `names.commandBuffer`. */
  source: CommandSource;
  /** Leave the pager variables as the shell has them (else {@linkcode PLAIN_PAGERS}). */
  pagers: boolean;
}

/**
 * The single line typed into the pane: a call of the run function (see {@linkcode runFunction}),
 * preceded, in a shell that lacks the function, by its definition.
 */
export function buildTypedLine(options: TypedLineOptions): string {
  const { names, source } = options;
  const panePath = restorablePath(options.panePath);
  const args = [
    names.channel,
    options.paneId,
    shellQuote(panePath),
    options.waited ? "1" : "0",
    ("inline" in source ? "c" : "h") + (options.pagers ? "p" : "") +
    (options.suppressHistory ? "s" : ""),
    "inline" in source ? shellQuote(source.inline) : source.sha256,
  ];
  const prefix = options.suppressHistory ? " " : "";
  const call = `${options.run.name} ${args.join(" ")}`;
  const { define } = options;
  return prefix +
    (define === "typed"
      // After a fetch that failed, the variable holds what the shell got instead.
      ? `${options.run.definition}; unset ${FETCHED}; ${call}`
      : define === "none"
      ? call
      : fetchingLine(options.run.name, define));
}

/**
 * The text a buffered command is checked against: what the shell's `$(...)` reads back from the
 * buffer (command substitution drops trailing newlines), as UTF-8.
 */
export function bufferedText(command: string): string {
  return command.replace(/\n+$/, "");
}

/** The SHA-256 of a buffered command as the shell's tools print it (lowercase hex). */
export function commandDigest(command: string): Promise<string> {
  return sha256Hex(bufferedText(command));
}

/** The SHA-256 of text's UTF-8, in lowercase hex, as the shell's tools print it. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}
