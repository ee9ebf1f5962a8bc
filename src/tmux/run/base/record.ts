/**
 * What a timed-out run leaves in its pane, so that any server process (this one, or one started
 * later) can wait for it again and collect its exit status and output: a pane user option named
 * for the run, holding where its output starts and the line that was typed. Pure.
 *
 * @module
 */

import { NAME_PREFIX, NONCE_BYTES } from "../../names.ts";
import { isOwner } from "./owner.ts";

/**
 * A run's id, as results carry it: the pane's number and the call's nonce (`3.0123abcd...`),
 * after its host on a remote one (`web1/3.0123abcd...`).
 */
export function runIdOf(paneId: string, nonce: string, host: string | null): string {
  return `${host === null ? "" : `${host}/`}${paneId.slice(1)}.${nonce}`;
}

const RUN_ID = new RegExp(
  `^(?:([a-z][a-z0-9_-]{0,31})/)?(\\d{1,9})\\.([0-9a-f]{${2 * NONCE_BYTES}})$`,
);

/** The pane and nonce of a run id, or null when it is not one. */
export function parseRunId(runId: string): { paneId: string; nonce: string } | null {
  const match = runId.match(RUN_ID);
  return match ? { paneId: `%${match[2]}`, nonce: match[3] } : null;
}

/** The host a run id names (null: this machine's, or not a run id). */
export function runIdHost(runId: string): string | null {
  return runId.match(RUN_ID)?.[1] ?? null;
}

const RECORD_OPTION = new RegExp(`^@${NAME_PREFIX}(?:run|rec)_([0-9a-f]{${2 * NONCE_BYTES}})$`);

/**
 * The nonce of a record option's name (`CallNames.record` or `quietRecord`), or null for any
 * other name.
 */
export function recordOptionNonce(name: string): string | null {
  return name.match(RECORD_OPTION)?.[1] ?? null;
}

/** How long an uncollected run's record is kept. */
export const RECORD_TTL_MS = 60 * 60 * 1000;

/** What collecting a run needs. */
export interface RunRecord {
  /** Where the line was typed: rows of history, cursor row and column, and the pane's pid. */
  anchor: { history: number; y: number; x: number; pid: number };
  /** The line that was typed, to find where output starts. */
  typed: string;
  /** When the record was made, in ms since the epoch. */
  created: number;
  /**
   * The line was typed but the shell had not run it when its call gave up, and no running mark
   * holds the pane for it: it may still start (wait_for_command waits for it all the same).
   * `after`: the pane's last ended run then (`ENDED_OPTION`, "" for none); a later one settles it.
   */
  pending?: { after: string };
  /** Whose run it is (see owner.ts); absent: anyone's. */
  owner?: string;
}

/** The option value for a record. */
export function encodeRecord(record: RunRecord): string {
  return JSON.stringify(record);
}

/**
 * Bounds a record's numbers must keep: tmux's history and screen sizes are ints, and a process id
 * fits in 31 bits. Anything in the pane can rewrite the option, so nothing unchecked is used.
 */
const LIMITS = {
  history: 2 ** 31,
  y: 100_000,
  x: 100_000,
  pid: 2 ** 31,
};

/** The longest typed line a record may carry (a definition, the arguments, a command). */
const TYPED_MAX = 8192;

function within(value: unknown, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < max;
}

const CHANNEL = new RegExp(`^(?:${NAME_PREFIX}[0-9a-f]{${2 * NONCE_BYTES}})?$`);

/** A pending record's `after`, when it is a channel name (or ""); null for anything else. */
function pendingAfter(pending: unknown): string | null {
  const after = (pending as { after?: unknown } | null)?.after;
  return typeof after === "string" && CHANNEL.test(after) ? after : null;
}

/** A record from its option value; null when the value is not one this server could have made. */
export function parseRecord(value: string): RunRecord | null {
  if (value.length > TYPED_MAX * 2) return null;
  let record;
  try {
    record = JSON.parse(value);
  } catch {
    return null;
  }
  const anchor = record?.anchor;
  const valid = within(anchor?.history, LIMITS.history) && within(anchor?.y, LIMITS.y) &&
    within(anchor?.x, LIMITS.x) && within(anchor?.pid, LIMITS.pid) && anchor.pid > 0 &&
    within(record.created, Number.MAX_SAFE_INTEGER) && typeof record.typed === "string" &&
    record.typed.length <= TYPED_MAX;
  if (!valid) return null;
  const after = pendingAfter(record.pending);
  return {
    anchor: { history: anchor.history, y: anchor.y, x: anchor.x, pid: anchor.pid },
    typed: record.typed,
    created: record.created,
    ...(after === null ? {} : { pending: { after } }),
    ...(isOwner(record.owner) ? { owner: record.owner } : {}),
  };
}
