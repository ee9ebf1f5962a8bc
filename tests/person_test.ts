// Beside a person: the server never types over what a person types. Their half-typed text on a
// shell's command line, and a client attached to the pane that pressed keys in the last 2 s
// (a real `tmux attach` under `script`, typed into as a person types), refuse a call at once with
// person_typing, or hold it until they pause when the caller asked to wait.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { type TestTmux, until } from "./helpers/tmux.ts";
import { attachPerson, cursorRow } from "./helpers/person.ts";

type Json = Record<string, unknown>;

async function callTool(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

/** A person's text on the command line: typed into the pane by tmux itself, not by the server. */
async function personTypes(tmux: TestTmux, pane: string, text: string): Promise<void> {
  await tmux.run("send-keys", "-t", pane, "-l", text);
  await until("the text shows", async () => (await cursorRow(tmux, pane)).endsWith(text));
}

Deno.test("a person's half-typed command is never joined or erased: refused, waited for", async () => {
  await withServer("stdio", { extraArgs: ["--toolsets", "all"] }, async (conn, tmux) => {
    const pane = tmux.paneId;
    await personTypes(tmux, pane, "git comm");
    for (
      const [tool, args] of [
        ["run_command", { command: "echo agent" }],
        ["send_keys", { text: "echo agent", enter: true }],
        ["paste_text", { text: "echo agent" }],
        ["run_command_many", { command: "echo agent", pane_ids: [pane] }],
      ] as const
    ) {
      const target = tool === "run_command_many" ? {} : { pane_id: pane };
      const result = await callTool(conn, tool, { ...target, ...args });
      const text = tool === "run_command_many"
        ? JSON.stringify(result.structuredContent)
        : textOf(result);
      assert(tool === "run_command_many" || result.isError, `${tool}: ${text}`);
      assertMatch(text, /person_typing: a person may be typing in pane %\d+: its command line/);
      assertMatch(text, /git comm/);
      assertEquals(await cursorRow(tmux, pane), "$ git comm", `after ${tool}`);
    }
    // Asked to wait: the call runs once the person's line is empty again.
    const cleared = setTimeout(() => tmux.run("send-keys", "-t", pane, "C-u"), 1000);
    try {
      const waited = await callTool(conn, "run_command", {
        pane_id: pane,
        command: "echo agent",
        if_person_typing: "wait",
        timeout: 10,
      });
      const result = waited.structuredContent as Json;
      assertEquals([result.exit_status, result.output], [0, ["agent"]], textOf(waited));
    } finally {
      clearTimeout(cleared);
    }
  });
});

Deno.test("the agent's own half-typed text is its own, not a person's", async () => {
  await withServer("stdio", {}, async (conn, tmux) => {
    const pane = tmux.paneId;
    for (const text of ["echo mine", " and more"]) {
      const typed = await callTool(conn, "send_keys", { pane_id: pane, text });
      assert(!typed.isError, textOf(typed));
    }
    await until("the text shows", async () => (await cursorRow(tmux, pane)).endsWith("more"));
    const ended = await callTool(conn, "send_keys", { pane_id: pane, keys: ["Enter"] });
    assert(!ended.isError, textOf(ended));
    const ran = await callTool(conn, "run_command", { pane_id: pane, command: "echo next" });
    assertEquals((ran.structuredContent as Json).output, ["next"], textOf(ran));
  });
});

testNeeding(
  ["script"],
  "a person at an attached client: keys in the last 2 s refuse, a pause lets the call run",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = tmux.paneId;
      const person = await attachPerson(tmux, pane);
      try {
        // Typed and taken back: nothing is left on the line, only the keys were pressed.
        await person.type("ab\x7f\x7f");
        await until("the keys were taken", async () => {
          const activity = await tmux.run("list-clients", "-F", "#{client_activity}");
          return Math.floor(Date.now() / 1000) - Number(activity.trim()) <= 1;
        });
        const refused = await callTool(conn, "run_command", { pane_id: pane, command: "true" });
        assertMatch(
          textOf(refused),
          /person_typing: .*a client attached to it pressed keys \ds ago/,
        );
        // Waiting for the pause: the call runs once the person stopped for 2 s.
        const waited = await callTool(conn, "run_command", {
          pane_id: pane,
          command: "echo after-pause",
          if_person_typing: "wait",
          timeout: 10,
        });
        assertEquals((waited.structuredContent as Json).output, ["after-pause"], textOf(waited));
        // Text the person leaves on the line after the agent's run refuses the next one, also
        // once they stopped typing; a wait ends at its timeout, nothing typed.
        await person.type("git comm");
        await until("the text shows", async () => (await cursorRow(tmux, pane)) === "$ git comm");
        await new Promise((resolve) => setTimeout(resolve, 2500));
        const left = await callTool(conn, "run_command", {
          pane_id: pane,
          command: "true",
          if_person_typing: "wait",
          timeout: 1,
        });
        assertMatch(
          textOf(left),
          /person_typing: .*its command line holds text .*"\$ git comm"; still so after \d/,
        );
        assertEquals(await cursorRow(tmux, pane), "$ git comm");
      } finally {
        await person.close();
      }
    });
  },
);
