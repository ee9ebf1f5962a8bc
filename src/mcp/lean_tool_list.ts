/**
 * What tools/list results leave as. Trimmed: the SDK writes each tool's JSON Schema with a
 * `$schema` line and, for every integer, JavaScript's safe-integer bounds, which say nothing a
 * model needs. Portable: zod writes a nullable field as a `type` array (`["string", "null"]`),
 * which clients that map schemas onto a single-`type` dialect (Gemini's function declarations)
 * reject or misread. An input field that may be left out says only its type: null and absent
 * mean the same to every tool, and null is still accepted; one whose default is null says so
 * (run_command's `max_lines`, as its contract states it). Anywhere else, where null is a value of
 * its own (an exit status not known), the alternatives become `anyOf` branches. Lean: an input
 * schema leaves out the size bounds the server checks anyway (`maxLength`, `maxItems`: a refusal
 * names them, as `minLength` 1 is: an empty text is refused), `additionalProperties: false` (an
 * unknown argument is refused by name), defaults that say no more than absence does (false, an
 * empty list), and the other ways to name what an id names (a pane by its window's or session's
 * id or its session's name, a session by its name: still taken), told in the id's description:
 * what a model reads of a tool list is its names, descriptions and input schemas, every byte of
 * them in every conversation.
 *
 * @module
 */

import type { JSONRPCMessage, Transport } from "../deps.ts";
import { hookTransport } from "./transport_hooks.ts";

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether a schema is a nullable one: a `type` array or an `anyOf` with a `null` branch. */
function nullBranches(node: Node): { types: string[] } | { anyOf: Node[] } | null {
  if (Array.isArray(node.type) && node.type.includes("null")) {
    return { types: node.type.filter((type) => type !== "null") as string[] };
  }
  if (
    Array.isArray(node.anyOf) &&
    node.anyOf.some((branch) => isNode(branch) && branch.type === "null")
  ) {
    return { anyOf: node.anyOf.filter((branch) => !(isNode(branch) && branch.type === "null")) };
  }
  return null;
}

/**
 * Makes an optional input field's schema say only its type (null and absent mean the same),
 * unless null is its default.
 */
function dropNull(node: Node): void {
  const branches = nullBranches(node);
  if (branches === null || node.default === null) return;
  if ("types" in branches) {
    node.type = branches.types.length === 1 ? branches.types[0] : branches.types;
  } else if (branches.anyOf.length === 1) {
    delete node.anyOf;
    Object.assign(node, branches.anyOf[0]);
  } else {
    node.anyOf = branches.anyOf;
  }
  if (node.default === null) delete node.default;
}

/** Writes a `type` array as `anyOf` branches of one type each. */
function splitTypes(node: Node): void {
  if (!Array.isArray(node.type)) return;
  node.anyOf = node.type.map((type) => ({ type }));
  delete node.type;
}

/** Trims and makes portable a JSON Schema, in place (bounded by its depth). */
function portable(schema: unknown, input: boolean, depth = 0): void {
  if (!isNode(schema) || depth > 16) return;
  delete schema.$schema;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (input) {
    delete schema.maxLength;
    delete schema.maxItems;
    if (schema.minLength === 1) delete schema.minLength;
    if (schema.additionalProperties === false) delete schema.additionalProperties;
    if (schema.default === false || isEmptyList(schema.default)) delete schema.default;
  }
  if (input && isNode(schema.properties)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const [name, field] of Object.entries(schema.properties)) {
      if (isNode(field) && !required.includes(name)) dropNull(field);
    }
  }
  splitTypes(schema);
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) { for (const item of value) portable(item, input, depth + 1); }
    else portable(value, input, depth + 1);
  }
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/**
 * The fields that name the same thing another way, by the id whose description tells them: a
 * pane by its window's or session's active pane, a session by its name.
 */
const OTHER_NAMES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["pane_id", ["window_id", "session_id", "session_name"]],
  ["session_id", ["session_name"]],
];

/**
 * Leaves out of an input schema the fields that name a target another way, telling them in its
 * id's description instead (they are taken as before).
 */
function foldOtherNames(schema: unknown): void {
  if (!isNode(schema) || !isNode(schema.properties)) return;
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const [id, others] of OTHER_NAMES) {
    const field = properties[id];
    const optional = (name: string) => name in properties && !required.includes(name);
    if (!isNode(field) || !others.every(optional)) continue;
    for (const name of others) delete properties[name];
    field.description = `${field.description ?? id}; or ${others.join(", ")}`;
  }
}

/** Rewrites the schemas of a tools/list result on its way out. */
function shapeToolList(message: JSONRPCMessage): void {
  if (!("result" in message)) return;
  const tools = (message.result as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return;
  for (const tool of tools) {
    portable(tool?.inputSchema, true);
    foldOtherNames(tool?.inputSchema);
    portable(tool?.outputSchema, false);
  }
}

/** Wraps a transport so tools/list results leave with trimmed, portable schemas. */
export function leanToolList(inner: Transport): Transport {
  return hookTransport(inner, { sending: shapeToolList, receiving: (_message, pass) => pass() });
}
