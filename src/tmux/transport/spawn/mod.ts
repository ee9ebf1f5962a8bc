/**
 * tmux processes: spawned with their arguments and limits, their output read as lines, command
 * lines built, a socket's path, waiting clients, and the link to a remote host they go through.
 *
 * @module
 */

export { chained, commandsOf, controlLine, controlSafe, QUERIES, THEN } from "./command_line.ts";
export {
  hostName,
  lockKey,
  type RunTmuxOptions,
  type SocketAddress,
  socketKey,
  spawnRun,
  tmuxCommand,
  type TmuxCommandOptions,
  tmuxVersion,
} from "./exec.ts";
export {
  MAX_ANSWER_BYTES,
  MAX_LINE_BYTES,
  MAX_STDERR_BYTES,
  readCapped,
  readLines,
  terminate,
} from "./lines.ts";
export { type RemoteLink, unreachableWhenDown } from "./remote_link.ts";
export { socketPath, type SocketPaths } from "./socket_path.ts";
