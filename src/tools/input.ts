/**
 * Tools that type into panes: keys and pasted text. Both return a cursor for wait_for_text.
 *
 * @module
 */

import { z } from "../deps.ts";
import { keyNames, pasteText, sendKeys } from "../tmux/mod.ts";
import { type AnyToolSpec, defineTool } from "./define.ts";
import { paneIdOutput, paneSpecShape } from "./schemas.ts";

const forceSchema = z.boolean().default(false).describe(
  "type even into a pane in copy-mode or another mode (the keys then go to the mode)",
);

/** The input tools. */
export const INPUT_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "send_keys",
    target: "pane",
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
    async run(args, { socket, target }) {
      const typed = await sendKeys(socket, target, args);
      return {
        pane_id: typed.paneId,
        sent: args.literal ? [...args.keys].length : keyNames(args.keys).length,
        cursor: typed.cursor,
      };
    },
  }),
  defineTool({
    name: "paste_text",
    target: "pane",
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
    async run(args, { socket, target }) {
      const typed = await pasteText(socket, target, args);
      const bytes = new TextEncoder().encode(args.text).length;
      return { pane_id: typed.paneId, bytes, cursor: typed.cursor };
    },
  }),
];
