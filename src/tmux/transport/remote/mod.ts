/**
 * Remote hosts: how an operator declares them, the ssh connections calls reach them by, and when
 * those close.
 *
 * @module
 */

export { LOCAL_HOST, parseRemote, type RemoteHost, SOCKET_NAME } from "./remote_spec.ts";
export { type SshOptions } from "./ssh.ts";
