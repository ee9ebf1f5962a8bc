// A person beside the agent: a real client attached to a pane (`tmux attach` under `script`),
// typed into as a person types, and what their command line shows.

import { type TestTmux, until } from "./tmux.ts";

/** The cursor's row of a pane, right-trimmed. */
export async function cursorRow(tmux: TestTmux, pane: string): Promise<string> {
  const y = (await tmux.run("display-message", "-p", "-t", pane, "#{cursor_y}")).trim();
  return (await tmux.run("capture-pane", "-p", "-t", pane, "-S", y, "-E", y)).trimEnd();
}

/** A person's terminal attached to a pane. */
export interface AttachedPerson {
  /** Presses keys at the terminal (as bytes a keyboard sends). */
  type(keys: string): Promise<void>;
  /** Detaches every client of session "main" and waits for the terminal to end. */
  close(): Promise<void>;
}

/** Attaches a person's terminal to `pane` (of session "main"), once tmux lists it. */
export async function attachPerson(tmux: TestTmux, pane: string): Promise<AttachedPerson> {
  const client = new Deno.Command("script", {
    args: ["-q", "-c", `tmux -L ${tmux.socketName} attach -t ${pane}`, "/dev/null"],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const keys = client.stdin.getWriter();
  const encoder = new TextEncoder();
  const person: AttachedPerson = {
    type: (text) => keys.write(encoder.encode(text)),
    async close(): Promise<void> {
      await keys.close().catch(() => {});
      await tmux.run("detach-client", "-a", "-s", "main").catch(() => "");
      await tmux.run("detach-client", "-s", "main").catch(() => "");
      await client.status;
    },
  };
  try {
    await until("the client is attached", async () => {
      return (await tmux.run("list-clients", "-F", "#{pane_id}")).trim() === pane;
    });
  } catch (error) {
    await person.close();
    throw error;
  }
  return person;
}
