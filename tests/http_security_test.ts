// The HTTP guards: bearer token, Host and Origin checks, body size limit, session expiry, and the
// refusal to listen beyond loopback without a token. Everything binds 127.0.0.1.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import {
  type Connection,
  INITIALIZE_REQUEST,
  postMcp,
  runServerToExit,
  startServer,
} from "./helpers/mcp.ts";
import { startTmux, type TestTmux } from "./helpers/tmux.ts";
import { output } from "./helpers/processes.ts";

const TOKEN = "t0ken-for-tests-0123456789abcdef";

/** How {@linkcode statusWithHost} sends its request. */
interface SendOptions {
  body?: string;
  /** Sends the request in pieces of this many bytes, `pauseMs` apart (default: all at once). */
  pieceBytes?: number;
  pauseMs?: number;
}

/** A request with a Host header of our choosing (fetch will not send one), over plain TCP. */
async function statusWithHost(
  url: string,
  host: string,
  options: SendOptions = {},
): Promise<number> {
  const { body = INITIALIZE_REQUEST, pieceBytes = Infinity, pauseMs = 0 } = options;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
  const bytes = new TextEncoder().encode(body);
  const head = [
    "POST /mcp HTTP/1.1",
    `Host: ${host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${bytes.length}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const request = new Uint8Array([...new TextEncoder().encode(head), ...bytes]);
  for (let at = 0; at < request.length;) {
    const end = Math.min(request.length, at + pieceBytes);
    while (at < end) at += await conn.write(request.subarray(at, end));
    if (at < request.length && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
  }
  const buffer = new Uint8Array(256);
  const n = await conn.read(buffer);
  conn.close();
  const line = new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0];
  return Number(line.split(" ")[1]);
}

async function withHttp(
  args: string[],
  body: (conn: Connection, tmux: TestTmux, url: string) => Promise<void>,
  headers?: Record<string, string>,
): Promise<void> {
  const tmux = await startTmux();
  // A server that fails to start must not leave the tmux server behind.
  const conn = await startServer("http", { socketName: tmux.socketName, extraArgs: args, headers })
    .catch(async (error) => {
      await tmux.close();
      throw error;
    });
  try {
    await body(conn, tmux, conn.url ?? "");
  } finally {
    await conn.close();
    await tmux.close();
  }
}

Deno.test("a bearer token is required when set, compared exactly", async () => {
  await withHttp(["--token", TOKEN], async (conn, tmux, url) => {
    const none = await postMcp(url, {});
    assertEquals(none.status, 401);
    await none.body?.cancel();
    const wrong = await postMcp(url, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` });
    assertEquals(wrong.status, 401);
    await wrong.body?.cancel();
    const right = await postMcp(url, { authorization: `Bearer ${TOKEN}` });
    assertEquals(right.status, 200);
    await right.body?.cancel();
    // The SDK client, carrying the token, runs commands.
    const result = await conn.client.callTool({
      name: "run_command",
      arguments: { command: "echo authorized", pane_id: tmux.paneId },
    }) as CallToolResult;
    assertEquals((result.structuredContent as { output: string[] }).output, ["authorized"]);
  }, { authorization: `Bearer ${TOKEN}` });
});

Deno.test("Host and Origin must name this server (DNS rebinding)", async () => {
  await withHttp(["--no-token"], async (_conn, _tmux, url) => {
    const port = new URL(url).port;
    const evilOrigin = await postMcp(url, { origin: "http://evil.example.com" });
    assertEquals(evilOrigin.status, 403);
    await evilOrigin.body?.cancel();
    assertEquals(await statusWithHost(url, "evil.example.com"), 403);
    assertEquals(await statusWithHost(url, `evil.example.com:${port}`), 403);
    assertEquals(await statusWithHost(url, `127.0.0.1:${port}`), 200);
    const ownOrigin = await postMcp(url, { origin: `http://localhost:${port}` });
    assertEquals(ownOrigin.status, 200);
    await ownOrigin.body?.cancel();
  });
});

Deno.test("oversized bodies get 413 and idle sessions expire", async () => {
  await withHttp(["--no-token", "--session-idle-seconds", "1"], async (_conn, _tmux, url) => {
    const big = await postMcp(url, {}, JSON.stringify({ padding: "x".repeat(5 * 1024 * 1024) }));
    assertEquals(big.status, 413);
    await big.body?.cancel();
    const init = await postMcp(url, {});
    const session = init.headers.get("mcp-session-id");
    await init.body?.cancel();
    assert(session, "no session id");
    await new Promise((r) => setTimeout(r, 2500));
    const late = await postMcp(url, {
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-06-18",
    }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    assertEquals(late.status, 404);
    await late.body?.cancel();
  });
});

Deno.test("sessions are capped: a new one closes the least recently used idle session", async () => {
  await withHttp(["--no-token"], async (_conn, _tmux, url) => {
    const ids: string[] = [];
    for (let i = 0; i < 70; i++) {
      const response = await postMcp(url, {});
      assertEquals(response.status, 200, `session ${i + 1}`);
      ids.push(response.headers.get("mcp-session-id") ?? "");
      await response.body?.cancel();
    }
    const list = async (id: string) => {
      const response = await postMcp(url, {
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18",
      }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
      await response.body?.cancel();
      return response.status;
    };
    // 64 at most: the oldest were closed, the newest serve.
    assertEquals(await list(ids[0]), 404);
    assertEquals(await list(ids[5]), 404);
    assertEquals(await list(ids[69]), 200);
  });
});

/** Opens a connection, sends `data`, and resolves with what the server did within `ms`. */
async function slowPeer(url: string, data: string, ms: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
  try {
    await conn.write(new TextEncoder().encode(data));
    const buffer = new Uint8Array(512);
    const read = conn.read(buffer).then((n) =>
      n === null ? "closed" : new TextDecoder().decode(buffer.subarray(0, n)).split("\r\n")[0]
    ).catch(() => "closed");
    const timer = new Promise<string>((r) => setTimeout(() => r("still open"), ms));
    return await Promise.race([read, timer]);
  } finally {
    conn.close();
  }
}

Deno.test("slow and idle peers cannot hold the server: the slowest make room, reads time-limited", async () => {
  await withHttp(["--no-token"], async (conn, _tmux, url) => {
    const host = `Host: ${new URL(url).host}\r\n`;
    const slowHeaders = `POST /mcp HTTP/1.1\r\n${host}`;
    const slowBody = `POST /mcp HTTP/1.1\r\n${host}Content-Length: 100000\r\n\r\n{"jsonrpc"`;
    // 300 peers, at most 128 open at once: each newcomer beyond that closes the one sending (or
    // idle) longest, and the last ones are closed when their time is up (10 s for headers, 30 s
    // for a body).
    const peers = [
      ...Array.from({ length: 100 }, () => slowPeer(url, slowHeaders, 45_000)),
      ...Array.from({ length: 100 }, () => slowPeer(url, slowBody, 45_000)),
      ...Array.from({ length: 100 }, () => slowPeer(url, "", 45_000)),
    ];
    const outcomes = await Promise.all(peers);
    assertEquals(outcomes.filter((o) => o !== "closed"), [], "a slow peer was not closed");
    // Once they are gone, the client is served again.
    await conn.client.ping();
  });
});

/** Status of one initialize request on a connection of its own (not a pooled one). */
async function freshStatus(url: string, options?: SendOptions): Promise<number> {
  return await statusWithHost(url, new URL(url).host, options).catch(() => 0);
}

Deno.test("a slowloris that reconnects cannot starve real clients", async () => {
  await withHttp(["--no-token"], async (_conn, _tmux, url) => {
    const port = Number(new URL(url).port);
    const partial = new TextEncoder().encode(
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\n`,
    );
    let attacking = true;
    const peers = new Set<Deno.Conn>();
    // 200 peers, each sending half a request head and reconnecting the moment it is closed.
    const attackers = Array.from({ length: 200 }, async () => {
      while (attacking) {
        try {
          const peer = await Deno.connect({ hostname: "127.0.0.1", port });
          // One that connects as the attack ends would otherwise wait out the header timeout.
          if (!attacking) {
            peer.close();
            break;
          }
          peers.add(peer);
          await peer.write(partial);
          await peer.read(new Uint8Array(512)).catch(() => null);
          peers.delete(peer);
          peer.close();
        } catch {
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push(await freshStatus(url));
      assertEquals(statuses.filter((status) => status !== 200), [], JSON.stringify(statuses));
      // A request too large for one read is not taken for a slow one, sent at once or steadily
      // (64 KiB every 50 ms: a real client on a busy machine or a slower link).
      const body = INITIALIZE_REQUEST + " ".repeat(1024 * 1024);
      const largeStatuses: number[] = [];
      for (let i = 0; i < 5; i++) largeStatuses.push(await freshStatus(url, { body }));
      for (let i = 0; i < 3; i++) {
        largeStatuses.push(await freshStatus(url, { body, pieceBytes: 64 * 1024, pauseMs: 50 }));
      }
      assertEquals(largeStatuses.filter((s) => s !== 200), [], JSON.stringify(largeStatuses));
    } finally {
      attacking = false;
      for (const peer of peers) peer.close();
      await Promise.all(attackers);
    }
  });
});

Deno.test("cancelled calls end their responses: the connection cap is never reached", async () => {
  await withHttp(["--no-token"], async (conn, _tmux, url) => {
    for (let i = 0; i < 150; i++) {
      const abort = new AbortController();
      const call = conn.client.callTool(
        { name: "wait_for_text", arguments: { patterns: ["never shown"], timeout: 20 } },
        undefined,
        { signal: abort.signal },
      );
      setTimeout(() => abort.abort(), 20);
      await call.then(() => {}, () => {});
    }
    assertEquals(await freshStatus(url), 200, "a new client was refused");
    await conn.client.ping();
  });
});

Deno.test("beyond loopback the server never serves without a token", async () => {
  const { code, stderr } = await runServerToExit(["--allow-run=tmux", "--allow-net"], [
    "--http",
    "--host",
    "0.0.0.0",
    "--port",
    "0",
    "--no-token",
  ]);
  assertEquals(code, 2);
  assertMatch(stderr, /refusing to serve HTTP on 0\.0\.0\.0 without a token/);
});

Deno.test("on loopback a token is made by default: a local process without it is refused", async () => {
  // Any local account reaches 127.0.0.1; Host and Origin stop browsers, not processes.
  await withHttp([], async (conn, _tmux, url) => {
    const token = conn.token ?? "";
    assertMatch(token, /^[0-9a-f]{64}$/);
    assertMatch(
      conn.stderr(),
      /claude mcp add --transport http tmux \S+ --header "Authorization: Bearer [0-9a-f]{64}"/,
    );
    const port = new URL(url).port;
    assertEquals(await statusWithHost(url, `127.0.0.1:${port}`), 401);
    // The client given the printed token works.
    const listed = await conn.client.listTools();
    assert(listed.tools.length > 0);
  });
});

Deno.test("--generate-token prints a token that then works", async () => {
  const tmux = await startTmux();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--allow-run=tmux",
      "--allow-net=127.0.0.1",
      new URL("../main.ts", import.meta.url).pathname,
      "--socket-name",
      tmux.socketName,
      "--http",
      "--port",
      "0",
      "--generate-token",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let text = "";
    const decoder = new TextDecoder();
    const reader = child.stderr.getReader();
    while (!/listening on \S+/.test(text) || !/bearer token: [0-9a-f]+/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    reader.releaseLock();
    child.stderr.cancel();
    const url = text.match(/listening on (\S+)/)![1];
    const token = text.match(/bearer token: ([0-9a-f]+)/)![1];
    assertMatch(token, /^[0-9a-f]{64}$/);
    const refused = await postMcp(url, {});
    assertEquals(refused.status, 401);
    await refused.body?.cancel();
    const accepted = await postMcp(url, { authorization: `Bearer ${token}` });
    assertEquals(accepted.status, 200);
    await accepted.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await tmux.close();
  }
});

Deno.test("a token from --token-file keeps it out of argv; a blank token is refused", async () => {
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(file, `${TOKEN}\n`);
    const tmux = await startTmux();
    try {
      const conn = await startServer("http", {
        socketName: tmux.socketName,
        extraArgs: ["--token-file", file],
        permissions: ["--allow-run=tmux", "--allow-net=127.0.0.1", `--allow-read=${file}`],
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      try {
        assert((await conn.client.listTools()).tools.length > 0);
        const refused = await postMcp(conn.url ?? "", {});
        assertEquals(refused.status, 401);
        await refused.body?.cancel();
      } finally {
        await conn.close();
      }
    } finally {
      await tmux.close();
    }
    await Deno.writeTextFile(file, " ".repeat(16));
    const blank = await runServerToExit(
      ["--allow-run=tmux", "--allow-net", `--allow-read=${file}`],
      [
        "--http",
        "--token-file",
        file,
      ],
    );
    assertEquals(blank.code, 2);
    assertMatch(blank.stderr, /16 to 512 characters/);
  } finally {
    await Deno.remove(file);
  }
});

/** The server process's resident memory in MB, from ps (Deno reads /proc only with -A). */
async function rssMB(pid: number): Promise<number> {
  return Number((await output("ps", ["-o", "rss=", "-p", String(pid)])).trim()) / 1024;
}

/**
 * Sends a request head and then `body` in pieces over plain TCP, reading the answer meanwhile;
 * the status line's code and its text (the server may answer, and close, before all is sent).
 */
async function rawRequest(
  url: string,
  head: string[],
  body: Iterable<Uint8Array>,
): Promise<{ status: number; text: string }> {
  const port = Number(new URL(url).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const answer = (async () => {
    let text = "";
    const buffer = new Uint8Array(4096);
    for (let n; (n = await conn.read(buffer).catch(() => null)) !== null;) {
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return text;
  })();
  const lines = [`POST /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...head, "", ""];
  try {
    await conn.write(new TextEncoder().encode(lines.join("\r\n")));
    for (const piece of body) {
      for (let at = 0; at < piece.length;) at += await conn.write(piece.subarray(at));
    }
    await conn.closeWrite();
  } catch {
    // The server answered and closed before all was sent.
  }
  const text = await answer;
  conn.close();
  return { status: Number(text.split("\r\n")[0].split(" ")[1]), text };
}

const JSON_HEAD = ["Content-Type: application/json", "Accept: application/json, text/event-stream"];

Deno.test("a chunked body costs memory in proportion to its bytes: one-byte chunks are cut off", async () => {
  await withHttp(["--no-token"], async (conn, _tmux, url) => {
    const before = await rssMB(conn.serverPid);
    // 4 MiB in one-byte chunks (the body limit): 24 MB on the wire, 1.5 GB held before.
    const chunk = new TextEncoder().encode("1\r\n[\r\n".repeat(64 * 1024));
    const pieces = function* () {
      for (let i = 0; i < 64; i++) yield chunk;
      yield new TextEncoder().encode("0\r\n\r\n");
    };
    const { status, text } = await rawRequest(
      url,
      [...JSON_HEAD, "Transfer-Encoding: chunked"],
      pieces(),
    );
    assertEquals(status, 400, text);
    assertMatch(text, /more than \d+ chunks/);
    const grew = await rssMB(conn.serverPid) - before;
    assert(grew < 64, `the server grew ${grew.toFixed(0)} MB`);
  });
});

Deno.test("framing as RFC 9112 says: no Content-Length with chunked, hex sizes, CRLF after data", async () => {
  await withHttp(["--no-token"], async (_conn, _tmux, url) => {
    const body = (text: string) => [new TextEncoder().encode(text)];
    const init = INITIALIZE_REQUEST;
    const size = init.length.toString(16);
    const chunked = [...JSON_HEAD, "Transfer-Encoding: chunked"];
    // The well-formed request is answered.
    const good = await rawRequest(url, chunked, body(`${size}\r\n${init}\r\n0\r\n\r\n`));
    assertEquals(good.status, 200, good.text);
    const both = await rawRequest(
      url,
      [...chunked, `Content-Length: ${init.length}`],
      body(`${size}\r\n${init}\r\n0\r\n\r\n`),
    );
    assertEquals(both.status, 400, both.text);
    const prefixed = await rawRequest(url, chunked, body(`0x${size}\r\n${init}\r\n0\r\n\r\n`));
    assertEquals(prefixed.status, 400, prefixed.text);
    const noCrlf = await rawRequest(url, chunked, body(`${size}\r\n${init}XY0\r\n\r\n`));
    assertEquals(noCrlf.status, 400, noCrlf.text);
  });
});

Deno.test("a batch before any session is refused unparsed", async () => {
  await withHttp(["--no-token"], async (conn, _tmux, url) => {
    // 4 MiB of empty objects: every element was parsed (twice) before the 400.
    const batch = "[" + "{},".repeat(1_398_000) + "{}]";
    const started = performance.now();
    const refused = await postMcp(url, {}, batch);
    const ms = performance.now() - started;
    const answer = await refused.json();
    assertEquals(refused.status, 400);
    assertMatch(answer.error.message, /not a batch/);
    console.log(`a 4 MiB batch refused in ${ms.toFixed(0)} ms`);
    // A call of the test's own session is still answered.
    assert((await conn.client.listTools()).tools.length > 0);
  });
});

Deno.test("sessions that only hold a stream open do not lock a new client out", async () => {
  await withHttp(["--no-token"], async (_conn, _tmux, url) => {
    const streams: Response[] = [];
    try {
      // The test's own client holds one session; 63 more, each holding a GET stream, fill the 64.
      for (let i = 0; i < 63; i++) {
        const made = await postMcp(url, {});
        assertEquals(made.status, 200, `session ${i + 1}`);
        const id = made.headers.get("mcp-session-id") ?? "";
        await made.body?.cancel();
        const stream = await fetch(url, {
          headers: {
            accept: "text/event-stream",
            "mcp-session-id": id,
            "mcp-protocol-version": "2025-06-18",
          },
        });
        assertEquals(stream.status, 200, `stream ${i + 1}`);
        streams.push(stream);
      }
      const newcomer = await postMcp(url, {});
      assertEquals(newcomer.status, 200, await newcomer.clone().text());
      await newcomer.body?.cancel();
    } finally {
      await Promise.all(streams.map((stream) => stream.body?.cancel().catch(() => {})));
    }
  });
});

Deno.test("in a session, a batch of more than 100 messages is refused unparsed; a small one is served", async () => {
  await withHttp(["--no-token"], async (_conn, _tmux, url) => {
    const made = await postMcp(url, {}, INITIALIZE_REQUEST.replace("2025-06-18", "2025-03-26"));
    const id = made.headers.get("mcp-session-id") ?? "";
    await made.body?.cancel();
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-03-26" };
    const initialized = await postMcp(
      url,
      headers,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    );
    await initialized.body?.cancel();
    // 4 MiB of empty objects: the SDK parsed every one of them before its own limit refused them.
    const huge = await postMcp(url, headers, "[" + "{},".repeat(1_398_000) + "{}]");
    assertEquals(huge.status, 400);
    assertMatch((await huge.json()).error.message, /at most 100 messages/);
    // Protocol 2025-03-26 has batches: two pings are answered.
    const pings = await postMcp(
      url,
      headers,
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    );
    const text = await pings.text();
    assertEquals(pings.status, 200, text);
    assertMatch(text, /"id":1/);
    assertMatch(text, /"id":2/);
  });
});
