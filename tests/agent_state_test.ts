// Many agents in many panes: list_panes with state names exactly the panes whose agent waits, and
// why, as the agents' own hook lines report it (docs/agents.md's Claude Code and Codex lines, run
// by a stand-in agent as those agents run them), and a killed agent leaves no ghost.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { type TestTmux, until, untilRunning } from "./helpers/tmux.ts";
import { seededRandom } from "./helpers/random.ts";

const AGENT = new URL("./fixtures/hooked_agent.py", import.meta.url).pathname;
const AGENTS_DOC = new URL("../docs/agents.md", import.meta.url).pathname;

/** The fenced blocks of a language under a heading of docs/agents.md. */
function blockUnder(heading: string, language: string): string {
  const doc = Deno.readTextFileSync(AGENTS_DOC);
  const section = doc.split(/^### /m).find((part) => part.startsWith(`${heading}\n`));
  assert(section !== undefined, `docs/agents.md has no section ${heading}`);
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)\\n```").exec(section);
  assert(block !== null, `docs/agents.md's ${heading} has no ${language} block`);
  return block[1];
}

/** The stand-in's configuration files, by agent (Codex with hooks, and with notify only). */
type Configs = { claude: string; codex: string; codex_hooks: string };

/** The configuration files the stand-in reads, written from the page's blocks. */
function writeConfigs(dir: string): Configs {
  const claude = `${dir}/claude.json`;
  Deno.writeTextFileSync(claude, blockUnder("Claude Code", "json"));
  // Codex's line is TOML whose array of basic strings reads as JSON.
  const notify = blockUnder("Codex", "toml").replace(/^notify = /, "");
  const codex = `${dir}/codex.json`;
  Deno.writeTextFileSync(codex, JSON.stringify({ notify: JSON.parse(notify) }));
  const codexHooks = `${dir}/codex_hooks.json`;
  Deno.writeTextFileSync(codexHooks, blockUnder("Codex", "json"));
  return { claude, codex, codex_hooks: codexHooks };
}

type Json = Record<string, unknown>;

/**
 * Runs `body` against a fresh tmux server and a server process (`args` its flags), with the
 * stand-in's configurations written from docs/agents.md into a directory removed after.
 */
async function withAgents(
  args: string[],
  body: (conn: Connection, tmux: TestTmux, configs: Configs) => Promise<void>,
): Promise<void> {
  const dir = Deno.makeTempDirSync({ prefix: "tmux-mcp-agents-" });
  try {
    const configs = writeConfigs(dir);
    await withServer("stdio", { extraArgs: args }, (conn, tmux) => body(conn, tmux, configs));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

interface Expected {
  state: "working" | "waiting" | "done" | null;
  reason: string | null;
  source: "reported" | "inferred" | null;
  message: string | null;
}

interface StatePane {
  pane_id: string;
  state: {
    needs_you: boolean;
    agent: { state: string; reason: string | null; source: string; message: string | null } | null;
  };
}

async function states(conn: Connection): Promise<Map<string, StatePane>> {
  const result = await conn.client.callTool({
    name: "list_panes",
    arguments: { state: true },
  }) as CallToolResult;
  assert(!result.isError, textOf(result));
  const panes = (result.structuredContent as { panes: StatePane[] }).panes;
  return new Map(panes.map((pane) => [pane.pane_id, pane]));
}

/** One stand-in agent in a pane: the keys it is sent, the steps it finished. */
interface Agent {
  pane: string;
  kind: keyof Configs;
  steps: number;
  /** What it is doing now: at its prompt, paused in a turn ("work"), asking ("ask"). */
  at: "prompt" | "work" | "ask";
  expected: Expected;
}

async function keys(tmux: TestTmux, agent: Agent, ...keys: string[]): Promise<void> {
  await tmux.run("send-keys", "-t", agent.pane, ...keys);
}

/** Waits until the stand-in printed the end of its next step. */
async function stepDone(tmux: TestTmux, agent: Agent): Promise<void> {
  agent.steps++;
  const mark = new RegExp(`ok${agent.steps}\\b`);
  const screen = () => tmux.run("capture-pane", "-p", "-J", "-S", "-", "-t", agent.pane);
  await until(`${agent.pane} step ${agent.steps}`, async () => mark.test(await screen()))
    .catch(async (error) => {
      throw new Error(`${error.message}; the pane shows:\n${await screen()}`);
    });
}

const INFERRED_WAITING: Expected = {
  state: "waiting",
  reason: "input",
  source: "inferred",
  message: null,
};

async function startAgent(
  tmux: TestTmux,
  kind: keyof Configs,
  config: string,
): Promise<Agent> {
  const pane = await tmux.newPane();
  const agent: Agent = { pane, kind, steps: 0, at: "prompt", expected: INFERRED_WAITING };
  await keys(tmux, agent, `python3 ${AGENT} ${kind} ${config}`, "Enter");
  await until(`${pane}: the stand-in is ready`, async () => {
    return (await tmux.run("capture-pane", "-p", "-t", pane)).includes("agent ready");
  });
  return agent;
}

/** One transition of one agent, chosen from what it can do now; its expected state after. */
async function transition(tmux: TestTmux, agent: Agent, pick: number): Promise<void> {
  const reported = (state: Expected["state"], reason: string | null, message: string | null) =>
    agent.expected = { state, reason, source: "reported", message };
  if (agent.at === "work") {
    await keys(tmux, agent, "g");
    await stepDone(tmux, agent);
    agent.at = "prompt";
    return void reported("done", null, "krow");
  }
  if (agent.at === "ask") {
    await keys(tmux, agent, "y");
    await stepDone(tmux, agent);
    agent.at = "prompt";
    return void reported("done", null, "ksa");
  }
  // Codex's notify reports turn ends only: its stand-in gets plain prompts; Codex's hooks have
  // no idle notification.
  const choice = agent.kind === "codex" ? 0 : pick % (agent.kind === "codex_hooks" ? 3 : 4);
  if (choice === 0) {
    const prompt = `hi ${agent.steps}`;
    await keys(tmux, agent, "-l", prompt);
    await keys(tmux, agent, "Enter");
    await stepDone(tmux, agent);
    return void reported("done", null, [...prompt].reverse().join(""));
  }
  if (choice === 1) {
    await keys(tmux, agent, "-l", "work");
    await keys(tmux, agent, "Enter");
    await stepDone(tmux, agent);
    agent.at = "work";
    return void reported("working", null, null);
  }
  if (choice === 2) {
    await keys(tmux, agent, "-l", "ask");
    await keys(tmux, agent, "Enter");
    await stepDone(tmux, agent);
    agent.at = "ask";
    // Codex's PermissionRequest says what the tool asks for: its description (the stand-in's
    // "Run the tests", for "make test").
    const asked = agent.kind === "claude"
      ? "Claude needs your permission to use Bash"
      : "Run the tests";
    return void reported("waiting", "permission", asked);
  }
  await keys(tmux, agent, "-l", "idle");
  await keys(tmux, agent, "Enter");
  await stepDone(tmux, agent);
  reported("waiting", "idle", "Claude is waiting for your input");
}

function check(agents: readonly Agent[], seen: Map<string, StatePane>, when: string): string[] {
  const wrong: string[] = [];
  for (const agent of agents) {
    const pane = seen.get(agent.pane);
    const got = pane?.state.agent ?? null;
    const want = agent.expected;
    const same = want.state === null
      ? got === null
      : got !== null && got.state === want.state && got.reason === want.reason &&
        got.source === want.source && got.message === want.message;
    const needs = want.state !== null && want.state !== "working";
    if (!same || pane?.state.needs_you !== needs) {
      wrong.push(
        `${when}: ${agent.pane} (${agent.kind}) ${JSON.stringify(pane?.state)}, ` +
          `expected ${JSON.stringify(want)}`,
      );
    }
  }
  return wrong;
}

testNeeding(
  ["python3"],
  "list_panes with state names exactly the panes waiting and why, over 200 transitions",
  () =>
    withAgents([], async (conn, tmux, configs) => {
      const agents: Agent[] = [];
      const kinds = ["claude", "claude", "claude", "codex", "codex_hooks", "codex_hooks"] as const;
      for (const kind of kinds) {
        agents.push(await startAgent(tmux, kind, configs[kind]));
      }
      const wrong = check(agents, await states(conn), "at start");
      const random = seededRandom(54);
      for (let i = 0; i < 200; i++) {
        await transition(tmux, random.pick(agents), random.int(0, 999));
        wrong.push(...check(agents, await states(conn), `transition ${i}`));
      }
      assertEquals(wrong.slice(0, 5), [], `${wrong.length} wrong of 200 transitions`);
    }),
);

testNeeding(
  ["python3"],
  "a killed agent's state is gone by the next call; the mark names the agent's own process",
  () =>
    withAgents([], async (conn, tmux, configs) => {
      const agent = await startAgent(tmux, "claude", configs.claude);
      await transition(tmux, agent, 2);
      assertEquals(check([agent], await states(conn), "asking"), []);
      const mark = (await tmux.run("show-options", "-p", "-v", "-t", agent.pane, "@tmux_mcp_agent"))
        .trim();
      const pid = Number(mark.split(" ")[1]);
      const program =
        (await tmux.run("display-message", "-p", "-t", agent.pane, "#{pane_current_command}"))
          .trim();
      assertEquals(program, "python3");
      // The hook's $PPID is the agent itself.
      const command = await new Deno.Command("ps", { args: ["-o", "args=", "-p", String(pid)] })
        .output();
      const args = new TextDecoder().decode(command.stdout);
      assert(args.includes("hooked_agent.py"), args);
      Deno.kill(pid, "SIGKILL");
      await untilRunning(tmux, agent.pane, "bash");
      // The mark is still there (nobody removed it); it counts for nothing.
      assert(
        (await tmux.run("show-options", "-p", "-t", agent.pane)).includes("@tmux_mcp_agent"),
      );
      agent.expected = { state: null, reason: null, source: null, message: null };
      assertEquals(check([agent], await states(conn), "killed"), []);
    }),
);

Deno.test("docs/agents.md's Gemini CLI and aider lines are the ones the tests run", () => {
  // Every hook line of the page sets the state as the Claude Code lines the tests run do.
  const tested = new Set<string>();
  const claude = JSON.parse(blockUnder("Claude Code", "json")) as Hooks;
  for (const command of commandsOf(claude)) tested.add(command);
  const gemini = JSON.parse(blockUnder("Gemini CLI", "json")) as Hooks;
  const untested = commandsOf(gemini).filter((command) => !tested.has(command));
  assertEquals(untested, []);
  const aider = blockUnder("aider", "yaml").split("\n");
  assertEquals(aider[0], "notifications: true");
  const line = /^notifications-command: '([^']*)'$/.exec(aider[1])?.[1];
  // The same line as Claude Code's waiting ones, for the reason aider has: input.
  assertEquals(
    line,
    'tmux set -pF -t "$TMUX_PANE" @tmux_mcp_agent "waiting $PPID #{T:#{l:%s}} input" \\; ' +
      "wait-for -S tmux_mcp_agent",
  );
});

type Hooks = { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };

function commandsOf(config: Hooks): string[] {
  return Object.values(config.hooks).flat().flatMap((group) => group.hooks)
    .map((hook) => hook.command);
}

testNeeding(
  ["python3"],
  "wait_for_panes answers which pane needs you and why, woken by the agent's hook line",
  () =>
    withAgents(["--toolsets", "core,agents"], async (conn, tmux, configs) => {
      const agents: Agent[] = [];
      for (const kind of ["claude", "claude", "codex_hooks", "codex"] as const) {
        const agent = await startAgent(tmux, kind, configs[kind]);
        await transition(tmux, agent, 0);
        agents.push(agent);
      }
      const wait = (args: Record<string, unknown>) =>
        conn.client.callTool({ name: "wait_for_panes", arguments: args }) as Promise<
          CallToolResult
        >;
      const paneIds = agents.map((agent) => agent.pane);
      // Every agent is done: one that waits answers at once, unless only changes count.
      const at = await wait({ pane_ids: paneIds, timeout: 5 });
      assertEquals((at.structuredContent as { outcome: string }).outcome, "needs_you");
      const none = await wait({ pane_ids: paneIds, only_new: true, timeout: 1 });
      assertEquals(none.structuredContent, {
        outcome: "timeout",
        pane: null,
        why: null,
        pattern: null,
        text: [],
        panes: 4,
      });
      const unknown = await wait({ pane_ids: [paneIds[0], "%999"], timeout: 5 });
      assert(unknown.isError, JSON.stringify(unknown));
      assertMatch(textOf(unknown), /no such pane here: %999/);
      const waiting = wait({ pane_ids: paneIds, only_new: true, timeout: 20 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await transition(tmux, agents[1], 2);
      // How soon it answers is the bench's (wait_for_panes_woken_ms).
      const answer = await waiting;
      const end = answer.structuredContent as { outcome: string; pane: StatePane };
      assertEquals([end.outcome, end.pane.pane_id], ["needs_you", agents[1].pane]);
      assertEquals(check([agents[1]], new Map([[agents[1].pane, end.pane]]), "waited"), []);
      assertMatch(
        textOf(answer),
        /^%\d+ needs you \(agent\)\n%\d+ python3 waiting \(permission\)/,
      );
      // What the pane wrote since: its whole screen the first time, then what is new.
      assert(
        (answer.structuredContent as { text: string[] }).text.some((line) =>
          line.includes("Allow Bash?")
        ),
      );
      // A program that ends, and a pattern that shows, need their caller too.
      const shell = await tmux.newPane();
      await tmux.run("send-keys", "-t", shell, "sleep 1", "Enter");
      await untilRunning(tmux, shell, "sleep");
      const ended = (await wait({ pane_ids: [shell], timeout: 10 })).structuredContent as Json;
      assertEquals([ended.outcome, ended.why], ["needs_you", "ended"]);
      const printing = wait({
        pane_ids: [shell],
        patterns: ["BUILD-OK"],
        only_new: true,
        timeout: 10,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tmux.run("send-keys", "-t", shell, "sleep 0.5; echo BUILD-''OK", "Enter");
      const shown = (await printing).structuredContent as Json;
      assertEquals([shown.why, shown.pattern], ["pattern", "BUILD-OK"]);
      // Only what came since the last answer naming the pane: not the sleep of before.
      const text = shown.text as string[];
      assert(text.includes("BUILD-OK"), text.join("\n"));
      assert(!text.some((line) => line.endsWith("$ sleep 1")), text.join("\n"));
    }),
);

testNeeding(
  ["python3"],
  "hand_off submits a prompt once and reads back the agent's answer, up to its report",
  () =>
    withAgents(["--toolsets", "core,agents"], async (conn, tmux, configs) => {
      const agent = await startAgent(tmux, "claude", configs.claude);
      const handOff = async (prompt: string) => {
        const result = await conn.client.callTool({
          name: "hand_off",
          arguments: { pane_id: agent.pane, prompt, timeout: 20 },
        }) as CallToolResult;
        assert(!result.isError, textOf(result));
        const out = result.structuredContent as { answer: HandOffAnswer; chrome_lines: number };
        return { ...out.answer, chrome: out.chrome_lines };
      };
      // Two lines: one paste, one prompt, one turn.
      const done = await handOff("hello there\nsecond line");
      assertEquals([done.outcome, done.agent?.state, done.agent?.message], [
        "agent",
        "done",
        "enil dnoces / ereht olleh",
      ]);
      // The answer whole, and without the composer line its screen showed before the prompt too.
      assertEquals([done.lines, done.chrome], [[
        "answer<enil dnoces / ereht olleh>",
        "done ok1",
      ], 1]);
      const screen = await tmux.run("capture-pane", "-p", "-J", "-S", "-", "-t", agent.pane);
      assertEquals(screen.match(/ok\d+/g), ["ok1"]);
      // A turn that stops at a permission prompt answers there; the answer to it goes on.
      const asked = await handOff("ask twice");
      assertEquals([asked.outcome, asked.agent?.state, asked.agent?.reason], [
        "agent",
        "waiting",
        "permission",
      ]);
      assert(
        asked.lines.some((line) => line.startsWith("Allow Bash?")),
        asked.lines.join("\n"),
      );
      const allowed = await handOff("y");
      assertEquals([allowed.agent?.state, allowed.agent?.message], ["done", "eciwt ksa"]);
    }),
);

interface HandOffAnswer {
  outcome: string;
  chrome: number;
  lines: string[];
  agent?: { state: string; reason: string | null; message: string | null };
}

testNeeding(
  ["python3"],
  "a client subscribed to tmux://agents is told when an agent needs it, with no call",
  () =>
    withAgents([], async (conn, tmux, configs) => {
      const seen: Array<{ method: string; params?: unknown }> = [];
      conn.client.fallbackNotificationHandler = (notification) => {
        seen.push(notification);
        return Promise.resolve();
      };
      const agents = [
        await startAgent(tmux, "claude", configs.claude),
        await startAgent(tmux, "claude", configs.claude),
      ];
      await conn.client.subscribeResource({ uri: "tmux://agents" });
      await transition(tmux, agents[1], 2);
      await until(
        "the update is pushed",
        () => Promise.resolve(seen.some((n) => n.method === "notifications/resources/updated")),
      );
      assertEquals(seen.find((n) => n.method === "notifications/resources/updated")?.params, {
        uri: "tmux://agents",
      });
      const read = await conn.client.readResource({ uri: "tmux://agents" });
      const body = JSON.parse((read.contents[0] as { text: string }).text) as {
        panes: Array<{ pane_id: string; state: string; reason: string }>;
      };
      assertEquals(
        body.panes.map((pane) => [pane.pane_id, pane.state, pane.reason]),
        [[agents[1].pane, "waiting", "permission"]],
      );
    }),
);

Deno.test("a mark naming a process off the pane's terminal counts for nothing; a message's #(...) never runs", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = await tmux.newPane();
    const other = await tmux.newPane();
    await tmux.run("send-keys", "-t", pane, "exec cat", "Enter");
    await untilRunning(tmux, pane, "cat");
    const pidOf = async (target: string, format: string): Promise<number> =>
      Number((await tmux.run("display-message", "-p", "-t", target, format)).trim());
    const cat = await pidOf(pane, "#{pane_pid}");
    const dir = Deno.makeTempDirSync({ prefix: "tmux-mcp-forged-" });
    try {
      const ran = `${dir}/ran`;
      // Set as the documented lines set it: the message without -F, so tmux expands nothing.
      const message = JSON.stringify({ message: `#(touch ${ran}) needs you` });
      await tmux.run("set-option", "-p", "-t", pane, "@tmux_mcp_agent_message", message);
      const mark = (pid: number) => `waiting ${pid} ${Math.floor(Date.now() / 1000)} permission`;
      const agentOf = async () => {
        const seen = (await states(conn)).get(pane);
        assert(seen !== undefined, `${pane} is not listed`);
        return seen.state.agent;
      };
      // Live processes on another terminal (another pane's shell), and on none (tmux itself).
      for (const pid of [await pidOf(other, "#{pane_pid}"), await pidOf(pane, "#{pid}")]) {
        await tmux.run("set-option", "-p", "-t", pane, "@tmux_mcp_agent", mark(pid));
        const agent = await agentOf();
        assert(
          agent?.source !== "reported",
          `a mark naming ${pid} counted: ${JSON.stringify(agent)}`,
        );
      }
      // The pane's own program is taken at its word, its message shown as written.
      await tmux.run("set-option", "-p", "-t", pane, "@tmux_mcp_agent", mark(cat));
      const agent = await agentOf();
      assertEquals(
        [agent?.source, agent?.state, agent?.reason, agent?.message],
        ["reported", "waiting", "permission", `#(touch ${ran}) needs you`],
      );
      const read = await conn.client.readResource({ uri: "tmux://agents" });
      assert(JSON.stringify(read.contents).includes(`#(touch ${ran})`));
      // Nor when a person's format shows the option.
      await tmux.run("list-panes", "-a", "-F", "#{@tmux_mcp_agent_message}");
      assertEquals(await Deno.stat(ran).then(() => "ran", () => "never ran"), "never ran");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
});
