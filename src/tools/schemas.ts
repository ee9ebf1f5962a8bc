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

/** The fields that name a session. */
export const sessionSpecShape = {
  session_id: z.string().nullable().optional().describe("session id like $1"),
  session_name: z.string().nullable().optional().describe("exact session name"),
  socket_name: socketNameSchema,
};

type Kind = "string" | "int" | "bool";

/** A zod object for one of the tmux layer's field specs. */
export function objectSchema<S extends Record<string, Kind>>(
  spec: S,
): z.ZodObject<{ [F in keyof S]: z.ZodType }> {
  const shape: Record<string, z.ZodType> = {};
  for (const [field, kind] of Object.entries(spec)) {
    shape[field] = kind === "string" ? z.string() : kind === "int" ? z.number().int() : z.boolean();
  }
  return z.object(shape) as z.ZodObject<{ [F in keyof S]: z.ZodType }>;
}

/** An exact pane id, required. */
export const paneIdSchema = z.string().describe("pane id like %3 (from list_panes)");

/** An exact window id, required. */
export const windowIdSchema = z.string().describe("window id like @2 (from list_windows)");

/** An exact session id, required. */
export const sessionIdSchema = z.string().describe("session id like $1 (from list_sessions)");

/** Output: the pane a tool acted on. */
export const paneIdOutput = z.string().describe("the pane acted on, like %3");

/** Output of tools whose only news is that they succeeded. */
export const okOutput = { ok: z.literal(true).describe("always true: the change was made") };

/** Output of tools that create a session, window or pane: the new objects' ids. */
export const createdOutput = {
  session_id: z.string().describe("the session, like $1"),
  session_name: z.string().describe("the session's name"),
  window_id: z.string().describe("the new (or containing) window, like @2"),
  pane_id: z.string().describe("the new pane, like %3: pass it to run_command, send_keys..."),
};

/** Seconds to wait, clamped by the server. */
export const timeoutSchema = z.number().positive().default(30).describe(
  "seconds to wait; clamped to the server's ceiling, never an error",
);

/** Show only the last N lines. */
export const maxLinesSchema = z.number().int().min(1).nullable().default(null).describe(
  "show only the last N lines (default: all, or the first and last of 400 when there are " +
    "more); what is not shown is counted",
);

/** Whether text patterns match case exactly: one default for every tool that matches. */
export const caseSensitiveSchema = z.boolean().default(true).describe(
  "match case exactly (default true)",
);

/** The pane text one result shows, in bytes. */
export const maxOutputBytesSchema = z.number().int().min(1024).nullable().optional().describe(
  "UTF-8 bytes of pane text the result shows at most (default 16384; at most the server's " +
    "--max-output-bytes); the rest is counted, and one call away",
);

/**
 * Session and window names: an allow-list of what tmux stores as it is given. tmux rewrites ':'
 * and '.' (target syntax), escapes '\\', '$' and control characters, and keeps '#[' (a style) as
 * '##[', so those are refused rather than stored changed.
 */
export const nameSchema = z.string().min(1).max(100).regex(
  /^(?!.*#\[)(?:(?![:.\\$])[\p{L}\p{M}\p{N}\p{P}\p{S} ])+$/u,
  {
    message: "names are 1 to 100 letters, digits, punctuation, symbols and spaces, " +
      "not ':', '.', '\\', '$' or '#[' (tmux would store them changed)",
  },
).describe("the name, stored exactly as given");

/** A new pane's working directory. */
export const directorySchema = z.string().min(1).max(4096).nullable().optional().describe(
  "working directory for the new pane (default: the current directory of the pane it is " +
    "made from, for a window or a split; tmux's for a session)",
);

/** A new pane's program. */
export const commandSchema = z.string().min(1).max(10000).nullable().optional().describe(
  "program to run instead of the default shell (it runs with your rights: to run commands " +
    "and get their results, start a shell and use run_command)",
);

/** A size in cells. */
export const sizeSchema = z.number().int().min(1).max(10000);

/** Output of the kill tools. */
export const killedOutput = { killed: z.string().describe("the id of what was killed") };
