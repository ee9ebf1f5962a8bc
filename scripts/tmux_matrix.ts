/**
 * The compatibility suite on other tmux releases: `deno task matrix [VERSION...|--released]` builds
 * each one
 * with `../shared/tmux/build.sh` (cached) and runs the suites below with that tmux first on PATH:
 * every tool of every toolset once, the run_command contract in bash, zsh and dash, the crash
 * stress patterns, the leftover checks each of them ends with, and values read back exactly. It prints one line per version
 * and a closing `matrix: N passed, M failed` that leaves out the versions allowed to fail (tmux's
 * master branch), whose results are printed all the same. Exits 1 when a required version failed.
 *
 * @module
 */

/** The releases people run (see ../shared/tmux/README.md), oldest first, and the coming one. */
const VERSIONS = ["3.2a", "3.4", "3.5a", "3.6a", "3.7c", "master"];

/** Versions whose failures are printed but do not fail the matrix. */
const ALLOWED_TO_FAIL = new Set(["master"]);

const SUITES = [
  "tests/run_command_test.ts",
  "tests/toolset_test.ts",
  "tests/shells_test.ts",
  "tests/crash_stress_test.ts",
  "tests/format_roundtrip_test.ts",
  "tests/orphan_test.ts",
  // How the run function reaches a shell depends on what tmux reports of the pane (3.7's flag).
  "tests/footprint_test.ts",
  "tests/program_turn_test.ts",
  // A person's keys are what tmux says of its clients (list-clients, client_activity).
  "tests/person_test.ts",
  // Titles (3.7 rewrites `#(` in them) and the guard's source-file, on every release.
  "tests/activity_mark_test.ts",
  // The styled capture an image is drawn from, and the output stream a recording replays.
  "tests/screenshot_test.ts",
  "tests/recording_test.ts",
  // Whether a shell started by the server reads yet: what tmux names its foreground program.
  "tests/ready_test.ts",
  // The agents' hook lines (`set -pF` with tmux's clock) and the look at many panes at once.
  "tests/agent_state_test.ts",
];

const BUILD = new URL("../../shared/tmux/build.sh", import.meta.url).pathname;

/** One version's outcome. */
interface Outcome {
  version: string;
  passed: number;
  failed: number;
  seconds: number;
  /** Why it has no test counts (the build failed, say); null when the tests ran. */
  problem: string | null;
}

async function build(version: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [BUILD, version],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const bin = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  if (!out.success || bin === "") throw new Error(`building tmux ${version} failed`);
  return bin.slice(0, bin.lastIndexOf("/"));
}

async function runSuites(version: string, binDir: string): Promise<Outcome> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...["test", "--parallel", "--allow-run", "--allow-env", "--allow-read", "--allow-write"],
      ...["--allow-net=127.0.0.1", ...SUITES],
    ],
    // Files three at a time, as `deno task test` runs them: the suites wait on shells far more
    // than they compute.
    env: { PATH: `${binDir}:${Deno.env.get("PATH") ?? ""}`, NO_COLOR: "1", DENO_JOBS: "3" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.status;
  const output = stdout + stderr;
  console.log(output.split("\n").filter((line) => /FAILED|^error|^ok \|/.test(line)).join("\n"));
  const summary = [...output.matchAll(/^(?:ok|FAILED) \| (\d+) passed.*?\| (\d+) failed/gm)].at(-1);
  const seconds = Math.round((performance.now() - started) / 1000);
  if (summary === undefined) {
    console.log(output.slice(-4000));
    return { version, passed: 0, failed: 1, seconds, problem: "the tests did not report" };
  }
  return {
    version,
    passed: Number(summary[1]),
    failed: Number(summary[2]),
    seconds,
    problem: null,
  };
}

async function main(): Promise<number> {
  // `--released`: the releases only (CI, within its time budget); master runs when asked for.
  const versions = Deno.args.length === 0
    ? VERSIONS
    : Deno.args.includes("--released")
    ? VERSIONS.filter((version) => !ALLOWED_TO_FAIL.has(version))
    : Deno.args;
  const outcomes: Outcome[] = [];
  for (const version of versions) {
    console.log(`== tmux ${version}`);
    try {
      outcomes.push(await runSuites(version, await build(version)));
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      outcomes.push({ version, passed: 0, failed: 1, seconds: 0, problem });
    }
  }
  console.log("\ntmux version matrix:");
  for (const o of outcomes) {
    const allowed = ALLOWED_TO_FAIL.has(o.version) ? " (allowed to fail)" : "";
    const what = o.problem ?? `${o.passed} passed, ${o.failed} failed`;
    console.log(`  ${o.version.padEnd(7)} ${what} in ${o.seconds} s${allowed}`);
  }
  const counted = outcomes.filter((o) => !ALLOWED_TO_FAIL.has(o.version));
  const passed = counted.reduce((sum, o) => sum + o.passed, 0);
  const failed = counted.reduce((sum, o) => sum + o.failed, 0);
  console.log(`matrix: ${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

Deno.exit(await main());
