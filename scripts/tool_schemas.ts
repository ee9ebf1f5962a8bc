/**
 * Writes src/tools/define/tool_schemas_written.ts: every tool's input and output JSON Schemas,
 * converted from its zod schemas under the settings that add no field (see tool_schemas.ts).
 * `deno task schemas`; the suite fails while the file differs from what this writes.
 *
 * @module
 */

import { ALL_TOOLS } from "../src/tools/mod.ts";
import { zodSchemasOf } from "../src/tools/define/mod.ts";
import { configFromFlags } from "../src/config.ts";
import { parseFlags } from "../src/flags.ts";

/** Where the schemas are written. */
export const SCHEMAS_FILE = new URL(
  "../src/tools/define/tool_schemas_written.ts",
  import.meta.url,
);

/** Every tool's schemas, by name, each as one line of JSON, as the file holds them. */
export function toolSchemas(): Record<string, string> {
  // Whatever the environment says: the file is for the settings that add no field.
  const server = { ...configFromFlags(parseFlags([])).server, anySocket: false, remotes: [] };
  return Object.fromEntries(
    ALL_TOOLS.map((spec) => [spec.name, JSON.stringify(zodSchemasOf(spec, server))]),
  );
}

/** The module's text. */
export function schemasModule(schemas: Record<string, string>): string {
  const entries = Object.entries(schemas).map(([name, json]) =>
    `  ${name}: ${JSON.stringify(json)},`
  );
  return [
    "/**",
    " * Every tool's input and output JSON Schemas, one line of JSON a tool, written from its zod",
    " * schemas by `deno task schemas` (scripts/tool_schemas.ts): see tool_schemas.ts. Not edited",
    " * by hand; the suite fails while it differs from what the zod schemas make.",
    " *",
    " * @module",
    " */",
    "",
    "/** By tool name. */",
    "export const WRITTEN_SCHEMAS: Readonly<Record<string, string>> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

if (import.meta.main) {
  await Deno.writeTextFile(SCHEMAS_FILE, schemasModule(toolSchemas()));
  const formatted = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", SCHEMAS_FILE.pathname],
  }).output();
  if (!formatted.success) throw new Error("deno fmt failed on the schemas file");
  console.error(`schemas: wrote ${SCHEMAS_FILE.pathname}`);
}
