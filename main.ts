/**
 * tmux-mcp entrypoint: parses flags and serves MCP over stdio (default) or Streamable HTTP.
 *
 * @module
 */

import { configFromFlags } from "./src/config.ts";
import { grantCommandLine } from "./src/grant_cli.ts";
import { parseFlags, USAGE } from "./src/flags.ts";
import { serveHttp } from "./src/http/mod.ts";
import { abortable, ABORTED, urlHost } from "./src/util/mod.ts";
import { StdioLineTransport } from "./src/mcp/mod.ts";
import { checkTmux, connectServer, createToolContext, stopToolContext } from "./src/server.ts";
import { SERVER_INFO } from "./src/version.ts";

function listenError(error: unknown, http: { host: string; port: number }): string {
  const address = `${urlHost(http.host)}:${http.port}`;
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return `not permitted to listen on ${address}: run with --allow-net=${address}`;
  }
  if (error instanceof Deno.errors.AddrInUse) return `${address} is already in use`;
  return `cannot listen on ${address}: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * How long after start tmux is first asked whether it runs (or else as the server stops): the first
 * process a Deno program starts costs it about 15 ms, which a client's first tools/list need not
 * wait for. A tool call that comes first asks tmux itself, and a missing tmux is its error.
 */
const CHECK_AFTER_MS = 500;

/** Said on a terminal, where a server waiting silently for a client looks hung. */
const WAITING = `tmux-mcp ${SERVER_INFO.version}: an MCP server, waiting for an MCP client on ` +
  "stdin and stdout (a client starts it; see the README's client setup). To try it by hand: " +
  "npx @modelcontextprotocol/inspector <this command>. --help lists the flags; Ctrl-C ends it.";

/** The token made for this start, and how a client is told it (printed once listening). */
function tokenLines(url: string, token: string): string {
  return `tmux-mcp: bearer token: ${token} (send "Authorization: Bearer <token>"; a new one each ` +
    "start: --token-file keeps one)\n" +
    `tmux-mcp: for example: claude mcp add --transport http tmux ${url} ` +
    `--header "Authorization: Bearer ${token}"`;
}

async function main(args: string[]): Promise<number> {
  if (args[0] === "grant" || args[0] === "revoke") {
    return await grantCommandLine(args[0], args.slice(1));
  }
  let start;
  try {
    const flags = parseFlags(args);
    if (flags.help) {
      console.log(USAGE);
      return 0;
    }
    if (flags.version) {
      console.log(`${SERVER_INFO.name} ${SERVER_INFO.version}`);
      return 0;
    }
    start = configFromFlags(flags);
  } catch (error) {
    console.error(`tmux-mcp: ${error instanceof Error ? error.message : String(error)}`);
    console.error("Try --help.");
    return 2;
  }
  for (const warning of start.warnings) console.error(`tmux-mcp: ${warning}`);
  let checked: Promise<boolean> | null = null;
  /** Asks tmux whether it runs (once) and says what it found; true when it cannot run at all. */
  const tmuxMissing = (): Promise<boolean> =>
    checked ??= checkTmux().then((tmux) => {
      for (const said of [tmux.warning ?? [], tmux.fatal ?? []].flat()) {
        console.error(`tmux-mcp: ${said}`);
      }
      return tmux.fatal !== null;
    });
  const context = createToolContext(start.server);
  let stopping: Promise<void> | null = null;
  let stopTransport = (): Promise<void> => Promise.resolve();
  const stop = (): Promise<void> =>
    stopping ??= stopToolContext(context).then(() => stopTransport());
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
  /**
   * Serves until `ended`, asking tmux whether it runs {@linkcode CHECK_AFTER_MS} in, or once the
   * server has stopped when it ends sooner (a stop waits for nothing: calls in flight are ended
   * as the server's, not left as a client's cancellations). The process's exit code.
   */
  const serveUntil = async (ended: Promise<unknown>): Promise<number> => {
    const early = await abortable(ended, AbortSignal.timeout(CHECK_AFTER_MS)) !== ABORTED;
    // The end, should it come while tmux is asked, is not kept waiting for the answer.
    if (!early && await Promise.race([tmuxMissing(), ended.then(() => false)])) {
      await stop();
      return 1;
    }
    await ended;
    await stop();
    return await tmuxMissing() ? 1 : 0;
  };
  if (start.http) {
    let http;
    try {
      http = serveHttp(context, {
        host: start.http.host,
        port: start.http.port,
        token: start.http.token,
        sessionIdleSeconds: start.http.sessionIdleSeconds,
        // One write: whoever reads the address finds the token with it.
        onListen: (url) =>
          console.error(
            `tmux-mcp: listening on ${url}` +
              (start.http?.tokenGenerated ? `\n${tokenLines(url, start.http.token ?? "")}` : ""),
          ),
      });
    } catch (error) {
      console.error(`tmux-mcp: ${listenError(error, start.http)}`);
      return 1;
    }
    stopTransport = () => http.shutdown();
    return await serveUntil(http.finished);
  } else {
    if (Deno.stdin.isTerminal()) console.error(WAITING);
    // Closed by the client going away (end of input) or by stop().
    const server = await connectServer(context, new StdioLineTransport());
    const closed = new Promise<void>((resolve) => server.server.onclose = resolve);
    stopTransport = () => server.close();
    return await serveUntil(closed);
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
