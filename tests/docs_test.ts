// The documentation stays true: the generated pages are what the code makes, every relative link
// and anchor resolves, every client configuration parses and every flag it or a command line
// passes is one the server takes, and the README stays a front door.
import { assert, assertEquals } from "./deps.ts";
import { GENERATED_PAGES, generatedPages } from "../scripts/docs.ts";
import { parseFlags } from "../src/flags.ts";
import { TOOLSETS } from "../src/tools/define/mod.ts";
import { ALL_TOOLS } from "../src/tools/mod.ts";
import { textOf, withServer } from "./helpers/mcp.ts";

const ROOT = new URL("../", import.meta.url);

/** README.md, CHANGELOG.md and every page of docs/, by path from the root. */
async function pages(): Promise<Map<string, string>> {
  const paths = ["README.md", "CHANGELOG.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) paths.push(`docs/${entry.name}`);
  }
  const texts = new Map<string, string>();
  for (const path of paths.sort()) texts.set(path, await Deno.readTextFile(new URL(path, ROOT)));
  return texts;
}

/** A fenced code block: its language, then its body. */
const FENCED = /^```([^\n]*)\n([\s\S]*?)^```$/gm;

/** A page's text outside fenced code blocks. */
function outsideCode(text: string): string {
  return text.replace(FENCED, "");
}

/** A page's text outside code, fenced or inline (links there are code, not links). */
function prose(text: string): string {
  return outsideCode(text).replace(/`[^`\n]*`/g, "");
}

/** The fenced code blocks of a page, with their language. */
function codeBlocks(text: string): Array<{ lang: string; body: string }> {
  return [...text.matchAll(FENCED)].map((m) => ({
    lang: m[1].trim(),
    body: m[2],
  }));
}

/** The anchors GitHub gives a page's headings (lower case, punctuation dropped, spaces to -). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of outsideCode(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1].trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replace(
      / /g,
      "-",
    );
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

Deno.test("the generated pages are what the code makes (deno task docs writes them)", async () => {
  const made = await generatedPages();
  for (const path of GENERATED_PAGES) {
    const checkedIn = await Deno.readTextFile(new URL(path, ROOT)).catch(() => "");
    assert(
      checkedIn === made[path],
      `${path} differs from what the code makes: run \`deno task docs\` and commit it`,
    );
  }
});

Deno.test("every relative link and anchor in README.md and docs/ resolves", async () => {
  const texts = await pages();
  const broken: string[] = [];
  for (const [path, text] of texts) {
    for (const match of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1];
      if (/^[a-z]+:/i.test(target)) continue;
      const [file, anchor] = target.split("#");
      const resolved = file === "" ? path : new URL(file, new URL(path, ROOT)).pathname.slice(
        ROOT.pathname.length,
      );
      const exists = texts.has(resolved) ||
        await Deno.stat(new URL(resolved, ROOT)).then(() => true, () => false);
      if (!exists) broken.push(`${path}: ${target} (no ${resolved})`);
      else if (anchor !== undefined && !anchors(texts.get(resolved) ?? "").has(anchor)) {
        broken.push(`${path}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
  }
  assertEquals(broken, []);
});

/** The server's arguments in a command line that starts it; null when it starts something else. */
function serverArgs(words: string[]): string[] | null {
  // `deno run|install ... ENTRY args`, `deno task start args`, or the binary itself.
  const entry = words.findIndex((word) =>
    /(^|\/)main\.(ts|js)$|tmux-mcp\.js$|^jsr:@tmux-mcp\//.test(word)
  );
  if (entry >= 0) return words.slice(entry + 1);
  const task = words.findIndex((word, i) => word === "start" && words[i - 1] === "task");
  if (task >= 0) return words.slice(task + 1);
  const binary = words.findIndex((word, i) =>
    /(^|\/)tmux-mcp(-[\w-]+)?$/.test(word) && words[i - 1] !== "--name"
  );
  return binary >= 0 ? words.slice(binary + 1) : null;
}

/** A shell line's words, quotes taken off (enough for the lines the pages show). */
function shellWords(line: string): string[] {
  return [...line.replace(/\s+#.*$/, "").matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) =>
    m[1] ?? m[2] ?? m[3]
  );
}

/** A TOML basic string (its escapes are JSON's). */
const TOML_STRING = String.raw`"(?:[^"\\]|\\.)*"`;

Deno.test("every client configuration parses, and every flag shown is one the server takes", async () => {
  const problems: string[] = [];
  let configurations = 0;
  let commandLines = 0;
  const checkArgs = (where: string, args: string[]): void => {
    // A subcommand (grant, revoke) takes a target, not flags.
    if (args[0] === "grant" || args[0] === "revoke") return;
    try {
      parseFlags(args);
    } catch (error) {
      problems.push(`${where}: ${args.join(" ")}: ${(error as Error).message}`);
    }
  };
  for (const [path, text] of await pages()) {
    if (path === "CHANGELOG.md") continue;
    for (const block of codeBlocks(text)) {
      if (block.lang === "json") {
        let config: unknown;
        try {
          config = JSON.parse(block.body);
        } catch (error) {
          problems.push(`${path}: a json block does not parse: ${(error as Error).message}`);
          continue;
        }
        const entries = (config as { mcpServers?: object; servers?: object }).mcpServers ??
          (config as { servers?: object }).servers;
        for (const [name, entry] of Object.entries(entries ?? {})) {
          configurations++;
          const e = entry as { command?: unknown; args?: unknown; url?: unknown };
          if (typeof e.command !== "string" && typeof e.url !== "string") {
            problems.push(`${path}: server ${name} has neither a command nor a url`);
          }
          const args = Array.isArray(e.args) ? e.args.map(String) : [];
          const own = serverArgs([String(e.command ?? ""), ...args]);
          if (own !== null) checkArgs(`${path}: ${name}`, own);
        }
      } else if (block.lang === "toml") {
        const body = block.body.split("\n").filter((line) => line.trim() !== "");
        for (const line of body) {
          if (
            !new RegExp(`^\\[[\\w.]+\\]$|^\\w+ = (${TOML_STRING}|\\[(${TOML_STRING}(, )?)*\\])$`)
              .test(line)
          ) {
            problems.push(`${path}: a toml line does not parse: ${line}`);
          }
        }
        const command = body.map((line) => /^command = "(.*)"$/.exec(line)?.[1]).find(Boolean);
        const args = body.map((line) => /^args = (\[.*\])$/.exec(line)?.[1]).find(Boolean);
        if (command !== undefined) {
          configurations++;
          const own = serverArgs([command, ...(args ? JSON.parse(args) as string[] : [])]);
          if (own !== null) checkArgs(`${path}: toml`, own);
        }
      } else if (block.lang === "sh") {
        for (const line of block.body.split("\n")) {
          const words = shellWords(line);
          const dashes = words.indexOf("--");
          const own = serverArgs(dashes >= 0 ? words.slice(dashes + 1) : words);
          if (own === null || words[0] === "curl" || words[0] === "chmod") continue;
          commandLines++;
          checkArgs(`${path}: ${line.trim()}`, own);
        }
      }
    }
  }
  assertEquals(problems, []);
  assert(configurations >= 5, `only ${configurations} client configurations found`);
  assert(commandLines >= 5, `only ${commandLines} command lines found`);
});

Deno.test("the README is a front door: at most 300 lines, its default toolset the code's", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const lines = readme.split("\n").length;
  assert(lines <= 300, `README.md has ${lines} lines; move a subject to docs/ and link it`);
  // Its table of the default toolset: one row a tool, `name` first and its tier last.
  const rows = [...readme.matchAll(/^\| `(\w+)` +\|.*\| (readonly|mutating|destructive) +\|$/gm)]
    .map((m) => [m[1], m[2]]);
  const tiers = new Map(ALL_TOOLS.map((spec) => [spec.name, spec.tier]));
  assertEquals(rows, TOOLSETS.core.map((name): string[] => [name, tiers.get(name) ?? "?"]));
});

Deno.test("the README's example call answers as the README shows", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const example = /^```\nrun_command (\{.*\})\n([\s\S]*?)^```$/m.exec(readme);
  assert(example !== null, "the README shows no run_command example");
  const args = JSON.parse(example[1]);
  await withServer("stdio", {}, async (conn, tmux) => {
    const result = await conn.client.callTool({
      name: "run_command",
      arguments: { ...args, pane_id: tmux.paneId },
    });
    // The pane's id and the time it took are this run's own.
    const shown = (text: string, pane: string): string =>
      text.replaceAll(pane, "PANE").replace(/after [\d.]+s/, "after Ns").trimEnd();
    assertEquals(
      shown(textOf(result as { content: Array<{ type: string; text?: string }> }), tmux.paneId),
      shown(example[2], args.pane_id),
    );
  });
});
