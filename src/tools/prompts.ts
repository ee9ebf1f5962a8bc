/**
 * Prompts: ready-made requests for common tasks, written for the tools this server offers.
 *
 * @module
 */

import { type McpServer, z } from "../deps.ts";

/** Registers the prompts. */
export function registerPrompts(server: McpServer): void {
  const text = (t: string) => ({
    messages: [{ role: "user" as const, content: { type: "text" as const, text: t } }],
  });
  server.registerPrompt("run_and_wait", {
    title: "Run a command and report",
    description: "Run a shell command in a pane with run_command and report its outcome.",
    argsSchema: { command: z.string(), pane_id: z.string().optional() },
  }, ({ command, pane_id }) =>
    text(
      `Use the run_command tool to run this command${pane_id ? ` in pane ${pane_id}` : ""}:\n\n` +
        `${command}\n\nThen report the exit status and the relevant part of the output. If it ` +
        "timed out, say so and check the pane with capture_pane before doing anything else.",
    ));
  server.registerPrompt("diagnose_failing_pane", {
    title: "Diagnose a failing pane",
    description: "Look at a pane's recent output and explain what went wrong.",
    argsSchema: { pane_id: z.string() },
  }, ({ pane_id }) =>
    text(
      `Pane ${pane_id} seems to have a problem. Use get_pane_info to see what runs there, then ` +
        "capture_pane with scrollback: true and max_lines: 200 to read its recent output. " +
        "Explain the first error you find, what likely caused it, and the command that would " +
        "fix or investigate it. Do not type anything into the pane.",
    ));
  server.registerPrompt("interrupt_gracefully", {
    title: "Stop what runs in a pane, gently",
    description: "Interrupt a pane's foreground program, escalating only as needed.",
    argsSchema: { pane_id: z.string() },
  }, ({ pane_id }) =>
    text(
      `Stop the program running in pane ${pane_id}, gently. Use send_keys with keys: first ` +
        "['C-c'], then wait_for_text for a shell prompt for a few seconds; if it is still " +
        "running, ['C-c'] once more; then ['C-\\\\'] (quit). For full-screen programs try " +
        "['q'] or ['Escape'] first. Never kill the pane. Report what it took.",
    ));
}
