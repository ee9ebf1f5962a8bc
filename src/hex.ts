/**
 * Bytes as lowercase hex, for tokens, nonces and digests.
 *
 * @module
 */

/** Encodes bytes as lowercase hex, two digits each. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `count` random bytes as hex. */
export function randomHex(count: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(count)));
}
