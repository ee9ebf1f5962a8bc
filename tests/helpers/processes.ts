// Processes a test looks at or signals: ps and pgrep output, the server's tmux clients.

/** Runs a program and returns its standard output (its failure is the caller's to read). */
export async function output(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** The server's tmux control clients (its tmux children attached with -C). */
export async function controlClients(serverPid: number): Promise<number[]> {
  return (await output("ps", ["-o", "pid=,args=", "--ppid", String(serverPid)])).split("\n")
    .filter((line) => / -C /.test(line))
    .map((line) => Number(line.trim().split(" ")[0]));
}

/** Sends a signal to each process that is still there. */
export function signal(pids: number[], name: Deno.Signal): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, name);
    } catch {
      // Gone already.
    }
  }
}
