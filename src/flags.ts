/**
 * Command-line flags. The only module that knows the flag parser (`node:util` parseArgs, since JSR's
 * `@std/cli` is out of reach), so it can be swapped without touching anything else.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { TOOLSET_NAMES, TOOLSETS } from "./tools/define/toolsets.ts";

/** Parsed flags, before defaults from the environment are applied. */
export interface Flags {
  /** `--help`: print the usage and exit. */
  help: boolean;
  /** `--version`: print the version and exit. */
  version: boolean;
  /** `--http`: serve Streamable HTTP instead of stdio. */
  http: boolean;
  /** `--host`: the HTTP address. */
  host: string | undefined;
  /** `--port`: the HTTP port (0: a free one). */
  port: string | undefined;
  /** `--socket-name`: the tmux `-L` socket. */
  socketName: string | undefined;
  /** `--any-socket`: calls may name another tmux socket. */
  anySocket: boolean;
  /** `--tmux-tmpdir`: where tmux keeps its sockets. */
  tmuxTmpdir: string | undefined;
  /** `--wait-max-seconds`: the ceiling for any wait. */
  waitMaxSeconds: string | undefined;
  /** `--max-output-bytes`: the ceiling for the pane text one result shows. */
  maxOutputBytes: string | undefined;
  /** `--safety`: the tier (readonly, mutating, destructive). */
  safety: string | undefined;
  /** `--toolsets`: the toolsets offered. */
  toolsets: string | undefined;
  /** `--tools`: only these tools. */
  tools: string | undefined;
  /** `--exclude-tools`: never these tools. */
  excludeTools: string | undefined;
  /** `--with-tools`: these tools besides the toolsets'. */
  withTools: string | undefined;
  /** `--token`: the HTTP bearer token. */
  token: string | undefined;
  /** `--token-file`: the file the HTTP bearer token is read from. */
  tokenFile: string | undefined;
  /** `--generate-token`: make a random token and print it (what HTTP does without a token). */
  generateToken: boolean;
  /** `--no-token`: serve HTTP on loopback without a token (any local account may use it). */
  noToken: boolean;
  /** `--session-idle-seconds`: HTTP sessions idle this long are closed. */
  sessionIdleSeconds: string | undefined;
  /** `--audit-log`: one JSON line per tool call on stderr. */
  auditLog: boolean;
  /** `--no-control`: one tmux process per command, no control client. */
  noControl: boolean;
  /** `--no-activity-title`: runs leave pane titles alone. */
  noActivityTitle: boolean;
  /** `--record-dir`: panes runs type into are recorded as asciicast files there. */
  recordDir: string | undefined;
  /** `--record-max-mb`: what the recordings hold together. */
  recordMaxMb: string | undefined;
  /** `--channel-events`: a run's end is pushed as a Claude Code channel event to every client. */
  channelEvents: boolean;
  /** `--keep-history`: typed lines stay in shell history by default. */
  keepHistory: boolean;
  /** `--share-runs`: every HTTP session may collect every run. */
  shareRuns: boolean;
  /** `--own-sessions`: confined to the sessions this server creates. */
  ownSessions: boolean;
  /** `--granted-panes`: acts only on panes a person granted. */
  grantedPanes: boolean;
  /** `--sessions`: confined to sessions with these name globs. */
  sessions: string | undefined;
  /** `--remote`, repeatable: the remote hosts declared. */
  remote: string[];
  /** `--ssh-config`: the ssh config file. */
  sshConfig: string | undefined;
  /** `--remote-accept-new-host-keys`: record a new host's key. */
  remoteAcceptNewHostKeys: boolean;
  /** `--remote-idle-seconds`: a remote host's idle connection closes after this long. */
  remoteIdleSeconds: string | undefined;
}

/** The usage text printed by --help. */
export const USAGE = `tmux-mcp: an MCP server that drives tmux

Usage: tmux-mcp [options]

  --http                     serve Streamable HTTP instead of stdio
  --host HOST                HTTP address (default 127.0.0.1; others need a token)
  --port PORT                HTTP port (default 8765; 0 picks a free one)
  --socket-name NAME         the tmux -L socket (env TMUX_MCP_SOCKET_NAME)
  --any-socket               let calls name another tmux -L socket (socket_name); without it
                             every call uses the server's
  --tmux-tmpdir DIR          the directory tmux keeps its sockets under, as TMUX_TMPDIR says to a
                             shell (clients start servers without it; env TMUX_MCP_TMUX_TMPDIR)
  --wait-max-seconds N       ceiling for any wait, 1..600 (default 30; env TMUX_MCP_WAIT_MAX_SECONDS)
  --max-output-bytes N       ceiling for the pane text one result shows, 4096..1048576 (default
                             262144; env TMUX_MCP_MAX_OUTPUT_BYTES); a call asks for less or more
                             with max_output_bytes (default 16384)
  --safety TIER              readonly | mutating | destructive (default mutating; env TMUX_MCP_SAFETY);
                             an unknown tier fails closed to readonly
  --toolsets A,B             offer these toolsets (within the tier; default core; env
                             TMUX_MCP_TOOLSETS), or all: see Toolsets below
  --tools A,B                offer only these tools (within the tier), whatever their toolset
  --exclude-tools A,B        never offer these tools
  --with-tools A,B           also offer these tools besides the toolsets' (run_shell_command:
                             run_command with the libtmux generation's camelCase contract)
  --token-file PATH          HTTP bearer token read from a file (needs --allow-read=PATH)
  --token TOKEN              the token itself (env TMUX_MCP_TOKEN); visible to other users in ps,
                             so prefer --token-file or the environment variable
  --generate-token           make a random token and print it to stderr: what HTTP does when no
                             token is given
  --no-token                 serve HTTP on loopback without a token: every local account,
                             and every program of yours, can then run commands as you
  --session-idle-seconds N   close HTTP sessions idle this long (default 1800)
  --share-runs               let every HTTP session collect and read every run (by default a run
                             belongs to the MCP session that started it: others get not_found)
  --own-sessions             confine calls to the sessions this server creates (create_session
                             marks them): every other session is neither listed nor touched
  --sessions GLOB,GLOB       confine calls to sessions with these names ('*' any characters,
                             '?' one; env TMUX_MCP_SESSIONS); with --own-sessions, either counts
  --granted-panes            act only on panes a person granted (a key binding, 'tmux-mcp grant
                             PANE', or a yes to the client's prompt) and those the server made;
                             reading tools work everywhere
  --audit-log                log each tool call as a JSON line on stderr (commands redacted)
  --remote NAME=ssh:ALIAS    let calls reach the tmux of another host over ssh as host NAME
                             (repeatable; env TMUX_MCP_REMOTES, comma-separated); ALIAS from
                             the ssh config, or ssh://[user@]host[:port]; add ?socket=S for its
                             tmux -L socket, ?tmux=/path for its tmux; needs --allow-run=tmux,ssh
  --ssh-config FILE          the ssh config file to use (ssh -F; default ssh's own)
  --remote-accept-new-host-keys
                             accept and record the key of a host never seen before (default:
                             fail with host_key_unknown)
  --remote-idle-seconds N    close a remote host's ssh connection once no call named it for N
                             seconds (default 900)
  --no-control               spawn one tmux process per command instead of using a control client
  --no-activity-title        leave pane titles alone (by default a run's pane title reads
                             '[agent] COMMAND' while it runs, then the title before comes back)
  --record-dir DIR           record the panes runs type into as asciicast v2 files in DIR (one a
                             pane and session; needs --allow-write=DIR), named in run results
  --record-max-mb N          what this server's recordings hold together, in MiB (default 256;
                             past it they are cut, and no new one is made)
  --channel-events           push a run's end that no result told as a Claude Code channel event
                             (claude/channel) to every client, not only those that declare it
  --keep-history             run_command's suppress_history defaults to false
  --version                  print the version
  --help                     print this help

Environment variables are read only when permitted (--allow-env=TMUX_MCP_*,TMUX_PANE).

Toolsets and their tools:
${toolsetLines()}

This is an MCP server: an MCP client starts it and talks to it on stdin and stdout. To try it
by hand: npx @modelcontextprotocol/inspector <this command>.
`;

/** One line per toolset, its tools wrapped under it. */
function toolsetLines(): string {
  const indent = " ".repeat(Math.max(...TOOLSET_NAMES.map((set) => set.length)) + 4);
  return TOOLSET_NAMES.map((set) => {
    const lines = [`  ${set}${indent.slice(set.length + 2)}`];
    for (const [i, tool] of TOOLSETS[set].entries()) {
      const word = i === TOOLSETS[set].length - 1 ? tool : `${tool},`;
      const last = lines.length - 1;
      const gap = lines[last] === indent || lines[last].endsWith(" ") ? "" : " ";
      if (lines[last].length + gap.length + word.length > 99) lines.push(indent + word);
      else lines[last] += gap + word;
    }
    return lines.join("\n");
  }).join("\n");
}

/** Parses argv; throws an Error with a human message on unknown or malformed flags. */
export function parseFlags(args: readonly string[]): Flags {
  const { values, positionals } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: {
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
      http: { type: "boolean" },
      host: { type: "string" },
      port: { type: "string" },
      "socket-name": { type: "string" },
      "any-socket": { type: "boolean" },
      "tmux-tmpdir": { type: "string" },
      "wait-max-seconds": { type: "string" },
      "max-output-bytes": { type: "string" },
      safety: { type: "string" },
      toolsets: { type: "string" },
      tools: { type: "string" },
      "exclude-tools": { type: "string" },
      "with-tools": { type: "string" },
      token: { type: "string" },
      "token-file": { type: "string" },
      "generate-token": { type: "boolean" },
      "no-token": { type: "boolean" },
      "session-idle-seconds": { type: "string" },
      "audit-log": { type: "boolean" },
      "no-control": { type: "boolean" },
      "no-activity-title": { type: "boolean" },
      "record-dir": { type: "string" },
      "record-max-mb": { type: "string" },
      "channel-events": { type: "boolean" },
      "keep-history": { type: "boolean" },
      "share-runs": { type: "boolean" },
      "own-sessions": { type: "boolean" },
      "granted-panes": { type: "boolean" },
      sessions: { type: "string" },
      remote: { type: "string", multiple: true },
      "ssh-config": { type: "string" },
      "remote-accept-new-host-keys": { type: "boolean" },
      "remote-idle-seconds": { type: "string" },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument: ${positionals[0]}`);
  }
  return {
    help: values.help ?? false,
    version: values.version ?? false,
    http: values.http ?? false,
    host: values.host,
    port: values.port,
    socketName: values["socket-name"],
    anySocket: values["any-socket"] ?? false,
    tmuxTmpdir: values["tmux-tmpdir"],
    waitMaxSeconds: values["wait-max-seconds"],
    maxOutputBytes: values["max-output-bytes"],
    safety: values.safety,
    toolsets: values.toolsets,
    tools: values.tools,
    excludeTools: values["exclude-tools"],
    withTools: values["with-tools"],
    token: values.token,
    tokenFile: values["token-file"],
    generateToken: values["generate-token"] ?? false,
    noToken: values["no-token"] ?? false,
    sessionIdleSeconds: values["session-idle-seconds"],
    auditLog: values["audit-log"] ?? false,
    noControl: values["no-control"] ?? false,
    noActivityTitle: values["no-activity-title"] ?? false,
    recordDir: values["record-dir"],
    recordMaxMb: values["record-max-mb"],
    channelEvents: values["channel-events"] ?? false,
    keepHistory: values["keep-history"] ?? false,
    shareRuns: values["share-runs"] ?? false,
    ownSessions: values["own-sessions"] ?? false,
    grantedPanes: values["granted-panes"] ?? false,
    sessions: values.sessions,
    remote: values.remote ?? [],
    sshConfig: values["ssh-config"],
    remoteAcceptNewHostKeys: values["remote-accept-new-host-keys"] ?? false,
    remoteIdleSeconds: values["remote-idle-seconds"],
  };
}
