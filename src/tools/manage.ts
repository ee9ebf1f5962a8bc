/**
 * Tools that change tmux state without destroying anything: create, rename, select, resize,
 * type and paste, set harmless options, and wait-for channels.
 *
 * @module
 */

import { z } from "../deps.ts";
import {
  captureSince,
  checkId,
  getPane,
  literal,
  resolvePane,
  resolveSession,
  runTmux,
  spawnTmux,
  THEN,
  TmuxError,
} from "../tmux/mod.ts";
import { clampTimeout, socketFor } from "./context.ts";
import { type AnyToolSpec, defineTool } from "./define.ts";
import {
  createdOutput,
  okOutput,
  paneIdOutput,
  paneIdSchema,
  paneSpecShape,
  sessionSpecShape,
  socketNameSchema,
  timeoutSchema,
  windowIdSchema,
} from "./schemas.ts";

/**
 * Session and window names: an allow-list of what tmux stores as it is given. tmux rewrites ':'
 * and '.' (target syntax), escapes '\\', '$' and control characters, and keeps '#[' (a style) as
 * '##[', so those are refused rather than stored changed.
 */
const nameSchema = z.string().min(1).max(100).regex(
  /^(?!.*#\[)(?:(?![:.\\$])[\p{L}\p{M}\p{N}\p{P}\p{S} ])+$/u,
  {
    message: "names are 1 to 100 letters, digits, punctuation, symbols and spaces, " +
      "not ':', '.', '\\', '$' or '#[' (tmux would store them changed)",
  },
).describe("the name, stored exactly as given");

const directorySchema = z.string().min(1).max(4096).nullable().optional().describe(
  "working directory for the new pane (default: tmux's)",
);

const commandSchema = z.string().min(1).max(10000).nullable().optional().describe(
  "program to run instead of the default shell (it runs with your rights: to run commands " +
    "and get their results, start a shell and use run_command)",
);

const sizeSchema = z.number().int().min(1).max(10000);

const forceSchema = z.boolean().default(false).describe(
  "type even into a pane in copy-mode or another mode (the keys then go to the mode)",
);

const CHANNEL = /^[A-Za-z0-9_.:-]{1,64}$/;

const channelSchema = z.string().regex(CHANNEL, {
  message: "channel names are 1 to 64 of A-Z a-z 0-9 _ . : -",
}).refine((s) => !s.startsWith("tmux_mcp_"), { message: "tmux_mcp_* channels are reserved" })
  .describe("channel name, as in `tmux wait-for NAME`");

const NAMED_KEYS = [
  "Enter",
  "Escape",
  "Tab",
  "BTab",
  "BSpace",
  "Space",
  "Up",
  "Down",
  "Left",
  "Right",
  "Home",
  "End",
  "PageUp",
  "PgUp",
  "PPage",
  "PageDown",
  "PgDn",
  "NPage",
  "IC",
  "Insert",
  "DC",
  "Delete",
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
];

/** A tmux key name: modifiers (C-, M-, S-) then a named key or one printable character. */
const KEY_NAME = new RegExp(`^(?:[CMS]-)*(?:${NAMED_KEYS.join("|")}|[\\x21-\\x7e])$`);

/** Options an agent may set: presentation and behaviour, nothing that runs programs. */
export const SETTABLE_OPTIONS = new Set([
  "mouse",
  "status",
  "status-position",
  "mode-keys",
  "status-keys",
  "history-limit",
  "pane-border-status",
  "remain-on-exit",
  "automatic-rename",
  "allow-rename",
  "monitor-activity",
  "monitor-silence",
  "visual-activity",
  "aggressive-resize",
  "window-size",
  "base-index",
  "pane-base-index",
  "renumber-windows",
  "display-time",
  "escape-time",
  "synchronize-panes",
  "wrap-search",
  "clock-mode-style",
]);

const created = createdOutput;
const CREATED_FORMAT = "#{session_id}\x1f#{session_name}\x1f#{window_id}\x1f#{pane_id}";

function parseCreated(text: string): z.infer<z.ZodObject<typeof created>> {
  const [session_id = "", session_name = "", window_id = "", pane_id = ""] = text.trim().split(
    "\x1f",
  );
  return { session_id, session_name, window_id, pane_id };
}

const ok = okOutput;

function refuseInMode(pane: { pane_in_mode: boolean; pane_mode: string; pane_id: string }): void {
  if (pane.pane_in_mode) {
    throw new TmuxError(
      "pane_in_mode",
      `pane ${pane.pane_id} is in ${pane.pane_mode || "a mode"}; pass force: true to type anyway`,
    );
  }
}

/** Tools of the manage group. */
export const MANAGE_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "create_session",
    tier: "mutating",
    title: "Create a session",
    description: "Creates a detached session (optionally sized, in a directory, running a " +
      "command), and starts the tmux server if none runs yet. Use its pane_id with " +
      "run_command to run commands there.",
    input: {
      name: nameSchema,
      width: sizeSchema.nullable().optional().describe("columns (default: tmux's, 80)"),
      height: sizeSchema.nullable().optional().describe("rows (default: tmux's, 24)"),
      start_directory: directorySchema,
      window_name: nameSchema.nullable().optional().describe(
        "the first window's name (default: its program's)",
      ),
      command: commandSchema,
      socket_name: socketNameSchema,
    },
    output: created,
    openWorld: true,
    destructive: true,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const argv = ["new-session", "-d", "-P", "-F", CREATED_FORMAT, "-s", literal(args.name)];
      if (args.width != null) argv.push("-x", String(args.width));
      if (args.height != null) argv.push("-y", String(args.height));
      if (args.start_directory != null) argv.push("-c", literal(args.start_directory));
      if (args.window_name != null) argv.push("-n", literal(args.window_name));
      if (args.command != null) argv.push(args.command);
      return parseCreated(await runTmux(socket, argv));
    },
  }),
  defineTool({
    name: "create_window",
    tier: "mutating",
    title: "Create a window",
    description: "Adds a window to a session (default: the current one), running a shell or " +
      "`command`.",
    input: {
      ...sessionSpecShape,
      name: nameSchema.nullable().optional().describe(
        "the window's name (default: its program's)",
      ),
      start_directory: directorySchema,
      command: commandSchema,
      select: z.boolean().default(false).describe("make it the session's current window"),
    },
    output: created,
    openWorld: true,
    destructive: true,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const session = await resolveSession(socket, args);
      const argv = ["new-window", "-P", "-F", CREATED_FORMAT];
      if (!args.select) argv.push("-d");
      if (session !== null) argv.push("-t", `${session}:`);
      if (args.name != null) argv.push("-n", literal(args.name));
      if (args.start_directory != null) argv.push("-c", literal(args.start_directory));
      if (args.command != null) argv.push(args.command);
      return parseCreated(await runTmux(socket, argv));
    },
  }),
  defineTool({
    name: "split_window",
    tier: "mutating",
    title: "Split a pane",
    description: "Splits a pane; the new pane goes right, left, below (down) or above (up) " +
      "and runs a shell or `command`.",
    input: {
      ...paneSpecShape,
      direction: z.enum(["right", "left", "down", "up"]).default("down").describe(
        "where the new pane goes",
      ),
      size: z.union([sizeSchema, z.string().regex(/^\d{1,2}%$/)]).nullable().optional()
        .describe("the new pane's size: cells, or a percentage like '30%' (default: half)"),
      start_directory: directorySchema,
      command: commandSchema,
      select: z.boolean().default(false).describe("make the new pane the active one"),
    },
    output: created,
    openWorld: true,
    destructive: true,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const paneId = await resolvePane(socket, args);
      const argv = ["split-window", "-P", "-F", CREATED_FORMAT, "-t", paneId];
      argv.push(args.direction === "right" || args.direction === "left" ? "-h" : "-v");
      if (args.direction === "left" || args.direction === "up") argv.push("-b");
      if (!args.select) argv.push("-d");
      if (args.size != null) argv.push("-l", String(args.size));
      if (args.start_directory != null) argv.push("-c", literal(args.start_directory));
      if (args.command != null) argv.push(args.command);
      return parseCreated(await runTmux(socket, argv));
    },
  }),
  defineTool({
    name: "rename_session",
    tier: "mutating",
    title: "Rename a session",
    description: "Renames a session (by session_id or session_name).",
    input: { ...sessionSpecShape, new_name: nameSchema },
    output: {
      session_id: z.string().describe("the session renamed"),
      session_name: z.string().describe("its new name, as stored"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const session = await resolveSession(socket, args);
      if (session === null) {
        throw new TmuxError("invalid_argument", "give session_id or session_name");
      }
      await runTmux(socket, ["rename-session", "-t", session, literal(args.new_name)]);
      return { session_id: session, session_name: args.new_name };
    },
  }),
  defineTool({
    name: "rename_window",
    tier: "mutating",
    title: "Rename a window",
    description: "Renames a window (automatic renaming stops for it, as in tmux).",
    input: { window_id: windowIdSchema, new_name: nameSchema, socket_name: socketNameSchema },
    output: {
      window_id: z.string().describe("the window renamed"),
      window_name: z.string().describe("its new name, as stored"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const windowId = checkId("window_id", args.window_id);
      await runTmux(socket, ["rename-window", "-t", windowId, literal(args.new_name)]);
      return { window_id: windowId, window_name: args.new_name };
    },
  }),
  defineTool({
    name: "select_window",
    tier: "mutating",
    title: "Select a window",
    description: "Makes a window its session's current window.",
    input: { window_id: windowIdSchema, socket_name: socketNameSchema },
    output: ok,
    async run(args, context) {
      await runTmux(socketFor(context, args.socket_name), [
        "select-window",
        "-t",
        checkId("window_id", args.window_id),
      ]);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "select_pane",
    tier: "mutating",
    title: "Select a pane",
    description: "Makes a pane its window's active pane.",
    input: { pane_id: paneIdSchema, socket_name: socketNameSchema },
    output: ok,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const pane = await getPane(socket, checkId("pane_id", args.pane_id));
      await runTmux(socket, ["select-pane", "-t", pane.pane_id]);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "select_layout",
    tier: "mutating",
    title: "Arrange panes",
    description: "Applies a preset layout to a window's panes.",
    input: {
      window_id: windowIdSchema,
      layout: z.enum([
        "even-horizontal",
        "even-vertical",
        "main-horizontal",
        "main-vertical",
        "tiled",
      ]).describe("one of tmux's preset layouts"),
      socket_name: socketNameSchema,
    },
    output: ok,
    async run(args, context) {
      await runTmux(socketFor(context, args.socket_name), [
        "select-layout",
        "-t",
        checkId("window_id", args.window_id),
        args.layout,
      ]);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "resize_pane",
    tier: "mutating",
    title: "Resize a pane",
    description: "Sets a pane's width and/or height in cells, or toggles zoom.",
    input: {
      pane_id: paneIdSchema,
      width: sizeSchema.nullable().optional().describe("columns"),
      height: sizeSchema.nullable().optional().describe("rows"),
      zoom: z.boolean().default(false).describe("toggle zoom instead of resizing"),
      socket_name: socketNameSchema,
    },
    output: {
      pane_id: paneIdOutput,
      width: z.number().int().describe("columns now"),
      height: z.number().int().describe("rows now"),
    },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const paneId = (await getPane(socket, checkId("pane_id", args.pane_id))).pane_id;
      const argv = ["resize-pane", "-t", paneId];
      if (args.zoom) argv.push("-Z");
      else if (args.width == null && args.height == null) {
        throw new TmuxError("invalid_argument", "give width, height or zoom: true");
      }
      if (!args.zoom && args.width != null) argv.push("-x", String(args.width));
      if (!args.zoom && args.height != null) argv.push("-y", String(args.height));
      await runTmux(socket, argv);
      const pane = await getPane(socket, paneId);
      return { pane_id: paneId, width: pane.pane_width, height: pane.pane_height };
    },
  }),
  defineTool({
    name: "resize_window",
    tier: "mutating",
    title: "Resize a window",
    description: "Sets a window's size in cells (the window-size option becomes manual for it).",
    input: {
      window_id: windowIdSchema,
      width: sizeSchema.describe("columns"),
      height: sizeSchema.describe("rows"),
      socket_name: socketNameSchema,
    },
    output: ok,
    async run(args, context) {
      await runTmux(socketFor(context, args.socket_name), [
        "resize-window",
        "-t",
        checkId("window_id", args.window_id),
        "-x",
        String(args.width),
        "-y",
        String(args.height),
      ]);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "swap_pane",
    tier: "mutating",
    title: "Swap two panes",
    description: "Swaps the positions of two panes.",
    input: {
      source_pane_id: paneIdSchema,
      target_pane_id: paneIdSchema,
      socket_name: socketNameSchema,
    },
    output: ok,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const source = (await getPane(socket, checkId("pane_id", args.source_pane_id))).pane_id;
      const target = (await getPane(socket, checkId("pane_id", args.target_pane_id))).pane_id;
      await runTmux(socket, ["swap-pane", "-d", "-s", source, "-t", target]);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "set_pane_title",
    tier: "mutating",
    title: "Set a pane's title",
    description: "Sets a pane's title (shown by pane-border-status).",
    input: {
      pane_id: paneIdSchema,
      title: z.string().max(200).refine((s) => !/\p{Cc}/u.test(s), {
        message: "titles may not contain control characters",
      }).describe("the title, stored exactly as given (no control characters, no '#[')"),
      socket_name: socketNameSchema,
    },
    output: { pane_id: paneIdOutput, title: z.string().describe("the title as stored") },
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const paneId = (await getPane(socket, checkId("pane_id", args.pane_id))).pane_id;
      await runTmux(socket, ["select-pane", "-t", paneId, "-T", literal(args.title)]);
      return { pane_id: paneId, title: (await getPane(socket, paneId)).pane_title };
    },
  }),
  defineTool({
    name: "send_keys",
    tier: "mutating",
    title: "Type into a pane",
    description: "Types into a pane, as keys, for programs that read the keyboard (an " +
      "editor, a REPL, a prompt) and for a synchronized set of panes. literal: true (default) " +
      "types `keys` as text; literal: false reads it as space-separated key names (C-c, " +
      "Enter, Escape, Up, F1...). enter: true presses Enter after. Then wait_for_text with " +
      "the returned cursor reads the answer. To run a shell command and get its exit status, " +
      "use run_command instead. Refused for a pane in copy-mode unless force: true.",
    input: {
      ...paneSpecShape,
      keys: z.string().min(1).max(100000).describe(
        "text to type (literal: true) or space-separated key names (literal: false)",
      ),
      literal: z.boolean().default(true).describe("type keys as text rather than key names"),
      enter: z.boolean().default(false).describe("press Enter after the keys"),
      force: forceSchema,
    },
    output: {
      pane_id: paneIdOutput,
      sent: z.number().int().describe("characters (or key names) sent"),
      cursor: z.string().describe("for wait_for_text: output since just before the keys"),
    },
    openWorld: true,
    destructive: true,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const pane = await getPane(socket, await resolvePane(socket, args));
      if (!args.force) refuseInMode(pane);
      if (args.keys.includes("\0")) {
        throw new TmuxError("invalid_argument", "keys may not hold NUL");
      }
      let argv: string[];
      if (args.literal) {
        argv = ["send-keys", "-t", pane.pane_id, "-l", "--", args.keys];
      } else {
        const names = args.keys.trim().split(/\s+/);
        const bad = names.findIndex((k) => !KEY_NAME.test(k));
        if (bad >= 0) {
          throw new TmuxError(
            "invalid_argument",
            `key ${bad + 1} of ${names.length} is not a key name (C-c, Enter, Escape, Up, F1, ` +
              "or one character); send text with literal: true",
          );
        }
        argv = ["send-keys", "-t", pane.pane_id, "--", ...names];
      }
      if (args.enter) argv.push(THEN, "send-keys", "-t", pane.pane_id, "Enter");
      const { cursor } = await captureSince(socket, pane.pane_id, null);
      await runTmux(socket, argv);
      return {
        pane_id: pane.pane_id,
        sent: args.literal ? [...args.keys].length : args.keys.trim().split(/\s+/).length,
        cursor,
      };
    },
  }),
  defineTool({
    name: "paste_text",
    tier: "mutating",
    title: "Paste text into a pane",
    description: "Pastes text through a private buffer, as bracketed paste when the program in " +
      "the pane asked for it (so shells and editors take it as text, not as typed commands).",
    input: {
      ...paneSpecShape,
      text: z.string().min(1).max(1_000_000).describe("the text, pasted as it is (no Enter added)"),
      bracketed: z.boolean().default(true).describe(
        "use bracketed paste when the program asked for it",
      ),
      force: forceSchema,
    },
    output: {
      pane_id: paneIdOutput,
      bytes: z.number().int().describe("UTF-8 bytes pasted"),
      cursor: z.string().describe("for wait_for_text: output since just before the paste"),
    },
    openWorld: true,
    destructive: true,
    async run(args, context) {
      const socket = socketFor(context, args.socket_name);
      const pane = await getPane(socket, await resolvePane(socket, args));
      if (!args.force) refuseInMode(pane);
      const buffer = `tmux_mcp_paste_${crypto.randomUUID().slice(0, 8)}`;
      const { cursor } = await captureSince(socket, pane.pane_id, null);
      const paste = ["paste-buffer", "-d", "-r", "-b", buffer, "-t", pane.pane_id];
      if (args.bracketed) paste.push("-p");
      try {
        await runTmux(socket, ["load-buffer", "-b", buffer, "-", THEN, ...paste], {
          stdin: args.text,
        });
      } finally {
        await runTmux(socket, ["delete-buffer", "-b", buffer]).catch(() => {});
      }
      return { pane_id: pane.pane_id, bytes: new TextEncoder().encode(args.text).length, cursor };
    },
  }),
  defineTool({
    name: "set_option",
    tier: "mutating",
    title: "Set an option",
    description:
      `Sets one of a fixed set of harmless options (${[...SETTABLE_OPTIONS].join(", ")}) ` +
      "or a user option (@name), at server, session, window or pane scope.",
    input: {
      name: z.string().max(64).describe("an option from the list above, or a user option @name"),
      value: z.string().max(1000).describe("the value, stored as it is"),
      scope: z.enum(["server", "session", "window", "pane"]).default("session").describe(
        "which object the option belongs to",
      ),
      global: z.boolean().default(false).describe("set the global value (-g)"),
      ...paneSpecShape,
    },
    output: {
      name: z.string().describe("the option set"),
      value: z.string().describe("its value"),
    },
    idempotent: true,
    async run(args, context) {
      const user = /^@[A-Za-z][A-Za-z0-9_-]{0,62}$/.test(args.name);
      if (args.name.startsWith("@tmux_mcp")) {
        throw new TmuxError("invalid_argument", "@tmux_mcp* options belong to this server");
      }
      if (!user && !SETTABLE_OPTIONS.has(args.name)) {
        throw new TmuxError(
          "invalid_argument",
          `option ${JSON.stringify(args.name)} is not settable here`,
        );
      }
      const socket = socketFor(context, args.socket_name);
      const argv = ["set-option"];
      if (args.global) argv.push("-g");
      if (args.scope === "server") argv.push("-s");
      else if (args.scope === "window") argv.push("-w", "-t", await resolvePane(socket, args));
      else if (args.scope === "pane") argv.push("-p", "-t", await resolvePane(socket, args));
      else {
        const session = await resolveSession(socket, args);
        if (session !== null) argv.push("-t", session);
      }
      await runTmux(socket, [...argv, "--", args.name, args.value]);
      return { name: args.name, value: args.value };
    },
  }),
  defineTool({
    name: "wait_for_channel",
    tier: "mutating",
    title: "Wait for a tmux channel",
    description:
      "Blocks until `tmux wait-for -S <channel>` is run (by a script, or signal_channel).",
    input: { channel: channelSchema, timeout: timeoutSchema, socket_name: socketNameSchema },
    output: {
      channel: z.string().describe("the channel waited on"),
      outcome: z.enum(["signalled", "timeout"]).describe("signalled, or the timeout came first"),
      effective_timeout: z.number().describe("the timeout enforced, after the server's ceiling"),
    },
    async run(args, context, extra) {
      const socket = socketFor(context, args.socket_name);
      const timeout = clampTimeout(context, args.timeout);
      const child = spawnTmux(socket, ["wait-for", args.channel]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stop = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeout * 1000);
        extra.signal.addEventListener("abort", () => resolve("timeout"), { once: true });
      });
      try {
        const outcome = await Promise.race([child.done.then((r) => r), stop]);
        if (outcome === "timeout") {
          if (extra.signal.aborted) {
            throw new TmuxError("cancelled", "wait_for_channel was cancelled");
          }
          return { channel: args.channel, outcome, effective_timeout: timeout };
        }
        if (!outcome.success) {
          throw new TmuxError("tmux_unavailable", outcome.stderr.trim() || "wait-for failed");
        }
        return { channel: args.channel, outcome: "signalled" as const, effective_timeout: timeout };
      } finally {
        clearTimeout(timer);
        await child.kill();
      }
    },
  }),
  defineTool({
    name: "signal_channel",
    tier: "mutating",
    title: "Signal a tmux channel",
    description: "Runs `tmux wait-for -S <channel>`, waking its waiters.",
    input: { channel: channelSchema, socket_name: socketNameSchema },
    output: { channel: z.string().describe("the channel signalled") },
    async run(args, context) {
      await runTmux(socketFor(context, args.socket_name), ["wait-for", "-S", args.channel]);
      return { channel: args.channel };
    },
  }),
];
