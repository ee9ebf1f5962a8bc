/**
 * Input fields shared by tool groups.
 *
 * @module
 */

import {
  z,
  type ZodBoolean,
  type ZodDefault,
  type ZodNullable,
  type ZodNumber,
  type ZodObject,
  type ZodOptional,
  type ZodString,
  type ZodType,
  type ZodTypeOf,
} from "../../deps.ts";
import {
  AGENT_STATES,
  type AgentReport,
  PERSON_POLICIES,
  type PersonPolicy,
  WAIT_REASONS,
} from "../../tmux/mod.ts";

/** tmux `-L` socket names: a plain file name. */
export const socketNameSchema: ZodOptional<ZodNullable<ZodString>> = z.string().regex(
  /^[A-Za-z0-9_.-]{1,100}$/,
  {
    message: "socket_name may hold only letters, digits, '_', '.' and '-' (1 to 100 of them)",
  },
).nullable().optional().describe("tmux -L socket name; default: the server's");

/** The fields that name a pane (see `resolvePane`): terse, as every pane tool repeats them. */
export const paneSpecShape = {
  pane_id: z.string().nullable().optional().describe("like %3"),
  window_id: z.string().nullable().optional().describe("like @2"),
  session_id: z.string().nullable().optional().describe("like $1"),
  session_name: z.string().nullable().optional().describe("exact name"),
  socket_name: socketNameSchema,
};

/** The fields that name a session. */
export const sessionSpecShape = {
  session_id: z.string().nullable().optional().describe("like $1"),
  session_name: z.string().nullable().optional().describe("exact name"),
  socket_name: socketNameSchema,
};

/** The kinds of field a tmux layer field spec has. */
export type SpecKind = "string" | "int" | "bool";

/** A zod object for one of the tmux layer's field specs. */
export function objectSchema<S extends Record<string, SpecKind>>(
  spec: S,
): ZodObject<{ [F in keyof S]: ZodType }> {
  const shape: Record<string, ZodType> = {};
  for (const [field, kind] of Object.entries(spec)) {
    shape[field] = kind === "string" ? z.string() : kind === "int" ? z.number().int() : z.boolean();
  }
  return z.object(shape) as ZodObject<{ [F in keyof S]: ZodType }>;
}

/** An exact pane id, required. */
export const paneIdSchema: ZodString = z.string().describe("pane id like %3 (from list_panes)");

/** An exact window id, required. */
export const windowIdSchema: ZodString = z.string().describe(
  "window id like @2 (from list_windows)",
);

/** An exact session id, required. */
export const sessionIdSchema: ZodString = z.string().describe(
  "session id like $1 (from list_sessions)",
);

/** Output: the pane a tool acted on. */
export const paneIdOutput: ZodString = z.string().describe("the pane acted on, like %3");

/** Output of tools whose only news is that they succeeded. */
export const okOutput = { ok: z.literal(true).describe("always true: the change was made") };

/** Output of tools that create a session, window or pane: the new objects' ids. */
export const createdOutput = {
  session_id: z.string().describe("the session, like $1"),
  session_name: z.string().describe("the session's name"),
  window_id: z.string().describe("the new (or containing) window, like @2"),
  pane_id: z.string().describe("the new pane, like %3: pass it to run_command, send_keys..."),
  ready: z.boolean().optional().describe(
    "with wait_ready: its shell reads (false: still starting)",
  ),
};

/**
 * How long a verb that starts a shell waits for it to read. Not by default: a heavy startup file
 * takes seconds, and the calls that type into the pane wait for it anyway.
 */
export const waitReadySchema: ZodOptional<ZodNumber> = z.number().min(0).max(60).optional()
  .describe(
    "seconds to wait for its shell to read",
  );

/** Seconds to wait, clamped by the server. */
export const timeoutSchema: ZodDefault<ZodNumber> = z.number().positive().default(30).describe(
  "seconds",
);

/** Show only the last N lines: run_command's, as its contract states it (null by default). */
export const maxLinesSchema: ZodDefault<ZodNullable<ZodNumber>> = z.number().int().min(1).nullable()
  .default(null).describe(
    "only the last N lines",
  );

/** Show only the last N lines, in the tools that read a pane or collect a run. */
export const lastLinesSchema: ZodOptional<ZodNullable<ZodNumber>> = z.number().int().min(1)
  .nullable().optional().describe("only the last N lines");

/** Whether text patterns match case exactly: one default for every tool that matches. */
export const caseSensitiveSchema: ZodDefault<ZodBoolean> = z.boolean().default(true).describe(
  "match case exactly",
);

/** The pane text one result shows, in bytes. */
export const maxOutputBytesSchema: ZodDefault<ZodNumber> = z.number().int().min(1024).default(16384)
  .describe(
    "bytes shown at most",
  );

/**
 * Session and window names: an allow-list of what tmux stores as it is given. tmux rewrites ':'
 * and '.' (target syntax), escapes '\\', '$' and control characters, and keeps '#[' (a style) as
 * '##[', so those are refused rather than stored changed. Checked by a refinement, not a schema
 * pattern: the message says it better than the expression would, in every tool list.
 */
const NAME = /^(?!.*#\[)(?:(?![:.\\$])[\p{L}\p{M}\p{N}\p{P}\p{S} ])+$/u;

/** A session or window name. */
export const nameSchema: ZodString = z.string().min(1).max(100).refine((name) => NAME.test(name), {
  message: "names are 1 to 100 letters, digits, punctuation, symbols and spaces, " +
    "not ':', '.', '\\', '$' or '#[' (tmux would store them changed)",
}).describe("stored exactly as given");

/** A new pane's working directory. */
export const directorySchema: ZodOptional<ZodNullable<ZodString>> = z.string().min(1).max(4096)
  .nullable().optional().describe(
    "working directory",
  );

/** A new pane's program. */
export const commandSchema: ZodOptional<ZodNullable<ZodString>> = z.string().min(1).max(10000)
  .nullable().optional().describe(
    "instead of a shell",
  );

/** What a tool that types does when a person may be typing in the pane (read/person.ts). */
export const ifPersonTypingSchema: ZodTypeOf<PersonPolicy, PersonPolicy | undefined> = z.enum(
  PERSON_POLICIES,
).default("refuse").describe(
  "if a person may be typing: refuse, wait or type",
);

/** The widest window or pane made or resized: a 4K screen in a small font is about 640 columns. */
export const COLUMNS_MAX = 1000;
/** The tallest: the same screen is about 200 rows. */
export const ROWS_MAX = 500;

/** A width in cells. */
export const columnsSchema: ZodNumber = z.number().int().min(1).max(COLUMNS_MAX);

/** A height in cells. */
export const rowsSchema: ZodNumber = z.number().int().min(1).max(ROWS_MAX);

/** Output of the kill tools. */
export const killedOutput = { killed: z.string().describe("the id of what was killed") };

/** A pane's screen as snapshot_pane and screenshot_pane both describe it: size and cursor. */
export const screenOutput = {
  cursor_x: z.number().int().describe("cursor column, from 0"),
  cursor_y: z.number().int().describe("cursor row, from 0 at the top of the screen"),
  width: z.number().int().describe("columns"),
  height: z.number().int().describe("rows"),
  alternate_on: z.boolean().describe("a full-screen program (editor, pager) owns the screen"),
};

/** What a coding agent in a pane reports, or the look infers (list_panes' state, waits). */
export const agentReportSchema: ZodTypeOf<AgentReport | null> = z.object({
  state: z.enum(AGENT_STATES).describe("what the agent does"),
  reason: z.enum(WAIT_REASONS).nullable().describe("why it waits"),
  message: z.string().nullable().describe("what it said (its notification, its answer), cut"),
  age_seconds: z.number().int().nullable().describe("since it reported it (null: inferred)"),
  since: z.number().int().nullable().describe(
    "when it reported it: seconds since the epoch, tmux's clock (null: inferred)",
  ),
  source: z.enum(["reported", "inferred"]).describe(
    "reported by its hook lines, or inferred from the kernel's look at a program",
  ),
}).nullable();
