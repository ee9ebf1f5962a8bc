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
const SECURITY_PAGE = new URL("../docs/security.md", import.meta.url);
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

/** `tmux-mcp grant|revoke` as a person runs it: its exit code and what it said. */
async function cli(
  verb: string,
  target: string,
  socket: string,
): Promise<{ code: number; said: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-run=tmux", "--allow-env", MAIN, verb, target, "-L", socket],
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, said: new TextDecoder().decode(out.stderr) };
}

/** `tmux-mcp grant|revoke` as a person runs it, which succeeds. */
async function grantCli(verb: string, target: string, socket: string): Promise<void> {
  const { code, said } = await cli(verb, target, socket);
  assertEquals(code, 0, said);
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
    // The key binding's way, as docs/security.md shows it: bound, then its command run as a key
    // press would run it, twice (granted, then taken back).
    const binding = /^\s*(bind-key G (.+))$/m.exec(await Deno.readTextFile(SECURITY_PAGE));
    assert(binding !== null, "docs/security.md shows no `bind-key G` line");
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/bind.conf`, `${binding[1]}\n`);
      await Deno.writeTextFile(`${dir}/press.conf`, `${binding[2]}\n`);
      await tmux.run("source-file", `${dir}/bind.conf`);
      await tmux.run("source-file", `${dir}/press.conf`);
      assert(granted(await ran(conn, pane)));
      await tmux.run("source-file", `${dir}/press.conf`);
      assert((await ran(conn, pane)).isError);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
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
    // A fan-out's panes, in every form that names one (the local host by its name too).
    for (const id of [pane, `local:${pane}`]) {
      const many = await callTool(conn, "run_command_many", { pane_ids: [id], command: "echo x" });
      assert(many.isError, textOf(many));
      assertMatch(textOf(many), /^out_of_scope: pane %\d+ .*is not granted/);
    }
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
    // "no", a declined prompt, a cancelled one: refused, nothing granted, and the pane is not
    // asked about again for a while (each in a pane of its own).
    for (let i = 0; i < 3; i++) {
      const other = await tmux.newPane();
      const said = await ran(conn, other);
      assertMatch(textOf(said), /^out_of_scope: .*not granted.*: the person said no \(not asked/);
      const again = await ran(conn, other);
      assertMatch(
        textOf(again),
        /: the person said no \d+ s ago, and is not asked again for \d+ s/,
      );
      const option = await tmux.run("show-options", "-p", "-t", other);
      assert(!option.includes("@tmux_mcp_grant"), option);
    }
    assertEquals(asked.length, 4);
  });
});

Deno.test("granted panes: calls on one pane share one prompt", async () => {
  let asked = 0;
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => answer = resolve);
  await withServer("stdio", {
    extraArgs: ["--granted-panes"],
    clientCapabilities: { elicitation: { form: {} } },
  }, async (conn, tmux) => {
    conn.client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      // The person answers once every call is waiting.
      await answered;
      return { action: "accept", content: { grant: "pane" } };
    });
    const pane = tmux.paneId;
    const calls = Array.from({ length: 8 }, () => ran(conn, pane));
    // The server asked (the first call), and the others wait on that same question: a listing
    // on the same connection answers after they were read.
    for (let i = 0; asked === 0 && i < 500; i++) await new Promise((r) => setTimeout(r, 20));
    await callTool(conn, "list_panes", {});
    answer();
    for (const result of await Promise.all(calls)) assert(granted(result), textOf(result));
    assertEquals(asked, 1);
  });
});

Deno.test("granted panes: the command line names a session exactly, and says what tmux holds after", async () => {
  await withServer("stdio", { extraArgs: ["--granted-panes"] }, async (_conn, tmux) => {
    // A session whose window is named "work", and one whose name begins with it.
    await tmux.run("new-session", "-d", "-s", "personal", "-n", "work");
    await tmux.run("new-session", "-d", "-s", "work-prod");
    const grantOf = async (session: string) =>
      (await tmux.run("show-options", "-t", `=${session}:`)).includes("@tmux_mcp_grant");
    const none = await cli("grant", "work", tmux.socketName);
    assertEquals(none.code, 1, none.said);
    assertMatch(none.said, /no session is named exactly "work"; there are: .*"personal"/);
    assert(!await grantOf("personal") && !await grantOf("work-prod"));
    await tmux.run("new-session", "-d", "-s", "work");
    const granted = await cli("grant", "work", tmux.socketName);
    assertMatch(
      granted.said,
      /every pane of session "work" \(\$\d+\) granted to the agent \(1 pane\)/,
    );
    assert(await grantOf("work") && !await grantOf("personal") && !await grantOf("work-prod"));
    // A pane of a granted session taken back: still granted, and said so.
    const pane = (await tmux.run("display-message", "-p", "-t", "=work:", "#{pane_id}")).trim();
    const still = await cli("revoke", pane, tmux.socketName);
    assertMatch(still.said, /1 of 1 pane is still granted/);
    const back = await cli("revoke", "work", tmux.socketName);
    assertMatch(back.said, /every pane of session "work" .* taken back from the agent$/m);
    assert(!await grantOf("work"));
  });
});
