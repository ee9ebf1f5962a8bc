/**
 * One-at-a-time access per key (a pane), first come first served, with a deadline for waiting.
 *
 * @module
 */

import { abortable, ABORTED, deadline } from "../util/mod.ts";

/** Keyed FIFO locks. */
export type KeyedLock = Map<string, Promise<void>>;

/** Makes an empty set of keyed locks. */
export function createKeyedLock(): KeyedLock {
  return new Map();
}

/**
 * Waits for the key until `deadline` (ms since epoch; none: for as long as it takes) or `signal`
 * aborts. Resolves with a release function, or with null when the wait was given up (the queue
 * order is kept either way).
 */
export async function acquire(
  locks: KeyedLock,
  key: string,
  options: { deadline?: number; signal?: AbortSignal } = {},
): Promise<(() => void) | null> {
  const previous = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => release = resolve);
  const tail = previous.then(() => mine);
  locks.set(key, tail);
  const done = (): void => {
    release();
    if (locks.get(key) === tail) locks.delete(key);
  };
  const turn = previous.then(() => true as const);
  // Disposed of in `finally`, not by `using`: the bundle's minifier turns a `using` read once
  // right after into that read, and the deadline kept its timer for the call's whole timeout
  // (evanw/esbuild#4482).
  const limit = options.deadline === undefined
    ? null
    : deadline(options.deadline - Date.now(), options.signal);
  try {
    const signal = limit?.signal ?? options.signal;
    const got = signal === undefined ? await turn : await abortable(turn, signal);
    if (got === ABORTED) {
      done();
      return null;
    }
    return done;
  } finally {
    limit?.[Symbol.dispose]();
  }
}
