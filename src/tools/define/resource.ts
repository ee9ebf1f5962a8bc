/**
 * What the resources' read handlers share: a value as a JSON resource's contents, and a URI
 * template's variable as it was written.
 *
 * @module
 */

/** A resource's contents: `value` as indented JSON. */
export function jsonContents(
  uri: URL,
  value: unknown,
): { contents: Array<{ uri: string; mimeType: string; text: string }> } {
  return {
    contents: [{
      uri: uri.href,
      mimeType: "application/json",
      text: JSON.stringify(value, null, 2),
    }],
  };
}

/** A URI template variable's value, decoded (the first, where it matched several). */
export function templateValue(value: string | string[]): string {
  return decodeURIComponent(Array.isArray(value) ? value[0] ?? "" : value);
}
