/**
 * The run tools: run_command and wait_for_command, run_command_many, read_command_output,
 * list_runs, and how run results show.
 *
 * @module
 */

export { RUN_TOOLS } from "./run.ts";
export { RUN_COMPAT_TOOLS } from "./run_compat.ts";
export { RUN_MANY_TOOLS } from "./run_many.ts";
export { registerRunResources, RUN_LIST_TOOLS } from "./runs.ts";
