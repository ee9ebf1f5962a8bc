/**
 * What a coding agent in a pane (Claude Code, Codex, Gemini CLI, aider) reports of itself through
 * its own hooks: a line in the agent's configuration sets two pane options with one tmux client
 * (no interpreter starts): the state, with the process that set it and tmux's clock, and, when
 * waiting or done, the agent's message as its hook received it.
 *
 *     @tmux_mcp_agent          "<working|waiting|done> <pid> <epoch seconds>[ <reason>]"
 *     @tmux_mcp_agent_message  the hook's input (JSON, or plain text), at most 2,000 bytes read
 *
 * `<pid>` is the hook's parent (`$PPID`: the agent's own process), so a mark counts only while that
 * process lives with the pane's terminal as its own (see pane_states.ts): a crashed agent leaves
 * no ghost. Both values are written by whatever runs in the pane: a stranger's text, read only
 * through the allow-lists below and bounded.
 *
 * @module
 */

import { NAME_PREFIX } from "../names.ts";

/** The pane option a hook line sets to the agent's state. */
export const AGENT_OPTION = `@${NAME_PREFIX}agent`;

/** The pane option a hook line sets to the agent's message (the hook's input). */
export const AGENT_MESSAGE_OPTION = `@${NAME_PREFIX}agent_message`;

/** The tmux channel a hook line signals once it set the state: it wakes waits for any pane. */
export const AGENT_CHANNEL = `${NAME_PREFIX}agent`;

/** The states an agent reports. */
export const AGENT_STATES = ["working", "waiting", "done"] as const;

/** One of {@linkcode AGENT_STATES}. */
export type AgentState = (typeof AGENT_STATES)[number];

/** Why an agent waits, as its hook lines name it. */
export const WAIT_REASONS = ["permission", "question", "idle", "input"] as const;

/** One of {@linkcode WAIT_REASONS}. */
export type WaitReason = (typeof WAIT_REASONS)[number];

/** A mark as a hook line wrote it, checked. */
export interface AgentMark {
  /** What the agent does. */
  state: AgentState;
  /** The process that set it (the hook's parent: the agent). */
  pid: number;
  /** When, in seconds since the epoch, by the tmux server's clock. */
  since: number;
  /** Why it waits (waiting only; null when the line named none). */
  reason: WaitReason | null;
}

const MARK = /^(working|waiting|done) ([1-9]\d{0,9}) (\d{1,12})(?: ([a-z]{1,16}))?$/;

/** Reads a state option's value; null for anything a hook line does not write. */
export function parseAgentMark(value: string): AgentMark | null {
  const match = MARK.exec(value);
  if (match === null) return null;
  const state = match[1] as AgentState;
  const reason = (WAIT_REASONS as readonly string[]).includes(match[4] ?? "")
    ? match[4] as WaitReason
    : null;
  if (match[4] !== undefined && reason === null) return null;
  return {
    state,
    pid: Number(match[2]),
    since: Number(match[3]),
    reason: state === "waiting" ? reason : null,
  };
}

/** The longest message given back, in characters. */
export const MESSAGE_MAX = 500;

/** A JSON field named `name` and its string, read up to where it ends or the text does. */
function stringField(name: string): RegExp {
  return new RegExp(`"(?:${name})"[ \\t\\r\\n]*:[ \\t\\r\\n]*"((?:[^"\\\\]|\\\\.){0,4000})`);
}

/**
 * The fields of a hook's JSON input that hold what the agent said, in the order they are looked
 * for: Claude Code's Notification (`message`) and Stop (`last_assistant_message`), Codex's notify
 * (`last-assistant-message`), Gemini CLI's AfterAgent (`prompt_response`); else what a permission
 * is asked for (Codex's PermissionRequest: the tool's `description`, else its `command`). A hook
 * line keeps 2,000 bytes of its input, so the JSON may be cut: a field's string is read up to where
 * it ends or the text does.
 */
const MESSAGE_FIELDS: readonly RegExp[] = [
  stringField("message|last_assistant_message|last-assistant-message|prompt_response"),
  stringField("description"),
  stringField("command"),
];

/** How much of the option is read at most. */
const RAW_MAX = 8192;

/**
 * What the agent said, from the message option: the message field of the hook's JSON input, or
 * the text itself when it is not JSON (a hook line that passes a message of its own), control
 * characters made blanks, cut to {@linkcode MESSAGE_MAX} characters. Null when there is none.
 */
export function agentMessage(raw: string): string | null {
  let text = raw.slice(0, RAW_MAX);
  if (text.trimStart().startsWith("{")) {
    let field: string | undefined;
    // The first field found, in order: the later patterns are not run once one matched.
    for (const pattern of MESSAGE_FIELDS) {
      field = pattern.exec(text)?.[1];
      if (field !== undefined) break;
    }
    text = field === undefined ? "" : jsonString(field);
  }
  // deno-lint-ignore no-control-regex
  const shown = text.replace(/[\x00-\x1f\x7f-\x9f]+/g, " ").trim();
  if (shown === "") return null;
  const chars = [...shown];
  return chars.length > MESSAGE_MAX ? `${chars.slice(0, MESSAGE_MAX - 1).join("")}…` : shown;
}

/** A JSON string's body decoded; one cut inside an escape loses that escape. */
function jsonString(body: string): string {
  for (const candidate of [body, body.replace(/\\(?:u[0-9a-fA-F]{0,3})?$/, "")]) {
    try {
      return JSON.parse(`"${candidate}"`);
    } catch {
      // Cut inside an escape: the next candidate drops it.
    }
  }
  return "";
}
