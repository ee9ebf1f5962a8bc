import { assertEquals } from "../deps.ts";
import { cellWidth } from "../../src/screen/mod.ts";
import {
  cutAtCursor,
  outputAfter,
  outputStart,
  prefixCells,
  splitCapture,
} from "../../src/tmux/read/text/output.ts";

const TYPED = " (eval 'echo hi'); printf x 'tmux_mcp_ab'; wait-for -S tmux_mcp_ab; exit $s)";

Deno.test("outputStart finds the typed line by its channel and skips it", () => {
  const lines = ["old", `$ ${TYPED}`, "hi", "$"];
  assertEquals(outputStart(lines, TYPED, "tmux_mcp_ab"), 2);
});

Deno.test("outputStart joins rows a line editor broke without the wrap flag", () => {
  const row = `$ ${TYPED}`;
  const lines = ["x", row.slice(0, 30), row.slice(30, 60), row.slice(60), "out"];
  assertEquals(outputStart(lines, TYPED, "tmux_mcp_ab"), 4);
});

Deno.test("outputStart says -1 when the typed line is gone", () => {
  assertEquals(outputStart(["1", "2"], TYPED, "tmux_mcp_ab"), -1);
});

Deno.test("splitCapture treats the final newline as a terminator", () => {
  assertEquals(splitCapture(""), []);
  assertEquals(splitCapture("a\n\nb\n"), ["a", "", "b"]);
});

Deno.test("cell widths: ASCII 1, CJK and emoji 2, combining marks 0", () => {
  assertEquals([cellWidth("a"), cellWidth("日"), cellWidth("🚀"), cellWidth("\u0301")], [
    1,
    2,
    2,
    0,
  ]);
  assertEquals(prefixCells("日本語$ ", 4), "日本");
  assertEquals(prefixCells("abc$ ", 3), "abc");
});

Deno.test("cutAtCursor drops what follows the cursor on the last row", () => {
  assertEquals(cutAtCursor(["1", "abc$ "], "abc$ ", 3), ["1", "abc"]);
  // The last joined line spans two rows; only its last row is cut.
  assertEquals(cutAtCursor(["xxxxyy$"], "yy$", 2), ["xxxxyy"]);
  assertEquals(cutAtCursor(["other"], "row", 1), ["other"]);
});

Deno.test("outputStart skips the second echo of a line typed before the prompt was ready", () => {
  const lines = ["first", TYPED.trim(), `$ ${TYPED}`, "second", "$"];
  assertEquals(outputStart(lines, TYPED, "tmux_mcp_ab"), 3);
  // Output that merely follows the typed line is not taken for a second echo.
  assertEquals(outputStart(["$ " + TYPED, "tmux_mcp_ab"], TYPED, "tmux_mcp_ab"), 1);
});

Deno.test("outputAfter gives back output glued onto a typed line that filled its last row", () => {
  const lines = [`$ ${TYPED}first`, "second"];
  assertEquals(outputAfter(lines, TYPED, "tmux_mcp_ab"), ["first", "second"]);
  assertEquals(outputAfter([`$ ${TYPED}`, "second"], TYPED, "tmux_mcp_ab"), ["second"]);
  assertEquals(outputAfter(["1"], TYPED, "tmux_mcp_ab"), null);
});
