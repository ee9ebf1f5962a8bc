/**
 * The id of the request a JSON-RPC error answers. JSON-RPC asks for `id: null` only when the id
 * could not be read: a message refused for its shape or its headers still names its request.
 *
 * @module
 */

/** A request's id: what a message that is an object says in `id`, if a string or a number. */
export function requestIdOf(message: unknown): string | number | null {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return null;
  const id = (message as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}
