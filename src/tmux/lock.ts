/**
 * One-at-a-time access per key (a pane), first come first served, with a deadline for waiting.
 *
 * @module
 */

/** Keyed FIFO locks. */
export type KeyedLock = Map<string, Promise<void>>;

/** Makes an empty set of keyed locks. */
export function createKeyedLock(): KeyedLock {
  return new Map();
}

/**
 * Waits for the key until `deadline` (ms since epoch) or `signal` aborts. Resolves with a release
 * function, or with null when the wait was given up (the queue order is kept either way).
 */
export async function acquire(
  locks: KeyedLock,
  key: string,
  options: { deadline: number; signal?: AbortSignal },
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, options.deadline - Date.now()));
    onAbort = () => resolve(false);
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const got = await Promise.race([previous.then(() => true as const), gaveUp]);
  clearTimeout(timer);
  if (onAbort) options.signal?.removeEventListener("abort", onAbort);
  if (!got) {
    done();
    return null;
  }
  return done;
}
