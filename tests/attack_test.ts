// What an outside attack found, each as a class of input, through a real MCP client: the server
// refuses or survives it, keeps serving, and leaves nothing in tmux.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { assertNoLeftovers } from "./helpers/leaks.ts";
import {
  type Connection,
  INITIALIZE_REQUEST,
  serverCommand,
  textOf,
  withServer,
} from "./helpers/mcp.ts";
import { startTmux, until } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

async function call(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

Deno.test("readonly: no format a caller writes can run a shell job, whatever the pane stored", async () => {
  await withServer(
    "stdio",
    { extraArgs: ["--safety", "readonly", "--toolsets", "all"] },
    async (conn, tmux) => {
      const dir = await Deno.makeTempDir();
      try {
        const marker = `${dir}/ran`;
        const job = `#(touch ${marker})`;
        // A hostile program stores a shell job in the pane's title and path.
        await tmux.run("send-keys", "-t", tmux.paneId, "-l", `printf '\\033]2;${job}\\033\\\\'\r`);
        await until(
          "the title is set",
          async () =>
            (await tmux.run("display-message", "-p", "-t", tmux.paneId, "#{pane_title}")).trim() ===
              job,
        );
        const formats = [
          "#{E;=999:pane_title}",
          "#{T;=9:pane_title}",
          "#{E;s/X/Y/:pane_title}",
          "#{S:#{E:pane_title}}",
          "#{P:#{E:pane_title}}",
          "#{W:#{E:pane_title}}",
          "#{#{E:pane_title}}",
          "#{E:pane_title}",
          "#{T:pane_title}",
          "#{?pane_active,#{E:pane_title},}",
          "#{l:#(true)}",
          job,
          "##(true)#(true)",
          "#[fg=red]",
          "#{pane_title",
          "#",
        ];
        for (const format of formats) {
          const result = await call(conn, "display_message", { pane_id: tmux.paneId, format });
          assertEquals(result.isError, true, `${format} was accepted: ${textOf(result)}`);
          assertMatch(textOf(result), /^invalid_argument: format refused/);
        }
        // Give a job that did start time to run, then look.
        await new Promise((r) => setTimeout(r, 300));
        assertEquals(
          await Deno.stat(marker).then(() => true, () => false),
          false,
          "a shell job ran",
        );
        const plain = await call(conn, "display_message", {
          pane_id: tmux.paneId,
          format: "#{pane_title} ## #S #{session_name}:#{@unset_option} #{pane_id}",
        });
        assert(!plain.isError, textOf(plain));
        assertEquals(
          (plain.structuredContent as Json).text,
          `${job} # main main: ${tmux.paneId}`,
        );
        await assertNoLeftovers(tmux, conn.serverPid);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
});

Deno.test("names are stored exactly as given or refused", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const good = `✓€ a-b_c d+e=f@g%h,i/j~k!l?m&n|o*p^q'r"s\`t<u>v(w)x[y]z{1};2#3##4 日本 é`;
    const created = await call(conn, "create_session", { name: good, window_name: `w ${good}` });
    assert(!created.isError, textOf(created));
    const ids = created.structuredContent as Json;
    assertEquals(ids.session_name, good);
    const stored = async (format: string, target: string) =>
      (await tmux.run("display-message", "-p", "-t", target, format)).replace(/\n$/, "");
    assertEquals(await stored("#{session_name}", ids.session_id as string), good);
    assertEquals(await stored("#{window_name}", ids.window_id as string), `w ${good}`);
    const renamed = await call(conn, "rename_session", {
      session_id: ids.session_id,
      new_name: `r${good}`,
    });
    assert(!renamed.isError, textOf(renamed));
    assertEquals(await stored("#{session_name}", ids.session_id as string), `r${good}`);
    const window = await call(conn, "rename_window", {
      window_id: ids.window_id,
      new_name: `x${good}`,
    });
    assert(!window.isError, textOf(window));
    assertEquals(await stored("#{window_name}", ids.window_id as string), `x${good}`);
    for (const bad of ["a\\b", "a$b", "x#[fg=red]", "a:b", "a.b", "a\tb", "\u0007"]) {
      for (
        const [tool, args] of [
          ["create_session", { name: bad }],
          ["rename_session", { session_id: ids.session_id, new_name: bad }],
          ["rename_window", { window_id: ids.window_id, new_name: bad }],
          ["create_window", { name: bad }],
        ] as const
      ) {
        const result = await call(conn, tool, args);
        assertEquals(result.isError, true, `${tool} took ${JSON.stringify(bad)}`);
      }
    }
    assertEquals(await stored("#{session_name}", ids.session_id as string), `r${good}`);
    // Titles and option values: exactly as given, or refused.
    const pane = ids.pane_id as string;
    const title = await call(conn, "set_pane_title", { pane_id: pane, title: `t ${good} \\ $` });
    assertEquals((title.structuredContent as Json).title, `t ${good} \\ $`);
    const styled = await call(conn, "set_pane_title", { pane_id: pane, title: "x#[fg=red]" });
    assertEquals(styled.isError, true, "a title with #[ was stored changed");
    // Option values are stored as they are (set-option expands nothing), never run.
    const value = "#(true) #{E:pane_title} a#[b";
    await call(conn, "set_option", { name: "@x", value, scope: "pane", pane_id: pane });
    assertEquals(await stored("#{@x}", pane), value);
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});

Deno.test("stdio: a line over the size limit, or not JSON-RPC, is answered with an error and the server keeps serving", async () => {
  const tmux = await startTmux();
  const [program, ...args] = serverCommand("stdio", { socketName: tmux.socketName });
  const child = new Deno.Command(program, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const replies: Json[] = [];
  const reading = (async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        replies.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
      }
    }
  })();
  const send = (text: string) => writer.write(encoder.encode(text));
  try {
    await send(INITIALIZE_REQUEST + "\n");
    await until("initialized", () => Promise.resolve(replies.some((r) => r.id === 1)));
    await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    // 11 MiB in one line, in pieces, as a client would write it.
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "ping",
      params: { x: "a".repeat(11 * 1024 * 1024) },
    });
    for (let i = 0; i < big.length; i += 1 << 20) await send(big.slice(i, i + (1 << 20)));
    await send("\n");
    await send("this is not json\n");
    await send('{"jsonrpc":"2.0","id":3}\n');
    await send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }) + "\n");
    await until("tools/list answered", () => Promise.resolve(replies.some((r) => r.id === 4)));
    // The oversized line and the one that is not JSON name no request; the third names its id.
    const errors = replies.filter((r) => r.error).map((r) => [r.id, (r.error as Json).code]);
    assertEquals(errors, [[null, -32600], [null, -32700], [3, -32600]]);
    assert(((replies.find((r) => r.id === 4)!.result as Json).tools as unknown[]).length > 0);
    // The size limit did not close the server: end of input does.
    await writer.close();
    const status = await child.status;
    assertEquals(status.code, 0);
    await reading;
  } finally {
    try {
      child.kill();
    } catch {
      // Already exited.
    }
    await child.status;
    await tmux.close();
  }
});

Deno.test("pane text that ends a control-mode block early cannot shorten a result", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    // tmux numbers commands with one counter for all clients: a program in a pane can learn it.
    const probe = new Deno.Command("tmux", {
      args: ["-L", tmux.socketName, "-C", "attach", "-t", "main"],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = probe.stdin.getWriter();
    await writer.write(new TextEncoder().encode("display-message -p x\n"));
    await writer.close();
    const seen = new TextDecoder().decode((await probe.output()).stdout);
    const [, time, number] = seen.match(/%begin (\d+) (\d+) 1/)!;
    const script = `for t in ${time} ${+time + 1} ${+time + 2}; do n=${number}; ` +
      `while [ $n -lt ${+number + 400} ]; do echo "%end $t $n 1"; n=$((n+1)); done; done; ` +
      "echo tail-marker";
    await tmux.run("send-keys", "-t", tmux.paneId, "-l", `${script}\r`);
    await until(
      "the script ran",
      async () =>
        (await tmux.run("capture-pane", "-p", "-t", tmux.paneId)).includes("tail-marker\n"),
    );
    for (let i = 0; i < 3; i++) {
      // Everything in one result, to count what came back.
      const result = await call(conn, "capture_pane", {
        pane_id: tmux.paneId,
        scrollback: true,
        max_lines: 5000,
        max_output_bytes: 256 * 1024,
      });
      const out = result.structuredContent as { lines: string[]; truncated_lines: number };
      assertEquals(out.truncated_lines, 0);
      assert(
        out.lines.includes("tail-marker"),
        `a forged block end cut the capture at ${out.lines.length}`,
      );
      assertEquals(out.lines.filter((l) => l.startsWith("%end ")).length, 1200);
    }
    await assertNoLeftovers(tmux, conn.serverPid);
  });
});
