// Real MCP clients connected to the real server process, over stdio or Streamable HTTP.

import {
  Client,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type Transport,
} from "../deps.ts";
import { startTmux, type TestTmux } from "./tmux.ts";
import { RUN_DEFAULTS } from "../../src/tools/define/run_defaults.ts";
import { RUN_RESULT_ORDER } from "../../src/tmux/run/base/types.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const encoder = new TextEncoder();

/** A client's first message, as raw JSON-RPC, for tests that speak the wire themselves. */
export const INITIALIZE_REQUEST = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
});

/** POSTs a raw MCP message (default: initialize) to an HTTP endpoint, as a client would. */
export function postMcp(
  url: string,
  headers: Record<string, string>,
  body = INITIALIZE_REQUEST,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

/** Which transport a suite drives. */
export type TransportKind = "stdio" | "http";

/** A connected client and the server process behind it. */
export interface Connection {
  client: Client;
  /** The HTTP endpoint (null over stdio). */
  url: string | null;
  /** The bearer token the HTTP server made and printed (null: none, or stdio). */
  token: string | null;
  /** The server process's pid (its tmux children are its direct children). */
  serverPid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Bytes of the largest message the server sent since the last call of this (stdio only). */
  takeLargestMessage(): number | null;
  close(): Promise<void>;
}

/** Transport over a child process's pipes, so the test owns the process and its stderr. */
class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Bytes of the largest message read since it was last taken. */
  largest = 0;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
  }

  start(): Promise<void> {
    (async () => {
      const decoder = new TextDecoder();
      let pending = "";
      for await (const chunk of this.#child.stdout) {
        pending += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          this.largest = Math.max(this.largest, encoder.encode(line).length + 1);
          if (line.trim() !== "") this.onmessage?.(JSON.parse(line));
        }
      }
      this.onclose?.();
    })().catch((error) => this.onerror?.(error));
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#writer.write(encoder.encode(`${JSON.stringify(message)}\n`));
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }
}

/** Options for {@linkcode startServer}. */
export interface ServerOptions {
  socketName: string;
  extraArgs?: string[];
  /** Deno permission flags; default: exactly what the transport needs. */
  permissions?: string[];
  /** Run this program (e.g. a compiled binary, or `deno run URL`) instead of `deno run main.ts`. */
  program?: string[];
  /** Working directory of the server process. */
  cwd?: string;
  /** HTTP port (default 0: any free one). */
  port?: number;
  /** Extra HTTP headers the client sends (e.g. Authorization). */
  headers?: Record<string, string>;
  /** Variables added to the server's environment. */
  env?: Record<string, string>;
  /** What the client says it can do (elicitation, say); default nothing. */
  clientCapabilities?: Record<string, unknown>;
}

/** The program and arguments that start the server as `startServer` does. */
export function serverCommand(kind: TransportKind, options: ServerOptions): [string, ...string[]] {
  const permissions = options.permissions ??
    (kind === "stdio" ? ["--allow-run=tmux"] : ["--allow-run=tmux", "--allow-net=127.0.0.1"]);
  const [program, ...programArgs] = options.program ??
    [Deno.execPath(), "run", "--quiet", "--no-prompt", ...permissions, MAIN];
  return [
    program,
    ...programArgs,
    "--socket-name",
    options.socketName,
    ...(kind === "http" ? ["--http", "--port", String(options.port ?? 0)] : []),
    ...(options.extraArgs ?? []),
  ];
}

function spawnServer(kind: TransportKind, options: ServerOptions): Deno.ChildProcess {
  const [program, ...args] = serverCommand(kind, options);
  return new Deno.Command(program, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** What a server prints once it listens: its URL, and the token it made (null: none). */
interface Listening {
  url: string;
  token: string | null;
}

/** Collects a child's stderr as text and resolves `url` once it has said where it listens. */
function watchStderr(child: Deno.ChildProcess): { text: () => string; url: Promise<Listening> } {
  let text = "";
  let resolveUrl!: (url: Listening) => void;
  let rejectUrl!: (error: Error) => void;
  const url = new Promise<Listening>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      text += decoder.decode(chunk, { stream: true });
      // The server prints the token it made in the same write as the address.
      const match = text.match(/listening on (\S+)\n(?:tmux-mcp: bearer token: (\S+))?/);
      if (match) resolveUrl({ url: match[1], token: match[2] ?? null });
    }
    rejectUrl(new Error(`server exited before listening: ${text}`));
  })();
  url.catch(() => {});
  return { text: () => text, url };
}

/** Runs the server to its exit with the given arguments; returns its exit code and stderr. */
export async function runServerToExit(
  permissions: string[],
  args: string[],
): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...permissions, MAIN, ...args],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** A port that was free a moment ago, for tests that must name it in a permission. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts the server as its own process and connects an SDK Client to it. */
export async function startServer(
  kind: TransportKind,
  options: ServerOptions,
): Promise<Connection> {
  const child = spawnServer(kind, options);
  const stderr = watchStderr(child);
  const client = new Client({ name: "tmux-mcp-tests", version: "0" }, {
    capabilities: options.clientCapabilities ?? {},
  });
  let transport: Transport;
  let stdio: ChildStdioTransport | null = null;
  let listening: Listening | null = null;
  if (kind === "stdio") {
    transport = stdio = new ChildStdioTransport(child);
  } else {
    child.stdin.close();
    const { url, token } = await stderr.url;
    // The token the server made, unless the test sends headers of its own.
    const made: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: options.headers ?? made },
    });
    listening = { url, token };
  }
  await client.connect(transport);
  readRunDefaults(client);
  return {
    client,
    url: listening?.url ?? null,
    token: listening?.token ?? null,
    serverPid: child.pid,
    stderr: stderr.text,
    takeLargestMessage(): number | null {
      if (stdio === null) return null;
      const largest = stdio.largest;
      stdio.largest = 0;
      return largest;
    },
    async close(): Promise<void> {
      await client.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited (stdio servers exit when their input ends).
      }
      await child.status;
    },
  };
}

/**
 * Reads run results as the contract says a client should: a field left out of structuredContent
 * holds its default (RUN_DEFAULTS), so the tests see every field, in the results' order. What is
 * on the wire is checked where it matters (results_test.ts).
 */
function readRunDefaults(client: Client): void {
  const call = client.callTool.bind(client);
  client.callTool = async (...args: Parameters<Client["callTool"]>) => {
    const result = await call(...args);
    const lean = result.structuredContent as Record<string, unknown> | undefined;
    if (lean !== undefined && RUN_TOOLS.includes(args[0].name)) {
      result.structuredContent = fullRunResult(lean);
    }
    return result;
  };
}

const RUN_TOOLS = ["run_command", "wait_for_command"];

/**
 * A run result with every field: those left out hold their defaults, the totals absent are those
 * of `output` (run_id absent stays absent: nothing of the run is left).
 */
export function fullRunResult(lean: Record<string, unknown>): Record<string, unknown> {
  const full: Record<string, unknown> = "host" in lean ? { host: lean.host } : {};
  const output = (lean.output ?? []) as string[];
  const totals: Record<string, unknown> = {
    output_total_lines: output.length,
    output_total_bytes: output.reduce((sum, line) => sum + encoder.encode(line).length + 1, 0),
  };
  for (const key of RUN_RESULT_ORDER) {
    if (key in lean) full[key] = lean[key];
    else if (key in RUN_DEFAULTS) full[key] = RUN_DEFAULTS[key];
    else if (key in totals) full[key] = totals[key];
  }
  return { ...full, ...lean };
}

/** What a model reads of a tool list: each tool's name, description and input schema, in bytes. */
export function modelVisibleBytes(
  tools: ReadonlyArray<{ name: string; description?: string; inputSchema: unknown }>,
): number {
  return tools.reduce(
    (sum, tool) =>
      sum + encoder.encode(JSON.stringify({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      })).length,
    0,
  );
}

/** The first text block of a tool result. */
export function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text ?? "" : "";
}

/** Runs `body` against a fresh private tmux server and a server process connected to it. */
export async function withServer(
  kind: TransportKind,
  options: Omit<ServerOptions, "socketName">,
  body: (conn: Connection, tmux: TestTmux) => Promise<void>,
): Promise<void> {
  const tmux = await startTmux();
  try {
    const conn = await startServer(kind, { ...options, socketName: tmux.socketName });
    try {
      await body(conn, tmux);
    } finally {
      await conn.close();
    }
  } finally {
    await tmux.close();
  }
}

/** The JSON-RPC error a call was rejected with (fails when the call was answered). */
export async function rejection(
  call: Promise<unknown>,
): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "number") return { code, message: String((error as Error).message) };
    throw error;
  }
  throw new Error("the call was answered, not rejected");
}
