/**
 * The bench's empty Deno program: it waits on its standard input and exits at its end, so that
 * its start and memory can be read beside a server's.
 *
 * @module
 */

for await (const _ of Deno.stdin.readable) {
  // Read to the end.
}
