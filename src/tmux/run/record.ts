/**
 * What a timed-out run leaves in its pane, so that any server process (this one, or one started
 * later) can wait for it again and collect its exit status and output: a pane user option named
 * for the run, holding where its output starts and the line that was typed. Pure.
 *
 * @module
 */

import { NAME_PREFIX, NONCE_BYTES } from "./shell.ts";

/** A run's id, as results carry it: the pane's number and the call's nonce (`3.0123abcd...`). */
export function runIdOf(paneId: string, nonce: string): string {
  return `${paneId.slice(1)}.${nonce}`;
}

const RUN_ID = new RegExp(`^(\\d{1,9})\\.([0-9a-f]{${2 * NONCE_BYTES}})$`);

/** The pane and nonce of a run id, or null when it is not one. */
export function parseRunId(runId: string): { paneId: string; nonce: string } | null {
  const match = runId.match(RUN_ID);
  return match ? { paneId: `%${match[1]}`, nonce: match[2] } : null;
}

const RECORD_OPTION = new RegExp(`^@${NAME_PREFIX}run_([0-9a-f]{${2 * NONCE_BYTES}})$`);

/** The nonce of a record option's name (`CallNames.record`), or null for any other name. */
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
}

/** The option value for a record. */
export function encodeRecord(record: RunRecord): string {
  return JSON.stringify(record);
}

/** A record from its option value; null when the value is not one. */
export function parseRecord(value: string): RunRecord | null {
  try {
    const record = JSON.parse(value);
    const { anchor } = record;
    const ints = [anchor?.history, anchor?.y, anchor?.x, anchor?.pid, record.created];
    if (!ints.every(Number.isInteger) || typeof record.typed !== "string") return null;
    return { anchor, typed: record.typed, created: record.created };
  } catch {
    return null;
  }
}
