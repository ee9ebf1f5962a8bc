/**
 * How this process reaches tmux: the socket of a local or remote server, tmux processes and
 * the control clients, and the remote hosts an operator declares.
 *
 * @module
 */

export { plainSocket, type TmuxSocket } from "./socket.ts";
export { LOCAL_HOST, parseRemote, type RemoteHost, SOCKET_NAME } from "./remote/mod.ts";
export type { SshOptions } from "./remote/mod.ts";
export { hostName, lockKey, type SocketAddress, tmuxVersion } from "./spawn/mod.ts";
export type { RemoteLink } from "./spawn/mod.ts";
