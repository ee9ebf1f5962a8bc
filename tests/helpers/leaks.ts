// Fails a test when a call left anything behind: our buffers, our pane options, tmux children.

import type { TestTmux } from "./tmux.ts";

const decoder = new TextDecoder();

/** Lists what the server left: our buffers and pane options, and its tmux child processes. */
export async function leftovers(tmux: TestTmux, serverPid: number): Promise<string[]> {
  const found: string[] = [];
  const buffers = await tmux.run("list-buffers", "-F", "#{buffer_name}");
  for (const name of buffers.split("\n")) {
    if (name.startsWith("tmux_mcp_")) found.push(`buffer ${name}`);
  }
  const panes = (await tmux.run("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n");
  for (const pane of panes) {
    const options = await tmux.run("show-options", "-p", "-t", pane);
    for (const line of options.split("\n")) {
      // What the server made is marked its own while it runs (see grants.ts); its guard takes
      // the mark back when it ends.
      if (line.startsWith("@tmux_mcp") && !line.startsWith("@tmux_mcp_made ")) {
        found.push(`option on ${pane}: ${line}`);
      }
    }
  }
  const ps = await new Deno.Command("ps", {
    args: ["-o", "pid=,args=", "--ppid", String(serverPid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  for (const line of decoder.decode(ps.stdout).split("\n")) {
    // The command channel (a no-output control client) is meant to stay, and so is an output
    // watcher (ignore-size, pause-after) for a moment after its last use, the guard that ends them
    // should the server die, and a remote host's ssh master (its session prints our ready line);
    // anything else is left over.
    if (
      /\btmux\b/.test(line) &&
      !/ '?-C'? '?attach-session'? '?-E'? '?-f'? '?(no-output,ignore-size|ignore-size,pause-after=\d+)'? /
        .test(line) &&
      !/ source-file - ; run-shell -b exec \/bin\/sh -c /.test(line) &&
      !/ControlMaster=yes .* echo tmux-mcp-ready; exec cat$/.test(line)
    ) {
      found.push(`child process ${line.trim()}`);
    }
  }
  return found;
}

/** How long marks may take to go after the result that ended their run (see below). */
const SETTLE_MS = 2000;

/**
 * Throws listing every leftover. A result comes back at its run's end marker, and the trailer's
 * tmux command in the pane (a launched shell's is slower) or a remote run's background clearing
 * removes its marks a moment later: that moment is waited for, a leftover never goes unseen.
 */
export async function assertNoLeftovers(tmux: TestTmux, serverPid: number): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  let found = await leftovers(tmux, serverPid);
  while (found.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = await leftovers(tmux, serverPid);
  }
  if (found.length > 0) throw new Error(`left behind:\n  ${found.join("\n  ")}`);
}
