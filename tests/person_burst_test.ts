// A person typing beside a burst of runs: 200 run_command calls into the pane a person types in
// at an attached client (a real `tmux attach` under `script`). Each call runs whole or is refused
// with person_typing; a key pressed between the look and the typing makes the call look again
// (before: the run's C-u erased the person's first keys, and the rest ran into its output); keys
// pressed while a command runs are echoed into its output by the terminal, and the result says so.

import { assert, assertEquals, assertMatch, type CallToolResult } from "./deps.ts";
import { type Connection, textOf, withServer } from "./helpers/mcp.ts";
import { testNeeding } from "./helpers/prerequisites.ts";
import { attachPerson, cursorRow } from "./helpers/person.ts";

type Json = Record<string, unknown>;

async function callTool(conn: Connection, name: string, args: Json): Promise<CallToolResult> {
  return await conn.client.callTool({ name, arguments: args }) as CallToolResult;
}

testNeeding(
  ["script"],
  "a person typing at an attached client during a burst of 200 runs: no run is joined with their keys",
  async () => {
    await withServer("stdio", {}, async (conn, tmux) => {
      const pane = tmux.paneId;
      const terminal = await attachPerson(tmux, pane);
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      let agentDone = false;
      // The person's lines that did not show what they typed.
      const broken: string[] = [];
      try {
        // The person types a command key by key, thinks better of it (C-u), and pauses a little
        // longer than it takes to count as paused (2 s, in whole seconds): they start again while
        // runs go on.
        const person = (async () => {
          for (let bout = 0; !agentDone; bout++) {
            for (const key of "echo PERSON-TYPED") {
              await terminal.type(key);
              await pause(15);
            }
            // What they typed is on their line, whole (a run may print before it, never in it).
            let line = "";
            for (let look = 0; look < 50; look++) {
              line = await cursorRow(tmux, pane);
              if (line.endsWith("echo PERSON-TYPED")) break;
              await pause(20);
            }
            if (!line.endsWith("echo PERSON-TYPED")) broken.push(line);
            await terminal.type("\x15");
            await pause(3000 + (bout * 37) % 400);
          }
        })();
        const outcomes = { ran: 0, refused: 0, typedOver: 0 };
        try {
          for (let i = 0; i < 200; i++) {
            const result = await callTool(conn, "run_command", {
              pane_id: pane,
              command: `echo agent-${i}`,
            });
            const text = textOf(result);
            if (result.isError) {
              assertMatch(text, /^person_typing: a person may be typing in pane/, `call ${i}`);
              outcomes.refused++;
              // An agent that is told a person types gives them a moment.
              await pause(100);
            } else {
              const ran = result.structuredContent as Json;
              // Keys pressed while the command ran were echoed by the terminal, around its
              // output (one write): the result says so.
              const echoed = ran.person_keys === true;
              const output = echoed && (ran.output as string[]).join("\n").includes(`agent-${i}`)
                ? [`agent-${i}`]
                : ran.output;
              assertEquals([ran.exit_status, output], [0, [`agent-${i}`]], `call ${i}: ${text}`);
              outcomes.ran++;
              if (echoed) outcomes.typedOver++;
            }
          }
        } finally {
          agentDone = true;
          await person;
        }
        assertEquals(broken, []);
        // Both happened: runs between the person's bouts, refusals while they typed.
        assert(outcomes.ran > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
        // The person's keys never ran as (part of) a command.
        const history = await tmux.run("capture-pane", "-p", "-S", "-", "-t", pane);
        assert(!/^PERSON-TYPED$/m.test(history), history.slice(-2000));
      } finally {
        await terminal.close();
      }
    });
  },
);
