/**
 * The cursor made as text was last typed into each pane (send_keys, paste_text), for a wait
 * that brings no cursor of its own: the echo of that text, drawn late by a shell still busy when
 * it was typed, is not output (see `SinceOptions.echoFrom`).
 *
 * @module
 */

import { BoundedMap } from "../../../util/mod.ts";
import { lockKey } from "../../transport/spawn/exec.ts";
import type { TmuxSocket } from "../../transport/socket.ts";

/** How long after text was typed a wait still looks out for its echo. */
const TYPED_KEEP_MS = 30_000;

/** Panes remembered, the oldest going first. */
const PANES_MAX = 1024;

/** Per pane, the cursor made as text was last typed there, and when. */
export type TypedCursors = Map<string, { cursor: string; at: number }>;

/** An empty, bounded {@linkcode TypedCursors}. */
export function createTypedCursors(): TypedCursors {
  return new BoundedMap(PANES_MAX);
}

/** Remembers the cursor made as text was typed into a pane. */
export function rememberTyped(
  cursors: TypedCursors,
  target: { socket: TmuxSocket; paneId: string },
  cursor: string,
): void {
  cursors.set(lockKey(target.socket, target.paneId), { cursor, at: Date.now() });
}

/** The cursor made as text was last typed into a pane, while its echo may still come. */
export function typedCursor(
  cursors: TypedCursors,
  target: { socket: TmuxSocket; paneId: string },
): string | null {
  const typed = cursors.get(lockKey(target.socket, target.paneId));
  return typed !== undefined && Date.now() - typed.at < TYPED_KEEP_MS ? typed.cursor : null;
}

/**
 * Per pane, where the last wait on it stopped reading when its exchange was not whole (a
 * timeout, quiet, a pattern: the program may write on): the next exchange's answer begins there,
 * so nothing the program writes between two calls is lost.
 */
export type UnfinishedAnswers = Map<string, string>;

/** An empty, bounded {@linkcode UnfinishedAnswers}. */
export function createUnfinishedAnswers(): UnfinishedAnswers {
  return new BoundedMap(PANES_MAX);
}

/** Remembers where a wait stopped reading (null: its exchange was whole). */
export function rememberAnswer(
  answers: UnfinishedAnswers,
  target: { socket: TmuxSocket; paneId: string },
  cursor: string | null,
): void {
  const key = lockKey(target.socket, target.paneId);
  if (cursor === null) answers.delete(key);
  else answers.set(key, cursor);
}

/** Where the last wait on a pane stopped reading, when its exchange was not whole; forgotten. */
export function takeUnfinished(
  answers: UnfinishedAnswers,
  target: { socket: TmuxSocket; paneId: string },
): string | null {
  const key = lockKey(target.socket, target.paneId);
  const cursor = answers.get(key) ?? null;
  answers.delete(key);
  return cursor;
}
