/**
 * Tools that act on windows: list, describe, create, rename, select, arrange, resize, kill.
 *
 * @module
 */

import { z } from "../../deps.ts";
import {
  getWindow,
  kill,
  LAYOUTS,
  listPanes,
  listWindows,
  newWindow,
  PANE_FIELDS,
  renameWindow,
  resizeWindow,
  selectLayout,
  selectWindow,
  WINDOW_FIELDS,
} from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  columnsSchema,
  commandSchema,
  createdOutput,
  defineTool,
  directorySchema,
  killedOutput,
  nameSchema,
  objectSchema,
  okOutput,
  rowsSchema,
  sessionSpecShape,
  socketNameSchema,
  waitReadySchema,
  windowIdSchema,
} from "../define/mod.ts";
import { startedIn } from "./started.ts";

const windowSchema = objectSchema(WINDOW_FIELDS);
const paneSchema = objectSchema(PANE_FIELDS);
const windowShape = { window_id: windowIdSchema, socket_name: socketNameSchema };

/** The window tools. */
export const WINDOW_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "list_windows",
    target: "session",
    lists: true,
    tier: "readonly",
    title: "List windows",
    description: "Lists windows, of one session or all.",
    input: sessionSpecShape,
    output: { windows: z.array(windowSchema).describe("the windows, with their fields") },
    async run(_args, { socket, target }) {
      const windows = await listWindows(socket);
      return { windows: windows.filter((w) => target === null || w.session_id === target) };
    },
  }),
  defineTool({
    name: "get_window_info",
    target: "window_id",
    tier: "readonly",
    title: "Describe a window",
    description: "One window (by window_id) with its panes.",
    input: windowShape,
    output: {
      window: windowSchema.describe("the window's fields"),
      panes: z.array(paneSchema).describe("its panes"),
    },
    async run(_args, { socket, target }) {
      const window = await getWindow(socket, target);
      const panes = (await listPanes(socket)).filter((p) => p.window_id === window.window_id);
      return { window, panes };
    },
  }),
  defineTool({
    name: "create_window",
    target: "session",
    tier: "mutating",
    title: "Create a window",
    description: "Adds a window to a session, running a shell or command.",
    input: {
      ...sessionSpecShape,
      name: nameSchema.nullable().optional().describe(
        "default: its program's",
      ),
      start_directory: directorySchema,
      command: commandSchema,
      select: z.boolean().default(false).describe("make it current"),
      wait_ready: waitReadySchema,
    },
    output: createdOutput,
    openWorld: true,
    destructive: true,
    async run(args, { socket, target, context, extra }) {
      const made = await newWindow(socket, target, {
        name: args.name,
        directory: args.start_directory,
        command: args.command,
        select: args.select,
      });
      const pane = { socket, paneId: made.pane_id, signal: extra.signal };
      return { ...made, ...await startedIn(context, pane, args) };
    },
  }),
  defineTool({
    name: "rename_window",
    target: "window_id",
    tier: "mutating",
    title: "Rename a window",
    description: "Renames a window (automatic renaming stops for it, as in tmux).",
    input: { ...windowShape, new_name: nameSchema },
    output: {
      window_id: z.string().describe("the window renamed"),
      window_name: z.string().describe("its new name, as stored"),
    },
    async run(args, { socket, target }) {
      await renameWindow(socket, target, args.new_name);
      return { window_id: target, window_name: args.new_name };
    },
  }),
  defineTool({
    name: "select_window",
    target: "window_id",
    tier: "mutating",
    title: "Select a window",
    description: "Makes a window its session's current window.",
    input: windowShape,
    output: okOutput,
    async run(_args, { socket, target }) {
      await selectWindow(socket, target);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "select_layout",
    target: "window_id",
    tier: "mutating",
    title: "Arrange panes",
    description: "Applies a preset layout to a window's panes.",
    input: { ...windowShape, layout: z.enum(LAYOUTS).describe("one of tmux's preset layouts") },
    output: okOutput,
    async run(args, { socket, target }) {
      await selectLayout(socket, target, args.layout);
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "resize_window",
    target: "window_id",
    tier: "mutating",
    title: "Resize a window",
    description: "Sets a window's size in cells (the window-size option becomes manual for it).",
    input: {
      ...windowShape,
      width: columnsSchema.describe("columns"),
      height: rowsSchema.describe("rows"),
    },
    output: okOutput,
    async run(args, { socket, target }) {
      await resizeWindow(socket, target, { width: args.width, height: args.height });
      return { ok: true as const };
    },
  }),
  defineTool({
    name: "kill_window",
    target: "window_id",
    tier: "destructive",
    title: "Kill a window",
    description: "Kills a window and every pane in it, by exact id (@N) only; the last window " +
      "of the server (which would end tmux) is refused.",
    input: windowShape,
    output: killedOutput,
    async run(_args, { socket, target, context }) {
      await kill(socket, { kind: "window_id", id: target }, { protect: context.config.ownPane });
      return { killed: target };
    },
  }),
];
