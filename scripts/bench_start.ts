/**
 * The bench's start figures against the SDK floor (issue 53): our shipped server, a server made
 * of the same SDK and zod and nothing else (sdk_floor.ts), and an empty Deno program, each
 * bundled and started alike, started in turn: the time from spawn to the first tools/list
 * answered (the empty program: to its exit), and RSS right after.
 *
 * @module
 */

import { startServer } from "../tests/helpers/mcp.ts";
import { rssMB } from "./bench_fanout_flood.ts";
import type { Report } from "./bench_fanout_flood.ts";
import { median } from "./stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** Where the floor's and the empty program's bundles go. */
const OUT = `${ROOT}dist/bench`;

/** Options for {@linkcode startFigures}. */
export interface StartFiguresOptions {
  /** How the shipped server is started: the runtime and its flags, then the bundle. */
  shipped: string[];
  /** The bundle's path in `shipped`, which the others take the place of. */
  entry: string;
  /** Starts of each, taken in turn. */
  runs: number;
  /** The previous release's shipped form, started after ours and the floor's (its figures beside). */
  previous?: { version: string; program: string[] };
}

/** Bundles a script as ours is bundled; returns the bundle's path. */
async function bundled(script: string): Promise<string> {
  const output = `${OUT}/${script.replace(/\.ts$/, ".js")}`;
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=deno", "--minify", `--output=${output}`, script],
    cwd: `${ROOT}scripts`,
    stderr: "piped",
  }).output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
  return output;
}

/** Milliseconds from spawn to the first tools/list answered, and RSS (MB) half a second after. */
async function serverStart(
  socketName: string,
  program: string[],
): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const conn = await startServer("stdio", { socketName, program });
  try {
    await conn.client.listTools();
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 500));
    return { ms, rss: await rssMB(conn.serverPid) };
  } finally {
    await conn.close();
  }
}

/** Milliseconds from spawn to exit of the empty program, and its RSS (MB) while it waits. */
async function emptyStart(program: string[]): Promise<{ ms: number; rss: number }> {
  const [command, ...args] = program;
  const child = new Deno.Command(command, { args, stdin: "piped" }).spawn();
  await new Promise((r) => setTimeout(r, 500));
  const rss = await rssMB(child.pid);
  await child.stdin.close();
  await child.status;
  const t0 = performance.now();
  const timed = new Deno.Command(command, { args, stdin: "null" }).spawn();
  await timed.status;
  return { ms: performance.now() - t0, rss };
}

/** Reports cold start and RSS after start: ours, the SDK floor, the empty program; and ratios. */
export async function startFigures(
  socketName: string,
  report: Report,
  options: StartFiguresOptions,
): Promise<void> {
  const floorEntry = await bundled("sdk_floor.ts");
  const emptyEntry = await bundled("empty_program.ts");
  const as = (entry: string) => options.shipped.map((arg) => arg === options.entry ? entry : arg);
  const forms = { ours: as(options.entry), floor: as(floorEntry), empty: as(emptyEntry) };
  const times = { ours: [] as number[], floor: [] as number[], empty: [] as number[] };
  const rss = { ours: [] as number[], floor: [] as number[], empty: [] as number[] };
  // One start each first: a new build compiles and fills Deno's code cache, as a user's first.
  await serverStart(socketName, forms.ours);
  await serverStart(socketName, forms.floor);
  await emptyStart(forms.empty);
  for (let i = 0; i < options.runs; i++) {
    for (const name of ["ours", "floor"] as const) {
      const start = await serverStart(socketName, forms[name]);
      times[name].push(start.ms);
      rss[name].push(start.rss);
    }
    const empty = await emptyStart(forms.empty);
    times.empty.push(empty.ms);
    rss.empty.push(empty.rss);
  }
  // The previous release's starts after ours, not among them: interleaved, it slowed the start
  // that followed it (ours measured 1.22x the floor and +6.7 MB, against 1.11x and +5.2 MB apart).
  const previous = { times: [] as number[], rss: [] as number[] };
  if (options.previous) {
    await serverStart(socketName, options.previous.program);
    for (let i = 0; i < options.runs; i++) {
      const start = await serverStart(socketName, options.previous.program);
      previous.times.push(start.ms);
      previous.rss.push(start.rss);
    }
  }
  const ms = { ours: median(times.ours), floor: median(times.floor), empty: median(times.empty) };
  const mb = { ours: median(rss.ours), floor: median(rss.floor), empty: median(rss.empty) };
  report(
    "start_ms",
    "cold start to the first tools/list (bundle, code cache warm), median",
    ms.ours,
    {
      unit: " ms",
    },
  );
  report("start_floor_ms", "  the SDK floor's (same SDK and zod, 16 tools)", ms.floor, {
    unit: " ms",
  });
  if (options.previous) {
    report(
      "start_previous_ms",
      `  the previous release's (${options.previous.version})`,
      median(previous.times),
      {
        unit: " ms",
      },
    );
  }
  report("start_empty_ms", "  an empty Deno program's, to its exit", ms.empty, { unit: " ms" });
  report("start_vs_floor", "  ours over the SDK floor", ms.ours / ms.floor, {
    unit: "x",
    target: { text: "target <= 1.2x", met: ms.ours / ms.floor <= 1.2 },
  });
  report("rss_after_start_mb", "server RSS after start, median", mb.ours, { unit: " MB" });
  report("rss_floor_mb", "  the SDK floor's", mb.floor, { unit: " MB" });
  if (options.previous) {
    report(
      "rss_previous_mb",
      `  the previous release's (${options.previous.version})`,
      median(previous.rss),
      {
        unit: " MB",
      },
    );
  }
  report("rss_empty_mb", "  an empty Deno program's", mb.empty, { unit: " MB" });
  report("rss_over_floor_mb", "  ours above the SDK floor", mb.ours - mb.floor, {
    unit: " MB",
    target: { text: "target <= +4 MB", met: mb.ours - mb.floor <= 4 },
  });
}
