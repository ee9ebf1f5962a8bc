// Granted panes (--granted-panes): the agent acts only on panes a person granted, by a key
// binding's option, `tmux-mcp grant`, or a yes to the client's prompt (MCP elicitation), and on
// what it made; reading tools work everywhere; every grant is in the audit log.

import {
  assert,
  assertEquals,
  assertMatch,
  type CallToolResult,
  ElicitRequestSchema,
} from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";

type Json = Record<string, unknown>;

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const SHELL = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile";

async function callTool(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

async function ran(conn: Connection, pane: string, command = "echo ran"): Promise<CallToolResult> {
  return await callTool(conn, "run_command", { pane_id: pane, command, timeout: 10 });
}

function granted(result: CallToolResult): boolean {
  return !result.isError && (result.structuredContent as Json).exit_status === 0;
}

/** `tmux-mcp grant|revoke` as a person runs it. */
async function grantCli(verb: string, target: string, socket: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-run=tmux", "--allow-env", MAIN, verb, target, "-L", socket],
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
}

Deno.test("granted panes: refused until a person grants, by binding or command line; what the agent makes is its own", async () => {
  const extraArgs = ["--granted-panes", "--toolsets", "all", "--audit-log"];
  await withServer("stdio", { extraArgs }, async (conn, tmux) => {
    const pane = tmux.paneId;
    const refused = await ran(conn, pane);
    assert(refused.isError, textOf(refused));
    assertMatch(textOf(refused), /^out_of_scope: pane %\d+ in session "main".* is not granted/);
    // Reading works everywhere; the listing says what is granted.
    const read = await callTool(conn, "capture_pane", { pane_id: pane });
    assert(!read.isError, textOf(read));
    const listed = (await callTool(conn, "list_panes", {})).structuredContent as Json;
    assertEquals((listed.panes as Json[])[0].agent_granted, false);
    // The key binding's way: the pane option, set and unset.
    await tmux.run("set-option", "-p", "-t", pane, "@tmux_mcp_grant", "1");
    assert(granted(await ran(conn, pane)));
    await tmux.run("set-option", "-p", "-u", "-t", pane, "@tmux_mcp_grant");
    assert((await ran(conn, pane)).isError);
    // The command line's way.
    await grantCli("grant", pane, tmux.socketName);
    assert(granted(await ran(conn, pane)));
    await grantCli("revoke", pane, tmux.socketName);
    assert((await ran(conn, pane)).isError);
    // A session the agent made, and a pane it split off there, are its own.
    const made = (await callTool(conn, "create_session", { name: "agent", command: SHELL }))
      .structuredContent as Json;
    const inMade = await ran(conn, made.pane_id as string);
    assert(granted(inMade), textOf(inMade));
    const split = await callTool(conn, "split_window", { pane_id: made.pane_id, command: SHELL });
    assert(granted(await ran(conn, (split.structuredContent as Json).pane_id as string)));
    // A split of a pane not granted is refused like any change there.
    assert((await callTool(conn, "split_window", { pane_id: pane })).isError);
    // Every grant and revocation seen is in the audit log.
    const events = conn.stderr().split("\n").filter((line) => line.includes('"event"'));
    assertEquals(
      events.map((line) => JSON.parse(line).event),
      ["grant_seen", "revoke_seen", "grant_seen", "revoke_seen"],
    );
  });
});

Deno.test("granted panes: the client's prompt asks the person, and their answer holds", async () => {
  const answers: Json[] = [
    { action: "accept", content: { grant: "pane" } },
    { action: "accept", content: { grant: "no" } },
    { action: "decline" },
    { action: "cancel" },
  ];
  const asked: string[] = [];
  await withServer("stdio", {
    extraArgs: ["--granted-panes"],
    clientCapabilities: { elicitation: { form: {} } },
  }, async (conn, tmux) => {
    conn.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return Promise.resolve(answers.shift()! as { action: "accept" });
    });
    const pane = tmux.paneId;
    assert(granted(await ran(conn, pane)));
    assertMatch(asked[0], /The agent asks to use pane %\d+ in session "main".*\(run_command\)/);
    // Granted for good: no second question.
    assert(granted(await ran(conn, pane)));
    assertEquals(asked.length, 1);
    const other = await tmux.newPane();
    // "no", a declined prompt, a cancelled one: refused, nothing granted.
    for (let i = 0; i < 3; i++) {
      const said = await ran(conn, other);
      assertMatch(textOf(said), /^out_of_scope: .*not granted.*: the person said no/);
    }
    assertEquals(asked.length, 4);
    const option = await tmux.run("show-options", "-p", "-t", other);
    assert(!option.includes("@tmux_mcp_grant"), option);
  });
});
