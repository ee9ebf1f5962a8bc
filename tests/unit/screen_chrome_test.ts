import { assertEquals } from "../deps.ts";
import { unchangedBottom, withoutEcho } from "../../src/tmux/read/capture/screen_chrome.ts";

Deno.test("a program's chrome: the rows at the bottom of its screen before and after", () => {
  const box = ["╭────╮", "│ >  │", "╰────╯", "  ? for shortcuts"];
  assertEquals(unchangedBottom(["old", ...box, "", ""], ["answer", "more", ...box, ""]), box);
  // A composer that still shows text differs: it and what is above it are the answer's.
  assertEquals(unchangedBottom(["> ", "status"], ["> typed", "status"]), ["status"]);
  assertEquals(unchangedBottom(["a"], ["b"]), []);
  assertEquals(unchangedBottom([], ["b"]), []);
  // At most 12 rows are taken for chrome.
  const rows = Array.from({ length: 30 }, (_, i) => `row ${i}`);
  assertEquals(unchangedBottom(rows, rows).length, 12);
});

Deno.test("a typed text's echo: its later lines at the answer's start, only whole", () => {
  assertEquals(withoutEcho(["   two", "three", "answer"], "one\ntwo\nthree"), ["answer"]);
  assertEquals(withoutEcho(["two", "answer"], "one\ntwo\nthree"), ["two", "answer"]);
  assertEquals(withoutEcho(["answer"], "one"), ["answer"]);
});
