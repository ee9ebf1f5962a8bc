/**
 * Running a command in a shell that is not a POSIX shell (fish, nushell, tcsh, csh, elvish,
 * xonsh, rc): the pane's shell is typed one short line that starts `/bin/sh`, and that `sh` does
 * the run's bookkeeping and runs the command with a fresh `<shell> -c` (the command is written in
 * the pane's own shell language). Pure: no tmux here.
 *
 * The line parses the same in every one of those shells: a single-quoted bootstrap with no quote,
 * backslash, `!` or newline in it (fish and xonsh read backslashes in single quotes, csh reads
 * `!`), then plain words. It is short because some line editors (nushell's, elvish's) take time
 * that grows faster than the line (2.8 kB: 1.1 s and 2.2 s measured; 300 bytes: 60 and 100 ms).
 * The bootstrap fetches the run's script from its buffer and deletes it in one tmux command, and
 * evaluates it only if its SHA-256 is the one typed in the line: nothing another tmux client can
 * rewrite is evaluated unchecked. It reaches tmux by the shell's `$TMUX` (two rows: no socket path
 * typed, 80 bits of the hash); a shell that cannot (started with `env -i`, say) says so, and is
 * typed the line that names the socket (five or six rows) from then on. The script holds the
 * command and the run's name; neither is in any process's arguments, so the command cannot read
 * them from its parent.
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
  NO_TMUX_REASON,
  PLAIN_PAGERS,
  restorablePath,
  RUNNING_OPTION,
  shellQuote,
} from "../base/mod.ts";
import { commandDigest, FETCH_CHECK_DIGITS } from "./run_function.ts";
import type { LaunchedShell } from "../../shells.ts";

/** A pane's shell as the launcher needs it: its kind and the program that runs its `-c`. */
export interface ShellProgram {
  /** Which launched shell it is. */
  kind: LaunchedShell;
  /** The shell's executable (for xonsh, the Python running it), a path or a name on PATH. */
  program: string;
  /** Arguments before `-c` (`-m xonsh` when the program is Python). */
  args: string[];
}

/**
 * A socket path the bootstrap can name between double quotes inside single quotes, read the same
 * by every launched shell: printable ASCII without quotes, backslash, `!`, `$` or backquote.
 */
const TYPABLE_PATH = /^[\x20\x23\x25\x26\x28-\x5b\x5d-\x5f\x61-\x7e]{1,512}$/;

/**
 * The buffer a launcher script waits in, named by its SHA-256: a line withdrawn or left over
 * fetches (and deletes) only its own script when it runs at last, never a later run's.
 */
export function launcherBuffer(sha256: string): string {
  return `${NAME_PREFIX}l${sha256}`;
}

/**
 * The single-quoted part of the launcher line for a tmux socket, or null when the socket's path
 * cannot be typed into every launched shell. Arguments: the pane id and the script's SHA-256.
 */
export function launcherBootstrap(socketPath: string): string | null {
  if (!TYPABLE_PATH.test(socketPath)) return null;
  const buffer = launcherBuffer("$2");
  const hashers = ["sha256sum", "shasum -a 256"].map((tool) => `printf %s "$w"|${tool}`);
  // A missing tool is said before the script is fetched (see launcherRefusals).
  const lacking = (code: string) => `||{ echo $1${code}$2;exit;};`;
  return `t=$(command -v tmux)${lacking(LACKS_TMUX)}` +
    `{ command -v sha256sum||command -v shasum;}>/dev/null${lacking(LACKS_HASHER)}` +
    `w=$("$t" -S "${socketPath}" show-buffer -b "${buffer}" ";" delete-buffer -b "${buffer}")` +
    `&&case $({ ${hashers.join("||")};} 2>/dev/null) in "$2 "*) eval "$w";;esac`;
}

const LACKS_TMUX = "T";
const LACKS_HASHER = "H";
const NOT_FETCHED = "N";

/**
 * The bootstrap that reaches tmux by the shell's `$TMUX`. Arguments: the script's buffer and the
 * first {@linkcode FETCH_CHECK_DIGITS} hex digits of its SHA-256. Nothing in it names the socket;
 * tmux's short names (showb, deleteb) keep it short.
 */
const BY_TMUX_ENV = `w=$(tmux showb -b $1 ";" deleteb -b $1);` +
  `case $(printf %s "$w"|sha256sum) in $2*)eval "$w";;*)echo $1${NOT_FETCHED}$2;;esac`;

/** What the bootstrap prints instead of fetching the script, and what it means. */
export interface LauncherRefusal {
  /** The text: two of the line's words with a letter between (typed apart, never together). */
  said: string;
  /** What the result says: why nothing ran. */
  reason: string;
  /**
   * The script could not be fetched by `$TMUX` (unset, another server's, no tmux or sha256sum):
   * the line that names the socket is typed instead.
   */
  fallback?: boolean;
}

/**
 * What a bootstrap for this pane and script prints when its shell lacks tmux or a SHA-256 tool:
 * it then exits without fetching the script, which is withdrawn and never runs.
 */
export function launcherRefusals(paneId: string, sha256: string): LauncherRefusal[] {
  return [
    { said: `${paneId}${LACKS_TMUX}${sha256}`, reason: NO_TMUX_REASON },
    {
      said: `${paneId}${LACKS_HASHER}${sha256}`,
      reason: "the pane's shell has no SHA-256 tool (sha256sum or shasum) on its PATH to check " +
        "the run's script with, so nothing was run; install one, or start bash in the pane",
    },
  ];
}

/** Options for {@linkcode launcherScript}. */
export interface LauncherScriptOptions {
  /** The call's names (channel, markers, buffers). */
  names: CallNames;
  /** The pane the run is in. */
  paneId: string;
  /** The tmux socket's path (the script's tmux commands name it). */
  socketPath: string;
  /** The pane's shell. */
  shell: ShellProgram;
  /** The command, in the shell's language. */
  command: string;
  /** The pane's `#{pane_path}` before the call, put back when the command has ended. */
  panePath: string;
  /** True: the server waits on the channel (the trailer signals it); false: it follows the stream. */
  waited: boolean;
  /** Leave the pager variables as the shell has them. */
  pagers: boolean;
}

/** How `sh` runs the command text `$c` with the shell `$X`, leaving its status in `s`. */
const RUN_COMMAND = `"$X" "$@" -c "$c"; s=$?`;

/** Shells that run `$c` otherwise. */
const RUN_OTHERWISE: Partial<Record<LaunchedShell, string>> = {
  // tcsh runs loops only from a script: one on fd 3, the terminal kept as its input.
  tcsh: `exec 9<&0; printf '%s\\n' "$c" | "$X" /dev/fd/3 3<&0 0<&9 9<&-; s=$?`,
  // csh closes descriptors above 2: a temporary file, removed after.
  csh: `f=$(mktemp) && printf '%s\\n' "$c" >"$f" && "$X" "$f"; s=$?; rm -f "$f"`,
};

/**
 * The script the bootstrap evaluates for one run: like the POSIX run function (`runFunction`),
 * in a subshell that survives Ctrl-C, Ctrl-\ and SIGTERM: the start marker, the command run by
 * the pane's shell, the end marker with its status, one tmux command that stores the status and
 * clears the running mark, and the pane path put back; it exits with the command's status. The
 * outer `sh` ends a run whose subshell was killed before its trailer, as the POSIX function's
 * caller does. C-z is ignored: a stopped `sh` would leave the pane's shell at its prompt with the
 * run never ended.
 */
export function launcherScript(options: LauncherScriptOptions): string {
  const { names, paneId } = options;
  const plain = Object.entries(PLAIN_PAGERS).map(([name, value]) => `${name}=${value}`).join(" ");
  const status = (value: string) => `${value}:#{history_size}:#{cursor_y}:#{cursor_x}:#{pane_path}`;
  const mark = `#{==:#{${RUNNING_OPTION}},${names.channel}:#{pane_pid}}`;
  const restore = restoreText(paneId, { shell: true });
  const keep = `#{||:${options.waited ? 1 : 0},#{${names.record}}}`;
  const drop = dropStatus(options.waited ? "1" : "0", [names.record, names.quietRecord]);
  const body = [
    "set +exv",
    "trap : INT QUIT TERM",
    `M ${names.startMarker}`,
    ...options.pagers ? [] : [`export ${plain}`],
    RUN_OTHERWISE[options.shell.kind] ?? RUN_COMMAND,
    `M "${names.channel}_e$s"`,
    KEYS_IGNORED,
    `T set-option -p -F -t ${paneId} ${names.option} "${status("$s")}" ";" ` +
    `if-shell -F -t ${paneId} "#{${ENDED_OPTION}}" ` +
    `"set-option -p -t ${paneId} ${ENDED_OPTION} ${names.channel}" ";" ` +
    `if-shell -F -t ${paneId} "${mark}" ` +
    `"set-option -p -u -t ${paneId} ${RUNNING_OPTION} ; ${restore}" ";" ` +
    `if-shell -F -t ${paneId} "${keep}" "wait-for -S ${names.channel}" ";" ` +
    `if-shell -F -t ${paneId} "${drop}" "set-option -p -u -t ${paneId} ${names.option}"`,
    `M "$r"`,
    `exit "$s"`,
  ];
  const guard = [
    `M "${names.channel}_ek$s"`,
    KEYS_IGNORED,
    `T if-shell -F -t ${paneId} "${mark}" "set-option -p -u -t ${paneId} ${RUNNING_OPTION} ; ` +
    `${restore} ; ` +
    `if-shell -F -t ${paneId} '#{${ENDED_OPTION}}' ` +
    `'set-option -p -t ${paneId} ${ENDED_OPTION} ${names.channel}' ; ` +
    `set-option -p -F -t ${paneId} ${names.option} '${status("k$s")}' ; ` +
    `if-shell -F -t ${paneId} '${keep}' 'wait-for -S ${names.channel}' ; ` +
    `if-shell -F -t ${paneId} '${drop}' 'set-option -p -u -t ${paneId} ${names.option}'"`,
    `M "$r"`,
  ];
  return [
    "trap : INT QUIT TERM",
    "trap '' TSTP",
    `T() { command tmux -S ${shellQuote(options.socketPath)} "$@"; }`,
    `M() { printf '\\033\\\\\\033]7;%s\\033\\\\' "$1"; }`,
    `r=${shellQuote(restorablePath(options.panePath))}`,
    `X=${shellQuote(options.shell.program)}`,
    `set -- ${options.shell.args.map(shellQuote).join(" ")}`,
    `c=${shellQuote(options.command)}`,
    `b() { ${body.join("; ")}; }`,
    `( b "$@" )`,
    "s=$?",
    `[ "$s" -lt 128 ] || { ${guard.join("; ")}; }`,
    `exit "$s"`,
  ].join("\n");
}

/** Options for {@linkcode buildLauncherLine}. */
export interface LauncherLineOptions {
  /** The bootstrap, single-quoted in the line. */
  bootstrap: string;
  /** Its arguments (no spaces or quotes): the pane id and the script's SHA-256, or the buffer and the check. */
  words: [string, string];
  /** Start the line with a space (fish and nushell then keep it out of their history). */
  suppressHistory: boolean;
}

/** The line typed into a launched shell's pane. */
export function buildLauncherLine(options: LauncherLineOptions): string {
  const prefix = options.suppressHistory ? " " : "";
  return `${prefix}/bin/sh -c '${options.bootstrap}' sh ${options.words.join(" ")}`;
}

/** A launcher run: its line, its script and the buffer it waits in, what the line says if refused. */
export interface LauncherRun {
  /** The line typed into the pane. */
  typed: string;
  /** The script, set in its buffer before the line is typed. */
  script: string;
  /** The buffer the script waits in. */
  buffer: string;
  /** What the line prints, and why, when it will not run the script. */
  refusals: LauncherRefusal[];
}

/**
 * The line and the script of one run in a launched shell: fetched by the shell's `$TMUX` when
 * `bootstrap` is null, else by the socket's bootstrap ({@linkcode launcherBootstrap}).
 */
export async function launcherRun(
  script: LauncherScriptOptions,
  line: { bootstrap: string | null; suppressHistory: boolean },
): Promise<LauncherRun> {
  const text = launcherScript(script);
  const sha256 = await commandDigest(text);
  const { suppressHistory } = line;
  if (line.bootstrap !== null) {
    const words: [string, string] = [script.paneId, sha256];
    return {
      typed: buildLauncherLine({ bootstrap: line.bootstrap, words, suppressHistory }),
      script: text,
      buffer: launcherBuffer(sha256),
      refusals: launcherRefusals(script.paneId, sha256),
    };
  }
  // Short: the name is typed. A line left over fetches only its own script.
  const buffer = `${NAME_PREFIX}l${crypto.getRandomValues(new Uint8Array(2)).toHex()}`;
  const check = sha256.slice(0, FETCH_CHECK_DIGITS);
  return {
    typed: buildLauncherLine({ bootstrap: BY_TMUX_ENV, words: [buffer, check], suppressHistory }),
    script: text,
    buffer,
    refusals: [{
      said: `${buffer}${NOT_FETCHED}${check}`,
      reason: "the pane's shell could not fetch the run's script through its $TMUX",
      fallback: true,
    }],
  };
}
