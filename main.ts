/**
 * tmux-mcp entrypoint: parses flags and serves MCP over stdio (default) or Streamable HTTP.
 *
 * @module
 */

import { configFromFlags } from "./src/config.ts";
import { grantCommandLine } from "./src/grant_cli.ts";
import { parseFlags, USAGE } from "./src/flags.ts";
import { serveHttp } from "./src/http/mod.ts";
import { urlHost } from "./src/util/mod.ts";
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
  const tmux = await checkTmux();
  if (tmux.fatal !== null) {
    console.error(`tmux-mcp: ${tmux.fatal}`);
    return 1;
  }
  for (const warning of [...start.warnings, tmux.warning ?? []].flat()) {
    console.error(`tmux-mcp: ${warning}`);
  }
  const context = createToolContext(start.server);
  let stopping: Promise<void> | null = null;
  let stopTransport = (): Promise<void> => Promise.resolve();
  const stop = (): Promise<void> =>
    stopping ??= stopToolContext(context).then(() => stopTransport());
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
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
    await http.finished;
  } else {
    if (Deno.stdin.isTerminal()) console.error(WAITING);
    // Closed by the client going away (end of input) or by stop().
    const server = await connectServer(context, new StdioLineTransport());
    const closed = new Promise<void>((resolve) => server.server.onclose = resolve);
    stopTransport = () => server.close();
    await closed;
  }
  await stop();
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
