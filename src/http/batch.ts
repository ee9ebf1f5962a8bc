/**
 * JSON-RPC batches (a body that is a JSON array) told and counted without parsing them: a body of
 * four megabytes of `[{},{},...]` took seconds and 680 MB to parse, before anything could refuse
 * it. Pure.
 *
 * @module
 */

/**
 * Messages one batch may hold (protocol revisions before 2025-06-18 have batches): the SDK's own
 * limit, which it applies only once it has parsed the whole body.
 */
export const BATCH_MAX = 100;

const WHITE = new Set([" ", "\t", "\r", "\n"]);

/** Whether a body is a JSON array (a batch), told from its first character. */
export function isBatch(text: string): boolean {
  let i = 0;
  while (i < text.length && WHITE.has(text[i])) i++;
  return text[i] === "[";
}

/**
 * How many elements a batch has, counted up to `most + 1` in one pass over its text (strings and
 * nesting skipped, nothing built); 0 for an empty one. The text is assumed to be a batch.
 */
export function batchElements(text: string, most: number): number {
  let depth = 0;
  let inString = false;
  let commas = 0;
  let empty = true;
  for (let i = text.indexOf("["); i >= 0 && i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      empty = false;
    } else if (c === "[" || c === "{") {
      if (++depth > 1) empty = false;
    } else if (c === "]" || c === "}") {
      if (--depth === 0) break;
    } else if (depth === 1 && c === ",") {
      if (++commas >= most) return most + 1;
    } else if (!WHITE.has(c)) {
      empty = false;
    }
  }
  return empty ? 0 : commas + 1;
}
