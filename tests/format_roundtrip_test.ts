// Records read back exactly whatever a pane or a person stored in an option, on the tmux on PATH:
// tmux releases print values differently (vis(3) in 3.4 and 3.5a, more quoting in later ones).

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { textOf, withServer } from "./helpers/mcp.ts";
import { formatOf, parseRecords } from "../src/tmux/format.ts";
import { startTmux } from "./helpers/tmux.ts";

type Json = Record<string, unknown>;

const ALPHABET = [
  ...["\\", "$", "{", "}", "#", "|", "&", ";", "'", '"', "`", " ", "%", "~", "*", "?"],
  ...["a", "n", "t", "0", "7", "\t", "\n", "\r", "\x1b", "\x15", "\x1f", "\x7f", "é", "表"],
];

/** A small linear congruential generator: the same values every run. */
function values(count: number): string[] {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => {
    let value = "";
    const length = 1 + Math.floor(next() * 16);
    for (let i = 0; i < length; i++) value += ALPHABET[Math.floor(next() * ALPHABET.length)];
    return value;
  });
}

/** A value as tmux's argv takes it: a last ';' would end the command. */
function arg(value: string): string {
  return value.endsWith(";") ? `${value.slice(0, -1)}\\;` : value;
}

Deno.test("values with quotes, backslashes, $, separators and control characters read back exactly", async () => {
  const tmux = await startTmux();
  try {
    const all = values(400);
    // Forty options at a time, read back in one record.
    for (let at = 0; at < all.length; at += 40) {
      const batch = all.slice(at, at + 40);
      const names = batch.map((_, i) => `@rt${i}`);
      await tmux.run(
        ...batch.flatMap((
          value,
          i,
        ) => ["set-option", "-p", "-t", tmux.paneId, names[i], arg(value), ";"])
          .slice(0, -1),
      );
      const out = await tmux.run("display-message", "-p", "-t", tmux.paneId, formatOf(names));
      const record = parseRecords(out, names)[0];
      assertEquals(names.map((name) => record[name]), batch);
    }
  } finally {
    await tmux.close();
  }
});

Deno.test("pane text that looks like record syntax (& | \\) is read as text", async () => {
  const lines = ["a & b | c \\ d", "x\\&y|&", "\\$HOME & \\037"];
  const command = lines.map((line) => `printf '%s\\n' '${line}'`).join("; ");
  for (const extraArgs of [["--toolsets", "all"], ["--toolsets", "all", "--no-control"]]) {
    await withServer("stdio", { extraArgs }, async (conn, tmux) => {
      const call = async (name: string, args: Record<string, unknown>) =>
        await conn.client.callTool({ name, arguments: args }) as CallToolResult;
      const run = await call("run_command", { pane_id: tmux.paneId, command });
      assertEquals((run.structuredContent as Json | undefined)?.output, lines, textOf(run));
      const shown = await call("capture_pane", { pane_id: tmux.paneId });
      const captured = ((shown.structuredContent as Json | undefined)?.lines ?? []) as string[];
      for (const line of lines) assert(captured.includes(line), captured.join("\n"));
    });
  }
});
