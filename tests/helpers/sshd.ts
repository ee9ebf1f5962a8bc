// A throwaway sshd on 127.0.0.1 for remote-host tests: Debian's openssh-server, started by the
// test as the current user with its own host key and user key in a temporary directory, key
// authentication only, on a free port; killed (with every connection) in `close`.

import { freePort } from "./mcp.ts";

const decoder = new TextDecoder();

/** A running test sshd and the ssh config that reaches it. */
export interface TestSshd {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** An ssh config file (`ssh -F`) with the aliases below. */
  configFile: string;
  /**
   * Aliases: `lab` (known host key, authorized key), `lab-unknown` (host key not known),
   * `lab-nokey` (a key the server does not accept), `lab-down` (nothing listens).
   */
  aliases: { ok: string; unknownKey: string; badKey: string; down: string };
  /** The known_hosts file `lab-unknown` uses (empty until a key is accepted). */
  unknownHostsFile: string;
  /** A tmux -L socket name no server listens on, for hosts whose tmux a test never reaches. */
  socketName: string;
  /** Drops every connection: the sshd's session processes are killed, its listener stays. */
  dropConnections(): Promise<void>;
  /**
   * Stops (SIGSTOP) the processes serving every connection: the host keeps them open and answers
   * nothing, as a hung host does, until `resume`.
   */
  stall(): Promise<void>;
  /** Lets stalled connections go on (SIGCONT). */
  resume(): Promise<void>;
  /** Drops every connection and stops listening: the host is unreachable until `up`. */
  down(): Promise<void>;
  /** Listens again (on the same port, with the same keys). */
  up(): Promise<void>;
  /** Adds an alias reaching this sshd through another port (a proxy's), its host key known. */
  addAlias(name: string, port: number): Promise<void>;
  close(): Promise<void>;
}

async function run(program: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${program} ${args.join(" ")}: ${decoder.decode(out.stderr)}`);
  return decoder.decode(out.stdout);
}

async function listening(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

/** Starts an sshd on a free loopback port. */
export async function startSshd(): Promise<TestSshd> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-sshd-" });
  try {
    return await startIn(dir);
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
}

async function startIn(dir: string): Promise<TestSshd> {
  for (const key of ["host", "user", "other"]) {
    await run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", `${dir}/${key}_key`);
  }
  await Deno.copyFile(`${dir}/user_key.pub`, `${dir}/authorized_keys`);
  const user = (await run("id", "-un")).trim();
  if ((await run("id", "-u")).trim() === "0") {
    // sshd started by root wants its privilege separation directory (the package's service
    // script makes it at boot).
    await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  }
  const port = freePort();
  const tmpdir = Deno.env.get("TMUX_TMPDIR");
  await Deno.writeTextFile(
    `${dir}/sshd_config`,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${dir}/host_key`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      `PidFile ${dir}/sshd.pid`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      // A login shell with SHLVL set reads no ~/.bashrc over ssh (this machine's can block for
      // a minute): the tests measure our server, not the account's startup files.
      // The host's tmux keeps its sockets where the tests' own tmux does.
      `SetEnv SHLVL=1${tmpdir ? ` TMUX_TMPDIR=${tmpdir}` : ""}`,
      "",
    ].join("\n"),
  );
  const hostKey = (await Deno.readTextFile(`${dir}/host_key.pub`)).trim();
  await Deno.writeTextFile(`${dir}/known_hosts`, `[127.0.0.1]:${port} ${hostKey}\n`);
  await Deno.writeTextFile(`${dir}/unknown_hosts`, "");
  const alias = (name: string, lines: string[]) =>
    [
      `Host ${name}`,
      "  HostName 127.0.0.1",
      `  User ${user}`,
      "  IdentitiesOnly yes",
      "  LogLevel ERROR",
      ...lines.map((line) => `  ${line}`),
    ].join("\n");
  await Deno.writeTextFile(
    `${dir}/ssh_config`,
    [
      alias("lab", [
        `Port ${port}`,
        `IdentityFile ${dir}/user_key`,
        `UserKnownHostsFile ${dir}/known_hosts`,
      ]),
      alias("lab-unknown", [
        `Port ${port}`,
        `IdentityFile ${dir}/user_key`,
        `UserKnownHostsFile ${dir}/unknown_hosts`,
      ]),
      alias("lab-nokey", [
        `Port ${port}`,
        `IdentityFile ${dir}/other_key`,
        `UserKnownHostsFile ${dir}/known_hosts`,
      ]),
      alias("lab-down", [
        `Port ${freePort()}`,
        `IdentityFile ${dir}/user_key`,
        `UserKnownHostsFile ${dir}/known_hosts`,
      ]),
      "",
    ].join("\n"),
  );
  let sshd: Deno.ChildProcess | null = null;
  let log: Promise<string> = Promise.resolve("");
  const up = async () => {
    const child = sshd = new Deno.Command("/usr/sbin/sshd", {
      args: ["-D", "-e", "-f", `${dir}/sshd_config`],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    log = new Response(child.stderr).text();
    for (let i = 0; i < 200 && !await listening(port); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!await listening(port)) {
      child.kill("SIGTERM");
      await child.status;
      throw new Error(`sshd did not start: ${await log}`);
    }
  };
  const dropConnections = async () => {
    // Each connection is served by a child of the listening sshd.
    if (sshd === null) return;
    await new Deno.Command("pkill", { args: ["-TERM", "-P", String(sshd.pid)] }).output();
  };
  const signalConnections = async (signal: "STOP" | "CONT") => {
    if (sshd === null) return;
    await new Deno.Command("pkill", { args: [`-${signal}`, "-P", String(sshd.pid)] }).output();
  };
  const down = async () => {
    await dropConnections();
    sshd?.kill("SIGTERM");
    await sshd?.status;
    await log;
    sshd = null;
  };
  await up();
  return {
    port,
    configFile: `${dir}/ssh_config`,
    aliases: { ok: "lab", unknownKey: "lab-unknown", badKey: "lab-nokey", down: "lab-down" },
    unknownHostsFile: `${dir}/unknown_hosts`,
    socketName: `tmux-mcp-test-${Deno.pid}-none-${port}`,
    dropConnections,
    stall: () => signalConnections("STOP"),
    resume: () => signalConnections("CONT"),
    down,
    up,
    async addAlias(name: string, via: number): Promise<void> {
      await Deno.writeTextFile(
        `${dir}/ssh_config`,
        alias(name, [
          `Port ${via}`,
          `HostKeyAlias [127.0.0.1]:${port}`,
          `IdentityFile ${dir}/user_key`,
          `UserKnownHostsFile ${dir}/known_hosts`,
        ]) + "\n",
        { append: true },
      );
    },
    async close(): Promise<void> {
      await down();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
