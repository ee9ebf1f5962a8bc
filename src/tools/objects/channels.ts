/**
 * Tools for tmux's wait-for channels: wait for one, or signal it.
 *
 * @module
 */

import { z } from "../../deps.ts";
import { NAME_PREFIX, signalChannel, waitForChannel } from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  clampTimeout,
  defineTool,
  socketNameSchema,
  timeoutSchema,
} from "../define/mod.ts";

const channelSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, {
  message: "channel names are 1 to 64 of A-Z a-z 0-9 _ . : -",
}).refine((s) => !s.startsWith(NAME_PREFIX), { message: `${NAME_PREFIX}* channels are reserved` })
  .describe("channel name, as in `tmux wait-for NAME`");

/** The channel tools. */
export const CHANNEL_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "wait_for_channel",
    target: "none",
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
    async run(args, { socket, context, extra }) {
      const timeout = clampTimeout(context, args.timeout);
      const outcome = await waitForChannel(socket, args.channel, { timeout, signal: extra.signal });
      return { channel: args.channel, outcome, effective_timeout: timeout };
    },
  }),
  defineTool({
    name: "signal_channel",
    target: "none",
    tier: "mutating",
    title: "Signal a tmux channel",
    description: "Runs `tmux wait-for -S <channel>`, waking its waiters.",
    input: { channel: channelSchema, socket_name: socketNameSchema },
    output: { channel: z.string().describe("the channel signalled") },
    async run(args, { socket }) {
      await signalChannel(socket, args.channel);
      return { channel: args.channel };
    },
  }),
];
