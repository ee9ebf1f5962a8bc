/**
 * The cursor made as text was last typed into each pane (send_keys, paste_text), for a wait
 * that brings no cursor of its own: the echo of that text, drawn late by a shell still busy when
 * it was typed, is not output (see `SinceOptions.echoFrom`).
 *
 * @module
 */

import { BoundedMap } from "../../util/mod.ts";
import { lockKey } from "../transport/exec.ts";
import type { TmuxSocket } from "../transport/socket.ts";

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
