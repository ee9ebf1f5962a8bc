// The project's own TypeScript files under a folder, for tests that read the source.

/** Each `.ts` file under `dir` (a folder URL ending in `/`), with its text. */
export async function* sourceFiles(dir: URL): AsyncGenerator<{ url: URL; text: string }> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) yield { url, text: await Deno.readTextFile(url) };
  }
}
