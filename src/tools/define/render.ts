/**
 * The text half of results that carry pane text: a summary line first (what happened, the
 * counts, how to get what was left out), then the same lines `structuredContent` carries, with
 * one marker line where lines were left out. Clients that show the model only the text (Gemini
 * CLI) get everything the structured half says; clients that cut long results keep the first
 * line.
 *
 * @module
 */

/** A count as people write it: 1,234,567. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** A size: 512 bytes, 16.0 KB, 5.9 MB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `n lines` or `1 line`. */
export function lines(n: number): string {
  return `${count(n)} ${n === 1 ? "line" : "lines"}`;
}

/** Lines shown around a gap: the head, one marker line saying what is left out, the tail. */
export function withGap(
  head: readonly string[],
  tail: readonly string[],
  gap: { lines: number; bytes: number; hint: string } | null,
): string[] {
  if (gap === null) return [...head, ...tail];
  return [
    ...head,
    `... [${lines(gap.lines)} (${size(gap.bytes)}) left out${gap.hint}] ...`,
    ...tail,
  ];
}
