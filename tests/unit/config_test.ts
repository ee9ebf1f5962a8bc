import { assert, assertEquals, assertMatch } from "../deps.ts";
import { configFromFlags } from "../../src/config.ts";
import { parseFlags } from "../../src/flags.ts";
import { ALL_TOOLS } from "../../src/tools/mod.ts";
import { TOOLSET_NAMES, toolsetOf, TOOLSETS } from "../../src/tools/define/toolsets.ts";

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("did not throw");
}

Deno.test("defaults: stdio, no socket, 30 s ceiling", () => {
  assertEquals(configFromFlags(parseFlags([])), {
    server: {
      socketName: null,
      waitMaxSeconds: 30,
      maxOutputBytes: 256 * 1024,
      suppressHistory: true,
      shareRuns: false,
      scope: null,
      grantedPanes: false,
      policy: { tier: "mutating", toolsets: ["core"], only: null, with: [], exclude: [] },
      ownPane: null,
      audit: false,
      control: true,
      activityTitle: true,
      channelEvents: false,
      recordDir: null,
      recordMaxBytes: 256 * 1024 * 1024,
      anySocket: false,
      tmuxTmpdir: null,
      remotes: [],
      ssh: { configFile: null, acceptNewHostKeys: false },
      remoteIdleSeconds: 900,
    },
    http: null,
    warnings: [],
  });
});

Deno.test("--http with host and port: a token is made unless refused with --no-token", () => {
  const config = configFromFlags(parseFlags(["--http", "--port", "0", "--socket-name", "s1"]));
  // On loopback too: every local account reaches 127.0.0.1.
  assertMatch(config.http?.token ?? "", /^[0-9a-f]{64}$/);
  assertEquals({ ...config.http, token: "made" }, {
    host: "127.0.0.1",
    port: 0,
    token: "made",
    tokenGenerated: true,
    sessionIdleSeconds: 1800,
  });
  assertEquals(config.server.socketName, "s1");
  const open = configFromFlags(parseFlags(["--http", "--no-token"]));
  assertEquals([open.http?.token, open.http?.tokenGenerated], [null, false]);
});

Deno.test("bad flags are clear errors", () => {
  assertMatch(message(() => parseFlags(["--bogus"])), /bogus/);
  assertMatch(
    message(() => configFromFlags(parseFlags(["--wait-max-seconds", "601"]))),
    /1 to 600/,
  );
  for (const name of ["../x", "..", "-L", "-"]) {
    assertMatch(message(() => configFromFlags(parseFlags(["--socket-name", name]))), /socket-name/);
  }
  assertMatch(
    message(() => configFromFlags(parseFlags(["--http", "--host", "0.0.0.0", "--no-token"]))),
    /refusing to serve HTTP on 0\.0\.0\.0 without a token/,
  );
  assertMatch(
    message(() => configFromFlags(parseFlags(["--http", "--no-token", "--generate-token"]))),
    /--no-token goes with no token/,
  );
  assertMatch(message(() => configFromFlags(parseFlags(["--http", "--token", "short"]))), /16/);
  assertMatch(message(() => configFromFlags(parseFlags(["--port", "80"]))), /go with --http/);
  assertMatch(message(() => configFromFlags(parseFlags(["--http", "--port", "x"]))), /--port/);
});

Deno.test("safety tiers: valid names, unknown ones fail closed to readonly", () => {
  const destructive = configFromFlags(parseFlags(["--safety", "destructive"]));
  assertEquals(destructive.server.policy.tier, "destructive");
  const bad = configFromFlags(parseFlags(["--safety", "everything"]));
  assertEquals(bad.server.policy.tier, "readonly");
  assertMatch(bad.warnings.join(), /unknown safety tier/);
  const lists = configFromFlags(
    parseFlags(["--tools", "run_command, send_keys", "--exclude-tools", "kill_pane"]),
  );
  assertEquals(lists.server.policy, {
    tier: "mutating",
    toolsets: ["core"],
    only: ["run_command", "send_keys"],
    with: [],
    exclude: ["kill_pane"],
  });
  assertMatch(
    message(() => configFromFlags(parseFlags(["--with-tools", "run_shell_comand"]))),
    /--with-tools: unknown tool "run_shell_comand"; the tools are run_command,/,
  );
});

Deno.test("toolsets: named ones, all, and an unknown name refused with the list", () => {
  const some = configFromFlags(parseFlags(["--toolsets", "layout, info"]));
  assertEquals(some.server.policy.toolsets, ["layout", "info"]);
  const all = configFromFlags(parseFlags(["--toolsets", "all"]));
  assertEquals(all.server.policy.toolsets.length, TOOLSET_NAMES.length);
  assertMatch(
    message(() => configFromFlags(parseFlags(["--toolsets", "core,layuot"]))),
    /unknown toolset "layuot": use core, fanout, read, input, info, layout, options, channels, recovery, screen, agents, background, compat or all/,
  );
});

Deno.test("every tool is in exactly one toolset, and the core set is at most 16 below destructive", () => {
  const names = ALL_TOOLS.map((spec) => spec.name).sort();
  const listed = TOOLSET_NAMES.flatMap((set) => [...TOOLSETS[set]]).sort();
  assertEquals(listed, names);
  const core = ALL_TOOLS.filter((spec) =>
    toolsetOf(spec.name) === "core" && spec.tier !== "destructive"
  );
  assert(core.length <= 16, `core offers ${core.length} tools by default`);
});

Deno.test("beyond loopback a token is required; --generate-token makes one", () => {
  const given = configFromFlags(
    parseFlags(["--http", "--host", "0.0.0.0", "--token", "x".repeat(20)]),
  );
  assertEquals([given.http?.host, given.http?.token], ["0.0.0.0", "x".repeat(20)]);
  const made = configFromFlags(parseFlags(["--http", "--host", "0.0.0.0", "--generate-token"]));
  assertMatch(made.http?.token ?? "", /^[0-9a-f]{64}$/);
  assertEquals(made.http?.tokenGenerated, true);
});

Deno.test("tokens: token68 characters only, from a file or the environment rather than argv", async () => {
  for (const bad of [" ".repeat(16), `${"a".repeat(15)} `, "a".repeat(15), "ä".repeat(20)]) {
    assertMatch(
      message(() => configFromFlags(parseFlags(["--http", "--token", bad]))),
      /16 to 512 characters/,
      JSON.stringify(bad),
    );
  }
  const argv = configFromFlags(parseFlags(["--http", "--token", "t".repeat(16)]));
  assertMatch(argv.warnings.join("\n"), /visible to other users in ps/);
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(file, `${"f".repeat(32)}\n`);
    const fromFile = configFromFlags(parseFlags(["--http", "--token-file", file]));
    assertEquals([fromFile.http?.token, fromFile.warnings], ["f".repeat(32), []]);
    await Deno.writeTextFile(file, " ".repeat(16));
    assertMatch(
      message(() => configFromFlags(parseFlags(["--http", "--token-file", file]))),
      /16 to 512/,
    );
    assertMatch(
      message(() =>
        configFromFlags(parseFlags(["--http", "--token-file", file, "--token", "t".repeat(16)]))
      ),
      /not both/,
    );
  } finally {
    await Deno.remove(file);
  }
  assertMatch(
    message(() => configFromFlags(parseFlags(["--http", "--token-file", "/nonexistent/x"]))),
    /cannot read the token file/,
  );
});
