import { assertEquals } from "../deps.ts";
import { parseInputWait } from "../../src/tmux/read/wait/input_wait.ts";

// Answers of the look's script as recorded on Linux (x86_64, kernel 6.18): per process of the
// foreground group `pid state wchan syscall arg0 socket fd0-is-tty read-fd-is-tty`.
const PYTHON_PROMPT =
  "linux x86_64 raw 3492;3492 S poll_schedule_timeout.constprop.0 270 0x1 0 1 0";
const PYTHON_SLEEPS = "linux x86_64 cooked 3492;3492 S hrtimer_nanosleep 230 0x1 0 1 0";
const CAT = "linux x86_64 cooked 3576;3576 S wait_woken 0 0x0 0 1 1";
const HTTP_SERVER = "linux x86_64 cooked 4100;4100 S poll_schedule_timeout.constprop.0 7 " +
  "0x7ffd 1 1 0";
const YES = "linux x86_64 cooked 4200;4200 R 0 running x 0 1 0";
// git waits for its editor, which polls the terminal it set to read keys.
const GIT_COMMIT = "linux x86_64 raw 4300;4300 S do_wait 61 0xffffffff 0 1 0;" +
  "4301 S poll_schedule_timeout.constprop.0 7 0x7ffe 0 1 0";
// ssh asks about a host key through /dev/tty, its socket open.
const SSH_HOST_KEY = "linux x86_64 cooked 4400;4400 S wait_woken 0 0x4 1 1 1";
// A pipeline whose second process still runs: not waiting.
const PIPELINE_BUSY =
  "linux x86_64 cooked 4500;4500 S wait_woken 0 0x0 0 1 1;4501 R 0 running x 0 0 0";

Deno.test("the kernel's answer on Linux: reading the terminal, or not", () => {
  const waiting = (answer: string) => parseInputWait(answer).waiting;
  assertEquals(
    [PYTHON_PROMPT, CAT, GIT_COMMIT, SSH_HOST_KEY].map(waiting),
    [true, true, true, true],
  );
  assertEquals([PYTHON_SLEEPS, HTTP_SERVER, YES, PIPELINE_BUSY].map(waiting), [
    false,
    false,
    false,
    false,
  ]);
  assertEquals(parseInputWait(PYTHON_PROMPT).canonical, false);
  assertEquals(parseInputWait(CAT).canonical, true);
});

Deno.test("without /proc/PID/syscall (ptrace refused), the kernel function tells", () => {
  // `x x`: the script's filler where the syscall file could not be read.
  assertEquals(parseInputWait("linux x86_64 cooked 10;10 S wait_woken x x 0 1 0").waiting, true);
  assertEquals(
    parseInputWait("linux x86_64 raw 10;10 S poll_schedule_timeout x x 1 1 0").waiting,
    true,
  );
  assertEquals(
    parseInputWait("linux x86_64 cooked 10;10 S poll_schedule_timeout x x 1 1 0").waiting,
    false,
  );
  // Another machine's numbers are not guessed: the kernel function is read instead.
  assertEquals(
    parseInputWait("linux riscv64 cooked 10;10 S wait_woken 63 0x0 0 1 1").waiting,
    true,
  );
  assertEquals(
    parseInputWait("linux aarch64 cooked 10;10 S wait_woken 63 0x0 0 1 1").waiting,
    true,
  );
  assertEquals(
    parseInputWait("linux aarch64 cooked 10;10 S wait_woken 63 0x5 0 1 0").waiting,
    false,
  );
});

// `ps -o pid= -o pgid= -o tpgid= -o stat= -o wchan= -t ttys003` as macOS prints it.
const MAC_PYTHON = "ps raw;  501   501   612 Ss   -;  612   612   612 S+   select;";
const MAC_CAT = "ps cooked;  501   501   700 Ss   -;  700   700   700 S+   ttyin;";
const MAC_SLEEP = "ps cooked;  501   501   701 Ss   -;  701   701   701 S+   -;";
const MAC_BUSY = "ps cooked;  501   501   702 Ss   -;  702   702   702 R+   -;";
const MAC_SERVER = "ps cooked;  501   501   703 Ss   -;  703   703   703 S+   select;";

Deno.test("the kernel's answer on macOS, from ps", () => {
  const waiting = (answer: string) => parseInputWait(answer).waiting;
  assertEquals([MAC_PYTHON, MAC_CAT].map(waiting), [true, true]);
  assertEquals([MAC_SLEEP, MAC_BUSY, MAC_SERVER].map(waiting), [false, false, false]);
});

Deno.test("an answer the script does not write tells nothing", () => {
  for (const answer of ["", "hello", "linux x86_64 raw 1", "ps raw;", "x".repeat(5000)]) {
    assertEquals(parseInputWait(answer).waiting, null, answer.slice(0, 20));
  }
  // Forged lines (a program in the pane can write the option) are bounded and checked.
  const many = "linux x86_64 raw 1" + ";1 S wait_woken 0 0x0 0 1 1".repeat(100);
  assertEquals(parseInputWait(many).waiting, true);
});
