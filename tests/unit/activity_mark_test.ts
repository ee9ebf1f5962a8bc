import { assertEquals } from "../deps.ts";
import { activityTitle, restoreText } from "../../src/tmux/objects/activity_mark.ts";
import { commandText, THEN } from "../../src/tmux/transport/spawn/command_line.ts";

Deno.test("activityTitle: the command's printable text, cut to 40 characters", () => {
  assertEquals(activityTitle("make test"), "[agent] make test");
  // Control characters (a tab, an escape a command may hold) are blanks; ends trimmed.
  assertEquals(activityTitle("\tprintf '\x1b[1m'\r "), "[agent] printf ' [1m'");
  // A backslash shows as ⧵: tmux 3.7 on would keep it doubled.
  assertEquals(activityTitle("printf 'a\\n'"), "[agent] printf 'a⧵n'");
  const long = "é".repeat(50);
  assertEquals(activityTitle(long), `[agent] ${"é".repeat(39)}…`);
  assertEquals(activityTitle("x".repeat(40)), `[agent] ${"x".repeat(40)}`);
});

Deno.test("commandText: words go bare only where tmux's parser reads them as they are", () => {
  assertEquals(
    commandText([
      "set-option",
      "-p",
      "-t",
      "%3",
      "@tmux_mcp_x",
      "a b",
      THEN,
      "a=b",
      "$HOME",
      "#{x}",
    ]),
    "set-option -p -t %3 @tmux_mcp_x 'a b' ; 'a=b' '$HOME' '#{x}'",
  );
});

Deno.test("restoreText: inside a shell's double quotes, the pane named by a parameter", () => {
  const text = restoreText("$2", { shell: true });
  // Only the parameter is expanded by the shell: no other `$`, backquote or backslash but \".
  assertEquals(text.replaceAll("$2", "").match(/[$`]|\\[^"]/g), null);
  assertEquals(text.includes('select-pane -t $2 -T \\"#{@tmux_mcp_title}\\"'), true);
});
