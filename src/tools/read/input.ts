/**
 * Tools that type into panes: keys and pasted text. Both return a cursor for wait_for_text.
 *
 * @module
 */

import { z } from "../../deps.ts";
import {
  agentMarkOf,
  hideActivity,
  pasteText,
  type PersonGuard,
  type PersonPolicy,
  runOfMark,
  sendKeys,
  TmuxError,
  type TmuxSocket,
  type TypedInput,
  withoutChrome,
  withoutEcho,
} from "../../tmux/mod.ts";
import {
  type AnyToolSpec,
  defineTool,
  ifPersonTypingSchema,
  paneIdOutput,
  paneSpecShape,
  timeoutSchema,
  type ToolContext,
} from "../define/mod.ts";
import {
  renderWait,
  sendWaitSchema,
  type WaitArgs,
  type WaitCall,
  waitOnPane,
  type WaitOutput,
  waitOutput,
} from "./pane_wait.ts";

/** Where the input went, when a run_command's command still had the pane. */
const runIdSchema = z.string().optional().describe(
  "a run_command's command still runs in the pane and got the input: wait_for_command " +
    "collects it",
);

/** The run whose command got the input, as results name it (nothing when none). */
function inputTo(socket: Parameters<typeof runOfMark>[0]["socket"], typed: {
  paneId: string;
  runningMark: string;
}): { run_id?: string } {
  const run = runOfMark({ socket, paneId: typed.paneId }, typed.runningMark);
  return run === null ? {} : { run_id: run };
}

const forceSchema = z.boolean().default(false).describe(
  "type even in copy-mode or over a person",
);

/** A person's pause is waited for this long when the call gives no timeout (seconds). */
const PERSON_WAIT_S = 10;

/** What a typing call does when a person may be typing there. */
function personGuard(policy: PersonPolicy, timeout = PERSON_WAIT_S): PersonGuard {
  return { policy, deadline: Date.now() + timeout * 1000 };
}

/**
 * Waits, up to `seconds`, for a shell this server just started in the pane to read its line
 * (its startup files run first: keys typed meanwhile were echoed above its prompt, and a paste
 * ran as typed commands); refuses, typing nothing, when it still does not.
 */
async function whenShellReads(
  context: ToolContext,
  target: { socket: TmuxSocket; paneId: string; signal: AbortSignal },
  seconds: number,
): Promise<void> {
  const { socket, paneId, signal } = target;
  const deadline = Date.now() + seconds * 1000;
  if (await context.tmux.shellReady(socket, paneId, { deadline, signal })) return;
  throw new TmuxError(
    "pane_busy",
    `pane ${paneId}: the shell this server started there still reads its startup files after ` +
      `${seconds} s; nothing was typed`,
  );
}

/**
 * Waits on the pane typed into as send_keys' `wait` does, for the answer to what was typed, and
 * puts its title back after.
 */
async function answerOf(
  wait: WaitArgs,
  typed: TypedInput,
  call: Pick<WaitCall, "socket" | "context" | "extra" | "fallbackQuietSeconds" | "agentBefore">,
): Promise<WaitOutput> {
  try {
    return await waitOnPane(wait, {
      ...call,
      target: typed.paneId,
      cursor: typed.cursor,
      screen: typed.screen,
      typedTo: typed.program,
      settled: true,
      earlier: typed.earlier,
    });
  } finally {
    if (typed.shown) await hideActivity(call.socket, typed.paneId);
  }
}

/** The input tools. */
export const INPUT_TOOLS: AnyToolSpec[] = [
  defineTool({
    name: "send_keys",
    alwaysLoad: true,
    target: "pane",
    tier: "mutating",
    title: "Type into a pane",
    description: "Types into a program reading the keyboard (REPL, editor, TUI, agent): text " +
      "(several lines: one paste), then keys, then Enter once the text is taken. {keys: " +
      "['C-c']} interrupts; {text: '1+1', enter: true, wait: {}} returns the answer.",
    input: {
      ...paneSpecShape,
      text: z.string().min(1).max(100000).nullable().optional().describe("typed as it is"),
      keys: z.array(z.string().min(1).max(32)).max(100).default([]).describe(
        "then pressed: C-c, Escape, Up, F1...",
      ),
      enter: z.boolean().default(false).describe("press Enter last"),
      force: forceSchema,
      if_person_typing: ifPersonTypingSchema,
      wait: sendWaitSchema,
    },
    output: {
      pane_id: paneIdOutput,
      sent: z.number().int().describe("characters of text plus keys sent (Enter included)"),
      cursor: z.string().optional().describe(
        "for wait_for_text and capture_since: output since just before the input, its echo " +
          "left out; with wait, the answer's cursor stands for it",
      ),
      run_id: runIdSchema,
      answer: z.object(waitOutput).optional().describe("with wait: what came back"),
    },
    openWorld: true,
    destructive: true,
    async run(args, { socket, target, context, extra }) {
      const text = args.text ?? null;
      await context.tmux.settled(socket, target);
      const seconds = args.wait?.timeout ?? PERSON_WAIT_S;
      await whenShellReads(context, { socket, paneId: target, signal: extra.signal }, seconds);
      const typed = await sendKeys(socket, target, {
        ...args,
        text,
        person: personGuard(args.if_person_typing, args.wait?.timeout),
        screen: args.wait !== undefined,
        showing: args.wait !== undefined,
        since: args.wait === undefined ? null : context.tmux.unfinished(socket, target),
      });
      if (text !== null && text !== "") context.tmux.typed(socket, typed.paneId, typed.cursor);
      const sent = {
        pane_id: typed.paneId,
        sent: [...(text ?? "")].length + args.keys.length + (args.enter ? 1 : 0),
        cursor: typed.cursor,
        ...inputTo(socket, typed),
      };
      if (args.wait === undefined) return sent;
      const { cursor: _, ...answered } = sent;
      const answer = await answerOf(args.wait, typed, {
        socket,
        context,
        extra,
        // Where the kernel cannot tell the program's turn: the quiet send_keys ended on before.
        fallbackQuietSeconds: 2,
      });
      return { ...answered, answer };
    },
    text: (r) =>
      r.answer === undefined ? JSON.stringify(r) : `sent ${r.sent} to ${r.pane_id}` +
        (r.run_id === undefined
          ? ""
          : ` (to the input of run_command's command, run_id=${r.run_id}, still running)`) +
        `; ${renderWait({ ...r.answer, pane_id: r.pane_id })}`,
  }),
  defineTool({
    name: "paste_text",
    target: "pane",
    tier: "mutating",
    title: "Paste text into a pane",
    description: "Pastes text through a private buffer, as bracketed paste when the program in " +
      "the pane asked for it (so shells and editors take it as text, not as typed commands).",
    input: {
      ...paneSpecShape,
      text: z.string().min(1).max(1_000_000).describe("the text, pasted as it is (no Enter added)"),
      bracketed: z.boolean().default(true).describe(
        "use bracketed paste when the program asked for it",
      ),
      force: forceSchema,
      if_person_typing: ifPersonTypingSchema,
    },
    output: {
      pane_id: paneIdOutput,
      bytes: z.number().int().describe("UTF-8 bytes pasted"),
      cursor: z.string().describe("for wait_for_text: output since just before the paste"),
      run_id: runIdSchema,
    },
    openWorld: true,
    destructive: true,
    async run(args, { socket, target, context, extra }) {
      await whenShellReads(
        context,
        { socket, paneId: target, signal: extra.signal },
        PERSON_WAIT_S,
      );
      const typed = await pasteText(socket, target, {
        ...args,
        person: personGuard(args.if_person_typing),
      });
      context.tmux.typed(socket, typed.paneId, typed.cursor);
      const bytes = new TextEncoder().encode(args.text).length;
      return { pane_id: typed.paneId, bytes, cursor: typed.cursor, ...inputTo(socket, typed) };
    },
  }),
  defineTool({
    name: "hand_off",
    target: "pane",
    tier: "mutating",
    title: "Hand a prompt to an agent",
    description: "Submits a prompt to a coding agent in a pane (one paste, Enter once it is " +
      "taken) and answers with what the pane wrote until the agent reported waiting or done " +
      "through its hook lines (docs/agents.md; without them, send_keys with wait).",
    input: {
      ...paneSpecShape,
      prompt: z.string().min(1).max(100000).describe("the prompt, as it is"),
      if_person_typing: ifPersonTypingSchema,
      timeout: timeoutSchema,
    },
    output: {
      pane_id: paneIdOutput,
      answer: z.object(waitOutput).describe(
        "what the pane wrote (the prompt's echo left out), and the agent's report",
      ),
      chrome_lines: z.number().int().describe(
        "lines left out at the answer's end: the agent's own composer and status rows, as its " +
          "screen showed them before the prompt too",
      ),
    },
    openWorld: true,
    destructive: true,
    async run(args, { socket, target, context, extra }) {
      await context.tmux.settled(socket, target);
      // A report counts once it is not the one the agent had before the prompt.
      const before = await agentMarkOf(socket, target);
      const typed = await sendKeys(socket, target, {
        text: args.prompt,
        keys: [],
        enter: true,
        force: false,
        person: personGuard(args.if_person_typing, args.timeout),
        screen: true,
        showing: true,
        since: context.tmux.unfinished(socket, target),
      });
      context.tmux.typed(socket, typed.paneId, typed.cursor);
      const wait = { patterns: [], prompt: false, timeout: args.timeout };
      const answer = await answerOf(wait, typed, { socket, context, extra, agentBefore: before });
      const kept = await withoutChrome(socket, typed.paneId, {
        lines: withoutEcho(answer.lines, args.prompt),
        before: typed.screen ?? [],
      });
      return {
        pane_id: typed.paneId,
        answer: { ...answer, lines: kept.lines },
        chrome_lines: kept.left,
      };
    },
    text: (r) => renderWait({ ...r.answer, pane_id: r.pane_id }),
  }),
];
