/**
 * Host names as the HTTP transport and its flags see them: which are loopback, and how a host
 * is written in a URL or a Host header.
 *
 * @module
 */

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** The names a client on this machine may put in a Host header for a loopback server. */
export const LOOPBACK_NAMES: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/** Whether a host name is a loopback address. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host);
}

/** A host as a URL or a Host header writes it: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
