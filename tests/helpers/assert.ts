// Small assertions (JSR's @std/assert is out of reach from our machines).

/** Throws when the condition is false. */
export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

/** Deep equality through a stable JSON rendering; a long one is shown from where they differ. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a === e) return;
  let at = 0;
  while (a[at] === e[at]) at++;
  const from = Math.max(0, at - 200);
  const shown = (s: string) =>
    (from > 0 ? `...(${from} characters)` : "") + s.slice(from, from + 600) +
    (s.length > from + 600 ? `...(${s.length - from - 600} more)` : "");
  throw new Error(`${message ?? "not equal"}\n  actual:   ${shown(a)}\n  expected: ${shown(e)}`);
}

/** Regular-expression match. */
export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  if (!pattern.test(actual)) {
    throw new Error(
      `${message ?? "no match"}: ${JSON.stringify(actual.slice(0, 400))} !~ ${pattern}`,
    );
  }
}
