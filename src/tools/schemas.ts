/**
 * Input fields shared by tool groups.
 *
 * @module
 */

import { z } from "../deps.ts";

/** tmux `-L` socket names: a plain file name. */
export const socketNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, {
  message: "socket_name may hold only letters, digits, '_', '.' and '-' (1 to 100 of them)",
}).nullable().optional().describe("tmux -L socket name; default: the server's");

/** The fields that name a pane (see `resolvePane`). */
export const paneSpecShape = {
  pane_id: z.string().nullable().optional().describe("pane id like %3; wins over the others"),
  session_id: z.string().nullable().optional().describe("session id like $1"),
  session_name: z.string().nullable().optional().describe("exact session name"),
  window_id: z.string().nullable().optional().describe("window id like @2"),
  socket_name: socketNameSchema,
};
