/**
 * Small helpers every layer uses, of the kind Deno's standard library has (its JSR packages are
 * out of reach here): waits with a way out, a map that forgets its oldest, host names as HTTP
 * sees them, byte streams read into one reused buffer, and a text's digest as logs name it.
 *
 * @module
 */

export * from "./async.ts";
export * from "./bounded_map.ts";
export * from "./digest.ts";
export * from "./net.ts";
export * from "./streams.ts";
