/**
 * `tmux-mcp grant [TARGET]` and `tmux-mcp revoke [TARGET]`: a person grants a pane (`%3`), or
 * every pane of a session (`$1` or its name), to an agent whose server runs with
 * `--granted-panes`, and takes it back; with no target, the pane it is run in. `-L NAME` names
 * the tmux socket, as tmux's own flag does (default: the tmux it runs in, else tmux's default).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { grant, revoke, TmuxError, type TmuxSocket } from "./tmux/mod.ts";

/** How the command is used. */
const GRANT_USAGE = "usage: tmux-mcp grant|revoke [%PANE | $SESSION | NAME] [-L SOCKET]";

/** Runs `grant` or `revoke` with its arguments; the process's exit status. */
export async function grantCommandLine(verb: "grant" | "revoke", args: string[]): Promise<number> {
  let target: string;
  let socketName: string | null;
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { L: { type: "string", short: "L" } },
      allowPositionals: true,
    });
    if (positionals.length > 1) throw new Error("one target at most");
    socketName = values.L ?? null;
    const here = positionals.length === 0 ? paneHere() : null;
    if (positionals.length === 0 && here === null) {
      throw new Error("no target given, and not run in a tmux pane ($TMUX_PANE)");
    }
    target = positionals[0] ?? here!;
  } catch (error) {
    console.error(`tmux-mcp: ${error instanceof Error ? error.message : String(error)}`);
    console.error(GRANT_USAGE);
    return 2;
  }
  const socket: TmuxSocket = {
    socketName,
    tmpdir: null,
    remote: null,
    controls: null,
    watchers: null,
    scope: null,
    showActivity: false,
  };
  const reach = target.startsWith("%") ? "pane" : "session";
  try {
    await (verb === "grant" ? grant : revoke)(socket, reach, target);
  } catch (error) {
    console.error(`tmux-mcp: ${error instanceof TmuxError ? error.message : String(error)}`);
    return 1;
  }
  const what = reach === "pane" ? `pane ${target}` : `every pane of session ${target}`;
  console.error(
    `tmux-mcp: ${what} ${verb === "grant" ? "granted to" : "taken back from"} the agent`,
  );
  return 0;
}

/** The pane this runs in, when it can be read. */
function paneHere(): string | null {
  try {
    return Deno.env.get("TMUX_PANE") ?? null;
  } catch {
    return null;
  }
}
