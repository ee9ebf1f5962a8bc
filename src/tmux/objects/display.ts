/**
 * `display-message -p` of a caller's format for one pane, once the format passed the allow-list.
 *
 * @module
 */

import { runTmux } from "../transport/control/command.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { checkPlainFormat } from "./safe_format.ts";
import { queryPane } from "./target.ts";

/**
 * Expands a plain format (see {@linkcode checkPlainFormat}) for a pane that must exist:
 * display-message would expand it for a missing target too.
 */
export async function displayMessage(
  socket: TmuxSocket,
  paneId: string,
  format: string,
): Promise<string> {
  checkPlainFormat(format);
  await queryPane(socket, paneId, []);
  const text = await runTmux(socket, ["display-message", "-p", "-t", paneId, "--", format]);
  return text.replace(/\n$/, "");
}
