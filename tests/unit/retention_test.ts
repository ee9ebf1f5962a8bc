// What a call makes is let go once it returns: nothing is left on what outlives the calls (a
// promise shared by all of them, the server's stop signal). Measured in a child process that can
// collect garbage, over 100,000 calls: a few bytes left each time would be megabytes.
import { assert } from "../deps.ts";

const SCRIPT = new URL("../fixtures/retention.ts", import.meta.url).pathname;

async function heldMegabytes(mode: "wait" | "linked"): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--v8-flags=--expose-gc", SCRIPT, mode],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert(out.success, `the child failed: ${stderr}`);
  return Number(new TextDecoder().decode(out.stdout).trim());
}

Deno.test("a wait for a run's end holds nothing once it returns", async () => {
  const held = await heldMegabytes("wait");
  assert(held < 4, `100,000 waits left ${held} MB held`);
});

Deno.test("a call's signal linked to the server's stop leaves nothing on it", async () => {
  const held = await heldMegabytes("linked");
  assert(held < 4, `100,000 linked signals left ${held} MB held`);
});
