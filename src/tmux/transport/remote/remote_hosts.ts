/**
 * The declared remote hosts of one client: each host's link is opened at first use and closed
 * once it sits idle (no call named the host for a while, and none follows a pane there): its
 * watchers and command client end first, through the gates as any end does, then the link.
 *
 * @module
 */

import { closeControlsOf, type ControlPool } from "../control/mod.ts";
import type { RemoteLink } from "../spawn/mod.ts";
import type { RemoteHost } from "./remote_spec.ts";
import { createSshLink, type SshOptions } from "./ssh.ts";
import { closeWatchersOf, type WatcherPool } from "../watch/mod.ts";

/** Options for {@linkcode createRemoteHosts}. */
export interface RemoteHostsOptions {
  /** The hosts declared. */
  remotes: readonly RemoteHost[];
  /** How ssh is run. */
  ssh: SshOptions;
  /** How long a host may go unnamed before its link closes. */
  idleMs: number;
  /** The client's command clients and watchers (some may run over the links). */
  controls: ControlPool | null;
  /** The watcher pool of the owning client; null: no watchers. */
  watchers: WatcherPool | null;
}

/** The links of the declared hosts. */
export interface RemoteHosts {
  /** A declared host's link, its idle time starting over; undefined for a name not declared. */
  use(name: string): RemoteLink | undefined;
  /** The declared names. */
  readonly names: readonly string[];
  /** Closes every link (at shutdown, after the command clients and watchers have ended). */
  close(): Promise<void>;
}

/** Links for the declared hosts; nothing connects until a call names one. */
export function createRemoteHosts(options: RemoteHostsOptions): RemoteHosts {
  const links = new Map(
    options.remotes.map((host) => [host.name, createSshLink(host, options.ssh)]),
  );
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const arm = (name: string): void => {
    clearTimeout(timers.get(name));
    const timer = setTimeout(() => void idle(name), options.idleMs);
    // An idle link is no reason to keep the process alive.
    Deno.unrefTimer(timer);
    timers.set(name, timer);
  };
  const idle = async (name: string): Promise<void> => {
    timers.delete(name);
    const link = links.get(name)!;
    const { controls, watchers } = options;
    if (watchers !== null && !await closeWatchersOf(watchers, link)) return arm(name);
    if (controls !== null) await closeControlsOf(controls, link);
    await link.close();
  };
  return {
    names: [...links.keys()],
    use(name: string): RemoteLink | undefined {
      const link = links.get(name);
      if (link !== undefined) arm(name);
      return link;
    },
    async close(): Promise<void> {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.all([...links.values()].map((link) => link.close()));
    },
  };
}
