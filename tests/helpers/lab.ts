// A lab for remote-host tests: a throwaway sshd (see sshd.ts), a local tmux and a "remote" one (a
// second private server on this machine, reached only through ssh), and a server declaring it.

import { type Connection, startServer } from "./mcp.ts";
import { startSshd, type TestSshd } from "./sshd.ts";
import { startTmux, type TestTmux } from "./tmux.ts";

/** What a lab test gets. */
export interface Lab {
  conn: Connection;
  local: TestTmux;
  remote: TestTmux;
  sshd: TestSshd;
}

/** Options for {@linkcode withLab}. */
export interface LabOptions {
  /** More `--remote` hosts, made from the sshd. */
  hosts?: (sshd: TestSshd) => string[];
  extraArgs?: string[];
}

/** A server with host `lab` declared (the remote tmux's socket), and more hosts when given. */
export async function withLab(
  options: LabOptions,
  body: (lab: Lab) => Promise<void>,
): Promise<void> {
  const sshd = await startSshd();
  const local = await startTmux();
  const remote = await startTmux();
  try {
    const hosts = [
      `lab=ssh:${sshd.aliases.ok}?socket=${remote.socketName}`,
      ...(options.hosts?.(sshd) ?? []),
    ];
    const conn = await startServer("stdio", {
      socketName: local.socketName,
      permissions: ["--allow-run=tmux,ssh"],
      extraArgs: [
        "--ssh-config",
        sshd.configFile,
        ...hosts.flatMap((host) => ["--remote", host]),
        ...(options.extraArgs ?? []),
      ],
    });
    try {
      await body({ conn, local, remote, sshd });
    } finally {
      await conn.close();
    }
  } finally {
    await remote.close();
    await local.close();
    await sshd.close();
  }
}
