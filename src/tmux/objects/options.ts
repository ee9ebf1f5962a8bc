/**
 * Options and the environment: `show-options`, `set-option` and `show-environment`, at a scope
 * whose target is resolved here from the caller's pane or session spec.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";
import { runTmux } from "../transport/control/command.ts";
import type { TmuxSocket } from "../transport/socket.ts";
import { checkId, type PaneSpec, resolvePane, resolveSession, type SessionSpec } from "./target.ts";
import { NAME_PREFIX } from "../names.ts";

/** Which object an option belongs to. */
export type OptionScope = "server" | "session" | "window" | "pane";

/** An option's place: its scope, and whether the global value is meant. */
export interface OptionPlace {
  /** Server, session, window or pane. */
  scope: OptionScope;
  /** The global value (-g) rather than the target's. */
  global: boolean;
}

/** An option's place as flags and target, resolved from the caller's spec. */
async function placeArgs(
  socket: TmuxSocket,
  place: OptionPlace,
  spec: PaneSpec,
): Promise<string[]> {
  const flags = place.global ? ["-g"] : [];
  if (place.scope === "server") return [...flags, "-s"];
  if (place.scope === "pane") return [...flags, "-p", "-t", await resolvePane(socket, spec)];
  if (place.scope === "window") {
    if (spec.window_id != null) return [...flags, "-w", "-t", checkId("window_id", spec.window_id)];
    return [...flags, "-w", "-t", await resolvePane(socket, spec)];
  }
  const session = await resolveSession(socket, spec);
  return session === null ? flags : [...flags, "-t", session];
}

/** How much of each line is read when only the options' names are wanted. */
const NAME_LINE_BYTES = 1024;

/**
 * The names of the options set at a place (`show-options` flags and target). Their values are
 * not read: a pane may set one of any size.
 */
export async function optionNames(socket: TmuxSocket, place: readonly string[]): Promise<string[]> {
  const listing = await runTmux(socket, ["show-options", ...place], {
    maxLineBytes: NAME_LINE_BYTES,
  });
  return listing.split("\n").filter((line) => line !== "").map((line) => line.split(" ", 1)[0]);
}

/** `show-options -v`: one option's value, or null when it is unset or unknown. */
export async function showOption(
  socket: TmuxSocket,
  name: string,
  options: OptionPlace & { spec: PaneSpec },
): Promise<string | null> {
  const place = await placeArgs(socket, options, options.spec);
  try {
    const value = (await runTmux(socket, ["show-options", "-v", ...place, "--", name]))
      .replace(/\n$/, "");
    // tmux 3.2a prints an unset user option as empty where later ones refuse it: is it set?
    if (value === "" && name.startsWith("@")) {
      if (!(await optionNames(socket, place)).includes(name)) return null;
    }
    return value;
  } catch (error) {
    if (error instanceof TmuxError && /invalid option|unknown option/.test(error.message)) {
      return null;
    }
    throw error;
  }
}

/** Options an agent may set: presentation and behaviour, nothing that runs programs. */
export const SETTABLE_OPTIONS: ReadonlySet<string> = new Set([
  "mouse",
  "status",
  "status-position",
  "mode-keys",
  "status-keys",
  "history-limit",
  "pane-border-status",
  "remain-on-exit",
  "automatic-rename",
  "allow-rename",
  "monitor-activity",
  "monitor-silence",
  "visual-activity",
  "aggressive-resize",
  "window-size",
  "base-index",
  "pane-base-index",
  "renumber-windows",
  "display-time",
  "escape-time",
  "synchronize-panes",
  "wrap-search",
  "clock-mode-style",
]);

const USER_OPTION = /^@[A-Za-z][A-Za-z0-9_-]{0,62}$/;

/**
 * `set-option` of one of the {@linkcode SETTABLE_OPTIONS} or a user option (`@name`), never one of
 * this server's own. The value is stored as it is: set-option expands nothing.
 */
export async function setOption(
  socket: TmuxSocket,
  option: { name: string; value: string },
  options: OptionPlace & { spec: PaneSpec },
): Promise<void> {
  const { name, value } = option;
  if (name.startsWith(`@${NAME_PREFIX.slice(0, -1)}`)) {
    throw new TmuxError("invalid_argument", "@tmux_mcp* options belong to this server");
  }
  if (!USER_OPTION.test(name) && !SETTABLE_OPTIONS.has(name)) {
    throw new TmuxError("invalid_argument", `option ${JSON.stringify(name)} is not settable here`);
  }
  const place = await placeArgs(socket, options, options.spec);
  await runTmux(socket, ["set-option", ...place, "--", name, value]);
}

/** Names that look like they hold secrets; their values are withheld. */
const SECRET_NAME =
  /(TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION_KEY|API_?KEY|PRIVATE|_KEY$|^KEY$)/i;

/** One variable of tmux's environment. */
export interface EnvironmentVariable {
  /** The variable. */
  name: string;
  /** Its value; null when withheld or removed. */
  value: string | null;
  /** The name looks like a secret: its value is not shown. */
  withheld: boolean;
  /** Marked for removal from new processes' environment. */
  removed: boolean;
}

/** `show-environment`: the global environment, or a session's (none named: the current one). */
export async function showEnvironment(
  socket: TmuxSocket,
  scope: { global: boolean; spec: SessionSpec },
): Promise<EnvironmentVariable[]> {
  const session = scope.global ? null : await resolveSession(socket, scope.spec);
  const target = scope.global ? ["-g"] : session === null ? [] : ["-t", session];
  const text = await runTmux(socket, ["show-environment", ...target]);
  return text.split("\n").filter((l) => l !== "").map((line) => {
    if (line.startsWith("-")) {
      return { name: line.slice(1), value: null, withheld: false, removed: true };
    }
    const eq = line.indexOf("=");
    const name = eq < 0 ? line : line.slice(0, eq);
    const secret = SECRET_NAME.test(name);
    return { name, value: secret ? null : line.slice(eq + 1), withheld: secret, removed: false };
  });
}
