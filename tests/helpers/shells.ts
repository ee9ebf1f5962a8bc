// Which shells this machine has: .ci/run installs them all; a machine without one reports the
// tests that need it as ignored.

/** Whether a program is on PATH. */
export async function installed(name: string): Promise<boolean> {
  const out = await new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "null" })
    .output();
  return out.success;
}
