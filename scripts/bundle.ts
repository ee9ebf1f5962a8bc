/**
 * Builds the shipped form of the server: main.ts and everything it imports bundled into one
 * minified file (dist/js/main.js), packages included, so it runs with nothing cached and nothing
 * downloaded. `deno task start` and the compiled binaries run it, and a release attaches it;
 * `deno run main.ts` stays the development form. One file, not the HTTP transport and the
 * regular-expression engine split off into chunks: the file is a release asset that must run on
 * its own, and the split saved 7 ms of start (60 against 67) while holding 1.5 MB more
 * (docs/performance.md).
 *
 * Usage: deno task bundle [--if-stale]
 *   --if-stale  build only when main.ts, src/, deno.json or deno.lock changed since the last build
 *
 * @module
 */

import { parseArgs } from "node:util";

const ROOT = new URL("../", import.meta.url).pathname;

/** Where the bundle goes. */
export const BUNDLE_DIR = `${ROOT}dist/js`;

/** The module to run. */
export const BUNDLE_ENTRY = `${BUNDLE_DIR}/main.js`;

/**
 * V8 flags the shipped forms run with: a young generation of at most 1 MB, which keeps the heap
 * from growing in steps of semi-spaces between collections (measured on the bundle: 64 MB after
 * start without it, 58 MB with it); and V8's sizing for small memory, under which the old
 * generation is collected before it doubles: a flood's text is garbage the moment it is logged,
 * and the heap grew to 60-95 MB between collections of it (16 panes printing 20 MB each peaked at
 * 181-237 MB, 119-142 MB with it; run_command's latency and CPU unchanged, 400 calls each).
 */
export const SHIPPED_V8_FLAGS = "--max-semi-space-size=1,--optimize-for-size";

async function newestInput(): Promise<number> {
  let newest = 0;
  async function visit(path: string): Promise<void> {
    const info = await Deno.stat(path);
    if (info.isDirectory) {
      for await (const entry of Deno.readDir(path)) await visit(`${path}/${entry.name}`);
    } else {
      newest = Math.max(newest, info.mtime?.getTime() ?? Infinity);
    }
  }
  for (const input of ["main.ts", "src", "deno.json", "deno.lock"]) await visit(`${ROOT}${input}`);
  return newest;
}

async function builtAt(): Promise<number> {
  try {
    return (await Deno.stat(BUNDLE_ENTRY)).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/** Options for {@linkcode bundle}. */
export interface BundleOptions {
  /** Build only when an input changed since the last build. */
  ifStale?: boolean;
  /** Where to write it instead of {@linkcode BUNDLE_ENTRY} (a test's bundle, say). */
  output?: string;
}

/** Builds the bundle (only when stale, with `ifStale`); returns the entry module's path. */
export async function bundle(options: BundleOptions = {}): Promise<string> {
  const output = options.output ?? BUNDLE_ENTRY;
  if (options.output === undefined) {
    if (options.ifStale && await builtAt() > await newestInput()) return BUNDLE_ENTRY;
    // `deno task start` builds first: a first build fetches the npm packages (about 36 MB),
    // which would otherwise pass in silence.
    console.error(`bundle: building ${BUNDLE_ENTRY.slice(ROOT.length)} from main.ts`);
    await Deno.remove(BUNDLE_DIR, { recursive: true }).catch(() => {});
  }
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--minify",
      `--output=${output}`,
      `${ROOT}main.ts`,
    ],
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(`deno bundle failed:\n${new TextDecoder().decode(result.stderr).trim()}`);
  }
  return output;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { "if-stale": { type: "boolean" } } });
  try {
    await bundle({ ifStale: values["if-stale"] });
  } catch (error) {
    console.error(`bundle: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
