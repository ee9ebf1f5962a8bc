/**
 * watch_pane: be told, without a call, when a pane shows a pattern or its program ends. The call
 * returns at once; the end is pushed as the session asked (push.ts): an update of the watch's
 * resource (`tmux://watches/{watch_id}`) to a client that subscribed to it, and a channel event.
 *
 * @module
 */

import { type McpServer, resourceTemplate, z } from "../../deps.ts";
import { type PaneWatchEnd, TmuxError, WATCH_MAX_SECONDS, watchPane } from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  defineTool,
  jsonContents,
  paneIdOutput,
  paneSpecShape,
  type SessionPush,
  templateValue,
  type ToolContext,
} from "../define/mod.ts";

/** A watch as its resource shows it. */
interface Watch {
  watch_id: string;
  pane_id: string;
  state: "watching" | "ended";
  end: PaneWatchEnd | null;
}

/** The most watches one session keeps going at once. */
const WATCHES_MAX = 16;
/** The most watches the server keeps going at once, all sessions together. */
export const SERVER_WATCHES_MAX = 64;

/** The watches going now, every session's. */
const going = new Set<Watch>();
/** The most a session remembers (ended ones go first). */
const REMEMBERED_MAX = 256;

/** Each session's watches, by its push (one per session). */
const sessions = new WeakMap<SessionPush, Map<string, Watch>>();

function watchesOf(push: SessionPush): Map<string, Watch> {
  let watches = sessions.get(push);
  if (watches === undefined) sessions.set(push, watches = new Map());
  return watches;
}

function remember(watches: Map<string, Watch>, watch: Watch): void {
  watches.set(watch.watch_id, watch);
  for (const [id, old] of watches) {
    if (watches.size <= REMEMBERED_MAX) break;
    if (old.state === "ended") watches.delete(id);
  }
}

const WATCHES_URI = "tmux://watches";

/** How a watch's end reads. */
function endText(watch: Watch, end: PaneWatchEnd): string {
  const how = end.outcome === "matched"
    ? `showed ${JSON.stringify(end.line)}`
    : end.outcome === "prompt"
    ? "its program waits for input (or ended, back at the shell)"
    : end.outcome === "failed"
    ? `could not be watched: ${end.error}`
    : `ended: ${end.outcome}`;
  return `watch ${watch.watch_id}: pane ${watch.pane_id} ${how} after ${end.elapsed_seconds} s`;
}

/** The watch tools. */
export const WATCH_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "watch_pane",
    target: "pane",
    tier: "readonly",
    title: "Be told when a pane shows something",
    description: "Returns at once and tells you later, with no call: when the pane shows the " +
      "pattern in new output, or (program_end) its program exits or waits for input. Told as " +
      "a channel event where the client takes them, else as an update of the watch's resource " +
      "(subscribe to uri, or read it). For long jobs started with send_keys.",
    input: {
      ...paneSpecShape,
      pattern: z.string().min(1).max(1000).nullable().optional().describe("text in new output"),
      regex: z.boolean().default(false).describe("pattern is an RE2 regular expression"),
      case_sensitive: z.boolean().default(true).describe("match case exactly"),
      program_end: z.boolean().default(false).describe(
        "also end when the program exits or waits for input",
      ),
      seconds: z.number().positive().max(WATCH_MAX_SECONDS).default(600).describe(
        `how long to watch (at most ${WATCH_MAX_SECONDS})`,
      ),
    },
    output: {
      watch_id: z.string().describe("names the watch in its event and resource"),
      pane_id: paneIdOutput,
      uri: z.string().describe("the watch's resource: subscribe to it, or read it"),
      until: z.string().describe("when the watch ends if nothing comes"),
      told_by: z.enum(["channel", "resource"]).describe(
        "channel: an event comes; resource: subscribe to uri (or read it) to learn the end",
      ),
    },
    async run(args, { socket, target, context }) {
      const push = context.push;
      if (push === null) throw new TmuxError("invalid_argument", "no session to tell");
      const watches = watchesOf(push);
      const mine = [...watches.values()].filter((watch) => watch.state === "watching");
      if (mine.length >= WATCHES_MAX) {
        throw new TmuxError(
          "invalid_argument",
          `${WATCHES_MAX} watches go on already; wait for one to end`,
        );
      }
      if (going.size >= SERVER_WATCHES_MAX) {
        throw new TmuxError(
          "invalid_argument",
          `${SERVER_WATCHES_MAX} watches go on already in this server (every session's); wait ` +
            "for one to end",
        );
      }
      const { ended } = await watchPane(socket, target, {
        pattern: args.pattern ?? null,
        regex: args.regex,
        caseSensitive: args.case_sensitive,
        programEnd: args.program_end,
        seconds: args.seconds,
        signal: push.closed,
      });
      const watch: Watch = {
        watch_id: crypto.randomUUID().slice(0, 8),
        pane_id: target,
        state: "watching",
        end: null,
      };
      remember(watches, watch);
      going.add(watch);
      const uri = `${WATCHES_URI}/${watch.watch_id}`;
      ended.then(async (end) => {
        going.delete(watch);
        watch.state = "ended";
        watch.end = end;
        if (end.outcome === "cancelled") return;
        await push.updated(uri);
        await push.event(endText(watch, end), {
          watch_id: watch.watch_id,
          pane_id: watch.pane_id,
          outcome: end.outcome,
        });
      }).catch(() => {});
      return {
        watch_id: watch.watch_id,
        pane_id: target,
        uri,
        until: new Date(Date.now() + args.seconds * 1000).toISOString(),
        told_by: push.channel() ? "channel" as const : "resource" as const,
      };
    },
    text: (r) =>
      `watching ${r.pane_id} until ${r.until} (${r.watch_id}): ` +
      (r.told_by === "channel"
        ? "a channel event will tell its end"
        : `subscribe to ${r.uri} (or read it) to learn its end`),
  }),
];

/** Registers the watches' resource on one session's server. */
export function registerWatchResources(server: McpServer, context: ToolContext): void {
  const push = context.push;
  if (push === null) return;
  server.registerResource("watch", resourceTemplate(`${WATCHES_URI}/{watch_id}`), {
    title: "A watch",
    description: "One watch_pane watch: watching, or ended and how.",
    mimeType: "application/json",
  }, (uri, variables) => {
    const watch = watchesOf(push).get(templateValue(variables.watch_id));
    return jsonContents(uri, watch ?? null);
  });
}
