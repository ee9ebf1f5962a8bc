/**
 * Small measuring helpers the bench scripts share.
 *
 * @module
 */

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Milliseconds `fn` took. */
export async function time<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * A directory to put first on a PATH: its `name` logs each start and runs the real one, so a
 * bench counts spawns (server and pane alike).
 */
export async function countingProgram(name: string): Promise<{ dir: string; count(): number }> {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/spawns.log`;
  const found = await new Deno.Command("sh", {
    args: ["-c", `command -v ${name}`],
    stdout: "piped",
  }).output();
  const real = new TextDecoder().decode(found.stdout).trim();
  await Deno.writeTextFile(log, "");
  await Deno.writeTextFile(
    `${dir}/${name}`,
    `#!/bin/sh\necho x >> '${log}'\nexec '${real}' "$@"\n`,
  );
  await Deno.chmod(`${dir}/${name}`, 0o755);
  return { dir, count: () => Deno.readTextFileSync(log).split("\n").length - 1 };
}
