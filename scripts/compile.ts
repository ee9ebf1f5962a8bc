/**
 * Builds self-contained binaries into dist/, one per target, from the bundle (scripts/bundle.ts)
 * with its V8 flags and exactly the server's permissions: `--allow-run=tmux` and `--allow-net` for
 * the loopback names the HTTP mode may bind.
 *
 * `deno compile` embeds the program into a base binary (denort) that Deno downloads from its
 * release host. Where that host is out of reach, give a local base binary with `DENORT_BIN=/path`
 * (one target at a time: `--target` names it, default this machine's), or place the release zip at
 * `$DENO_DIR/dl/release/v<deno version>/denort-<target>.zip`.
 *
 * Usage: deno task compile [--target T]... [--out-dir dist]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { bundle, SHIPPED_V8_FLAGS } from "./bundle.ts";

/** The targets a release ships. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;

/**
 * Permissions baked into every binary: tmux, the loopback names HTTP may bind, and the
 * environment the server reads (its TMUX_MCP_* settings, and TMUX_PANE: the pane it runs in).
 */
export const BINARY_PERMISSIONS = [
  "--allow-run=tmux",
  "--allow-net=127.0.0.1,localhost",
  "--allow-env=TMUX_MCP_*,TMUX_PANE",
];

/** Why a denort base binary cannot be used, or null when it can. */
export async function denortProblem(path: string): Promise<string | null> {
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch {
    return `DENORT_BIN=${path} does not exist`;
  }
  if (real === await Deno.realPath(Deno.execPath()) || /(^|\/)deno$/.test(real)) {
    // The full CLI is no base: the result would start a REPL with every permission.
    return `DENORT_BIN=${path} is the deno CLI itself, not a denort base binary`;
  }
  return null;
}

/** Where Deno looks for a cached denort zip for a target. */
export function cachedDenortZip(denoDir: string, target: string): string {
  return `${denoDir}/dl/release/v${Deno.version.deno}/denort-${target}.zip`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The directory Deno caches into (DENO_DIR, else the platform default). */
export function denoDir(): string {
  const home = Deno.env.get("HOME") ?? "";
  return Deno.env.get("DENO_DIR") ??
    (Deno.build.os === "darwin" ? `${home}/Library/Caches/deno` : `${home}/.cache/deno`);
}

/** Whether a binary can be built for the target on this machine, and how. */
export async function baseFor(target: string): Promise<{ ok: boolean; how: string }> {
  const denort = Deno.env.get("DENORT_BIN");
  if (denort) {
    const problem = await denortProblem(denort);
    return problem ? { ok: false, how: problem } : { ok: true, how: `DENORT_BIN=${denort}` };
  }
  const zip = cachedDenortZip(denoDir(), target);
  if (await exists(zip)) return { ok: true, how: zip };
  return {
    ok: false,
    how: `no denort base binary for ${target}: Deno downloads it from its release host, ` +
      `which may be out of reach; set DENORT_BIN=/path/to/denort or place ${zip}`,
  };
}

/** Compiles one target; returns the output path. */
export async function compileTarget(target: string, outDir: string): Promise<string> {
  const output = `${outDir}/tmux-mcp-${target}`;
  const entry = await bundle({ ifStale: true });
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "compile",
      `--v8-flags=${SHIPPED_V8_FLAGS}`,
      ...BINARY_PERMISSIONS,
      ...["--target", target, "-o", output, entry],
    ],
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const stderr = new TextDecoder().decode(result.stderr);
    const unreachable = /dns error|failed to lookup|error sending request|Connection refused/i
      .test(stderr);
    throw new Error(
      unreachable
        ? `deno compile could not download the denort base binary for ${target} (no network ` +
          `to Deno's release host); set DENORT_BIN=/path/to/denort or place ` +
          cachedDenortZip(denoDir(), target)
        : `deno compile failed for ${target}:\n${stderr.trim()}`,
    );
  }
  return output;
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      target: { type: "string", multiple: true },
      "out-dir": { type: "string", default: "dist" },
    },
  });
  const denort = Deno.env.get("DENORT_BIN");
  const targets = values.target ?? (denort ? [Deno.build.target] : [...TARGETS]);
  if (denort && targets.length > 1) {
    console.error("compile: DENORT_BIN is one base binary: build one --target at a time");
    return 2;
  }
  const outDir = values["out-dir"];
  await Deno.mkdir(outDir, { recursive: true });
  let failed = 0;
  for (const target of targets) {
    if (!(TARGETS as readonly string[]).includes(target)) {
      console.error(`compile: unknown target ${target} (one of ${TARGETS.join(", ")})`);
      failed++;
      continue;
    }
    const base = await baseFor(target);
    if (!base.ok && denort) {
      console.error(`compile: ${base.how}`);
      failed++;
      continue;
    }
    try {
      console.error(`compile: ${target} -> ${await compileTarget(target, outDir)}`);
    } catch (error) {
      console.error(`compile: ${error instanceof Error ? error.message : String(error)}`);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
