/**
 * Waiting with a way out, built on `AbortSignal`: a deadline is `AbortSignal.timeout`, a
 * cancellation another signal, and both together `AbortSignal.any`.
 *
 * @module
 */

/** What {@linkcode abortable} resolves to when the signal fires first. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * The promise's value, or {@linkcode ABORTED} as soon as the signal aborts (at once when it
 * already has). The listener is removed when the promise settles, so a long-lived signal does
 * not collect one per wait.
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal,
): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A signal that aborts after `ms` milliseconds or when `signal` (if any) does. */
export function deadline(ms: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(Math.max(0, ms));
  return signal === undefined ? timeout : AbortSignal.any([timeout, signal]);
}

/** Resolves after `ms` milliseconds, or sooner when the signal aborts. */
export async function delay(ms: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slept = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  try {
    await (options.signal ? abortable(slept, options.signal) : slept);
  } finally {
    clearTimeout(timer);
  }
}
