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

/** A deadline's signal; disposing of it (`using`) lets its timer go when the wait ends early. */
export interface Deadline extends Disposable {
  /** Aborts when the time is up, or when the given signal does. */
  readonly signal: AbortSignal;
}

/**
 * A signal that aborts after `ms` milliseconds or when `signal` (if any) does. Unlike
 * `AbortSignal.timeout`, whose timer lives its full term, it is released on disposal: calls that
 * end in milliseconds do not keep a timer each for their whole timeout.
 */
export function deadline(ms: number, signal?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("The deadline passed", "TimeoutError")),
    Math.max(0, ms),
  );
  return {
    signal: signal === undefined ? controller.signal : AbortSignal.any([controller.signal, signal]),
    [Symbol.dispose]: () => clearTimeout(timer),
  };
}

/** A signal that also aborts when a long-lived one does, until disposed of (`using`). */
export interface LinkedSignal extends Disposable {
  /** Aborts when the call's signal or the long-lived one does. */
  readonly signal: AbortSignal;
}

/**
 * A signal that aborts when `signal` does or when `longLived` does, for one call under a signal
 * that outlives many (a server's stop). `AbortSignal.any` over such a signal leaves an entry in
 * it for every signal made from it, never freed (Deno 2.9: 360 bytes a call, and with it what
 * the call's signals hold); here the long-lived one is followed by a listener removed on
 * disposal, and `AbortSignal.any` joins two signals that end with the call.
 */
export function linkedSignal(signal: AbortSignal, longLived: AbortSignal): LinkedSignal {
  const linked = new AbortController();
  const onAbort = (): void => linked.abort(longLived.reason);
  if (longLived.aborted) onAbort();
  else longLived.addEventListener("abort", onAbort, { once: true });
  return {
    signal: AbortSignal.any([signal, linked.signal]),
    [Symbol.dispose]: () => longLived.removeEventListener("abort", onAbort),
  };
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

/** Wakes a paused wait; a wake that comes while not paused is kept for the next pause. */
export class Alarm {
  #wake: (() => void) | null = null;
  #pending = false;

  /** Wakes the current (or the next) pause. */
  ring(): void {
    if (this.#wake) this.#wake();
    else this.#pending = true;
  }

  /** Resolves after `ms`, or as soon as rung or aborted. */
  pause(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = null;
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
