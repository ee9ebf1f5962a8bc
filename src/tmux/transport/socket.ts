/**
 * A tmux server as the layers above address it: its socket name, and the long-lived clients its
 * owner (a `TmuxClient`) keeps for it.
 *
 * @module
 */

import type { ControlPool } from "./control/mod.ts";
import type { RemoteLink } from "./spawn/mod.ts";
import type { WatcherPool } from "./watch/mod.ts";

/** What a confined server may reach. */
export interface Scope {
  /** Sessions this server (any process of it) created. */
  readonly own: boolean;
  /** Session name globs (`*` any run of characters, `?` one). */
  readonly names: readonly string[];
}

/** Which tmux server to talk to, and through whose control clients and watchers. */
export interface TmuxSocket {
  /** The `-L` socket name; null means tmux's own default (or `$TMUX`). */
  readonly socketName: string | null;
  /** The directory tmux keeps its sockets under (`TMUX_TMPDIR`); null: tmux's own choice. */
  readonly tmpdir: string | null;
  /** The link to the host whose tmux this is; null: this machine's. */
  readonly remote: RemoteLink | null;
  /**
   * The owner's control clients; null: every command spawns its own tmux.
   * @ignore
   */
  readonly controls: ControlPool | null;
  /**
   * The owner's output watchers; null: no watcher is started (nothing attaches to a session).
   * @ignore
   */
  readonly watchers: WatcherPool | null;
  /** The sessions calls may see and touch (see scope.ts); null: every session. */
  readonly scope: Scope | null;
  /** A run shows itself in its pane's title while under way (see objects/activity_mark.ts). */
  readonly showActivity: boolean;
}

/**
 * A local tmux server addressed plainly: no control clients, no watchers, no scope, titles left
 * alone (a command line's, a test's).
 */
export function plainSocket(socketName: string | null): TmuxSocket {
  return {
    socketName,
    tmpdir: null,
    remote: null,
    controls: null,
    watchers: null,
    scope: null,
    showActivity: false,
  };
}
