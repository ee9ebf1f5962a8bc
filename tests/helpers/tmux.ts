// A private tmux server for one test: its own -L socket, a known shell, killed in `close`.

const decoder = new TextDecoder();

/** Runs tmux on the given socket and returns stdout; throws with stderr on failure. */
export async function tmux(socketName: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-L", socketName, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`tmux ${args.join(" ")}: ${decoder.decode(out.stderr).trim()}`);
  }
  return decoder.decode(out.stdout);
}

/** A private tmux server with one session named "main". */
export interface TestTmux {
  socketName: string;
  /** The first pane of session "main". */
  paneId: string;
  run(...args: string[]): Promise<string>;
  /** Makes a new window running a fresh shell and returns its pane id, prompt shown. */
  newPane(command?: string): Promise<string>;
  /** Splits a pane's window for a fresh shell (not made active) and returns its id, prompt shown. */
  splitPane(target: string): Promise<string>;
  close(): Promise<void>;
}

/** Waits (bounded) until a pane shows a shell prompt, so tests start from a quiet screen. */
export async function waitForPrompt(socketName: string, paneId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const screen = await tmux(socketName, "capture-pane", "-p", "-t", paneId);
    if (screen.trimEnd().endsWith("$")) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no prompt in ${paneId}`);
}

const SHELL = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile";

/** Starts a private tmux server (history-limit 50000, 120x40) for one test. */
export async function startTmux(): Promise<TestTmux> {
  const socketName = `tmux-mcp-test-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  await tmux(
    socketName,
    "-f",
    "/dev/null",
    "start-server",
    ";",
    "set-option",
    "-g",
    "history-limit",
    "50000",
    ";",
    "new-session",
    "-d",
    "-s",
    "main",
    "-x",
    "120",
    "-y",
    "40",
    SHELL,
    // tmux 3.2a makes a new session's window 80x23 whatever -x and -y say.
    ";",
    "resize-window",
    "-t",
    "main",
    "-x",
    "120",
    "-y",
    "40",
    ";",
    "set-option",
    "-w",
    "-u",
    "-t",
    "main",
    "window-size",
  );
  const [paneId, serverPid, socketPath] = (await tmux(
    socketName,
    "display-message",
    "-p",
    "-t",
    "main",
    "#{pane_id} #{pid} #{socket_path}",
  )).trim().split(" ");
  await waitForPrompt(socketName, paneId);
  return {
    socketName,
    paneId,
    run: (...args: string[]) => tmux(socketName, ...args),
    async newPane(command = SHELL): Promise<string> {
      const id = (await tmux(
        socketName,
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-t",
        "main",
        command,
      )).trim();
      if (command === SHELL) await waitForPrompt(socketName, id);
      return id;
    },
    async splitPane(target: string): Promise<string> {
      const args = ["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, SHELL];
      const id = (await tmux(socketName, ...args)).trim();
      await waitForPrompt(socketName, id);
      return id;
    },
    async close(): Promise<void> {
      await tmux(socketName, "kill-server").catch(() => {});
      // tmux 3.3a takes kill-server but never exits while a control client of a SIGKILLed MCP
      // server is still attached (it waits on that client's dead pipes): the test started this
      // server, so it ends it.
      for (let i = 0; i < 50 && await alive(serverPid); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (await alive(serverPid)) Deno.kill(Number(serverPid), "SIGKILL");
      // A killed tmux server leaves its socket file behind.
      await Deno.remove(socketPath).catch(() => {});
    },
  };
}

/**
 * Whether a process runs (ps, since Deno reads /proc only with --allow-all); one that has exited
 * but is not reaped yet (a zombie, for a moment here) does not.
 */
async function alive(pid: string): Promise<boolean> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", pid],
    stdout: "piped",
    stderr: "null",
  }).output();
  const state = new TextDecoder().decode(out.stdout).trim();
  return out.success && state !== "" && !state.startsWith("Z");
}

/** Checks (bounded: 500 tries, 20 ms apart) until `check` holds; throws naming `what`. */
export async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}`);
}

/** Waits (bounded) until tmux names the pane's foreground program `name`. */
export async function untilRunning(tmux: TestTmux, pane: string, name: string): Promise<void> {
  await until(
    `the pane to run ${name}`,
    async () =>
      (await tmux.run("display-message", "-p", "-t", pane, "#{pane_current_command}")).trim() ===
        name,
  );
}

/** Whether a run_command of ours is running in the pane (its running mark is set). */
export async function commandRunning(tmux: TestTmux, pane: string): Promise<boolean> {
  const mark = await tmux.run("display-message", "-p", "-t", pane, "#{@tmux_mcp_running}");
  return mark.trim() !== "";
}

/**
 * Whether a run_command's command has started in the pane: its start marker is the pane's path
 * while it runs (the running mark is set earlier, as the line is typed).
 */
export async function commandStarted(tmux: TestTmux, pane: string): Promise<boolean> {
  const path = await tmux.run("display-message", "-p", "-t", pane, "#{pane_path}");
  return /^tmux_mcp_[0-9a-f]+_s$/.test(path.trim());
}

/** `tmux wait-for` processes on this socket, whoever started them. */
export async function waitForProcesses(socketName: string): Promise<string> {
  const out = await new Deno.Command("pgrep", {
    args: ["-af", "--", `${socketName} wait-for`],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * A new pane whose own process is `sleep 100`, once it is: tmux runs a window's command through
 * its default shell (`$SHELL -c`), and names the pane after its command line while that shell
 * has not yet taken the terminal, so a name alone can be `sleep` a moment before it is `bash`.
 */
export async function sleepingPane(tmux: TestTmux): Promise<string> {
  const pane = await tmux.newPane("exec sleep 100");
  await until("the pane's own process is sleep", async () => {
    const [pid, name] = (await tmux.run(
      ...["display-message", "-p", "-t", pane, "#{pane_pid} #{pane_current_command}"],
    )).trim().split(" ");
    const out = await new Deno.Command("ps", { args: ["-o", "comm=", "-p", pid], stdout: "piped" })
      .output();
    return name === "sleep" && new TextDecoder().decode(out.stdout).trim() === "sleep";
  });
  return pane;
}
