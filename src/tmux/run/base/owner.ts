/**
 * Who a run belongs to: one caller's session of this process (the tools layer gives each MCP
 * session an owner), or anyone (null: runs shared). Records and kept output carry the owner; a
 * run of another session of this process is, to a caller, as unknown as a run that never was.
 * A run recorded by another process (before a restart) is anyone's: that process's sessions are
 * gone. Pure.
 *
 * @module
 */

/** This process's part of every owner it makes. */
const PROCESS = crypto.getRandomValues(new Uint8Array(8)).toHex();

let made = 0;

/** A new owner, for one session. */
export function newOwner(): string {
  return `${PROCESS}.${++made}`;
}

const OWNER = /^[0-9a-f]{16}\.\d{1,15}$/;

/** Whether a value read back (from a pane's record) is an owner; anything else is ignored. */
export function isOwner(value: unknown): value is string {
  return typeof value === "string" && OWNER.test(value);
}

/** Whether `asker` (null: runs are shared) may see a run of `owner` (null: no one's). */
export function mayCollect(owner: string | null, asker: string | null): boolean {
  return asker === null || owner === null || owner === asker || !owner.startsWith(`${PROCESS}.`);
}
