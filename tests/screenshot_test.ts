// screenshot_pane through the SDK client: a real pane's screen comes back as a PNG image that
// shows its colours, with the rows and the styled runs in both halves of the result; an unknown
// pane is an error, not an image.

import { assert, assertEquals, type CallToolResult } from "./deps.ts";
import { textOf, type TransportKind, withServer } from "./helpers/mcp.ts";
import { until } from "./helpers/tmux.ts";
import { decodePng } from "./helpers/png.ts";

type Json = Record<string, unknown>;

for (const kind of ["stdio", "http"] as TransportKind[]) {
  Deno.test(`screenshot_pane (${kind}): the screen as an image and in words`, async () => {
    await withServer(kind, { extraArgs: ["--toolsets", "core,screen"] }, async (conn, tmux) => {
      const pane = tmux.paneId;
      await tmux.run(
        "send-keys",
        "-t",
        pane,
        "clear; printf '\\033[41m FAIL \\033[0m \\033[7mselected row\\033[0m 日本\\n'",
        "Enter",
      );
      await until("the line shows", async () => {
        return (await tmux.run("capture-pane", "-p", "-t", pane)).includes(" FAIL  selected");
      });
      const result = await conn.client.callTool({
        name: "screenshot_pane",
        arguments: { pane_id: pane },
      }) as CallToolResult;
      assert(!result.isError, textOf(result));
      const shot = result.structuredContent as Json;
      const image = result.content.find((block) => block.type === "image");
      assert(image?.type === "image", "no image in the content");
      assertEquals(image.mimeType, "image/png");
      const png = await decodePng(Uint8Array.fromBase64(image.data));
      assertEquals([png.width, png.height], [120 * 8, 40 * 16]);
      assertEquals(shot.image, { width: 960, height: 640, bytes: atob(image.data).length });
      // The row that printed FAIL (the one before the prompt the cursor is on).
      const row = (shot.cursor_y as number) - 1;
      const lines = shot.lines as string[];
      assertEquals(lines[row], " FAIL  selected row 日本");
      // Its first cell: red background (xterm's 0xcd0000) around the glyph.
      assertEquals(png.rgb[row * 16 * png.width], 0xcd0000);
      assertEquals((shot.spans as Json[]).filter((span) => span.row === row), [
        { row, col: 0, text: " FAIL ", style: "bg=red" },
        { row, col: 7, text: "selected row", style: "reverse" },
      ]);
      const text = textOf(result);
      assert(text.includes(`row ${row} col 7 reverse: "selected row"`), text);
      assert(text.includes(" FAIL  selected row 日本"), text);
      // Words only, when asked; and an unknown pane is an error.
      const words = await conn.client.callTool({
        name: "screenshot_pane",
        arguments: { pane_id: pane, image: false },
      }) as CallToolResult;
      assertEquals(words.content.map((block) => block.type), ["text"]);
      assertEquals((words.structuredContent as Json).image, null);
      const unknown = await conn.client.callTool({
        name: "screenshot_pane",
        arguments: { pane_id: "%999" },
      }) as CallToolResult;
      assert(unknown.isError && /not_found/.test(textOf(unknown)), textOf(unknown));
    });
  });
}

Deno.test("screenshot_pane: a screen too large to draw answers in words, and says why", async () => {
  const extraArgs = ["--toolsets", "all", "--safety", "destructive"];
  await withServer("stdio", { extraArgs }, async (conn, tmux) => {
    const pane = tmux.paneId;
    const call = async (name: string, args: Json) =>
      await conn.client.callTool({ name, arguments: args }) as CallToolResult;
    const window = (await tmux.run("display-message", "-p", "-t", pane, "#{window_id}")).trim();
    // Sizes past what a person's screen has are refused.
    const huge = await call("resize_window", { window_id: window, width: 10000, height: 10000 });
    assert(huge.isError, textOf(huge));
    const large = await call("resize_window", { window_id: window, width: 1000, height: 500 });
    assert(!large.isError, textOf(large));
    // Every row written, in colours.
    await tmux.run(
      "send-keys",
      "-t",
      pane,
      "clear; for i in $(seq 600); do printf '\\033[3%dm%0999d\\n' $((i % 8)) $i; done",
      "Enter",
    );
    await until("the screen is full", async () => {
      return (await tmux.run("capture-pane", "-p", "-t", pane)).includes("0600\n");
    });
    const shot = await call("screenshot_pane", { pane_id: pane });
    assert(!shot.isError, textOf(shot));
    const out = shot.structuredContent as Json;
    assertEquals([out.width, out.height, out.image], [1000, 500, null]);
    assert(/1000x500 cells, 64\.0 Mpx drawn, over the 4\.2 Mpx/.test(String(out.image_omitted)));
    assertEquals(shot.content.map((block) => block.type), ["text"]);
    assert(textOf(shot).includes("no image: the screen is 1000x500 cells"), textOf(shot));
  });
});
