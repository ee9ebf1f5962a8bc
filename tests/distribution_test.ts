// The ways users run the server: a compiled binary, `deno run <URL>`, and the permission sandbox.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { baseFor, compileTarget } from "../scripts/compile.ts";
import { bundle, SHIPPED_V8_FLAGS } from "../scripts/bundle.ts";
import { type Connection, freePort, runServerToExit, startServer } from "./helpers/mcp.ts";
import { startTmux } from "./helpers/tmux.ts";
import { sourceFiles } from "./helpers/source_files.ts";

const ROOT = new URL("../", import.meta.url);

async function runsCommands(conn: Connection, paneId: string): Promise<void> {
  const result = await conn.client.callTool({
    name: "run_command",
    arguments: { command: "seq 1 3; exit 7", pane_id: paneId },
  }) as CallToolResult;
  const out = result.structuredContent as { exit_status: number; output: string[] };
  assertEquals([out.exit_status, out.output], [7, ["1", "2", "3"]]);
}

const base = await baseFor(Deno.build.target);
/** A binary built beforehand (the release workflow tests each one it built before uploading). */
const prebuilt = Deno.env.get("TMUX_MCP_BINARY") ?? null;

Deno.test({
  name: "the compiled binary serves stdio and runs commands",
  // Needs a built binary or a denort base binary (DENORT_BIN or Deno's cache); neither is
  // reachable on our machines.
  ignore: prebuilt === null && !base.ok,
  async fn() {
    const dir = await Deno.makeTempDir();
    const tmux = await startTmux();
    let conn: Connection | null = null;
    try {
      const binary = prebuilt ?? await compileTarget(Deno.build.target, dir);
      conn = await startServer("stdio", { socketName: tmux.socketName, program: [binary] });
      await runsCommands(conn, tmux.paneId);
      const names = (await conn.client.listTools()).tools.map((t) => t.name);
      assert(names.includes("run_command"), "the binary offers no run_command");
    } finally {
      await conn?.close();
      await tmux.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("deno task start runs the bundle with the V8 flags the binaries are compiled with", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const run = config.tasks.start.split(" && ").at(-1);
  assertMatch(run, /^deno run .*dist\/js\/main\.js$/);
  assert(run.split(" ").includes(`--v8-flags=${SHIPPED_V8_FLAGS}`), run);
});

/** The bundle of main.ts as the release makes it, built once for the tests that read it. */
let bundled: Promise<string> | null = null;
function bundleText(): Promise<string> {
  bundled ??= (async () => {
    const dir = await Deno.makeTempDir();
    try {
      return await Deno.readTextFile(await bundle({ output: `${dir}/main.js` }));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  })();
  return bundled;
}

Deno.test("the bundle holds none of zod's locales (named imports, never its namespace)", async () => {
  const text = await bundleText();
  // zod's German messages, as the bundle writes them (ASCII, escaped) or as UTF-8.
  for (const locale of ["Ung\\xFCltig", "Ungültig"]) {
    assert(!text.includes(locale), `the bundle holds zod's locales ("${locale}")`);
  }
});

/** `using` declarations in our source files. */
async function sourceUsings(): Promise<number> {
  let count = 0;
  for await (const { text } of sourceFiles(new URL("src/", ROOT))) {
    count += text.match(/^\s*(?:await\s+)?using\s+\w+\s*=/gm)?.length ?? 0;
  }
  return count;
}

Deno.test("the bundle keeps every `using` of the source: each disposes of what it holds", async () => {
  // esbuild's minifier, in the deno bundle of Deno 2.9, inlines a `using` whose variable is read
  // once right after into that read, and the resource is never disposed of (evanw/esbuild#4482):
  // a lock's deadline kept a timer and its signals for the call's whole timeout, each call.
  const bundledUsings =
    (await bundleText()).match(/(?<![\w$.])(?:await )?using [\w$]+=/g)?.length ?? 0;
  assertEquals(
    bundledUsings,
    await sourceUsings(),
    "a `using` of the source is gone from the bundle",
  );
});

Deno.test("deno publish --dry-run passes and ships only what users need", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, text.slice(-2000));
  const files = [...text.matchAll(/file:\/\/\S+/g)].map((m) =>
    m[0].slice(new URL(ROOT).href.length)
  );
  assert(files.includes("main.ts") && files.includes("LICENSE"), files.join(" "));
  assert(files.includes("docs/run_command.md"), files.join(" "));
  const extra = files.filter((f) => /^(tests|scripts|\.ci|\.github)\//.test(f));
  assertEquals(extra, []);
});

const TYPES: Record<string, string> = {
  ts: "application/typescript",
  json: "application/json",
};

Deno.test("deno run <URL>/main.ts works from a directory with no deno.json", async () => {
  const files = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    try {
      const body = await Deno.readFile(new URL(`.${path}`, ROOT));
      const type = TYPES[path.split(".").at(-1) ?? ""] ?? "text/plain";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  const host = `127.0.0.1:${files.addr.port}`;
  const empty = await Deno.makeTempDir();
  const tmux = await startTmux();
  let conn: Connection | null = null;
  try {
    conn = await startServer("stdio", {
      socketName: tmux.socketName,
      cwd: empty,
      program: [
        Deno.execPath(),
        "run",
        "--quiet",
        "--no-prompt",
        "--no-lock",
        "--allow-run=tmux",
        `--allow-import=${host}`,
        `http://${host}/main.ts`,
      ],
    });
    await runsCommands(conn, tmux.paneId);
  } finally {
    await conn?.close();
    await tmux.close();
    await files.shutdown();
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("HTTP works under exactly --allow-run=tmux --allow-net=127.0.0.1:PORT", async () => {
  const tmux = await startTmux();
  const port = freePort();
  let conn: Connection | null = null;
  try {
    conn = await startServer("http", {
      socketName: tmux.socketName,
      port,
      permissions: ["--allow-run=tmux", `--allow-net=127.0.0.1:${port}`],
    });
    await runsCommands(conn, tmux.paneId);
  } finally {
    await conn?.close();
    await tmux.close();
  }
});

Deno.test("without --allow-net, --http fails at once with the flag to add", async () => {
  const port = freePort();
  const { code, stderr } = await runServerToExit(["--allow-run=tmux"], [
    "--http",
    "--port",
    String(port),
  ]);
  assertEquals(code, 1);
  assertMatch(
    stderr,
    new RegExp(
      `not permitted to listen on 127\\.0\\.0\\.1:${port}: run with --allow-net=127\\.0\\.0\\.1:${port}`,
    ),
  );
  assert(!stderr.includes("    at "), "stack trace in the message");
});

Deno.test("without --allow-run=tmux, tools answer tmux_unavailable with the flag to add", async () => {
  const tmux = await startTmux();
  let conn: Connection | null = null;
  try {
    conn = await startServer("stdio", { socketName: tmux.socketName, permissions: [] });
    const result = await conn.client.callTool({
      name: "run_command",
      arguments: { command: "true", pane_id: tmux.paneId },
    }) as CallToolResult;
    assertEquals(result.isError, true);
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    assertMatch(
      text,
      /^tmux_unavailable: not permitted to run tmux: start the server with --allow-run=tmux/,
    );
  } finally {
    await conn?.close();
    await tmux.close();
  }
});

Deno.test("bad flags exit 2 with a message, --help and --version exit 0", async () => {
  const bad = await runServerToExit([], ["--bogus"]);
  assertEquals(bad.code, 2);
  assertMatch(bad.stderr, /tmux-mcp: .*bogus/);
  assertEquals((await runServerToExit([], ["--version"])).code, 0);
  assertEquals((await runServerToExit([], ["--help"])).code, 0);
});
