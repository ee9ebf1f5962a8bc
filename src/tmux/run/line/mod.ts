/**
 * The line a run types: the run function POSIX shells are given, the launcher line other shells
 * get, and which shell a pane runs.
 *
 * @module
 */

export {
  launcherBootstrap,
  type LauncherRefusal,
  type LauncherRun,
  launcherRun,
  type ShellProgram,
} from "./launcher.ts";
export { forgetPaneShell, type PaneShell, paneShell, shellLanguage } from "./probe.ts";
export {
  buildTypedLine,
  commandDigest,
  type Fetch,
  fetchOf,
  type FirstCall,
  type RunFunction,
  runFunction,
  type TypedLineOptions,
} from "./run_function.ts";
