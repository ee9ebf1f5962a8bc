/**
 * The previous release, measured in the same sitting as the code under test (issue 53): its
 * commit checked out beside this tree (a git worktree), bundled by its own script and started in
 * its own shipped form, so the bench can put its figures beside ours.
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url).pathname;

/** The release before this one (releases are not tagged: its commit is named here). */
export const PREVIOUS_RELEASE = {
  version: "0.2.0",
  commit: "fe12b6618c277b5ed2da83a7d71a3ddf7ccea7ee",
} as const;

/** A previous release ready to start. */
export interface PreviousRelease {
  /** Its version. */
  version: string;
  /** Its shipped form: the runtime, its V8 flags and permissions, and its bundle. */
  program: string[];
  /** Removes its checkout. */
  remove(): Promise<void>;
}

async function run(command: string, args: string[], cwd = ROOT): Promise<void> {
  const result = await new Deno.Command(command, { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) {
    const said = new TextDecoder().decode(result.stderr).trim().split("\n").slice(-3).join(" ");
    throw new Error(`${command} ${args.join(" ")}: ${said}`);
  }
}

/**
 * Checks out and bundles the previous release; a reason instead when it cannot (a shallow clone
 * without that commit, the npm registry out of reach).
 */
export async function previousRelease(): Promise<PreviousRelease | { missing: string }> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-previous-" });
  const remove = async () => {
    await run("git", ["worktree", "remove", "--force", dir]).catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    await run("git", ["worktree", "add", "--detach", dir, PREVIOUS_RELEASE.commit]);
    await run(Deno.execPath(), ["run", "-A", "scripts/bundle.ts"], dir);
    const { SHIPPED_V8_FLAGS } = await import(`${dir}/scripts/bundle.ts`);
    return {
      version: PREVIOUS_RELEASE.version,
      program: [
        Deno.execPath(),
        "run",
        "--quiet",
        `--v8-flags=${SHIPPED_V8_FLAGS}`,
        "--allow-run=tmux",
        "--allow-net=127.0.0.1",
        `${dir}/dist/js/main.js`,
      ],
      remove,
    };
  } catch (error) {
    await remove();
    return { missing: error instanceof Error ? error.message : String(error) };
  }
}
