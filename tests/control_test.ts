// The control client's quoting, against a real tmux: any text but NUL arrives as it was sent.

import { assert, assertEquals } from "./deps.ts";
import { startTmux } from "./helpers/tmux.ts";
import { createTmuxClient } from "../src/tmux/mod.ts";
import { runTmux } from "../src/tmux/transport/control/command.ts";
import { THEN } from "../src/tmux/transport/spawn/command_line.ts";
import { TmuxError } from "../src/tmux/errors.ts";

Deno.test("text with quotes, $, ~, #, backslashes and every control character round-trips", async () => {
  const tmux = await startTmux();
  const client = createTmuxClient();
  try {
    const socket = client.socket(tmux.socketName);
    const controls = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join("");
    const text = `~a'b"c $HOME \\e \\n #{pid} ; ${controls}\x7f é 日本`;
    await runTmux(socket, ["set-buffer", "-b", "quoting-test", "--", text]);
    // Read back by a plain client: a control client would get it escaped for display.
    assertEquals(await tmux.run("show-buffer", "-b", "quoting-test"), text);
    // It went over the control client (a spawned tmux would have taken argv as it is).
    const clients = await tmux.run("list-clients", "-F", "#{client_control_mode}");
    assertEquals(clients.trim(), "1");
  } finally {
    await client.close();
    await tmux.close();
  }
});

Deno.test("a command if-shell runs comes as a block of its own, and the line still answers", async () => {
  const tmux = await startTmux();
  const client = createTmuxClient();
  try {
    const socket = client.socket(tmux.socketName);
    const controlClient = async () =>
      (await tmux.run("list-clients", "-F", "#{client_control_mode} #{client_pid}"))
        .split("\n").filter((line) => line.startsWith("1 ")).join();
    await runTmux(socket, ["display-message", "-p", "connected"]);
    const before = await controlClient();
    const answer = await runTmux(socket, [
      ...["if-shell", "-F", "-t", tmux.paneId, "1", `set-option -p -t ${tmux.paneId} @t 1`, THEN],
      ...["display-message", "-p", "-t", tmux.paneId, "#{@t}"],
    ]);
    assertEquals(answer, "1\n");
    // The same control client answered: it was not ended as if the block were a forgery.
    assertEquals(await controlClient(), before);
  } finally {
    await client.close();
    await tmux.close();
  }
});

Deno.test("an answer past 32 MiB is refused as memory_limited, never held whole; the client goes on", async () => {
  const tmux = await startTmux();
  const client = createTmuxClient();
  const file = await Deno.makeTempFile();
  try {
    // 40 MB in lines of 1,000 bytes: no line is too long, the answer is.
    const line = `${"x".repeat(999)}\n`;
    await Deno.writeTextFile(file, line.repeat(40_000));
    await tmux.run("load-buffer", "-b", "big", file);
    const socket = client.socket(tmux.socketName);
    await runTmux(socket, ["display-message", "-p", "connected"]);
    const error = await runTmux(socket, ["show-buffer", "-b", "big"]).then(
      (answer) => new Error(`answered with ${answer.length} characters`),
      (error) => error,
    );
    assert(error instanceof TmuxError && error.code === "memory_limited", String(error));
    assertEquals(await runTmux(socket, ["display-message", "-p", "still here"]), "still here\n");
    const clients = await tmux.run("list-clients", "-F", "#{client_control_mode}");
    assertEquals(clients.trim(), "1", "the control client was replaced");
  } finally {
    await Deno.remove(file);
    await client.close();
    await tmux.close();
  }
});
