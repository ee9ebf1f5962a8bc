// The first step of `deno task test`: says, one line per program, what the suite needs and does
// not find, before minutes of tests fail on it. Fails unless TMUX_MCP_SKIP_MISSING=1, which
// skips the tests that need a missing program (each named as it is skipped).

import { howToInstall, missingPrograms, skippingMissing } from "./helpers/prerequisites.ts";

const missing = missingPrograms();
if (missing.length > 0) {
  console.error(`The tests need ${missing.length} program(s) not installed here:`);
  for (const program of missing) console.error(`  ${howToInstall(program)}`);
  console.error(
    "All at once: sudo bash scripts/install_test_prerequisites.sh (Debian, Ubuntu, macOS).",
  );
  if (!skippingMissing()) {
    console.error("Or run TMUX_MCP_SKIP_MISSING=1 deno task test to skip the tests needing them.");
    Deno.exit(1);
  }
  console.error("TMUX_MCP_SKIP_MISSING=1: the tests needing them are skipped, each named.");
}
