/**
 * Turns flags (and permitted environment variables) into checked settings.
 *
 * @module
 */

import type { Flags } from "./flags.ts";
import type { ServerConfig } from "./server.ts";
import { parseTier, type ToolPolicy } from "./tools/define/policy.ts";
import { checkToolNames, DEFAULT_TOOLSETS, parseToolsets } from "./tools/define/toolsets.ts";
import { isLoopback } from "./util/mod.ts";
import { parseRemote, type RemoteHost, type Scope, SOCKET_NAME } from "./tmux/mod.ts";

/** HTTP settings. */
export interface HttpConfig {
  /** The address to listen on. */
  host: string;
  /** The port to listen on (0: a free one). */
  port: number;
  /** Bearer token every request must carry; null only on loopback, with `--no-token`. */
  token: string | null;
  /** True when the token was generated here and must be shown to the operator. */
  tokenGenerated: boolean;
  /** HTTP sessions idle this long are closed. */
  sessionIdleSeconds: number;
}

/** Everything main needs to start. */
export interface StartConfig {
  /** What every MCP server of the process is given. */
  server: ServerConfig;
  /** How to serve HTTP; null: serve stdio. */
  http: HttpConfig | null;
  /** Things worth telling the operator at start (e.g. a tier that failed closed). */
  warnings: string[];
}

function nameList(text: string | undefined): string[] {
  return (text ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "");
}

function policyFrom(flags: Flags, warnings: string[]): ToolPolicy {
  const safety = flags.safety ?? permittedEnv("TMUX_MCP_SAFETY") ?? "mutating";
  const { tier, valid } = parseTier(safety);
  if (!valid) warnings.push(`unknown safety tier ${JSON.stringify(safety)}: using readonly`);
  const only = flags.tools ?? permittedEnv("TMUX_MCP_TOOLS");
  const toolsets = flags.toolsets ?? permittedEnv("TMUX_MCP_TOOLSETS");
  return {
    tier,
    toolsets: toolsets === undefined ? DEFAULT_TOOLSETS : parseToolsets(toolsets),
    only: only === undefined ? null : checkToolNames(nameList(only), "--tools"),
    with: checkToolNames(
      nameList(flags.withTools ?? permittedEnv("TMUX_MCP_WITH_TOOLS")),
      "--with-tools",
    ),
    exclude: checkToolNames(
      nameList(flags.excludeTools ?? permittedEnv("TMUX_MCP_EXCLUDE_TOOLS")),
      "--exclude-tools",
    ),
  };
}

/** A variable whose permission stands for all the server's settings (TMUX_MCP_*). */
const ENV_PROBE = "TMUX_MCP_SAFETY";

/** Reads an environment variable only when permission was granted, never prompting. */
export function permittedEnv(name: string): string | undefined {
  const status = Deno.permissions.querySync({ name: "env", variable: name });
  return status.state === "granted" ? Deno.env.get(name) : undefined;
}

/** A session-name glob: a name's characters (not ':' or '.', nothing unprintable) and '*', '?'. */
const GLOB = /^[^\p{Cc}:.,]{1,100}$/u;

/** The sessions calls are confined to (--own-sessions, --sessions), or null: all of them. */
function scopeFrom(flags: Flags): Scope | null {
  const names = nameList(flags.sessions ?? permittedEnv("TMUX_MCP_SESSIONS"));
  for (const glob of names) {
    if (!GLOB.test(glob)) {
      throw new Error(
        `--sessions: ${JSON.stringify(glob)} is not a session name glob (1 to 100 characters, ` +
          "no ':', '.' or control characters; '*' and '?' match any)",
      );
    }
  }
  return flags.ownSessions || names.length > 0 ? { own: flags.ownSessions, names } : null;
}

/** The hosts declared with --remote, or else in TMUX_MCP_REMOTES; each name once. */
function remotesFrom(flags: Flags): RemoteHost[] {
  const specs = flags.remote.length > 0 ? flags.remote : nameList(permittedEnv("TMUX_MCP_REMOTES"));
  const remotes = specs.map(parseRemote);
  const names = new Set<string>();
  for (const { name } of remotes) {
    if (names.has(name)) throw new Error(`--remote: host ${name} is declared twice`);
    names.add(name);
  }
  if (
    remotes.length > 0 &&
    Deno.permissions.querySync({ name: "run", command: "ssh" }).state !== "granted"
  ) {
    throw new Error(
      "--remote needs permission to run ssh: start the server with --allow-run=tmux,ssh",
    );
  }
  return remotes;
}

function parseIdle(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 86_400) {
    throw new Error(`--remote-idle-seconds must be a whole number from 1 to 86400 (got ${text})`);
  }
  return value;
}

function parseRecordMax(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 65_536) {
    throw new Error(`--record-max-mb must be a whole number from 1 to 65536 (got ${text})`);
  }
  return value * 1024 * 1024;
}

function parseSeconds(text: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value < 1 || value > 600) {
    throw new Error(`--wait-max-seconds must be a number from 1 to 600 (got ${text})`);
  }
  return value;
}

/** The ceiling of the pane text one result shows, by default. */
export const MAX_OUTPUT_BYTES = 256 * 1024;

/** The ceiling for any wait, in seconds, by default. */
export const WAIT_MAX_SECONDS = 30;

function parseOutputBytes(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 4096 || value > 1024 * 1024) {
    throw new Error(`--max-output-bytes must be a whole number from 4096 to 1048576 (got ${text})`);
  }
  return value;
}

/** Validates flags and fills in defaults; throws an Error with a human message. */
export function configFromFlags(flags: Flags): StartConfig {
  const socketName = flags.socketName ?? permittedEnv("TMUX_MCP_SOCKET_NAME") ?? null;
  if (socketName !== null && !SOCKET_NAME.test(socketName)) {
    throw new Error(
      "--socket-name is 1 to 100 of A-Z, a-z, 0-9, '_', '.' and '-', starting with a letter, " +
        "digit or '_'",
    );
  }
  const waitText = flags.waitMaxSeconds ?? permittedEnv("TMUX_MCP_WAIT_MAX_SECONDS") ??
    String(WAIT_MAX_SECONDS);
  const outputText = flags.maxOutputBytes ?? permittedEnv("TMUX_MCP_MAX_OUTPUT_BYTES") ??
    String(MAX_OUTPUT_BYTES);
  const warnings: string[] = [];
  if (Deno.permissions.querySync({ name: "env", variable: ENV_PROBE }).state !== "granted") {
    warnings.push(
      "not permitted to read the environment: TMUX_MCP_* settings, if any are set, are ignored " +
        "(grant --allow-env=TMUX_MCP_*,TMUX_PANE to use them)",
    );
  }
  const server: ServerConfig = {
    socketName,
    waitMaxSeconds: parseSeconds(waitText),
    maxOutputBytes: parseOutputBytes(outputText),
    suppressHistory: !flags.keepHistory,
    shareRuns: flags.shareRuns,
    scope: scopeFrom(flags),
    grantedPanes: flags.grantedPanes,
    policy: policyFrom(flags, warnings),
    ownPane: permittedEnv("TMUX_PANE") ?? null,
    audit: flags.auditLog,
    control: !flags.noControl,
    activityTitle: !flags.noActivityTitle,
    channelEvents: flags.channelEvents,
    recordDir: flags.recordDir === undefined ? null : recordDirFrom(flags.recordDir),
    recordMaxBytes: parseRecordMax(flags.recordMaxMb ?? "256"),
    anySocket: flags.anySocket,
    tmuxTmpdir: flags.tmuxTmpdir ?? permittedEnv("TMUX_MCP_TMUX_TMPDIR") ?? null,
    remotes: remotesFrom(flags),
    ssh: {
      configFile: flags.sshConfig ?? null,
      acceptNewHostKeys: flags.remoteAcceptNewHostKeys,
    },
    remoteIdleSeconds: parseIdle(flags.remoteIdleSeconds ?? "900"),
  };
  if (!flags.http) {
    if (flags.host !== undefined || flags.port !== undefined) {
      throw new Error("--host and --port go with --http");
    }
    return { server, http: null, warnings };
  }
  const host = flags.host ?? "127.0.0.1";
  const portText = flags.port ?? "8765";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new Error(`--port must be a whole number from 0 to 65535 (got ${portText})`);
  }
  if (flags.token !== undefined && flags.tokenFile !== undefined) {
    throw new Error("give --token or --token-file, not both");
  }
  if (flags.token !== undefined) {
    warnings.push("--token is visible to other users in ps: prefer --token-file or TMUX_MCP_TOKEN");
  }
  let token = flags.token ??
    (flags.tokenFile === undefined ? undefined : readTokenFile(flags.tokenFile)) ??
    permittedEnv("TMUX_MCP_TOKEN") ?? null;
  if (flags.noToken && (token !== null || flags.generateToken)) {
    throw new Error("--no-token goes with no token: give one of them");
  }
  // Without a token every local account reaches a loopback address: one is made unless refused.
  const tokenGenerated = token === null && !flags.noToken;
  if (tokenGenerated) token = generateToken();
  if (token !== null && !TOKEN.test(token)) {
    throw new Error(
      "the token must be 16 to 512 characters of A-Z a-z 0-9 and -._~+/= (no spaces)",
    );
  }
  if (token === null && !isLoopback(host)) {
    throw new Error(
      `refusing to serve HTTP on ${host} without a token: --no-token is for loopback only`,
    );
  }
  const idleText = flags.sessionIdleSeconds ?? "1800";
  const sessionIdleSeconds = Number(idleText);
  if (!/^\d+(\.\d+)?$/.test(idleText) || sessionIdleSeconds <= 0) {
    throw new Error(`--session-idle-seconds must be a positive number (got ${idleText})`);
  }
  return {
    server,
    http: {
      host: host === "[::1]" ? "::1" : host,
      port,
      token,
      tokenGenerated,
      sessionIdleSeconds,
    },
    warnings,
  };
}

/** What a bearer token may be: RFC 6750's token68 characters, long enough to guess at no cost. */
const TOKEN = /^[A-Za-z0-9\-._~+/=]{16,512}$/;

/** Reads a token file: its first line, without the line end. */
function readTokenFile(path: string): string {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new Error(`not permitted to read ${path}: add --allow-read=${path}`);
    }
    throw new Error(`cannot read the token file ${path}: ${(error as Error).message}`);
  }
  return text.split(/\r?\n/)[0];
}

/** A random bearer token (256 bits, hex). */
export function generateToken(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toHex();
}

/**
 * The directory recordings go into, checked at start: the process may create a file there (the
 * permission `--allow-write=DIR`, the directory there and writable), so a run never finds out.
 */
function recordDirFrom(dir: string): string {
  if (dir === "") throw new Error("--record-dir needs a directory");
  const probe = `${dir.replace(/\/+$/, "")}/.tmux-mcp-probe-${Deno.pid}`;
  try {
    Deno.openSync(probe, { write: true, createNew: true }).close();
    Deno.removeSync(probe);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new Error(
        `--record-dir ${dir}: not permitted to write there (run with --allow-write=${dir})`,
      );
    }
    throw new Error(
      `--record-dir ${dir}: cannot write there: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  return dir;
}
