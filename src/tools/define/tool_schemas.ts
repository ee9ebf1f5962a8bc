/**
 * The JSON Schemas tools/list gives for each tool's input and output: written once from the zod
 * schemas (the source of truth) into tool_schemas_written.ts by `deno task schemas`, for the settings
 * that add no field (no `--any-socket`, no remote host), so that a start's first tools/list
 * converts nothing (converting the default toolset took 30-55 ms of a 200 ms start). Other
 * settings convert once, at the first list. A test holds the file equal to the zod schemas.
 *
 * @module
 */

import { z, type ZodObject, type ZodRawShape } from "../../deps.ts";
import { WRITTEN_SCHEMAS } from "./tool_schemas_written.ts";

/** A JSON Schema, as tools/list gives it. */
export type JsonSchema = Record<string, unknown>;

/** A tool's input and output schemas. */
export interface ToolSchemas {
  /** What it takes. */
  input: JsonSchema;
  /** What its structured result holds. */
  output: JsonSchema;
}

/** The zod schemas a tool is registered with. */
export interface ZodToolSchemas {
  /** What it takes. */
  input: ZodObject<ZodRawShape>;
  /** What its structured result holds. */
  output: ZodObject<ZodRawShape>;
}

/** JSON Schemas (draft 7) of a tool's zod schemas, as the SDK writes them. */
export function jsonSchemasOf(schemas: ZodToolSchemas): ToolSchemas {
  return {
    input: z.toJSONSchema(schemas.input, { target: "draft-7", io: "input" }) as JsonSchema,
    output: z.toJSONSchema(schemas.output, { target: "draft-7", io: "output" }) as JsonSchema,
  };
}

/** A tool's schemas as tool_schemas_written.ts holds them (null: not there). */
export function writtenSchemas(name: string): ToolSchemas | null {
  return Object.hasOwn(WRITTEN_SCHEMAS, name) ? JSON.parse(WRITTEN_SCHEMAS[name]) : null;
}
