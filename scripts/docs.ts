/**
 * Writes the reference pages made from the code, so that they cannot say something else:
 * docs/tools.md (every toolset, tool, resource and prompt, as a client lists them from a server
 * offering everything) and docs/flags.md (`--help`). `deno task docs`; the suite fails while a
 * checked-in page differs from what this writes.
 *
 * The server is assembled in this process and listed through the SDK's client over an in-memory
 * transport: listing touches no tmux.
 *
 * @module
 */

import { Client, InMemoryTransport } from "../tests/deps.ts";
import { connectServer, createToolContext, stopToolContext } from "../src/server.ts";
import { configFromFlags, MAX_OUTPUT_BYTES, WAIT_MAX_SECONDS } from "../src/config.ts";
import { parseFlags, USAGE } from "../src/flags.ts";
import { ALL_TOOLS } from "../src/tools/mod.ts";
import { TOOLSET_NAMES, TOOLSET_PURPOSES, TOOLSETS } from "../src/tools/define/mod.ts";

/** The pages this script writes, by path from the repository's root. */
export const GENERATED_PAGES = ["docs/tools.md", "docs/flags.md"] as const;

/** A page's path. */
export type GeneratedPage = typeof GENERATED_PAGES[number];

type Schema = Record<string, unknown>;

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Schema;
  outputSchema?: Schema;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

interface Listing {
  instructions: string;
  tools: ListedTool[];
  resources: Array<{ uri: string; title?: string; description?: string; mimeType?: string }>;
  templates: Array<
    { uriTemplate: string; title?: string; description?: string; mimeType?: string }
  >;
  prompts: Array<{
    name: string;
    title?: string;
    description?: string;
    arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  }>;
}

const ROOT = new URL("../", import.meta.url);

/** What a client is offered by a server with every toolset at the top tier, default settings. */
async function listEverything(): Promise<Listing> {
  const base = configFromFlags(parseFlags([
    "--wait-max-seconds",
    String(WAIT_MAX_SECONDS),
    "--max-output-bytes",
    String(MAX_OUTPUT_BYTES),
  ])).server;
  // Whatever the environment says: the reference is of the default settings, every tool offered.
  const context = createToolContext({
    ...base,
    socketName: null,
    anySocket: false,
    remotes: [],
    scope: null,
    grantedPanes: false,
    ownPane: null,
    policy: { tier: "destructive", toolsets: TOOLSET_NAMES, only: null, with: [], exclude: [] },
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "tmux-mcp-docs", version: "1" });
  try {
    await connectServer(context, serverSide);
    await client.connect(clientSide);
    return {
      instructions: client.getInstructions() ?? "",
      tools: (await client.listTools()).tools as ListedTool[],
      resources: (await client.listResources()).resources,
      templates: (await client.listResourceTemplates()).resourceTemplates,
      prompts: (await client.listPrompts()).prompts,
    };
  } finally {
    await client.close();
    await stopToolContext(context);
  }
}

/** A schema's type in words: `integer >= 1`, `"a" \| "b"`, `array of string`, `string or null`. */
function typeOf(schema: Schema): string {
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(typeOf).join(" or ");
  const type = String(schema.type ?? "any");
  if (type === "array") return `array of ${typeOf((schema.items ?? {}) as Schema)}`;
  const bounds = [
    ["minimum", ">="],
    ["exclusiveMinimum", ">"],
    ["maximum", "<="],
    ["exclusiveMaximum", "<"],
  ].filter(([key]) => typeof schema[key] === "number")
    .map(([key, sign]) => `${sign} ${schema[key]}`);
  return [type, ...bounds].join(" ");
}

/** The object schema a property holds, if any (directly, in an array, or beside null). */
function objectWithin(schema: Schema): { schema: Schema; path: string } | null {
  if (schema.type === "object" && schema.properties) return { schema, path: "." };
  if (schema.type === "array") {
    const inner = objectWithin((schema.items ?? {}) as Schema);
    return inner === null ? null : { schema: inner.schema, path: "[]." };
  }
  for (const branch of (schema.anyOf ?? []) as Schema[]) {
    const inner = objectWithin(branch);
    if (inner !== null) return inner;
  }
  return null;
}

/** One table row a property, nested objects' properties under their parent's name. */
function propertyRows(
  schema: Schema,
  options: { prefix: string; depth: number; withDefault: boolean },
): string[][] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const rows: string[][] = [];
  for (const [name, property] of Object.entries(properties)) {
    const fullName = options.prefix + name;
    const value = "default" in property
      ? JSON.stringify(property.default)
      : required.includes(name)
      ? "required"
      : "";
    rows.push([
      `\`${fullName}\``,
      typeOf(property),
      ...(options.withDefault
        ? [value === "" ? "" : value === "required" ? value : `\`${value}\``]
        : []),
      String(property.description ?? ""),
    ]);
    const inner = objectWithin(property);
    if (inner !== null && options.depth < 3) {
      rows.push(
        ...propertyRows(inner.schema, {
          ...options,
          prefix: fullName + inner.path,
          depth: options.depth + 1,
        }),
      );
    }
  }
  return rows;
}

/** A Markdown table; cells keep to one line, pipes escaped. */
function table(head: string[], rows: string[][]): string[] {
  const cell = (text: string): string => text.replace(/\r?\n/g, " ").replace(/(?<!\\)\|/g, "\\|");
  return [
    `| ${head.join(" | ")} |`,
    `| ${head.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ];
}

/** What a tool's annotations and `_meta` say, in words. */
function traits(tool: ListedTool): string {
  const a = tool.annotations ?? {};
  const words = [
    a.readOnlyHint === true ? "read-only" : "changes things",
    a.destructiveHint === true ? "destructive" : a.readOnlyHint === true ? "" : "non-destructive",
    a.idempotentHint === true ? "idempotent" : "",
    a.openWorldHint === true ? "open world (starts programs or types into shells)" : "",
    tool._meta?.["anthropic/alwaysLoad"] === true ? "loaded up front" : "",
    typeof tool._meta?.["anthropic/maxResultSizeChars"] === "number"
      ? `results up to ${tool._meta["anthropic/maxResultSizeChars"]} characters`
      : "",
  ];
  return words.filter(Boolean).join(", ");
}

function toolSection(tool: ListedTool, tier: string, toolset: string): string[] {
  const lines = [
    `### \`${tool.name}\``,
    "",
    `${tool.title ?? tool.name}. Tier \`${tier}\`, toolset \`${toolset}\`: ${traits(tool)}.`,
    "",
    ...(tool.description ?? "").split("\n").map((line) => line === "" ? "" : `> ${line}`),
    "",
  ];
  const inputs = propertyRows(tool.inputSchema, { prefix: "", depth: 0, withDefault: true });
  lines.push(
    ...(inputs.length === 0
      ? ["Input: none.", ""]
      : ["Input:", "", ...table(["name", "type", "default", "description"], inputs), ""]),
  );
  if (tool.outputSchema !== undefined) {
    const outputs = propertyRows(tool.outputSchema, { prefix: "", depth: 0, withDefault: true });
    lines.push("Output (`structuredContent`):", "");
    lines.push(...table(["field", "type", "default", "description"], outputs), "");
  }
  return lines;
}

/** docs/tools.md's text, before formatting. */
function toolsPage(listing: Listing): string {
  const specs = new Map(ALL_TOOLS.map((spec) => [spec.name, spec]));
  const listed = new Map(listing.tools.map((tool) => [tool.name, tool]));
  const lines = [
    "# Tool reference",
    "",
    "<!-- Written by `deno task docs` (scripts/docs.ts) from the code; the suite fails while it",
    "differs. Not edited by hand. -->",
    "",
    "What a client is offered by a server started with `--toolsets all --safety destructive`, as",
    "its `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` answer.",
    "",
    "- **Choosing tools.** A tool is offered when its toolset is on (`--toolsets`, default `core`)",
    "  and its tier is within `--safety` (default `mutating`; `readonly` < `mutating` <",
    "  `destructive`; an unknown tier fails closed to `readonly`). `--tools` (whatever their set)",
    "  and `--exclude-tools` pick by exact names, `--with-tools` adds single tools to the sets'.",
    "  Tools outside the policy are neither listed nor callable: a call to one is a JSON-RPC error,",
    "  code -32602. `tmux://capabilities` lists the sets on and, for each set off, the tools it",
    "  would add. Without `--any-socket`, `socket_name` is in no schema: every call talks to the",
    "  server's tmux.",
    "- **Results.** Every tool declares an `outputSchema` and returns `structuredContent` plus a",
    "  text block that carries the same, summary first. Every tool that returns pane text keeps to",
    "  one output budget (16 KiB and 400 lines by default, `max_output_bytes` up to",
    "  `--max-output-bytes`): counts first, the first and last lines, and in the text block a line",
    "  that says what was left out. Errors are `isError` results whose text starts with a code",
    "  (`not_found`, `invalid_argument`, `tmux_unavailable`, `pane_in_mode`, `out_of_scope`,",
    "  `person_typing`, `memory_limited`, ...) and says what to do. The run tools' fields in depth:",
    "  [the run_command contract](run_command.md).",
    "- **Inputs.** Names are snake_case. The schemas are as terse as a model reads them: size",
    "  bounds the server checks anyway, and defaults that say no more than absence, are left out.",
    "  Names, titles and directories given to tmux are stored exactly as given or refused, never",
    "  expanded as formats, and no argument can smuggle in a second tmux command.",
    "- **Annotations.** A tool that can start a program or type into a shell is annotated open",
    "  world and never non-destructive, so a client that auto-approves harmless tools does not let",
    "  it through.",
    "",
    "## Toolsets",
    "",
    ...table(
      ["toolset", "what for", "tools"],
      TOOLSET_NAMES.map((set) => [
        `[\`${set}\`](#toolset-${set})`,
        TOOLSET_PURPOSES[set],
        TOOLSETS[set].map((name) => `\`${name}\``).join(", "),
      ]),
    ),
    "",
  ];
  for (const set of TOOLSET_NAMES) {
    lines.push(`## Toolset ${set}`, "", TOOLSET_PURPOSES[set], "");
    lines.push(
      ...table(
        ["tool", "tier", "title"],
        TOOLSETS[set].map((name) => [
          `[\`${name}\`](#${name})`,
          specs.get(name)?.tier ?? "",
          listed.get(name)?.title ?? "",
        ]),
      ),
      "",
    );
    for (const name of TOOLSETS[set]) {
      const tool = listed.get(name);
      const spec = specs.get(name);
      if (tool === undefined || spec === undefined) {
        throw new Error(`toolset ${set} names ${name}, which the server does not list`);
      }
      lines.push(...toolSection(tool, spec.tier, set));
    }
  }
  lines.push("## Resources", "");
  lines.push(
    ...table(
      ["URI", "title", "type", "description"],
      [
        ...listing.resources.map((
          r,
        ) => [`\`${r.uri}\``, r.title ?? "", r.mimeType ?? "", r.description ?? ""]),
        ...listing.templates.map((r) => [
          `\`${r.uriTemplate}\``,
          r.title ?? "",
          r.mimeType ?? "",
          r.description ?? "",
        ]),
      ],
    ),
    "",
  );
  lines.push("## Prompts", "");
  lines.push(
    ...table(
      ["prompt", "title", "arguments", "description"],
      listing.prompts.map((p) => [
        `\`${p.name}\``,
        p.title ?? "",
        (p.arguments ?? []).map((arg) => `\`${arg.name}\`${arg.required ? " (required)" : ""}`)
          .join(", "),
        p.description ?? "",
      ]),
    ),
    "",
  );
  lines.push(
    "## Instructions",
    "",
    "What the server tells every client in `initialize` (`instructions`), before any tool:",
    "",
    ...listing.instructions.split("\n").map((line) => line === "" ? ">" : `> ${line}`),
    "",
  );
  return lines.join("\n");
}

/** docs/flags.md's text, before formatting. */
function flagsPage(): string {
  return [
    "# Flags",
    "",
    "<!-- Written by `deno task docs` (scripts/docs.ts) from `--help`; the suite fails while it",
    "differs. Not edited by hand. -->",
    "",
    "`tmux-mcp --help` prints this (from a clone: `deno task start --help`). Where a flag names",
    "an environment variable, the server reads it only when permitted",
    "(`--allow-env=TMUX_MCP_*,TMUX_PANE`, which the binaries, the bundle's task and the install",
    "line carry); without that permission they are ignored, never prompted for, and the server",
    "says so once at start.",
    "",
    "```",
    USAGE.trimEnd(),
    "```",
    "",
  ].join("\n");
}

/** Formats Markdown as `deno fmt` does, so the pages pass `deno fmt --check`. */
async function formatted(markdown: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", "--ext=md", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Every generated page's text, formatted, by path. */
export async function generatedPages(): Promise<Record<GeneratedPage, string>> {
  return {
    "docs/tools.md": await formatted(toolsPage(await listEverything())),
    "docs/flags.md": await formatted(flagsPage()),
  };
}

if (import.meta.main) {
  for (const [path, text] of Object.entries(await generatedPages())) {
    await Deno.writeTextFile(new URL(path, ROOT), text);
    console.error(`docs: wrote ${path}`);
  }
}
