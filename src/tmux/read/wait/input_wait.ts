/**
 * Whether a pane's program waits for input, as the kernel tells it: the terminal's foreground
 * process group has a process asleep reading the pane's terminal (a `read` on it, or a
 * poll/select that includes it) and none running. Not guessed from quiet or prompt text.
 *
 * One look is one tmux command: tmux's `if-shell` runs a short POSIX script on the tmux server's
 * host (so it works over ssh too, and needs no permission beyond running tmux) that reads
 * `/proc` on Linux, or `ps` (wchan `ttyin`, `select`) on macOS, and leaves its answer in a pane
 * option the same command prints and removes. Where neither can tell, the answer says so.
 * (`run-shell` would print it to us, but tmux 3.3 and 3.4 show it in the pane's view mode.)
 *
 * The option never outlives its look: the look sets it to a token of its own first, and the
 * script writes its answer only while the option still holds that token (one tmux command
 * checks and writes). A look that did not finish takes its token back; the orphan guard takes
 * this process's option back when the process ends (see objects/taken_back.ts). A script that
 * ends later finds no token and writes nothing.
 *
 * @module
 */

import { lockKey, spawnRun } from "../../transport/spawn/exec.ts";
import { THEN } from "../../transport/spawn/command_line.ts";
import { NAME_PREFIX, newNonce, NONCE_BYTES } from "../../names.ts";
import { outsideCall } from "../../call_deadline.ts";
import { takenBackWhenGone } from "../../objects/taken_back.ts";
import type { TmuxSocket } from "../../transport/socket.ts";

/** What the kernel tells of a foreground group. */
export interface Told {
  /** The program waits for terminal input; null: it cannot be told here (no /proc, no ps). */
  waiting: boolean | null;
  /**
   * It waits on several files, the terminal among them, and reads none: an event loop may wait
   * so with work pending (node awaiting a timer), so the screen is asked too.
   */
  polled: boolean;
  /** The terminal is canonical (line by line); false: a program set it to read keys. */
  canonical: boolean | null;
}

const UNTOLD: Told = { waiting: null, polled: false, canonical: null };

/** What one look saw. */
export interface InputWait extends Told {
  /** The pane's cursor and history as the look was taken: unchanged means no output between. */
  position: string;
  /** The pane shows its alternate screen (a full-screen program). */
  alternate: boolean;
}

/**
 * The pane option a look's answer passes through: one a server process
 * (`@tmux_mcp_turn_<nonce>`), so looks at one pane from two processes never read or remove each
 * other's; one look at a time a pane within a process (see {@linkcode lookForInputWait}).
 */
const OPTION_PREFIX = `@${NAME_PREFIX}turn_`;
const OPTION = new RegExp(`^${OPTION_PREFIX}[0-9a-f]{${2 * NONCE_BYTES}}$`);
const OUR_OPTION = `${OPTION_PREFIX}${newNonce()}`;
/** The option of this process's looks at many panes, which may start at a pane a look is at. */
const OUR_MANY_OPTION = `${OPTION_PREFIX}${newNonce()}`;

/** Whether a pane option's name is a look's (one a look that did not finish left, when found). */
export function isLookOption(name: string): boolean {
  return OPTION.test(name);
}

/** How many processes of the foreground group are looked at, at most. */
const GROUP_MAX = 16;

/**
 * This host's processes as a list (`pt`): `$P` holds `;pid pgid tty` for each, `$u` the machine,
 * and `gs` sets `$G` to the first pids of the foreground group `$g` on the terminal `$y` in that
 * list with no process started (a look at 24 panes started five processes a pane). As written for
 * tmux to expand, as {@linkcode LOOK_BODY}, which calls `gp` to find the group.
 */
const PROCESS_LIST = "u=$(uname -m); " +
  'pt() { P=";$(ps -A -o pid= -o pgid= -o tty= 2>/dev/null | ' +
  `awk '{ printf "%s %s %s;", $1, $2, $3 }')"; }; ` +
  "gs() { G=; q=$P; n=0; while [ $n -lt " + `${GROUP_MAX} ]; do ` +
  'case $q in *" $g $y;"*) ;; *) break ;; esac; x="${q%%" $g $y;"*}"; G="$G ${x####*;}"; ' +
  'q="${q#*" $g $y;"}"; n=$((n + 1)); done; }; ';

/** One pane's group: the list made once its foreground group is known, as one `ps` was. */
const ONE_PANE_GROUP = 'gp() { y="${t####/dev/}"; pt; gs; }; ';

/**
 * Many panes' groups: one list for all, made before the first; a group it lacks began after (a
 * shell's startup file running a program), and the list is made again.
 */
const MANY_PANES_GROUP = 'pt; gp() { y="${t####/dev/}"; gs; [ -n "$G" ] || { pt; gs; }; }; ';

/**
 * The look at the terminal `$t` whose first process is `$s`, leaving its answer in `$r`, as
 * written for tmux to expand (`####` is how a format writes `##`; no other `#`), after
 * {@linkcode PROCESS_LIST}. Linux: per process of the foreground group, `pid state wchan syscall
 * arg0 sockets fd0-is-tty read-fd-is-tty`. macOS (no /proc): `ps`'s `pid pgid tpgid stat wchan` of
 * the terminal's processes. Each answer starts with the terminal's mode.
 */
const LOOK_BODY = "m=; case $(stty -a < $t 2>/dev/null) in *-icanon*) m=raw ;; " +
  "*icanon*) m=cooked ;; esac; " +
  "if [ -r /proc/$s/stat ]; then " +
  "read -r l < /proc/$s/stat; l=${l####*) }; set -- $l; g=$6; " +
  'r="linux $u $m $g"; gp; for p in $G; do ' +
  "read -r l < /proc/$p/stat 2>/dev/null || continue; l=${l####*) }; set -- $l; z=$1; " +
  "w=; read -r w < /proc/$p/wchan 2>/dev/null; c=; read -r c < /proc/$p/syscall 2>/dev/null; " +
  "set -- $c x x; n=$1; a=$2; f=0; [ /proc/$p/fd/0 -ef $t ] && f=1; d=0; " +
  "case $a in 0x[0-9a-f] | 0x[0-9a-f][0-9a-f] | 0x[0-9a-f][0-9a-f][0-9a-f]) " +
  // A program may read its terminal as /dev/tty (ssh asking about a host key, a password).
  "[ /proc/$p/fd/$(($a)) -ef $t ] || [ /proc/$p/fd/$(($a)) -ef /dev/tty ] && d=1 ;; esac; " +
  // Whether it holds a socket: the first one found ends the look (a process may hold many files).
  "k=0; for x in /proc/$p/fd/*; do [ -S $x ] && { k=1; break; }; done; " +
  'r="$r;$p $z ${w:-0} $n $a $k $f $d"; done; ' +
  'else r="ps $m;$(ps -o pid= -o pgid= -o tpgid= -o stat= -o wchan= -t ${t####/dev/} 2>/dev/null ' +
  `| head -n ${GROUP_MAX} | tr '\\n' ';')"; fi; `;

/** One pane's look: its terminal `$t` and first process `$s` from tmux's formats. */
const SCRIPT_BODY = `${PROCESS_LIST}${ONE_PANE_GROUP}t=#{pane_tty}; s=#{pane_pid}; ${LOOK_BODY}`;

/** Where a look's answer passes: an option of this process on a pane, and its guard's kind. */
interface AnswerPlace {
  paneId: string;
  option: string;
  kind: string;
}

/**
 * The end of a look's script: writes `$<variable>` into the place's option, after the look's
 * token, if the option still holds the token (checked and written in one tmux command). An answer
 * with a quote in it (none the scripts build) is dropped: the answer is quoted for tmux's parser.
 */
function writeBack(place: AnswerPlace, token: string, variable: string): string {
  const holds = `##{==:##{${place.option}},${token}}`;
  return `case $${variable} in *"'"*) ${variable}= ;; esac; ` +
    `command tmux -S #{q:socket_path} if-shell -F -t ${place.paneId} '${holds}' ` +
    `"set-option -p -t ${place.paneId} ${place.option} '${token} $${variable}'"`;
}

/**
 * Runs a look: its token set in the place's option first, the script (given the token), the
 * option shown and taken back, then `after`, in one tmux command; tmux's output. The option is
 * taken back when this process ends, however it ends (a local tmux's guard), and later if the
 * command fails (see {@linkcode removeLater}).
 */
async function lookThrough(
  socket: TmuxSocket,
  place: AnswerPlace,
  look: { script: (token: string) => string; after?: string[] },
): Promise<{ token: string; answer: string }> {
  const { paneId, option } = place;
  const token = newNonce();
  await takenBackWhenGone(socket, {
    object: paneId,
    kind: place.kind,
    undo: ["set-option", "-p", "-u", "-t", paneId, option],
  });
  try {
    const answer = await spawnRun(socket, [
      ...["set-option", "-p", "-t", paneId, option, token, THEN],
      ...["if-shell", "-t", paneId, look.script(token)],
      `show-options -p -v -t ${paneId} ${option}`,
      ...[THEN, "set-option", "-p", "-u", "-t", paneId, option],
      ...(look.after === undefined ? [] : [THEN, ...look.after]),
    ]);
    return { token, answer };
  } catch (error) {
    removeLater(socket, paneId, token, option);
    throw error;
  }
}

/** The longest answer read. */
const ANSWER_MAX = 4096;

/** System call numbers, by machine: reads, and waits on several files (poll, select, epoll). */
const SYSCALLS: Record<string, { read: number[]; poll: number[] }> = {
  x86_64: { read: [0, 19], poll: [7, 23, 232, 270, 271, 281, 441] },
  aarch64: { read: [63, 65], poll: [22, 72, 73, 441] },
};

/** Kernel functions a process sleeps in while it reads a terminal, or polls files. */
const TTY_READ_WCHAN = /^(n_tty_read|wait_woken)$/;
const POLL_WCHAN =
  /^(poll_schedule_timeout|do_select|do_sys_poll|core_sys_select|ep_poll|do_epoll_wait)/;

/**
 * How a process of the foreground group stands toward the terminal: `polling` is a wait on
 * several files that includes it (an event loop may wait so while it has work pending).
 */
type Stance = "running" | "reading" | "polling" | "other";

/**
 * One Linux process line: `pid state wchan syscall arg0 sockets fd0 readfd`. A read of the
 * terminal is told by the system call and its file (when /proc lets us see them), else by the
 * kernel function it sleeps in with the terminal on its standard input; a poll or select counts
 * when the terminal is its standard input and it holds no socket (a server waits on those), or
 * it set the terminal to read keys (a line editor, a full-screen program).
 */
function linuxStance(fields: string[], machine: string, canonical: boolean | null): Stance {
  const [, state, wchan, syscall, arg0, sockets, fd0, readFd] = fields;
  if (state === "R" || state === "D") return "running";
  const number = /^\d{1,4}$/.test(syscall) ? Number(syscall) : null;
  const calls = number === null ? undefined : SYSCALLS[machine];
  const onTerminal = fd0 === "1";
  if (calls !== undefined && calls.read.includes(number!)) {
    return readFd === "1" ? "reading" : "other";
  }
  // The call's number unknown here: asleep where a terminal read sleeps, on the terminal.
  if (calls === undefined && TTY_READ_WCHAN.test(wchan)) {
    return readFd === "1" || onTerminal && sockets === "0" ? "reading" : "other";
  }
  const polls = calls !== undefined ? calls.poll.includes(number!) : POLL_WCHAN.test(wchan);
  if (!polls || !onTerminal) return "other";
  // pselect6 over the first file alone (x86_64: nfds 1): the terminal, exactly.
  if (machine === "x86_64" && number === 270 && arg0 === "0x1") return "reading";
  return sockets === "0" || canonical === false ? "polling" : "other";
}

/** Whether a group waits (none of it runs, one reads or polls the terminal), and how it is told. */
function groupWaits(stances: Stance[]): { waiting: boolean; polled: boolean } {
  const waiting = !stances.includes("running") &&
    (stances.includes("reading") || stances.includes("polling"));
  return { waiting, polled: waiting && !stances.includes("reading") };
}

/** The terminal's mode, as the script wrote it. */
function modeOf(word: string | undefined): boolean | null {
  return word === "cooked" ? true : word === "raw" ? false : null;
}

/**
 * Whether the foreground group waits for terminal input, from the script's answer: a process
 * reads (or polls) the terminal and none runs. `waiting` null: the answer cannot tell (no /proc
 * and no `ps`, or it is not one the script writes; a program in the pane can write the option).
 */
export function parseInputWait(answer: string): Told {
  if (answer.length > ANSWER_MAX) return UNTOLD;
  const [head, ...rest] = answer.split(";").slice(0, GROUP_MAX + 1);
  const words = head.trim().split(" ");
  if (words[0] === "linux") {
    const canonical = modeOf(words[2]);
    const stances = rest.filter((line) => line.trim() !== "")
      .map((line) => line.trim().split(" "))
      .filter((fields) => fields.length === 8 && /^\d+$/.test(fields[0]))
      .map((fields) => linuxStance(fields, words[1], canonical));
    if (stances.length === 0) return { ...UNTOLD, canonical };
    return { ...groupWaits(stances), canonical };
  }
  if (words[0] === "ps") return psWaiting(rest, modeOf(words[1]));
  return UNTOLD;
}

/**
 * macOS (and other systems with no /proc): `ps`'s `pid pgid tpgid stat wchan` lines of the
 * terminal's processes. The foreground group's processes are those whose group is the
 * terminal's; `ttyin` is a read of the terminal, `select` a wait that counts when the terminal
 * is set to read keys.
 */
function psWaiting(lines: string[], canonical: boolean | null): Told {
  const processes = lines.map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 4 && fields.slice(0, 3).every((f) => /^-?\d+$/.test(f)));
  const front = processes.filter(([, pgid, tpgid]) => pgid === tpgid);
  if (front.length === 0) return { ...UNTOLD, canonical };
  const stances = front.map(([, , , stat, wchan = ""]): Stance => {
    if (/^[RU]/.test(stat)) return "running";
    if (wchan === "ttyin") return "reading";
    return wchan === "select" && canonical === false ? "polling" : "other";
  });
  return { ...groupWaits(stances), canonical };
}

/** Looks in flight, by pane: one look answers every caller that asks meanwhile. */
const inFlight = new Map<string, Promise<InputWait>>();

/** Looks once at whether the pane's program waits for terminal input (see the module doc). */
export function lookForInputWait(socket: TmuxSocket, paneId: string): Promise<InputWait> {
  const key = lockKey(socket, paneId);
  const shared = inFlight.get(key);
  if (shared !== undefined) return shared;
  const look = lookOnce(socket, paneId).finally(() => inFlight.delete(key));
  inFlight.set(key, look);
  return look;
}

/**
 * When a look did not finish (its call's deadline ended it, tmux stalled), its token is taken
 * back 0, 1, 3, 10 and 30 s later, whatever the call does (the look's own command may reach tmux
 * late), with the answer its script wrote meanwhile; a later look's token stays.
 */
const REMOVE_AFTER_MS = [0, 1000, 3000, 10_000, 30_000];

function removeLater(
  socket: TmuxSocket,
  paneId: string,
  token: string,
  option: string,
): void {
  const ours = `#{m:${token}*,#{${option}}}`;
  outsideCall(async () => {
    let waited = 0;
    for (const ms of REMOVE_AFTER_MS) {
      // Not a reason for the process to stay up at its end.
      await new Promise((resolve) => Deno.unrefTimer(setTimeout(resolve, ms - waited)));
      waited = ms;
      await spawnRun(socket, [
        ...["if-shell", "-F", "-t", paneId, ours],
        `set-option -p -u -t ${paneId} ${option}`,
      ]).catch(() => {});
    }
  });
}

/** The pane's cursor, history and screen, read in the same tmux command as the look. */
const POSITION = "#{cursor_x},#{cursor_y},#{history_size},#{alternate_on}";

async function lookOnce(socket: TmuxSocket, paneId: string): Promise<InputWait> {
  const place = { paneId, option: OUR_OPTION, kind: "look" };
  const { token, answer } = await lookThrough(socket, place, {
    script: (token) => SCRIPT_BODY + writeBack(place, token, "r"),
    after: ["display-message", "-p", "-t", paneId, POSITION],
  });
  const lines = answer.split("\n").filter((line) => line !== "");
  const position = lines.at(-1) ?? "";
  const written = lines.slice(0, -1).join("\n");
  const told = written.startsWith(`${token} `)
    ? parseInputWait(written.slice(token.length + 1))
    : UNTOLD;
  return { ...told, position, alternate: position.endsWith(",1") };
}

/** A pane as the look at many panes needs it (from a listing: tmux's own values). */
export interface LookedPane {
  /** The pane, like %3. */
  paneId: string;
  /** Its terminal, like /dev/pts/3. */
  tty: string;
  /** Its first process. */
  pid: number;
  /** A process said to run in it (an agent's mark): the look tells whether it still does. */
  claimedPid?: number;
}

/** What the look at many panes saw of one. */
export interface PaneLook extends Told {
  /** The claimed process lives with the pane's terminal as its own; null: none was claimed. */
  claimedLives: boolean | null;
}

/** Options for {@linkcode lookAtPanes}. */
export interface LookAtPanesOptions {
  /**
   * Whether each pane's program waits for input (default true); false: only whether the claimed
   * processes live, a `ps` each (the waits come back untold).
   */
  kernel?: boolean;
}

/** Panes a look command holds at most (tmux takes a command of 16 KiB at most from a client). */
const PANES_A_LOOK = 40;

const TTY = /^\/dev\/[A-Za-z0-9/._-]{1,64}$/;

/** Looks at many panes, one tmux command and one shell for up to 40 (lookForInputWait's script). */
let manyLooks: Promise<unknown> = Promise.resolve();

/**
 * Whether each pane's program waits for terminal input, and whether a process claimed for it
 * lives there: one tmux command (one shell on tmux's host) for up to {@linkcode PANES_A_LOOK}
 * panes, where {@linkcode lookForInputWait} takes one a pane. A pane the look could not tell of
 * is missing from the answer. Looks at many panes run one at a time in this process.
 */
export function lookAtPanes(
  socket: TmuxSocket,
  panes: readonly LookedPane[],
  options: LookAtPanesOptions = {},
): Promise<Map<string, PaneLook>> {
  const kernel = options.kernel ?? true;
  const valid = panes.filter((pane) =>
    /^%\d+$/.test(pane.paneId) && TTY.test(pane.tty) && Number.isSafeInteger(pane.pid) &&
    (pane.claimedPid === undefined || Number.isSafeInteger(pane.claimedPid))
  );
  const looks = (async () => {
    await manyLooks.catch(() => {});
    const seen = new Map<string, PaneLook>();
    for (let i = 0; i < valid.length; i += PANES_A_LOOK) {
      const some = valid.slice(i, i + PANES_A_LOOK);
      for (const [paneId, look] of await lookManyOnce(socket, some, kernel)) {
        seen.set(paneId, look);
      }
    }
    return seen;
  })();
  manyLooks = looks;
  return looks;
}

/**
 * The script of a look at many panes: the one-pane look as a function, called a pane (with
 * `kernel` false, not called: only whether claimed processes live is looked at).
 */
function manyScriptOf(token: string, panes: readonly LookedPane[], kernel: boolean): string {
  const calls = panes.map((pane) => {
    // The claimed process's terminal, from the list: `pgid tty` after its `;pid `.
    const claimed = pane.claimedPid === undefined
      ? "a=-; "
      : `a=0; x="\${P#*;${pane.claimedPid} }"; ` +
        '[ "$x" != "$P" ] && case "${x%%;*}" in *" ${t####/dev/}") a=1 ;; esac; ';
    const look = kernel ? "l; " : "r=; ";
    return `t=${pane.tty}; s=${pane.pid}; ${look}${claimed}R="$R|${pane.paneId} $a $r"; `;
  });
  return `${PROCESS_LIST}${MANY_PANES_GROUP}l() { ${LOOK_BODY}}; R=; ${calls.join("")}` +
    writeBack(manyPlace(panes), token, "R");
}

/** Where a look at many panes leaves its answer: the first pane's option of such looks. */
function manyPlace(panes: readonly LookedPane[]): AnswerPlace {
  return { paneId: panes[0].paneId, option: OUR_MANY_OPTION, kind: "looks" };
}

async function lookManyOnce(
  socket: TmuxSocket,
  panes: readonly LookedPane[],
  kernel: boolean,
): Promise<Map<string, PaneLook>> {
  const { token, answer } = await lookThrough(socket, manyPlace(panes), {
    script: (token) => manyScriptOf(token, panes, kernel),
  });
  const written = answer.replace(/\n+$/, "");
  const seen = new Map<string, PaneLook>();
  if (!written.startsWith(`${token} `)) return seen;
  const asked = new Set(panes.map((pane) => pane.paneId));
  for (const part of written.slice(token.length + 1).split("|").slice(1, panes.length + 1)) {
    const [paneId, claimed, ...rest] = part.split(" ");
    if (!asked.has(paneId) || seen.has(paneId)) continue;
    seen.set(paneId, {
      ...parseInputWait(rest.join(" ")),
      claimedLives: claimed === "1" ? true : claimed === "0" ? false : null,
    });
  }
  return seen;
}
