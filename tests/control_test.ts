// The control client's quoting, against a real tmux: any text but NUL arrives as it was sent.

import { assertEquals } from "./deps.ts";
import { startTmux } from "./helpers/tmux.ts";
import { createTmuxClient } from "../src/tmux/mod.ts";
import { runTmux } from "../src/tmux/transport/command.ts";

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
