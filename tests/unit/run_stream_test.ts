import { assert, assertEquals } from "../deps.ts";
import { EchoScan } from "../../src/tmux/run/output/echo_scan.ts";
import { RunOutput } from "../../src/tmux/run/output/run_output.ts";
import { callNames, endMarkerPrefix } from "../../src/tmux/run/base/shell.ts";
import { RunStream } from "../../src/tmux/run/wait/stream.ts";

const names = callNames("0123456789abcdef");
const FUNCTION = "__tmux_mcp_f";
const TYPED = ` ${FUNCTION} ${names.channel} %1 '/tmp' 0 c 'echo hi'`;
const OFF = "\x1b[?2004l";
const ON = "\x1b[?2004h";
const START = `\x1b]7;${names.startMarker}\x1b\\`;
const END = `\x1b]7;${endMarkerPrefix(names)}0\x1b\\\x1b]7;file:///tmp\x1b\\`;

function streamFor(typed: string | null): RunStream {
  const stream = new RunStream(names, new RunOutput({ maxBytes: 4096, maxLines: 40 }), FUNCTION);
  if (typed !== null) stream.typing(typed);
  return stream;
}

function feed(stream: RunStream, ...pieces: string[]): void {
  for (const piece of pieces) stream.push(new TextEncoder().encode(piece));
}

Deno.test("a prompt that a C-c typed before the line brings is not the shell's answer to the line", () => {
  const stream = streamFor(TYPED);
  // bash at a continuation prompt takes the C-c: it leaves its line editor and reads again.
  feed(stream, `^C${OFF}\r\n${ON}$ `);
  assertEquals([stream.unread, stream.done], [null, false]);
  feed(stream, `${TYPED}\r\n${OFF}`, START, "hi\r\n", END);
  assertEquals([stream.unread, stream.started, stream.end], [null, true, {
    kind: "exit",
    status: 0,
  }]);
  assertEquals(stream.output.excerpt().tail, ["hi"]);
});

Deno.test("a line a continuation prompt takes is answered once it is echoed and read again", () => {
  const stream = streamFor(TYPED);
  feed(stream, `${TYPED.slice(0, 20)}`, `${TYPED.slice(20)}\r\n${OFF}`);
  assertEquals(stream.unread, null);
  feed(stream, `> ${ON}`);
  assertEquals([stream.unread, stream.done, stream.started], [
    { lacksFunction: false, refused: null, fallback: false },
    true,
    false,
  ]);
});

Deno.test("a shell that does not echo the line is never said to have read it", () => {
  const stream = streamFor(TYPED);
  feed(stream, `\r\n${OFF}> ${ON}`);
  assertEquals([stream.unread, stream.done], [null, false]);
});

Deno.test("a shell that says it has no run function answers the line, echo or not", () => {
  const stream = streamFor(TYPED);
  feed(stream, `bash: ${FUNCTION}: command not found\r\n`);
  assertEquals(stream.unread, { lacksFunction: true, refused: null, fallback: false });
});

Deno.test("the echo is found through line editors' rewrites of wrapped rows", () => {
  const token = names.channel;
  const cut = 7;
  const [head, tail] = [token.slice(0, cut), token.slice(cut)];
  const echoes = {
    // bash writes the next row's first character, returns, and writes the row.
    bash: `x ${head}${tail[0]}\r${tail} y`,
    // zsh writes a space, returns, clears, and writes the character twice.
    zsh: `x ${head} \r\x1b[K${tail[0]}\r${tail} y`,
    // fish colours words.
    fish: `\x1b[36mx\x1b[m\x0f \x1b[36m${head}${tail}\x1b[m\x0f y`,
  };
  for (const [shell, echo] of Object.entries(echoes)) {
    for (let at = 0; at <= echo.length; at++) {
      const scan = new EchoScan(token);
      const first = scan.scan(echo.slice(0, at));
      const second = scan.scan(echo.slice(at));
      const end = first >= 0 ? first : at + second;
      assertEquals(end, echo.lastIndexOf(tail) + tail.length, `${shell}, cut at ${at}`);
    }
  }
});

Deno.test("an echo scan sees no token in escape sequences, nor one not written", () => {
  const token = names.channel;
  for (
    const text of [
      `\x1b]0;${token}\x07`,
      `\x1b]2;${token}\x1b\\`,
      `\x1bP${token}\x1b\\`,
      token.slice(0, -1),
      `${token.slice(0, 5)}x${token.slice(5)}`,
    ]
  ) {
    assertEquals(new EchoScan(token).scan(text), -1, JSON.stringify(text));
  }
  const scan = new EchoScan(token);
  assert(scan.scan(`\x1b]0;t\x07${token}`) > 0);
  assertEquals([scan.seen, scan.scan(token)], [true, -1]);
});

Deno.test("a start marker cut anywhere, even inside its ST, is still seen", () => {
  const whole = `${TYPED}\r\n${OFF}${START}b0p5\r\n${END}`;
  for (let at = 0; at <= whole.length; at++) {
    const stream = streamFor(TYPED);
    feed(stream, whole.slice(0, at), whole.slice(at));
    assertEquals(
      [stream.started, stream.output.excerpt().tail, stream.end],
      [true, ["b0p5"], { kind: "exit", status: 0 }],
      `cut at ${at}`,
    );
  }
});
