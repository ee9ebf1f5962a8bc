/**
 * The names this server gives things in tmux (options, channels, buffers, nonces): one prefix, one
 * nonce size, so every process can tell its own kind apart and reconcile what another left.
 *
 * @module
 */

/** What every name this server gives things in tmux starts with. */
export const NAME_PREFIX = "tmux_mcp_";

/**
 * Pane user option set while one of our commands runs in the pane, to `<channel>:<pane_pid>`; the
 * trailer unsets it. The pid tells any server process that a mark outlived its shell (the pane
 * was respawned, or its process died).
 */
export const RUNNING_OPTION = `@${NAME_PREFIX}running`;

/** Random bytes in a nonce (16 hex digits). */
export const NONCE_BYTES = 8;

/** A fresh nonce: {@linkcode NONCE_BYTES} random bytes as hex. */
export function newNonce(): string {
  return crypto.getRandomValues(new Uint8Array(NONCE_BYTES)).toHex();
}

/** A fresh private name of one kind, like `tmux_mcp_paste_<nonce>`. */
export function privateName(kind: string): string {
  return `${NAME_PREFIX}${kind}_${newNonce()}`;
}
