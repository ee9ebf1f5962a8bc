/**
 * Where a local tmux server's socket is, as tmux resolves it for this process: the `-L` name under
 * `TMUX_TMPDIR` (ours or the one we inherited), or the server `$TMUX` names. Long-lived clients are
 * started with the path and an empty environment (see `TmuxCommandOptions.path`), which would
 * otherwise lose an inherited `TMUX_TMPDIR` or `$TMUX`; this process may not read its environment.
 *
 * @module
 */

import { formatOf, parseRecords } from "../../format.ts";
import { type SocketAddress, socketKey, spawnRun } from "./exec.ts";

/** Resolved paths, by socket key (a path stays the same for as long as this process runs). */
export type SocketPaths = Map<string, string>;

const FIELDS = ["socket_path"] as const;

/** The socket's path, asked of its server once and then remembered; null when none answers. */
export async function socketPath(
  paths: SocketPaths,
  socket: SocketAddress,
): Promise<string | null> {
  const key = socketKey(socket);
  const known = paths.get(key);
  if (known !== undefined) return known;
  try {
    const output = await spawnRun(socket, ["display-message", "-p", formatOf(FIELDS)]);
    const [{ socket_path: path }] = parseRecords(output, FIELDS);
    if (path === undefined || path === "") return null;
    paths.set(key, path);
    return path;
  } catch {
    return null;
  }
}
