/**
 * Output notifications for waits: a read-only control client attached to a pane's session reports
 * `%output` for every pane there, so a wait can look at the pane as soon as something was written
 * instead of on a timer. One watcher per socket and session, shared, closed when its last waiter
 * leaves.
 *
 * @module
 */

import { tmuxArgs, type TmuxSocket } from "./exec.ts";

interface Watcher {
  child: Deno.ChildProcess;
  listeners: Map<string, Set<() => void>>;
  users: number;
}

const watchers = new Map<string, Watcher>();

function start(socket: TmuxSocket, sessionId: string, key: string): Watcher | null {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("tmux", {
      args: tmuxArgs(socket, [
        "-C",
        "attach-session",
        "-f",
        "ignore-size,read-only",
        "-t",
        sessionId,
      ]),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch {
    return null;
  }
  const watcher: Watcher = { child, listeners: new Map(), users: 0 };
  (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of child.stdout) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (!line.startsWith("%output ")) continue;
          const pane = line.slice(8, line.indexOf(" ", 8));
          for (const listener of watcher.listeners.get(pane) ?? []) listener();
        }
      }
    } catch {
      // The watcher went away; waits fall back to their timer.
    }
    if (watchers.get(key) === watcher) watchers.delete(key);
  })();
  return watcher;
}

/**
 * Calls `onOutput` whenever the pane writes output, until the returned function is called. Best
 * effort: when no watcher can be started the caller's own timer is all there is.
 */
export function watchOutput(
  socket: TmuxSocket,
  target: { sessionId: string; paneId: string },
  onOutput: () => void,
): () => Promise<void> {
  const key = `${socket.socketName ?? ""}\x00${target.sessionId}`;
  let watcher = watchers.get(key);
  if (!watcher) {
    const started = start(socket, target.sessionId, key);
    if (started === null) return () => Promise.resolve();
    watcher = started;
    watchers.set(key, watcher);
  }
  const own = watcher;
  own.users++;
  const set = own.listeners.get(target.paneId) ?? new Set();
  set.add(onOutput);
  own.listeners.set(target.paneId, set);
  return async () => {
    set.delete(onOutput);
    if (--own.users > 0) return;
    if (watchers.get(key) === own) watchers.delete(key);
    try {
      own.child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await own.child.status;
  };
}
