/**
 * Which shell a pane really runs, where tmux's `#{pane_current_command}` cannot say: bsd-csh
 * started as `csh` calls itself `-sh` (tmux reports `sh`), tcsh started as `csh` reports `csh`,
 * xonsh is a Python program, and a launched shell's `-c` is best run by the very program the pane
 * runs. tmux is asked to run `ps` for the pane's foreground process group (on the tmux server's
 * host, so it works wherever tmux runs); the answer is cached per pane process and name.
 *
 * @module
 */

import { delay } from "../../../util/mod.ts";
import { callDeadline } from "../../call_deadline.ts";
import { socketKey, spawnRun } from "../../transport/spawn/exec.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import type { TmuxSocket } from "../../transport/socket.ts";
import { NAME_PREFIX } from "../../names.ts";
import { lookForInputWait } from "../../read/wait/input_wait.ts";
import type { ShellProgram } from "./launcher.ts";
import { classifyProcess, LAUNCHED_SHELLS, programName, showsLineEditor } from "../../shells.ts";

/**
 * What a pane runs, as run_command drives it; `not_reading`: a shell that reads command lines only
 * through its line editor, and is not reading one. A POSIX shell with a line editor seen with its
 * terminal canonical (`cooked`: the editor is not reading yet) echoes a line through the terminal,
 * and reads it later; one without (dash) always reads so.
 */
export type PaneShell =
  | { kind: "posix"; cooked?: boolean }
  | { kind: "launched"; shell: ShellProgram }
  | { kind: "unsupported"; name: string }
  | { kind: "other" }
  | { kind: "not_reading" }
  /** A run's launcher in front, its run ending (another server's): nothing may be typed yet. */
  | { kind: "passing" };

/** The language a pane's shell runs commands in (`bash`, `fish`...), or null when not a shell. */
export function shellLanguage(shell: PaneShell | null, command: string): string | null {
  if (shell?.kind === "launched") return shell.shell.kind;
  return shell?.kind === "posix" ? programName(command) : null;
}

/** Names that need a look at the process: they may be another shell than they say. */
function ambiguous(name: string): boolean {
  return name === "sh" || /^python[0-9.]*$/.test(name) || name in LAUNCHED_SHELLS;
}

const PROBE_OPTION = `@${NAME_PREFIX}shell`;

/**
 * The probe's prefix when the shell holds the terminal and a child runs in its group: a shell
 * without job control runs its programs there (other shells' background work may be there too).
 */
const CHILD = "child:";

/**
 * The probe's prefix when what holds the terminal, or the only such child, is one of ours: the
 * `sh` of a launched run just ended, still finishing its trailer (its arguments name our buffers).
 * Once the run's mark is cleared it is waited for, as a child in the shell's group is.
 */
const OURS = "ours:";

/**
 * The probe's first prefix when the terminal is canonical (line by line, as the kernel reads it
 * for a program), not set as a line editor sets it to read a command line.
 */
const COOKED = "cooked:";

/**
 * Launched shells that read command lines only through their line editor, which sets the terminal
 * non-canonical: canonical, such a shell is not reading one. It is starting, between a line and
 * its program, or a script of its own reads input with no process to show for it (xonsh's
 * `input()`, elvish's `read-line`): a line typed then is that script's answer.
 */
const EDITOR_ONLY: ReadonlySet<string> = new Set(["fish", "nu", "elvish", "xonsh"]);

/** How often, and how long apart, a pane that looks busy with no run of ours is looked at again. */
const SETTLE_LOOKS = 10;
const SETTLE_WAIT_MS = 25;

/** How often a shell still in its startup file is looked at again. */
const STARTING_WAIT_MS = 100;

/** How long a shell not reading with its line editor is looked at again, at most. */
const READING_WAIT_MS = 1000;

/** Shells that run their programs in their own process group: a child there has the terminal. */
const NO_JOB_CONTROL: ReadonlySet<string> = new Set(["rc", "elvish", "xonsh"]);

/**
 * Run by tmux's `if-shell` (expanded as a format first): the foreground process group's
 * executable and arguments, kept in a pane option that the same tmux command prints and removes.
 * One `ps` lists every process: the terminal's foreground group (from the pane's process), its
 * leader's arguments, and whether a child of the shell runs in the shell's own group (a shell
 * without job control, rc, elvish or xonsh, runs its programs there: then a child has the
 * terminal though the group is the shell's). No `#` in it: tmux would expand `#S` and the like.
 */
const PROBE = "r=$(ps -A -o pid= -o ppid= -o pgid= -o tpgid= -o args= 2>/dev/null | " +
  "awk -v s=#{pane_pid} '$1 == s { t = $4 } { n++; id[n] = $1; pp[n] = $2; pg[n] = $3; l[n] = $0 } " +
  'END { p = t > 0 ? t : s; c = ""; a = ""; for (i = 1; i <= n; i++) { ' +
  'if (id[i] == p) { a = l[i]; sub(/^ *[0-9]+ +[0-9]+ +[0-9]+ +-?[0-9]+ ?/, "", a); ' +
  `if (p != s && index(a, "${NAME_PREFIX}")) o = 1 } ` +
  `if (p == s && pp[i] == p && pg[i] == p) { if (index(l[i], "${NAME_PREFIX}")) o = 1; ` +
  `else c = "${CHILD}" } } if (c == "" && o) c = "${OURS}"; print p "|" c "|" a }'); ` +
  "p=${r%%|*}; r=${r#*|}; c=${r%%|*}; a=${r#*|}; " +
  "e=$(readlink /proc/$p/exe 2>/dev/null || ps -o comm= -p $p); " +
  `m=; case $(stty -a < #{pane_tty} 2>/dev/null) in *-icanon*) ;; *icanon*) m=${COOKED} ;; esac; ` +
  `command tmux -S #{q:socket_path} set-option -p -t #{pane_id} ${PROBE_OPTION} "$m$c$e|$a"`;

/** The longest probe answer looked at: a path and a command line. */
const ANSWER_MAX = 8192;

/** An executable's path as the probe reports it: absolute, one line, bounded. */
const EXECUTABLE = /^\/[^\n\0]{0,1023}$/;

/**
 * What the probe's answer (`executable|arguments`) says the pane runs, by the executable's name,
 * else its first argument's (Debian's rc is `rc.byron`, run as `rc`); null: it says nothing.
 */
export function shellFromProbe(answer: string): PaneShell | null {
  const parts = probeParts(answer);
  if (parts === null || !EXECUTABLE.test(parts.program)) return null;
  const { child, program, args } = parts;
  if (runsScript(args)) return { kind: "other" };
  const shell = shellOfProgram(program, args);
  // `bash script.sh` at its `read -p`: a script's shell, not one reading command lines.
  if (shell?.kind === "posix" && runsScriptFile(args)) return { kind: "other" };
  if (child && shell?.kind === "launched" && NO_JOB_CONTROL.has(shell.shell.kind)) {
    return { kind: "other" };
  }
  return shell;
}

/**
 * A probe's answer (`[prefix]executable|arguments`) in its parts: whether a child of the shell
 * or one of ours has the terminal, the executable, the arguments; null when it says nothing.
 */
function probeParts(answer: string): { child: boolean; program: string; args: string[] } | null {
  // A pane option: anything in the pane could have written it, at any length.
  if (answer.length > ANSWER_MAX) return null;
  const bar = answer.indexOf("|");
  if (bar < 0) return null;
  const prefix = [CHILD, OURS].find((prefix) => answer.startsWith(prefix)) ?? "";
  const program = answer.slice(prefix.length, bar).trim();
  return { child: prefix !== "", program, args: answer.slice(bar + 1).trim().split(/\s+/) };
}

/**
 * The names a probe's answer gives its process: its executable's and its first arguments' (a
 * script's interpreter runs it by path: xonsh). Empty when the answer says nothing.
 */
function probedNames(answer: string): string[] {
  const parts = probeParts(answer);
  return parts === null ? [] : [parts.program, ...parts.args.slice(0, 3)].map(programName);
}

/** What a process runs, by its executable and arguments (see {@linkcode shellFromProbe}). */
function shellOfProgram(program: string, args: string[]): PaneShell | null {
  const base = programName(program);
  const argv0 = programName(args[0] ?? "");
  if (/^python[0-9.]*$/.test(base)) {
    return argv0 === "xonsh" || args.slice(1).some((arg) => /^\S*xonsh$/.test(arg))
      ? { kind: "launched", shell: { kind: "xonsh", program, args: ["-m", "xonsh"] } }
      : { kind: "other" };
  }
  const launched = LAUNCHED_SHELLS[base] ??
    (classifyProcess(base) === "other" ? LAUNCHED_SHELLS[argv0] : undefined);
  if (launched !== undefined) {
    return { kind: "launched", shell: { kind: launched, program, args: [] } };
  }
  // By the executable's name, else by the name it was started as (a versioned binary run as
  // `zsh`); neither a shell's: another program has the terminal, whatever tmux named the pane.
  const kind = fromName(base);
  if (kind.kind !== "other") return kind;
  return fromName(argv0);
}

/**
 * Whether a shell's arguments make it run a script and exit (`sh -c`, `bash -ec`, `fish
 * --command`) rather than read command lines: what is typed to it goes to whatever the script
 * runs (a `read`, a program). Only the leading options count: a script's text is not looked into.
 */
function runsScript(args: string[]): boolean {
  const options: string[] = [];
  for (const arg of args.slice(1)) {
    if (!arg.startsWith("-") || arg === "--") break;
    options.push(arg);
  }
  // A cluster of a few one-letter options (`-ec`), not a long option with one dash (`-sock`).
  const short = (letter: string) => (arg: string) =>
    /^-[a-zA-Z]{1,3}$/.test(arg) && arg.includes(letter);
  const script = options.some((arg) => /^--commands?$/.test(arg) || short("c")(arg));
  return script && !options.some((arg) => arg === "--interactive" || short("i")(arg));
}

/** POSIX shells' options that take the next argument as their value. */
const VALUED_OPTIONS: ReadonlySet<string> = new Set([
  "-o",
  "+o",
  "-O",
  "+O",
  "--rcfile",
  "--init-file",
]);

/**
 * Whether a POSIX shell's arguments name a script file to run (`bash deploy.sh`, `sh -e x.sh`):
 * an operand after its options, unless `-s` or `-i` makes it read commands all the same.
 */
function runsScriptFile(args: string[]): boolean {
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return i + 1 < args.length;
    if (VALUED_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (/^[-+]/.test(arg)) {
      if (/^-[a-zA-Z]*[si][a-zA-Z]*$/.test(arg)) return false;
      continue;
    }
    return true;
  }
  return false;
}

/** What a pane runs by its command name alone. */
function fromName(name: string): PaneShell {
  const base = programName(name);
  switch (classifyProcess(base)) {
    case "posix_shell":
      return { kind: "posix" };
    case "launched_shell":
      return { kind: "launched", shell: { kind: LAUNCHED_SHELLS[base], program: base, args: [] } };
    case "unsupported_shell":
      return { kind: "unsupported", name: base };
    case "other":
      return { kind: "other" };
  }
}

/** Options for {@linkcode paneShell}. */
export interface PaneShellOptions {
  /** Looked-at shells, by pane, pane process and name (a bounded map: the caller's). */
  cache: Map<string, PaneShell>;
  /** The pane's `#{pane_pid}` and `#{pane_current_command}`. */
  panePid: string;
  /** The pane's `#{pane_current_command}`. */
  command: string;
  /**
   * No watcher has seen whether the shell's line editor reads: a shell's name is all tmux shows
   * of a script it runs (`sh -c 'read x'`), and a shell without job control (rc) looks the same
   * with a program running. The process is then looked at afresh, unless tmux (3.7 on) says
   * bracketed paste is on (`bracketPaste` "1": a line editor reads) and the name is a plain
   * shell's. Before 3.7 (`bracketPaste` "") tmux cannot say, and a pane's first call looks.
   */
  readerUnknown?: boolean;
  /** The pane's `#{bracket_paste_flag}`. */
  bracketPaste?: string;
  /** No run of ours holds the pane (its mark is clear): one of ours in front is finishing. */
  runsOver?: boolean;
  /** The time left of the run's timeout, in ms: a shell not reading is looked at no longer. */
  waitMs?: number;
}

/** Whether the pane's own process was looked at and found a launched shell (fish, nu...). */
function launchedShellHere(socket: TmuxSocket, paneId: string, options: PaneShellOptions): boolean {
  const prefix = `${socketKey(socket)}\0${paneId}\0${options.panePid}\0`;
  for (const [key, shell] of options.cache) {
    if (key.startsWith(prefix) && shell.kind === "launched") return true;
  }
  return false;
}

/** The key a pane's looked-at shell is cached under. */
function shellKey(socket: TmuxSocket, paneId: string, options: PaneShellOptions): string {
  return `${socketKey(socket)}\0${paneId}\0${options.panePid}\0${options.command}`;
}

/**
 * Run by tmux's `if-shell`: whether the terminal's foreground process group is the pane's own
 * process (its shell, not a program or script it started). No tmux client inside.
 */
const SHELL_IN_FRONT = "if [ -r /proc/#{pane_pid}/stat ]; then " +
  // The foreground group (tpgid) is the 6th field after the command name's ") " (`####` is how a
  // format writes `##`).
  'read -r l < /proc/#{pane_pid}/stat && l=${l####*) } && set -- $l && [ "$6" = #{pane_pid} ]; ' +
  'else [ "$(ps -o tpgid= -p #{pane_pid} 2>/dev/null)" -eq #{pane_pid} ] 2>/dev/null; fi';

/**
 * Added for a shell with a line editor: the terminal is out of canonical mode, as a line editor
 * sets it to read. Such a shell running a script (`bash -c 'read x'`, the pane's own process)
 * leaves it canonical, and so does a shell without its editor (`bash --noediting`): both get the
 * whole probe. (`stty` on the terminal as its input, as both GNU and BSD `stty` read it.)
 */
const EDITOR_READING = "case $(stty < #{pane_tty} 2>/dev/null) in *-icanon*) ;; *) false ;; esac";

/**
 * Whether a pane's own process holds its terminal and, for a shell with a line editor
 * (`editor`), the terminal is set as that editor reads it (false when that cannot be told).
 */
async function shellInFront(
  socket: TmuxSocket,
  paneId: string,
  options: { editor: boolean },
): Promise<boolean> {
  const test = options.editor ? `{ ${SHELL_IN_FRONT}; } && ${EDITOR_READING}` : SHELL_IN_FRONT;
  const answer = await spawnRun(socket, [
    ...["if-shell", "-t", paneId, test, "display-message -p 1", "display-message -p 0"],
  ]).catch(() => "");
  return answer.trim() === "1";
}

/**
 * What a pane's foreground process is, as run_command drives it: by its name when that is plain,
 * else by a look at the process (once per pane process and name).
 */
export async function paneShell(
  socket: TmuxSocket,
  paneId: string,
  options: PaneShellOptions,
): Promise<PaneShell> {
  const name = programName(options.command);
  // `sh` in front, or a POSIX name in front of a launched shell (fish, nu...): a run's launcher
  // (any server's), or a shell the person started there; only the whole look tells them apart
  // (the name may be gone by then, and the pane's own process in front again).
  const passing = name === "sh" ||
    fromName(name).kind === "posix" && launchedShellHere(socket, paneId, options);
  const look = passing ||
    options.readerUnknown === true && (ambiguous(name) || options.bracketPaste !== "1");
  if (!ambiguous(name) && !look) return fromName(name);
  const key = shellKey(socket, paneId, options);
  const cached = look ? undefined : options.cache.get(key);
  if (cached !== undefined) return cached;
  // A plain shell's name before tmux 3.7, on a first call: the common case, the shell itself in
  // front and its line editor reading, is told by a look much cheaper than the whole probe (16
  // first calls at once pay it together).
  if (
    !ambiguous(name) && !passing && options.bracketPaste === "" &&
    await shellInFront(socket, paneId, { editor: showsLineEditor(name) })
  ) return fromName(name);
  // A tmux process of its own: what if-shell runs after its shell command prints to that process,
  // where a control client would get it outside the command's block.
  let shell: PaneShell = fromName(name);
  // Over ssh a look costs a round trip or two: the wait is counted in time, not looks.
  const reading = AbortSignal.timeout(
    Math.max(0, Math.min(READING_WAIT_MS, options.waitMs ?? READING_WAIT_MS)),
  );
  const startingWait = AbortSignal.timeout(Math.max(0, options.waitMs ?? READING_WAIT_MS));
  let nudged = false;
  // Whether the last look saw the process tmux named: another (a run's `sh` on its way out, seen
  // after tmux named the shell) says what this call meets, not what the pane runs.
  let seenAsNamed = false;
  let lastRest = "";
  for (let looks = 1;; looks++) {
    const answer = (await spawnRun(socket, [
      ...["if-shell", "-t", paneId, PROBE, `show-options -p -v -t ${paneId} ${PROBE_OPTION}`, THEN],
      ...["set-option", "-p", "-u", "-t", paneId, PROBE_OPTION],
    ]).catch(() => "")).trim();
    const cooked = answer.startsWith(COOKED);
    const rest = cooked ? answer.slice(COOKED.length) : answer;
    shell = shellFromProbe(rest) ?? fromName(name);
    seenAsNamed = probedNames(rest).includes(name);
    lastRest = rest;
    // A shell that reads only through its line editor, canonical: still starting (then waited
    // for within the call's time), or something reads the terminal line by line.
    let editorStarting = false;
    if (cooked && shell.kind === "launched" && EDITOR_ONLY.has(shell.shell.kind)) {
      const reads = await readsCanonical(socket, paneId);
      editorStarting = reads === false;
      // fish reading its terminal left canonical (seen after a C-c) waits for an Enter to set
      // its own mode again: given once, as a person would, and looked at again. Another shell
      // reading so is a script of its own at a read (xonsh's input(), elvish's read-line).
      if (reads === true && shell.shell.kind === "fish" && !nudged) {
        nudged = true;
        editorStarting = true;
        await spawnRun(socket, ["send-keys", "-t", paneId, "Enter"]).catch(() => "");
      }
      shell = { kind: "not_reading" };
    }
    if (cooked && shell.kind === "posix") {
      // Canonical with a child in the shell's group: a shell before its job control (running
      // its startup file) waits for a program, which would read the line.
      shell = rest.startsWith(CHILD)
        ? { kind: "other" }
        : { kind: "posix", cooked: showsLineEditor(name) };
    }
    // Right after a run a shell without job control may still have a child of its own (xonsh's
    // between commands): that, like our sh finishing, is looked at again before calling it busy;
    // so is a shell on its way back to its line editor.
    const settling = shell.kind === "not_reading" ||
      shell.kind === "other" && [OURS, CHILD].some((p) => rest.startsWith(p));
    // A shell with a line editor, canonical with a child in its own group, is still in its
    // startup file: it is waited for within the call's time, until it reads.
    const starting = editorStarting ||
      cooked && rest.startsWith(CHILD) && showsLineEditor(name);
    const more = starting
      ? !startingWait.aborted
      : shell.kind === "not_reading"
      ? !reading.aborted
      : looks < SETTLE_LOOKS;
    // The call's deadline ends the looking with what the last look saw.
    const deadline = callDeadline();
    if (!(settling || starting) || !options.runsOver || !more || deadline?.aborted) break;
    await delay(starting ? STARTING_WAIT_MS : SETTLE_WAIT_MS, { signal: deadline });
    if (deadline?.aborted) break;
  }
  // A script ends, and the name may be a shell's again: only a shell is remembered, and only as
  // the process tmux named (a second server's run was seen to leave `sh` taken for a fish pane's
  // shell, and every later call typed fish a POSIX line).
  // A run's launcher (this server's or another's: its line names ours) still in front once the
  // looks are over: its run is ending, and a line typed now would reach the shell behind it.
  if (shell.kind === "other" && lastRest.startsWith(OURS)) return { kind: "passing" };
  if (!seenAsNamed) return shell;
  if (shell.kind === "posix") options.cache.set(key, { kind: "posix" });
  else if (shell.kind !== "other" && shell.kind !== "not_reading") options.cache.set(key, shell);
  return shell;
}

/**
 * Whether the pane's foreground process reads its terminal while the terminal is canonical;
 * null when the kernel cannot be asked.
 */
async function readsCanonical(socket: TmuxSocket, paneId: string): Promise<boolean | null> {
  const look = await lookForInputWait(socket, paneId).catch(() => null);
  if (look === null || look.waiting === null) return null;
  return look.waiting && look.canonical === true;
}

/** Forgets what was looked at in a pane (a line it was typed did not run: look again). */
export function forgetPaneShell(
  cache: Map<string, PaneShell>,
  socket: TmuxSocket,
  paneId: string,
): void {
  const prefix = `${socketKey(socket)}\0${paneId}\0`;
  for (const key of [...cache.keys()]) if (key.startsWith(prefix)) cache.delete(key);
}
