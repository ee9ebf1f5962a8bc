/**
 * The persistent control client of each tmux server, the gate every start and end of a client
 * passes, the guard that takes back what the server set when it ends, and one command sent the
 * fastest way there is.
 *
 * @module
 */

export { closeControlsOf, type ControlPool } from "./control.ts";
export {
  allLines,
  type ClientGates,
  endClient,
  startClient,
  whileNoClientConnects,
} from "./gate.ts";
