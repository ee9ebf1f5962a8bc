// tools/list's schemas are written once from the zod schemas (tool_schemas_written.ts): the file
// must say what the zod schemas do.

import { assertEquals } from "../deps.ts";
import { toolSchemas } from "../../scripts/tool_schemas.ts";
import { WRITTEN_SCHEMAS } from "../../src/tools/define/tool_schemas_written.ts";

Deno.test("tool_schemas_written.ts holds every tool's schemas as its zod schemas make them", () => {
  assertEquals(
    WRITTEN_SCHEMAS,
    toolSchemas(),
    "src/tools/define/tool_schemas_written.ts differs from the zod schemas: run deno task schemas",
  );
});
