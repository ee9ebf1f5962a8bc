/**
 * The operator's declaration of a remote host (`--remote NAME=ssh:ALIAS[?socket=S&tmux=PATH]`),
 * read against allow-lists: every part matches what ssh and tmux accept, nothing may read as an
 * option (no leading `-`) or a path step (`.`, `..`), nothing needs a shell's quoting, each
 * setting is given once, and every part has a length limit.
 *
 * @module
 */

/** A remote host as the operator declared it. */
export interface RemoteHost {
  /** The name calls give as `host`. */
  readonly name: string;
  /** ssh's destination: an alias of the ssh config, or `[user@]host`. */
  readonly destination: string;
  /** The port, or null for the ssh config's. */
  readonly port: number | null;
  /** The remote tmux's `-L` socket name; null: its default. */
  readonly socketName: string | null;
  /** The remote tmux program: `tmux` on the remote PATH, or an absolute path. */
  readonly tmux: string;
}

/** The name of this machine's tmux, as calls give it. */
export const LOCAL_HOST = "local";

/**
 * A tmux `-L` socket name, here or on a host: a file name in tmux's socket directory that cannot
 * be read as a flag or a path step.
 */
export const SOCKET_NAME: RegExp = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

const HOST_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const ALIAS = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}$/;
const USER = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;
/** One label of a DNS name (or of a dotted IPv4 address). */
const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
const IPV6 = /^\[[0-9A-Fa-f:.]{2,45}\]$/;
const PATH_STEP = /^[A-Za-z0-9_.+-]{1,128}$/;
const SETTINGS = ["socket", "tmux"] as const;

/** A `[user@]host[:port]` after `ssh://`: each part checked on its own below. */
const SSH_URL = /^ssh:\/\/(?:([^@/]*)@)?([^@/:[\]]+|\[[^\]]*\])(?::([^:]*))?$/;

/**
 * Reads one `NAME=ssh:ALIAS[?socket=S&tmux=PATH]` or `NAME=ssh://[user@]host[:port][?...]`
 * declaration; throws an Error naming the rule that failed.
 */
export function parseRemote(spec: string): RemoteHost {
  const bad = (why: string) => new Error(`--remote ${JSON.stringify(spec)}: ${why}`);
  if (spec.length > 1024) throw bad("a declaration is at most 1024 characters");
  const equals = spec.indexOf("=");
  const name = spec.slice(0, equals);
  if (equals < 0 || !HOST_NAME.test(name) || name === LOCAL_HOST) {
    throw bad(
      "give NAME=ssh:ALIAS, NAME of 1 to 32 of a-z, 0-9, '_' and '-', starting with a letter " +
        '(not "local")',
    );
  }
  const rest = spec.slice(equals + 1);
  const question = rest.indexOf("?");
  const where = question < 0 ? rest : rest.slice(0, question);
  const settings = readSettings(question < 0 ? "" : rest.slice(question + 1), bad);
  let destination: string;
  let port: number | null = null;
  if (where.startsWith("ssh://")) {
    const match = SSH_URL.exec(where);
    if (match === null) throw bad("ssh://[user@]host[:port] expected");
    const [, user, host, portText] = match;
    if (user !== undefined && !USER.test(user)) {
      throw bad("a user name is 1 to 32 of A-Z, a-z, 0-9, '_', '.' and '-', not starting '-'");
    }
    checkHost(host, bad);
    const bare = host.replace(/^\[|\]$/g, "");
    destination = user === undefined ? bare : `${user}@${bare}`;
    if (portText !== undefined) {
      port = /^\d{1,5}$/.test(portText) ? Number(portText) : 0;
      if (port < 1 || port > 65535) throw bad(`a port is a number from 1 to 65535`);
    }
  } else if (where.startsWith("ssh:")) {
    destination = where.slice("ssh:".length);
    if (!ALIAS.test(destination)) {
      throw bad(
        "ssh:ALIAS expects an alias of the ssh config: 1 to 253 of A-Z, a-z, 0-9, '_', '.' " +
          "and '-', starting with a letter, digit or '_'",
      );
    }
  } else {
    throw bad("only ssh: hosts are supported (ssh:ALIAS or ssh://[user@]host[:port])");
  }
  const socketName = settings.get("socket") ?? null;
  if (socketName !== null && !SOCKET_NAME.test(socketName)) {
    throw bad(
      "socket= is 1 to 100 of A-Z, a-z, 0-9, '_', '.' and '-', starting with a letter, digit " +
        "or '_'",
    );
  }
  const tmux = settings.get("tmux") ?? "tmux";
  if (tmux !== "tmux") checkTmuxPath(tmux, bad);
  return { name, destination, port, socketName, tmux };
}

/** The `key=value` settings after `?`: known keys only, each once, never empty. */
function readSettings(query: string, bad: (why: string) => Error): Map<string, string> {
  const settings = new Map<string, string>();
  if (query === "") return settings;
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=");
    const key = equals < 0 ? pair : pair.slice(0, equals);
    const value = equals < 0 ? "" : pair.slice(equals + 1);
    if (!(SETTINGS as readonly string[]).includes(key)) {
      throw bad(`unknown setting ${JSON.stringify(key)} (known: ${SETTINGS.join(", ")})`);
    }
    if (settings.has(key)) throw bad(`${key}= is given more than once`);
    if (value === "") throw bad(`${key}= needs a value`);
    settings.set(key, value);
  }
  return settings;
}

/** A DNS name or an address: labels of at most 63, 253 in all, none starting with '-'. */
function checkHost(host: string, bad: (why: string) => Error): void {
  if (host.startsWith("[")) {
    if (!IPV6.test(host)) throw bad("an IPv6 address goes in brackets: [2001:db8::1]");
    return;
  }
  if (host.length > 253 || !host.split(".").every((label) => LABEL.test(label))) {
    throw bad(
      "a host name is at most 253 characters, in labels of 1 to 63 of A-Z, a-z, 0-9, '_' and " +
        "'-' that neither start nor end with '-'",
    );
  }
}

/** An absolute path of plain steps: no `.` or `..`, nothing a shell would need to quote. */
function checkTmuxPath(path: string, bad: (why: string) => Error): void {
  const steps = path.split("/").slice(1);
  if (
    !path.startsWith("/") || path.length > 256 ||
    !steps.every((step) => PATH_STEP.test(step) && step !== "." && step !== "..")
  ) {
    throw bad(
      "tmux= is an absolute path of at most 256 characters whose steps are A-Z, a-z, 0-9, " +
        "'_', '.', '+' and '-' (no '.' or '..' steps)",
    );
  }
}
