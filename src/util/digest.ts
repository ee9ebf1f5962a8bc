/**
 * A text as logs and recordings name it, never as it is: the first 16 hex digits of its SHA-256
 * (with its length beside, that tells two commands apart).
 *
 * @module
 */

/** The first 16 hex digits of the text's SHA-256. */
export async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(hash).slice(0, 8).toHex();
}
