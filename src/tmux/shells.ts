/**
 * Which programs are shells, by the name tmux reports for a pane's foreground process
 * (`#{pane_current_command}`): the POSIX ones run_command gives its run function, the others it
 * runs commands in through a launcher, those it cannot drive yet; and whose line editor shows
 * when it reads. Pure: the run path and the readers of panes (a person at a prompt, a wait's
 * program) share it.
 *
 * @module
 */

/** How a pane's foreground process can be driven. */
export type ProcessKind = "posix_shell" | "launched_shell" | "unsupported_shell" | "other";

const POSIX_SHELLS = new Set([
  "sh",
  "bash",
  "rbash",
  "dash",
  "zsh",
  "ksh",
  "ksh93",
  "mksh",
  "lksh",
  "oksh",
  "pdksh",
  "ash",
  "busybox",
  "yash",
  "posh",
]);

/** The non-POSIX shells run_command runs commands in (through a launcher), by how it does. */
export type LaunchedShell = "fish" | "nu" | "tcsh" | "csh" | "elvish" | "xonsh" | "rc";

/** Program names of the launched shells. */
export const LAUNCHED_SHELLS: Readonly<Record<string, LaunchedShell>> = {
  fish: "fish",
  nu: "nu",
  tcsh: "tcsh",
  csh: "csh",
  "bsd-csh": "csh",
  elvish: "elvish",
  xonsh: "xonsh",
  rc: "rc",
};

/** Shells run_command cannot run commands in (yet): it says so, and what to do instead. */
const UNSUPPORTED_SHELLS = new Set(["pwsh", "powershell", "es", "ion"]);

/** A command name as a program's name: no login dash, no directory. */
export function programName(name: string): string {
  return name.trim().replace(/^-/, "").split("/").at(-1) ?? "";
}

/** Classifies a pane's foreground command name (`#{pane_current_command}`). */
export function classifyProcess(name: string): ProcessKind {
  const base = programName(name);
  if (POSIX_SHELLS.has(base)) return "posix_shell";
  if (base in LAUNCHED_SHELLS) return "launched_shell";
  if (UNSUPPORTED_SHELLS.has(base)) return "unsupported_shell";
  return "other";
}

/**
 * Whether a pane started with `command` (null: tmux's default, a shell) runs a shell: its program,
 * past `env` and its settings, is one.
 */
export function startsShell(command: string | null | undefined): boolean {
  if (command == null) return true;
  const words = command.trim().split(/\s+/);
  let at = 0;
  if (programName(words[at] ?? "") === "env") at++;
  while (at < words.length && (words[at].includes("=") || words[at].startsWith("-"))) at++;
  return classifyProcess(words[at] ?? "") !== "other";
}

/** Shells whose line editor switches bracketed paste on while it reads a command line. */
const BRACKETED_PASTE_SHELLS = new Set([
  "bash",
  "rbash",
  "zsh",
  "fish",
  "nu",
  "xonsh",
  "elvish",
  "rc",
]);

/**
 * Whether the shell named `name` tells by bracketed paste when it reads a command line (bash's
 * readline, zsh's zle, fish's, nushell's reedline, xonsh's prompt_toolkit, elvish's, rc's
 * readline). Others (dash, ksh, tcsh...) never do: whether they read cannot be seen.
 */
export function showsLineEditor(name: string): boolean {
  return BRACKETED_PASTE_SHELLS.has(programName(name));
}
