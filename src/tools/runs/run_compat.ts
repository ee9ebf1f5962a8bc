/**
 * run_shell_command: run_command for clients written for the libtmux generation's contract, with
 * its camelCase names; the same machinery and guarantees (offered only when asked for).
 *
 * @module
 */

import { z } from "../../deps.ts";
import { resolvePane } from "../../tmux/mod.ts";
import { type AnyToolSpec, defineTool, maxLinesSchema, timeoutSchema } from "../define/mod.ts";
import { runFromTool, runInput } from "./run.ts";

/** run_shell_command's output: the libtmux generation's camelCase shape. */
const shellOutput = {
  paneId: z.string().describe("the pane that received the command"),
  exitStatus: z.number().int().nullable().describe(
    "the shell's $? for the command; null when it timed out or was not started",
  ),
  timedOut: z.boolean().describe("the wait hit its timeout: the command MAY STILL BE RUNNING"),
  output: z.object({
    lines: z.array(z.string()).describe("the command's own output lines, tail kept"),
    truncated: z.boolean().describe("lines were dropped from the head"),
    droppedLines: z.number().int().describe("how many lines were dropped"),
    droppedBytes: z.number().int().describe("UTF-8 bytes of the dropped lines"),
  }).describe("the command's output"),
  elapsedSeconds: z.number().describe("time spent in the call"),
  effectiveTimeoutSeconds: z.number().describe("the timeout enforced, after the ceiling"),
  started: z.boolean().nullable().describe(
    "false: the command never ran and never will; null: unknown, it may still run",
  ),
  linesMissed: z.boolean().describe("tmux's scrollback dropped output before it was read"),
  anchorLost: z.boolean().describe("the pane was respawned or its history cleared"),
};

/** run_shell_command. */
export const RUN_COMPAT_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "run_shell_command",
    paneText: true,
    // Its pane is named by paneId, not by the fields the declared targets read.
    target: "none",
    tier: "mutating",
    title: "Run a shell command in a pane (camelCase)",
    description: "run_command for clients written for the libtmux generation's contract, with " +
      "camelCase names; the same machinery and guarantees. A timed-out command MAY STILL BE " +
      "RUNNING: do not retry it unless started is false. Offered only when asked for " +
      "(--with-tools run_shell_command).",
    input: {
      command: runInput.command,
      paneId: z.string().nullable().optional().describe(
        "pane id like %3; default: the active pane",
      ),
      timeoutSeconds: timeoutSchema,
      maxLines: maxLinesSchema,
      suppressHistory: runInput.suppress_history,
    },
    output: shellOutput,
    openWorld: true,
    destructive: true,
    async run(args, call) {
      const result = await runFromTool(call, {
        command: args.command,
        socket: call.socket,
        paneId: await resolvePane(call.socket, { pane_id: args.paneId }),
        timeout: args.timeoutSeconds,
        max_lines: args.maxLines ?? null,
        max_output_bytes: null,
        suppressHistory: args.suppressHistory ?? null,
        pager: false,
        person: "refuse",
      });
      return {
        paneId: result.pane_id,
        exitStatus: result.exit_status,
        timedOut: result.timed_out || result.waiting_for_input === true,
        output: {
          lines: result.output,
          truncated: result.output_truncated,
          droppedLines: result.output_truncated_lines,
          droppedBytes: result.output_truncated_bytes,
        },
        elapsedSeconds: result.elapsed_seconds,
        effectiveTimeoutSeconds: result.effective_timeout,
        started: result.started,
        linesMissed: result.lines_missed,
        anchorLost: result.anchor_lost,
      };
    },
    failed: (result) => result.started === false,
  }),
];
