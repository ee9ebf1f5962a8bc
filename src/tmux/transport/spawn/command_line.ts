/**
 * tmux's own command language, as our command lines are written in it: every argument quoted so
 * that nothing in it is expanded. Control clients read these lines, and so does `source-file -`,
 * which carries commands to a remote tmux (see ssh.ts): caller text never reaches a shell.
 *
 * @module
 */

/**
 * Separates commands in one invocation. tmux reads any argument that ends with ";" as a command
 * separator, so every other argument ending with ";" is escaped on its way out, and only this
 * token (NUL cannot come from outside: no argv may hold it) becomes a real separator.
 */
export const THEN = "\0;";

/** Commands that change nothing, so running them again is harmless. */
export const QUERIES = new Set([
  "capture-pane",
  "display-message",
  "has-session",
  "list-buffers",
  "list-clients",
  "list-panes",
  "list-sessions",
  "list-windows",
  "show-buffer",
  "show-environment",
  "show-options",
]);

/**
 * Quotes one argument for tmux's command parser: literal, nothing expanded. Text goes in single
 * quotes; `'` and control characters (which would break the line) as double-quoted octal escapes,
 * which tmux's parser joins to the quoted runs around them into one argument.
 */
export function quoteArg(arg: string): string {
  // deno-lint-ignore no-control-regex
  return arg.split(/(['\x01-\x1f\x7f])/).map((part, i) =>
    i % 2 === 0 ? `'${part}'` : `"\\${part.charCodeAt(0).toString(8).padStart(3, "0")}"`
  ).join("");
}

/** The commands of a THEN-chained list, each its own argv. */
export function commandsOf(args: readonly string[]): string[][] {
  const commands: string[][] = [[]];
  for (const arg of args) {
    if (arg === THEN) commands.push([]);
    else commands[commands.length - 1].push(arg);
  }
  return commands;
}

/** Words tmux's parser reads as they are (no `$`, `~`, `#`, quote, `=`, `;`, brace or space). */
const BARE_WORD = /^[\w@%.\/:+-]+$/;

/**
 * A THEN-chained list as one text in tmux's command language, commands apart by ` ; `: what
 * `if-shell` runs, or a line of `source-file`. Words that need no quotes go bare.
 */
export function commandText(args: readonly string[]): string {
  return commandsOf(args).map((command) =>
    command.map((arg) => BARE_WORD.test(arg) ? arg : quoteArg(arg)).join(" ")
  ).join(" ; ");
}

/** Commands, each its own argv, as one THEN-chained list (see {@linkcode commandsOf}). */
export function chained(commands: readonly (readonly string[])[]): string[] {
  return commands.flatMap((command, i) => i === 0 ? command : [THEN, ...command]);
}

/**
 * Whether a command can go over the control connection: anything but NUL can be quoted, and
 * anything but `new-session`, which gives the session the `update-environment` variables
 * (SSH_AUTH_SOCK, DISPLAY...) of the client that runs it: a control client carries none (see
 * `TmuxCommandOptions.path`), a spawned tmux ours.
 */
export function controlSafe(args: readonly string[]): boolean {
  return args.every((arg) => arg === THEN || !arg.includes("\0")) &&
    !commandsOf(args).some(([name]) => name === "new-session");
}

/**
 * One command line in a control client's own command language; with a nonce, a
 * `display-message -p NONCE` follows every command.
 */
export function controlLine(
  args: readonly string[],
  nonce?: string,
): { line: string; commands: number } {
  const check = nonce === undefined ? "" : ` ; display-message -p ${quoteArg(nonce)}`;
  let commands = 1;
  const words = args.map((arg) => {
    if (arg === THEN) {
      commands++;
      return check === "" ? ";" : `${check.slice(1)} ;`;
    }
    return quoteArg(arg);
  });
  return { line: words.join(" ") + check, commands };
}
