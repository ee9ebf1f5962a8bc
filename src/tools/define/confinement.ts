/**
 * What confining the server to some sessions (`--own-sessions`, `--sessions`) does and does not
 * do, said where the model reads it: the instructions, and every tool that can start a program or
 * type into a shell. The tools are confined; what runs in a pane is not (it runs as the user, and
 * tmux itself, through `$TMUX` or its socket, reaches every session).
 *
 * @module
 */

import type { ServerConfig } from "./context.ts";

/** The sessions a confined server acts on, in words; null when it is not confined. */
function confinedTo(config: Pick<ServerConfig, "scope">): string | null {
  const scope = config.scope;
  if (scope === null) return null;
  const parts = [
    ...(scope.own ? ["the sessions it creates"] : []),
    ...(scope.names.length > 0 ? [`sessions named ${scope.names.join(", ")}`] : []),
  ];
  return parts.join(" and ");
}

/** The instructions' paragraph on confinement; null when the server is not confined. */
export function confinementParagraph(config: Pick<ServerConfig, "scope">): string | null {
  const sessions = confinedTo(config);
  if (sessions === null) return null;
  return `This server is confined to ${sessions}: its tools list and act on those only, and ` +
    "refuse any other with out_of_scope. That binds the tools, not what runs in a pane: a " +
    "command run there runs as the user and can reach every tmux session (through tmux itself) " +
    "and all else the account can. It guards against mistakes, not against a command meant to harm.";
}

/** What a tool that starts programs or types into shells adds to its description when confined. */
export function confinementNote(config: Pick<ServerConfig, "scope">): string {
  const sessions = confinedTo(config);
  if (sessions === null) return "";
  return ` Confined to ${sessions}; a command run in a pane is not: it runs as the user and can ` +
    "reach every tmux session.";
}
