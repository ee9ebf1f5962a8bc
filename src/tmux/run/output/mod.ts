/**
 * The output store every stage writes to: bytes reduced as a terminal shows them, what a few bytes
 * can ask for paid for by output, the run's log and its chunks, output cut from the screen,
 * progress.
 *
 * @module
 */

export { catchUp, readRestFromScreen } from "./catch_up.ts";
export { collectOutput, screenFields } from "./collect.ts";
export { EchoScan } from "./echo_scan.ts";
export { type OutputLog } from "./output_log.ts";
export { progressReporter, resumedProgress } from "./progress.ts";
export {
  KEEP_MS,
  keepLog,
  logExcerpt,
  OutputStore,
  RunOutput,
  type ScreenPart,
  type StoredRun,
} from "./run_output.ts";
export { LineReducer } from "./terminal_text.ts";
export { Utf8Check } from "./utf8.ts";
