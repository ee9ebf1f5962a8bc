/**
 * Builds everything a release attaches, into dist/release/, and checks what it publishes. The
 * release workflow runs it on a version tag; CI runs it with `--dry-run` on every push, so a
 * broken release shows in ordinary CI.
 *
 * Steps (each printed with its figures):
 * 1. the bundle, `tmux-mcp.js` (dist/js/main.js: one file that runs with nothing downloaded);
 * 2. the binaries, `tmux-mcp-<target>` (a dry run builds only this machine's target, and only
 *    when a denort base binary can be had: see scripts/compile.ts);
 * 3. a desktop extension per binary, `tmux-mcp-<target>.mcpb`, from packaging/manifest.json
 *    (checked with the mcpb CLI even when no binary was built);
 * 4. the MCP registry entry, `server.json`, from packaging/server.json, naming each extension
 *    with its SHA-256;
 * 5. `SHA256SUMS`, and `deno publish --dry-run` (the JSR package).
 * Versions come from deno.json, the one place they are written.
 *
 * Usage: deno task release [--dry-run] [--out-dir dist/release]
 *
 * @module
 */

import { parseArgs } from "node:util";
import manifestOfDeno from "../deno.json" with { type: "json" };
import { bundle } from "./bundle.ts";
import { baseFor, compileTarget, TARGETS } from "./compile.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const VERSION = manifestOfDeno.version;
/** The mcpb CLI (npm), run without touching deno.lock: it is a build tool, not a dependency. */
const MCPB = "npm:@anthropic-ai/mcpb@2.1.2";
/** Where a tagged release's assets can be downloaded. */
const DOWNLOADS = `https://github.com/tmux-mcp/tmux-mcp/releases/download/v${VERSION}`;

/** Options for {@linkcode release}. */
export interface ReleaseOptions {
  /** Build what this machine can and publish nothing; a missing base binary is not a failure. */
  dryRun: boolean;
  outDir: string;
}

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return new Uint8Array(digest).toHex();
}

async function run(program: string, args: string[], cwd = ROOT): Promise<void> {
  const result = await new Deno.Command(program, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!result.success) {
    const decoder = new TextDecoder();
    throw new Error(
      `${program} ${args.join(" ")} failed:\n${decoder.decode(result.stdout)}` +
        decoder.decode(result.stderr),
    );
  }
}

function mcpb(args: string[], cwd: string): Promise<void> {
  return run(Deno.execPath(), ["run", "--quiet", "--no-lock", "-A", MCPB, ...args], cwd);
}

/** The platform (`darwin`, `linux`) a target runs on. */
function platformOf(target: string): string {
  return target.endsWith("apple-darwin") ? "darwin" : "linux";
}

/** The extension manifest for one binary's target, its version filled in. */
async function extensionManifest(target: string): Promise<Record<string, unknown>> {
  const template = JSON.parse(await Deno.readTextFile(`${ROOT}packaging/manifest.json`));
  return { ...template, version: VERSION, compatibility: { platforms: [platformOf(target)] } };
}

/** Packs a binary into a desktop extension; returns its path. */
async function packExtension(binary: string, target: string, outDir: string): Promise<string> {
  const stage = await Deno.makeTempDir({ prefix: "tmux-mcp-mcpb-" });
  try {
    await Deno.mkdir(`${stage}/server`);
    await Deno.copyFile(binary, `${stage}/server/tmux-mcp`);
    await Deno.chmod(`${stage}/server/tmux-mcp`, 0o755);
    await Deno.writeTextFile(
      `${stage}/manifest.json`,
      JSON.stringify(await extensionManifest(target), null, 2),
    );
    await mcpb(["validate", "manifest.json"], stage);
    const output = `${Deno.realPathSync(outDir)}/tmux-mcp-${target}.mcpb`;
    await mcpb(["pack", ".", output], stage);
    return output;
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}

/** Checks the extension manifest alone (a dry run that built no binary). */
async function checkExtensionManifest(): Promise<void> {
  const stage = await Deno.makeTempDir({ prefix: "tmux-mcp-mcpb-" });
  try {
    const manifest = await extensionManifest(Deno.build.target);
    await Deno.writeTextFile(`${stage}/manifest.json`, JSON.stringify(manifest, null, 2));
    await mcpb(["validate", "manifest.json"], stage);
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}

/** The MCP registry entry: each extension by its download address and SHA-256. */
async function registryEntry(extensions: string[]): Promise<Record<string, unknown>> {
  const template = JSON.parse(await Deno.readTextFile(`${ROOT}packaging/server.json`));
  const packages = [];
  for (const path of extensions) {
    packages.push({
      registryType: "mcpb",
      identifier: `${DOWNLOADS}/${path.split("/").pop()}`,
      version: VERSION,
      fileSha256: await sha256(path),
      transport: { type: "stdio" },
    });
  }
  const entry = { ...template, version: VERSION, packages };
  if (!/^[a-z0-9.-]+\/[a-z0-9._-]+$/i.test(entry.name) || entry.description.length > 100) {
    throw new Error(
      "packaging/server.json: a name like io.github.owner/repo, a description of ≤100",
    );
  }
  return entry;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

/** Builds the release assets into `outDir`; returns their paths. */
export async function release(options: ReleaseOptions): Promise<string[]> {
  const { dryRun, outDir } = options;
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  await Deno.mkdir(outDir, { recursive: true });
  const assets: string[] = [];

  let began = performance.now();
  const script = `${outDir}/tmux-mcp.js`;
  await Deno.copyFile(await bundle(), script);
  assets.push(script);
  const size = (await Deno.stat(script)).size;
  console.log(
    `release: tmux-mcp.js ${megabytes(size)} sha256 ${await sha256(script)} ` +
      `(${Math.round(performance.now() - began)} ms)`,
  );

  const binaries: [string, string][] = [];
  for (const target of dryRun ? [Deno.build.target] : TARGETS) {
    const base = await baseFor(target);
    began = performance.now();
    try {
      const binary = await compileTarget(target, outDir);
      binaries.push([target, binary]);
      assets.push(binary);
      console.log(
        `release: ${binary.split("/").pop()} ` +
          `${megabytes((await Deno.stat(binary)).size)} (${
            Math.round(performance.now() - began)
          } ms)`,
      );
    } catch (error) {
      // A dry run may lack the base binary (no network to Deno's release host); a release not.
      if (!dryRun) throw error;
      console.log(
        `release: no binary for ${target} in this dry run: ${
          base.ok ? (error as Error).message : base.how
        }`,
      );
    }
  }

  began = performance.now();
  const extensions: string[] = [];
  for (const [target, binary] of binaries) {
    extensions.push(await packExtension(binary, target, outDir));
  }
  if (extensions.length === 0) await checkExtensionManifest();
  assets.push(...extensions);
  console.log(
    `release: ${extensions.length} desktop extension(s), manifest valid ` +
      `(${Math.round(performance.now() - began)} ms)`,
  );

  const entry = `${outDir}/server.json`;
  await Deno.writeTextFile(entry, JSON.stringify(await registryEntry(extensions), null, 2) + "\n");
  assets.push(entry);

  const sums = [];
  for (const asset of assets) sums.push(`${await sha256(asset)}  ${asset.split("/").pop()}`);
  await Deno.writeTextFile(`${outDir}/SHA256SUMS`, sums.join("\n") + "\n");
  assets.push(`${outDir}/SHA256SUMS`);

  began = performance.now();
  await run(Deno.execPath(), ["publish", "--dry-run", "--allow-dirty"]);
  console.log(
    `release: deno publish --dry-run passed (${Math.round(performance.now() - began)} ms)`,
  );
  return assets;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "dry-run": { type: "boolean", default: false },
      "out-dir": { type: "string", default: `${ROOT}dist/release` },
    },
  });
  const began = performance.now();
  try {
    const assets = await release({ dryRun: values["dry-run"], outDir: values["out-dir"] });
    console.log(
      `release: ${values["dry-run"] ? "dry run " : ""}done in ` +
        `${((performance.now() - began) / 1000).toFixed(1)} s: ` +
        assets.map((path) => path.split("/").pop()).join(", "),
    );
  } catch (error) {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
