// The pinned versions in src/deps.ts (used by remote runs) and deno.json (used locally) agree.
import { assertEquals } from "../deps.ts";
import { sourceFiles } from "../helpers/source_files.ts";

Deno.test("src/deps.ts pins the same versions as deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const deps = await Deno.readTextFile(new URL("../../src/deps.ts", import.meta.url));
  for (const name of ["@modelcontextprotocol/sdk", "zod"]) {
    const pinned = String(config.imports[name]).replace(/^npm:/, "");
    const used = new Set(
      [...deps.matchAll(new RegExp(`npm:(${name.replace("/", "\\/")}@[^/"]+)`, "g"))].map((m) =>
        m[1]
      ),
    );
    assertEquals([...used], [pinned], `${name} versions differ`);
  }
});

Deno.test("no source file imports a bare specifier (remote runs have no import map)", async () => {
  const bad: string[] = [];
  for await (const { url, text } of sourceFiles(new URL("../../src/", import.meta.url))) {
    for (const m of text.matchAll(/(?:from|import)\s+"([^"]+)"/g)) {
      if (!/^(\.|npm:|node:)/.test(m[1])) bad.push(`${url.pathname}: ${m[1]}`);
    }
  }
  const main = await Deno.readTextFile(new URL("../../main.ts", import.meta.url));
  for (const m of main.matchAll(/from\s+"([^"]+)"/g)) {
    if (!/^(\.|npm:|node:)/.test(m[1])) bad.push(`main.ts: ${m[1]}`);
  }
  assertEquals(bad, []);
});
