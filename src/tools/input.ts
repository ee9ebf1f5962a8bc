/**
 * Tools that type into panes: keys and pasted text. Both return a cursor for wait_for_text.
 *
 * @module
 */

import { z } from "../deps.ts";
import { pasteText, sendKeys } from "../tmux/mod.ts";
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
    description: "Types into a pane, for programs that read the keyboard (an editor, a REPL, a " +
      "prompt): `text` is typed as it is, then `keys` are pressed by name (C-c, Enter, " +
      "Escape, Up, Tab, F1, C-d, or one character), then Enter if enter: true. {keys: " +
      "['C-c']} interrupts; {text: '1+1', enter: true} asks a REPL. To read the answer, call " +
      "wait_for_text with the returned cursor and the prompt to wait for (e.g. '>>> '): it " +
      "ignores the echo of what was typed and returns the new lines. To run a shell command " +
      "and get its exit status, use run_command. Refused for a pane in copy-mode unless " +
      "force: true.",
    input: {
      ...paneSpecShape,
      text: z.string().min(1).max(100000).nullable().optional().describe(
        "text typed as it is (no key names): a REPL line, a password, an answer",
      ),
      keys: z.array(z.string().min(1).max(32)).max(100).default([]).describe(
        "key names pressed after the text, e.g. ['C-c'], ['Escape'], ['Up', 'Enter']",
      ),
      enter: z.boolean().default(false).describe("press Enter last"),
      force: forceSchema,
    },
    output: {
      pane_id: paneIdOutput,
      sent: z.number().int().describe("characters of text plus keys sent (Enter included)"),
      cursor: z.string().describe(
        "for wait_for_text and capture_since: output since just before the input, its echo " +
          "left out",
      ),
    },
    openWorld: true,
    destructive: true,
    async run(args, { socket, target }) {
      const text = args.text ?? null;
      const typed = await sendKeys(socket, target, { ...args, text });
      return {
        pane_id: typed.paneId,
        sent: [...(text ?? "")].length + args.keys.length + (args.enter ? 1 : 0),
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
