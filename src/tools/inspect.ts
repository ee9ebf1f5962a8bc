/**
 * Read-only tools: list and describe sessions, windows and panes, read pane content, search, wait
 * for text, and show options and environment.
 *
 * @module
 */

import { z } from "../deps.ts";
import {
  capturePane,
  captureSince,
  checkId,
  checkPlainFormat,
  compilePatterns,
  getPane,
  getSession,
  getWindow,
  listPanes,
  listSessions,
  listWindows,
  PANE_FIELDS,
  queryPane,
  resolvePane,
  resolveSession,
  runTmux,
  SESSION_FIELDS,
  TmuxError,
  truncateTail,
  waitForText,
  WINDOW_FIELDS,
} from "../tmux/mod.ts";
import { clampTimeout, socketFor } from "./context.ts";
import { type AnyToolSpec, defineTool } from "./define.ts";
import {
  maxLinesSchema,
  objectSchema,
  paneIdOutput,
  paneSpecShape,
  sessionSpecShape,
  socketNameSchema,
  timeoutSchema,
  windowIdSchema,
} from "./schemas.ts";

const sessionSchema = objectSchema(SESSION_FIELDS);
const windowSchema = objectSchema(WINDOW_FIELDS);
const paneSchema = objectSchema(PANE_FIELDS);

const linesOutput = {
  pane_id: paneIdOutput,
  lines: z.array(z.string()).describe("the pane's lines, oldest first"),
  truncated_lines: z.number().int().describe("lines dropped from the head for max_lines"),
  truncated_bytes: z.number().int().describe("UTF-8 bytes of those lines, a newline each"),
};

/** Names that look like they hold secrets; their values are withheld. */
const SECRET_NAME =
  /(TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION_KEY|API_?KEY|PRIVATE|_KEY$|^KEY$)/i;

const OPTION_NAME = /^@?[A-Za-z][A-Za-z0-9_-]{0,63}(\[\d{1,4}\])?$/;

const optionScope = z.enum(["server", "session", "window", "pane"]).default("session");

async function optionTarget(
  socket: ReturnType<typeof socketFor>,
  scope: z.infer<typeof optionScope>,
  args: {
    pane_id?: string | null;
    window_id?: string | null;
    session_id?: string | null;
    session_name?: string | null;
  },
): Promise<string[]> {
  if (scope === "server") return ["-s"];
  if (scope === "pane") return ["-p", "-t", await resolvePane(socket, args)];
  if (scope === "window") {
    if (args.window_id != null) return ["-w", "-t", checkId("window_id", args.window_id)];
    const pane = await resolvePane(socket, args);
    return ["-w", "-t", pane];
  }
  const session = await resolveSession(socket, args);
  return session === null ? [] : ["-t", session];
}

const optionScopeShape = {
  scope: optionScope.describe("server, session (default), window or pane"),
  global: z.boolean().default(false).describe("the global value (-g) rather than the target's"),
  ...paneSpecShape,
};

/** Tools of the inspect group. */
export const INSPECT_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "list_sessions",
    tier: "readonly",
    title: "List sessions",
    description: "Lists the tmux server's sessions (none when no server runs: create_session " +
      "starts one).",
    input: { socket_name: socketNameSchema },
    output: { sessions: z.array(sessionSchema).describe("every session, with its fields") },
    async run(args, context) {
      return { sessions: await listSessions(socketFor(context, args.socket_name)) };
    },
  }),
  defineTool({
    name: "list_windows",
    tier: "readonly",
    title: "List windows",
    description: "Lists windows, of one session (session_id or session_name) or of all.",
    input: sessionSpecShape,
    output: { windows: z.array(windowSchema).describe("the windows, with their fields") },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const session = await resolveSession(socket, args);
      const windows = await listWindows(socket);
      return { windows: windows.filter((w) => session === null || w.session_id === session) };
    },
  }),
  defineTool({
    name: "list_panes",
    tier: "readonly",
    title: "List panes",
    description: "Lists panes, of one window (window_id), one session, or all.",
    input: {
      ...sessionSpecShape,
      window_id: z.string().nullable().optional().describe("only this window's panes, like @2"),
    },
    output: {
      panes: z.array(paneSchema).describe("the panes, with their fields (pane_id for other tools)"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const windowId = args.window_id == null ? null : checkId("window_id", args.window_id);
      const session = await resolveSession(socket, args);
      const panes = await listPanes(socket);
      return {
        panes: panes.filter((p) =>
          (windowId === null || p.window_id === windowId) &&
          (session === null || p.session_id === session)
        ),
      };
    },
  }),
  defineTool({
    name: "get_server_info",
    tier: "readonly",
    title: "Describe the tmux server",
    description: "The tmux server's pid, version, socket path, start time and session count.",
    input: { socket_name: socketNameSchema },
    output: {
      pid: z.number().int().describe("the tmux server's process id"),
      version: z.string().describe("tmux's version, like 3.3a"),
      socket_path: z.string().describe("the server's socket file"),
      start_time: z.number().int().describe("when the server started, in Unix seconds"),
      sessions: z.number().int().describe("how many sessions it has"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const sessions = await listSessions(socket);
      const info = (await runTmux(socket, [
        "display-message",
        "-p",
        "#{pid}\x1f#{version}\x1f#{socket_path}\x1f#{start_time}",
      ])).trim().split("\x1f");
      return {
        pid: Number(info[0]),
        version: info[1] ?? "",
        socket_path: info[2] ?? "",
        start_time: Number(info[3]),
        sessions: sessions.length,
      };
    },
  }),
  defineTool({
    name: "get_session_info",
    tier: "readonly",
    title: "Describe a session",
    description: "One session (by session_id or session_name) with its windows.",
    input: sessionSpecShape,
    output: {
      session: sessionSchema.describe("the session's fields"),
      windows: z.array(windowSchema).describe("its windows"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const id = await resolveSession(socket, args);
      if (id === null) throw new TmuxError("invalid_argument", "give session_id or session_name");
      const session = await getSession(socket, id);
      const windows = (await listWindows(socket)).filter((w) => w.session_id === id);
      return { session, windows };
    },
  }),
  defineTool({
    name: "get_window_info",
    tier: "readonly",
    title: "Describe a window",
    description: "One window (by window_id) with its panes.",
    input: { window_id: windowIdSchema, socket_name: socketNameSchema },
    output: {
      window: windowSchema.describe("the window's fields"),
      panes: z.array(paneSchema).describe("its panes"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const window = await getWindow(socket, checkId("window_id", args.window_id));
      const panes = (await listPanes(socket)).filter((p) => p.window_id === window.window_id);
      return { window, panes };
    },
  }),
  defineTool({
    name: "get_pane_info",
    tier: "readonly",
    title: "Describe a pane",
    description: "One pane: command, path, size, cursor, mode, history.",
    input: paneSpecShape,
    output: { pane: paneSchema.describe("the pane's fields") },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      return { pane: await getPane(socket, await resolvePane(socket, args)) };
    },
  }),
  defineTool({
    name: "capture_pane",
    tier: "readonly",
    title: "Read a pane",
    description: "Pane content as lines. start/end are rows: 0 is the top of the screen, " +
      "negative rows reach into history; scrollback: true starts at the oldest history row. " +
      "Trailing blank rows are dropped; max_lines keeps the tail.",
    input: {
      ...paneSpecShape,
      start: z.number().int().nullable().optional().describe("first row (default 0)"),
      end: z.number().int().nullable().optional().describe("last row (default: screen bottom)"),
      scrollback: z.boolean().default(false).describe("start at the oldest history row"),
      join_wrapped: z.boolean().default(true).describe("join wrapped rows into one line"),
      escapes: z.boolean().default(false).describe("keep colour/attribute escape sequences"),
      max_lines: maxLinesSchema,
    },
    output: linesOutput,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const paneId = await resolvePane(socket, args);
      const lines = await capturePane(socket, paneId, {
        start: args.scrollback ? null : args.start ?? 0,
        end: args.end ?? null,
        join: args.join_wrapped,
        escapes: args.escapes,
      });
      const cut = truncateTail(lines, args.max_lines ?? null);
      return {
        pane_id: paneId,
        lines: cut.lines,
        truncated_lines: cut.droppedLines,
        truncated_bytes: cut.droppedBytes,
      };
    },
    text: (r) => [`${r.pane_id}: ${r.lines.length} lines`, ...r.lines.slice(-40)].join("\n"),
  }),
  defineTool({
    name: "capture_since",
    tier: "readonly",
    title: "Read new pane output",
    description: "Lines written to a pane since an opaque cursor. Call without a cursor to get " +
      "one (and no lines); pass it back to get only what is new. current_line is the row " +
      "under the cursor, still being written, and is not consumed.",
    input: {
      ...paneSpecShape,
      cursor: z.string().max(10000).nullable().optional().describe(
        "from the previous call (or send_keys); none: start now",
      ),
      max_lines: maxLinesSchema,
    },
    output: {
      pane_id: paneIdOutput,
      lines: z.array(z.string()).describe("complete lines written since the cursor"),
      current_line: z.string().describe("the line still being written (not consumed)"),
      cursor: z.string().describe("pass it to the next call to get only what follows"),
      lines_missed: z.boolean().describe("tmux's history dropped lines before they were read"),
      truncated_lines: z.number().int().describe("lines dropped from the head for max_lines"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const paneId = await resolvePane(socket, args);
      const since = await captureSince(socket, paneId, args.cursor ?? null);
      const cut = truncateTail(since.lines, args.max_lines ?? null);
      return {
        pane_id: paneId,
        lines: cut.lines,
        current_line: since.current_line,
        cursor: since.cursor,
        lines_missed: since.lines_missed,
        truncated_lines: cut.droppedLines,
      };
    },
  }),
  defineTool({
    name: "snapshot_pane",
    tier: "readonly",
    title: "Snapshot a pane",
    description: "The visible screen with cursor, size, mode and alternate-screen state.",
    input: paneSpecShape,
    output: {
      pane_id: paneIdOutput,
      lines: z.array(z.string()).describe("the visible screen's rows, top first"),
      cursor_x: z.number().int().describe("cursor column, from 0"),
      cursor_y: z.number().int().describe("cursor row, from 0 at the top of the screen"),
      width: z.number().int().describe("columns"),
      height: z.number().int().describe("rows"),
      in_mode: z.boolean().describe("a mode (copy-mode, choose-tree...) covers the pane"),
      mode: z.string().describe("that mode's name, or empty"),
      alternate_on: z.boolean().describe("a full-screen program (editor, pager) owns the screen"),
      current_command: z.string().describe("the foreground program's name"),
      title: z.string().describe("the pane's title"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const paneId = await resolvePane(socket, args);
      const pane = await getPane(socket, paneId);
      const lines = await capturePane(socket, paneId, { start: 0, end: null, join: false });
      return {
        pane_id: paneId,
        lines,
        cursor_x: pane.cursor_x,
        cursor_y: pane.cursor_y,
        width: pane.pane_width,
        height: pane.pane_height,
        in_mode: pane.pane_in_mode,
        mode: pane.pane_mode,
        alternate_on: pane.alternate_on,
        current_command: pane.pane_current_command,
        title: pane.pane_title,
      };
    },
    text: (r) =>
      [`${r.pane_id} ${r.width}x${r.height} cursor ${r.cursor_x},${r.cursor_y}`, ...r.lines].join(
        "\n",
      ),
  }),
  defineTool({
    name: "search_panes",
    tier: "readonly",
    title: "Search panes",
    description: "Finds a literal text or a regular expression in panes (all, one session or " +
      "one window), on screen or also in history.",
    input: {
      pattern: z.string().min(1).max(1000).describe("text to find, or an RE2 regular expression"),
      regex: z.boolean().default(false).describe("read pattern as a regular expression (RE2)"),
      case_sensitive: z.boolean().default(false).describe("match case exactly"),
      include_history: z.boolean().default(false).describe("search scrollback too"),
      max_matches: z.number().int().min(1).max(1000).default(100).describe(
        "stop after this many matches",
      ),
      window_id: z.string().nullable().optional().describe("only this window's panes, like @2"),
      ...sessionSpecShape,
    },
    output: {
      matches: z.array(z.object({
        pane_id: z.string().describe("the pane"),
        row: z.number().int().describe("the row: 0 is the top of the screen, negative is history"),
        line: z.string().describe("the matching line (at most 2000 characters)"),
      })).describe("the matches, pane by pane, top to bottom"),
      truncated: z.boolean().describe("max_matches was reached: there may be more"),
      panes_searched: z.number().int().describe("how many panes were searched"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const [pattern] = compilePatterns([args.pattern], {
        regex: args.regex,
        caseSensitive: args.case_sensitive,
      });
      const windowId = args.window_id == null ? null : checkId("window_id", args.window_id);
      const session = await resolveSession(socket, args);
      const panes = (await listPanes(socket)).filter((p) =>
        (windowId === null || p.window_id === windowId) &&
        (session === null || p.session_id === session)
      );
      const matches: Array<{ pane_id: string; row: number; line: string }> = [];
      let truncated = false;
      for (const pane of panes) {
        const start = args.include_history ? -pane.history_size : 0;
        const lines = await capturePane(socket, pane.pane_id, { start, end: null, join: false });
        for (let i = 0; i < lines.length; i++) {
          if (!pattern.test(lines[i])) continue;
          if (matches.length >= args.max_matches) {
            truncated = true;
            break;
          }
          matches.push({ pane_id: pane.pane_id, row: start + i, line: lines[i].slice(0, 2000) });
        }
        if (truncated) break;
      }
      return { matches, truncated, panes_searched: panes.length };
    },
  }),
  defineTool({
    name: "wait_for_text",
    tier: "readonly",
    title: "Wait for text in a pane",
    description: "Waits until one of `patterns` appears in output that is new since the call " +
      "began, or since `cursor` (send_keys returns one: pass it so output printed before the " +
      "wait started still counts). Literal, or regular expressions with regex: true. A stop pattern ends the wait " +
      "as 'stopped'; a full-screen program ends it as 'alternate_screen'. Sends progress " +
      "notifications when the request carries a progress token.",
    input: {
      ...paneSpecShape,
      patterns: z.array(z.string().min(1).max(1000)).min(1).max(20).describe(
        "what to wait for: any one of them ends the wait as 'matched'",
      ),
      stop_patterns: z.array(z.string().min(1).max(1000)).max(20).default([]).describe(
        "text that ends the wait as 'stopped' (an error message, say)",
      ),
      regex: z.boolean().default(false).describe("read patterns as regular expressions (RE2)"),
      case_sensitive: z.boolean().default(true).describe("match case exactly"),
      timeout: timeoutSchema,
      cursor: z.string().max(10000).nullable().optional().describe(
        "count output since this cursor (from send_keys, paste_text or capture_since)",
      ),
    },
    output: {
      pane_id: paneIdOutput,
      outcome: z.enum(["matched", "stopped", "timeout", "alternate_screen"]).describe(
        "how the wait ended",
      ),
      pattern: z.string().nullable().describe("the pattern that matched or stopped it"),
      line: z.string().nullable().describe("the line it matched"),
      elapsed_seconds: z.number().describe("time spent waiting"),
      effective_timeout: z.number().describe("the timeout enforced, after the server's ceiling"),
      lines_missed: z.boolean().describe("tmux's history dropped lines before they were read"),
    },
    async run(args, context, extra) {
      const socket = socketFor(context, args.socket_name);
      const paneId = await resolvePane(socket, args);
      const token = extra._meta?.progressToken;
      const timeout = clampTimeout(context, args.timeout);
      const result = await waitForText(socket, paneId, {
        patterns: args.patterns,
        stopPatterns: args.stop_patterns,
        regex: args.regex,
        caseSensitive: args.case_sensitive,
        timeout,
        cursor: args.cursor ?? null,
        intervalMs: 250,
        signal: extra.signal,
        onProgress: token === undefined ? undefined : (elapsed) => {
          extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: elapsed, total: timeout },
          }).catch(() => {});
        },
      });
      return { pane_id: paneId, ...result };
    },
  }),
  defineTool({
    name: "show_option",
    tier: "readonly",
    title: "Show an option",
    description: "One option's value (null when unset), at server, session, window or pane scope.",
    input: {
      name: z.string().regex(OPTION_NAME).describe("option name, like history-limit or @mine"),
      ...optionScopeShape,
    },
    output: {
      name: z.string().describe("the option"),
      value: z.string().nullable().describe("its value; null when unset"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const target = await optionTarget(socket, args.scope, args);
      const flags = args.global ? ["-g"] : [];
      try {
        const value = await runTmux(socket, [
          "show-options",
          "-v",
          ...flags,
          ...target,
          "--",
          args.name,
        ]);
        return { name: args.name, value: value.replace(/\n$/, "") };
      } catch (error) {
        if (error instanceof TmuxError && /invalid option|unknown option/.test(error.message)) {
          return { name: args.name, value: null };
        }
        throw error;
      }
    },
  }),
  defineTool({
    name: "show_environment",
    tier: "readonly",
    title: "Show the environment",
    description: "tmux's global or session environment. Values of names that look like secrets " +
      "(TOKEN, SECRET, PASSWORD, KEY...) are withheld.",
    input: {
      ...sessionSpecShape,
      global: z.boolean().default(false).describe("the global environment rather than a session's"),
    },
    output: {
      variables: z.array(z.object({
        name: z.string().describe("the variable"),
        value: z.string().nullable().describe("its value; null when withheld or removed"),
        withheld: z.boolean().describe("the name looks like a secret: its value is not shown"),
        removed: z.boolean().describe("marked for removal from new processes' environment"),
      })).describe("the variables, as tmux lists them"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const session = args.global ? null : await resolveSession(socket, args);
      const target = args.global ? ["-g"] : session === null ? [] : ["-t", session];
      const text = await runTmux(socket, ["show-environment", ...target]);
      const variables = text.split("\n").filter((l) => l !== "").map((line) => {
        if (line.startsWith("-")) {
          return { name: line.slice(1), value: null, withheld: false, removed: true };
        }
        const eq = line.indexOf("=");
        const name = eq < 0 ? line : line.slice(0, eq);
        const secret = SECRET_NAME.test(name);
        return {
          name,
          value: secret ? null : line.slice(eq + 1),
          withheld: secret,
          removed: false,
        };
      });
      return { variables };
    },
  }),
  defineTool({
    name: "display_message",
    tier: "readonly",
    title: "Expand a tmux format",
    description: "Expands a tmux format for a pane: literal text with plain variables such as " +
      "'#{pane_current_path}', '#{session_name}' or a user option '#{@name}'. Modifiers, " +
      "conditionals, styles and shell jobs are refused.",
    input: {
      format: z.string().min(1).max(2000).describe(
        "literal text with #{variable} references, e.g. '#{pane_current_path}'",
      ),
      ...paneSpecShape,
    },
    output: {
      pane_id: paneIdOutput,
      text: z.string().describe("the expanded format"),
    },
    async run(args, context) {
      checkPlainFormat(args.format);
      const socket = socketFor(context, args.socket_name);
      const paneId = await resolvePane(socket, args);
      await queryPane(socket, paneId, []);
      const text = await runTmux(socket, [
        "display-message",
        "-p",
        "-t",
        paneId,
        "--",
        args.format,
      ]);
      return { pane_id: paneId, text: text.replace(/\n$/, "") };
    },
    text: (r) => r.text,
  }),
];
