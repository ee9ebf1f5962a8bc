/**
 * What a person sharing the tmux sees while a run of ours is under way in a pane: its title reads
 * `[agent] <command>` (tmux shows a pane's title in its default status line, and in pane borders
 * when `pane-border-status` is on), and what it read before comes back as the run ends.
 *
 * The title is set in the tmux command that claims the pane and types the run's line, so it shows
 * as the run starts. It is put back by whatever clears the pane's running mark (the trailer, also
 * when the command was killed; a claim taken back; a stale mark cleared), in the same tmux
 * command, and, should this process die first, by the guard of its tmux server (see
 * orphan_guard.ts). A title the program set meanwhile stays: only ours is put back. Three pane
 * user options hold what that needs: the title shown, the title it replaced, and which process
 * showed it. Each is read back by formats alone, expanded once: a title (anything a pane writes)
 * is never read as a format.
 *
 * @module
 */

import { NAME_PREFIX } from "../names.ts";
import { chained, commandText, THEN } from "../transport/spawn/command_line.ts";
import { ourMark, takenBackWhenGone } from "./taken_back.ts";
import { runTmux } from "../transport/control/command.ts";
import type { TmuxSocket } from "../transport/socket.ts";

/** The title shown while a run is under way. */
const SHOWN_OPTION = `@${NAME_PREFIX}shown`;
/** The title it replaced. */
const SAVED_OPTION = `@${NAME_PREFIX}title`;
/** The orphan-guard mark of the process that showed it. */
const BY_OPTION = `@${NAME_PREFIX}shown_by`;

/** What the title says before the command. */
export const ACTIVITY_PREFIX = "[agent] ";

/** Characters of the command a title shows (tmux's default status line shows 21 of a title). */
const COMMAND_CHARS = 40;

/**
 * The title shown while `command` (as readers see it, see typed_lines.ts) runs: no control
 * character, and no backslash (tmux 3.7 on keeps a title's backslashes doubled, see
 * {@linkcode showActivity}), shown as `⧵`.
 */
export function activityTitle(command: string): string {
  // deno-lint-ignore no-control-regex
  const printable = command.replace(/[\x00-\x1f\x7f-\x9f]+/g, " ").replaceAll("\\", "⧵").trim();
  const chars = [...printable];
  const cut = chars.length > COMMAND_CHARS
    ? `${chars.slice(0, COMMAND_CHARS - 1).join("")}…`
    : printable;
  return `${ACTIVITY_PREFIX}${cut}`;
}

/**
 * Our title is still the pane's, shown by `by` (a guard's mark) or, when null, by anyone (where
 * none is shown, an empty title passes, and is put back as the empty title it is).
 */
function stillShown(by: string | null): string {
  const same = `#{==:#{pane_title},#{${SHOWN_OPTION}}}`;
  return by === null ? same : `#{&&:#{==:#{${BY_OPTION}},${by}},${same}}`;
}

/**
 * The commands (THEN-chained) that put back the title of `pane` (an id, or a shell parameter
 * that holds one) if ours is still shown, and drop the options; with `by`, only what that
 * process showed.
 */
export function restoreCommands(pane: string, by: string | null = null): string[] {
  const restore = [
    ...["if-shell", "-F", "-t", pane, stillShown(by)],
    `select-pane -t ${pane} -T "#{${SAVED_OPTION}}"`,
  ];
  const drop = chained(
    [SHOWN_OPTION, SAVED_OPTION, BY_OPTION].map((option) => [
      ...["set-option", "-p", "-u", "-t", pane, option],
    ]),
  );
  if (by === null) return [...restore, THEN, ...drop];
  const owned = `#{==:#{${BY_OPTION}},${by}}`;
  return [...restore, THEN, "if-shell", "-F", "-t", pane, owned, commandText(drop)];
}

/**
 * {@linkcode restoreCommands} as one text in tmux's command language, to follow `;` inside a
 * command another runs (if-shell's); `"` is written `\"` when it goes inside a shell's double
 * quotes (the trailers': nothing else in it is special there, and `$N` names the pane).
 */
export function restoreText(pane: string, options: { shell?: boolean } = {}): string {
  const text = commandText(restoreCommands(pane));
  return options.shell ? text.replaceAll('"', '\\"') : text;
}

/**
 * The commands (THEN-chained, ending with THEN) that show `title` on the pane as its run is
 * claimed, the title it replaces kept (a title of ours still shown keeps the one it replaced);
 * none when the marks are off, or when nothing would put the title back should this process die
 * (no guard runs for that tmux server: a remote host's, say). A title holding a backslash is left
 * as it is: tmux 3.7 on keeps titles escaped (`\\` for a backslash, `\t` for a tab...) and escapes
 * again what it is given, so it could not be put back as it was (each run would double it).
 */
export async function showActivity(
  socket: TmuxSocket,
  call: { paneId: string; title: string },
): Promise<string[]> {
  const by = ourMark(socket);
  if (!socket.showActivity || by === null) return [];
  const { paneId, title } = call;
  const undo = restoreCommands(paneId, by);
  if (!await takenBackWhenGone(socket, { object: paneId, kind: "title", undo })) return [];
  const kept = `#{?#{&&:#{${SHOWN_OPTION}},${stillShown(null)}},#{${SAVED_OPTION}},#{pane_title}}`;
  const show = [
    ...["set-option", "-p", "-F", "-t", paneId, SAVED_OPTION, kept, THEN],
    ...["set-option", "-p", "-t", paneId, SHOWN_OPTION, title, THEN],
    ...["set-option", "-p", "-t", paneId, BY_OPTION, by, THEN],
    ...["select-pane", "-t", paneId, "-T", `#{${SHOWN_OPTION}}`],
  ];
  const plain = "#{==:#{pane_title},#{s/\\\\//:pane_title}}";
  return ["if-shell", "-F", "-t", paneId, plain, commandText(show), THEN];
}

/** Puts back the pane's title if this process's is still shown there (see {@linkcode showActivity}). */
export async function hideActivity(socket: TmuxSocket, paneId: string): Promise<void> {
  const by = ourMark(socket);
  if (by === null) return;
  await runTmux(socket, restoreCommands(paneId, by)).catch(() => {});
}
