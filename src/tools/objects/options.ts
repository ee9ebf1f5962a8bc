/**
 * Tools for options and the environment: show an option, set a harmless one, show the
 * environment with secrets withheld.
 *
 * @module
 */

import { z } from "../../deps.ts";
import { setOption, SETTABLE_OPTIONS, showEnvironment, showOption } from "../../tmux/mod.ts";
import { type AnyToolSpec, defineTool, paneSpecShape, sessionSpecShape } from "../define/mod.ts";

const OPTION_NAME = /^@?[A-Za-z][A-Za-z0-9_-]{0,63}(\[\d{1,4}\])?$/;

const scopeSchema = z.enum(["server", "session", "window", "pane"]).default("session");

/** The option tools. */
export const OPTION_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "show_option",
    target: "none",
    tier: "readonly",
    title: "Show an option",
    description: "One option's value (null when unset), at server, session, window or pane scope.",
    input: {
      name: z.string().regex(OPTION_NAME).describe("option name, like history-limit or @mine"),
      scope: scopeSchema.describe("server, session (default), window or pane"),
      global: z.boolean().default(false).describe("the global value (-g) rather than the target's"),
      ...paneSpecShape,
    },
    output: {
      name: z.string().describe("the option"),
      value: z.string().nullable().describe("its value; null when unset"),
    },
    async run(args, { socket }) {
      const value = await showOption(socket, args.name, {
        scope: args.scope,
        global: args.global,
        spec: args,
      });
      return { name: args.name, value };
    },
  }),
  defineTool({
    name: "show_environment",
    target: "none",
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
    async run(args, { socket }) {
      return { variables: await showEnvironment(socket, { global: args.global, spec: args }) };
    },
  }),
  defineTool({
    name: "set_option",
    target: "none",
    tier: "mutating",
    title: "Set an option",
    description:
      `Sets one of a fixed set of harmless options (${[...SETTABLE_OPTIONS].join(", ")}) ` +
      "or a user option (@name), at server, session, window or pane scope.",
    input: {
      name: z.string().max(64).describe("an option from the list above, or a user option @name"),
      value: z.string().max(1000).describe("the value, stored as it is"),
      scope: scopeSchema.describe("which object the option belongs to"),
      global: z.boolean().default(false).describe("set the global value (-g)"),
      ...paneSpecShape,
    },
    output: {
      name: z.string().describe("the option set"),
      value: z.string().describe("its value"),
    },
    idempotent: true,
    async run(args, { socket }) {
      await setOption(socket, args, { scope: args.scope, global: args.global, spec: args });
      return { name: args.name, value: args.value };
    },
  }),
];
