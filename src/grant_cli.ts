/**
 * `tmux-mcp grant [TARGET]` and `tmux-mcp revoke [TARGET]`: a person grants a pane (`%3`), or
 * every pane of a session (`$1` or its exact name), to an agent whose server runs with
 * `--granted-panes`, and takes it back; with no target, the pane it is run in. `-L NAME` names
 * the tmux socket, as tmux's own flag does (default: the tmux it runs in, else tmux's default).
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  grant,
  panesGranted,
  plainSocket,
  resolveGrantTarget,
  revoke,
  TmuxError,
  type TmuxSocket,
} from "./tmux/mod.ts";

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
  const socket = plainSocket(socketName);
  try {
    console.error(`tmux-mcp: ${await grantAndReadBack(socket, { verb, target })}`);
  } catch (error) {
    console.error(`tmux-mcp: ${error instanceof TmuxError ? error.message : String(error)}`);
    return 1;
  }
  return 0;
}

/**
 * Grants or takes back what `target` names exactly, then reads the panes back: what it says is
 * what tmux holds now (a pane taken back may still be granted through its session, say).
 */
async function grantAndReadBack(
  socket: TmuxSocket,
  asked: { verb: "grant" | "revoke"; target: string },
): Promise<string> {
  const found = await resolveGrantTarget(socket, asked.target);
  await (asked.verb === "grant" ? grant : revoke)(socket, found.reach, found.id);
  const panes = await panesGranted(socket, found.id);
  const granted = panes.filter((pane) => pane.granted).length;
  const what = found.reach === "pane" ? found.description : `every pane of ${found.description}`;
  if (asked.verb === "grant") {
    if (granted < panes.length) {
      throw new TmuxError("tmux_error", `${what}: granted, yet read back not granted`);
    }
    return `${what} granted to the agent (${panes.length} pane${panes.length === 1 ? "" : "s"})`;
  }
  if (granted === 0) return `${what} taken back from the agent`;
  return `${what}: its own grant taken back, yet ${granted} of ${panes.length} pane` +
    `${panes.length === 1 ? " is" : "s are"} still granted (through ${
      found.reach === "pane" ? "its window or session" : "their own or their window's grant"
    }, or made by the agent)`;
}

/** The pane this runs in, when it can be read. */
function paneHere(): string | null {
  try {
    return Deno.env.get("TMUX_PANE") ?? null;
  } catch {
    return null;
  }
}
