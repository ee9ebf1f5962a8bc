import { assertEquals } from "../deps.ts";
import { queriesOf } from "../../src/tmux/transport/control/command.ts";
import { THEN } from "../../src/tmux/transport/spawn/command_line.ts";

Deno.test("queriesOf keeps the commands of a chain that change nothing", () => {
  const all = ["show-options", "-v", "@x", THEN, "capture-pane", "-p"];
  assertEquals(queriesOf(all), all);
  assertEquals(queriesOf(["display-message", "-p", "list-panes"]), [
    "display-message",
    "-p",
    "list-panes",
  ]);
  assertEquals(queriesOf(["capture-pane", "-p", THEN, "wait-for", "-S", "x"]), [
    "capture-pane",
    "-p",
  ]);
  assertEquals(queriesOf(["set-buffer", "--", "display-message", THEN, "paste-buffer"]), []);
  assertEquals(
    queriesOf(["set-option", "@a", "1", THEN, "display-message", "-p", "x"]),
    ["display-message", "-p", "x"],
  );
});
