// What the suite runs beyond Deno and tmux, how to get each, and which tests need it. A missing
// program stops `deno task test` at its start with one line per program saying what to install
// (tests/check_prerequisites.ts); with TMUX_MCP_SKIP_MISSING=1 the run goes on and each test
// that needs one is skipped, its name and the missing program printed. CI never sets the flag.

/** A program the suite runs, and the package that brings it. */
export interface Prerequisite {
  /** Debian/Ubuntu package (apt-get install). */
  apt: string;
  /** Homebrew formula, where Homebrew has one. */
  brew?: string;
  /** A fixed path to look at instead of PATH (sshd is not on a user's PATH). */
  path?: string;
  /** How to install it where apt-get has no package. */
  other?: string;
}

/** Every program the suite needs besides Deno, by command name. */
export const PREREQUISITES: Record<string, Prerequisite> = {
  tmux: { apt: "tmux", brew: "tmux" },
  ps: { apt: "procps" },
  pgrep: { apt: "procps" },
  dash: { apt: "dash", brew: "dash" },
  zsh: { apt: "zsh", brew: "zsh" },
  fish: { apt: "fish", brew: "fish" },
  tcsh: { apt: "tcsh", brew: "tcsh" },
  csh: { apt: "csh" },
  elvish: { apt: "elvish", brew: "elvish" },
  xonsh: { apt: "xonsh", brew: "xonsh" },
  rc: { apt: "rc" },
  nu: {
    apt: "",
    brew: "nushell",
    other: "npm install -g @nushell/linux-x64 (scripts/install_test_prerequisites.sh)",
  },
  git: { apt: "git", brew: "git" },
  less: { apt: "less", brew: "less" },
  python3: { apt: "python3", brew: "python3" },
  node: { apt: "nodejs", brew: "node" },
  sqlite3: { apt: "sqlite3", brew: "sqlite" },
  vim: { apt: "vim", brew: "vim" },
  script: { apt: "bsdutils" },
  sshd: { apt: "openssh-server", path: "/usr/sbin/sshd" },
  ssh: { apt: "openssh-client" },
  "ssh-keygen": { apt: "openssh-client" },
};

/** Programs no test can do without: their absence is never skipped. */
const ESSENTIAL = ["tmux", "ps", "pgrep"];

const found = new Map<string, boolean>();

/** Whether a program can be run: its fixed path, else an executable file on PATH. */
export function installed(program: string): boolean {
  let known = found.get(program);
  if (known === undefined) {
    const fixed = PREREQUISITES[program]?.path;
    const dirs = fixed ? [] : (Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== "");
    const candidates = fixed ? [fixed] : dirs.map((dir) => `${dir}/${program}`);
    known = candidates.some((path) => {
      try {
        const info = Deno.statSync(path);
        return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
      } catch {
        return false;
      }
    });
    found.set(program, known);
  }
  return known;
}

/** The line that says how to install a program. */
export function howToInstall(program: string): string {
  const need = PREREQUISITES[program];
  const ways = [
    need.apt ? `apt-get install ${need.apt}` : need.other,
    need.brew ? `brew install ${need.brew}` : null,
  ].filter((way) => way);
  return `${program}: not found; install with ${ways.join(", or ")}`;
}

/** The programs the suite needs that are not installed. */
export function missingPrograms(): string[] {
  return Object.keys(PREREQUISITES).filter((program) => !installed(program));
}

/** Whether tests whose programs are missing are skipped (TMUX_MCP_SKIP_MISSING=1). */
export function skippingMissing(): boolean {
  return Deno.env.get("TMUX_MCP_SKIP_MISSING") === "1";
}

/**
 * Options for a test that runs `programs`: ignored, with a printed line naming the test and what
 * is missing, only when one is missing and skipping was asked for; else the test runs (and fails
 * on what is missing: the run's first line already said what to install).
 */
export function needs(test: string, ...programs: string[]): { ignore: boolean } {
  const missing = programs.filter((program) => !installed(program));
  const skip = missing.length > 0 && skippingMissing() &&
    missing.every((program) => !ESSENTIAL.includes(program));
  if (skip) console.log(`skipped "${test}": needs ${missing.join(", ")}`);
  return { ignore: skip };
}

/** `Deno.test` for a test that runs `programs` (see {@linkcode needs}). */
export function testNeeding(
  programs: string[],
  name: string,
  fn: (t: Deno.TestContext) => void | Promise<void>,
): void {
  Deno.test(name, needs(name, ...programs), fn);
}

/** What the remote-host tests run: an sshd of their own, the ssh client, ssh-keygen. */
export const SSH: string[] = ["sshd", "ssh", "ssh-keygen"];

/** `t.step` for a step that runs `programs` (see {@linkcode needs}). */
export function stepNeeding(
  t: Deno.TestContext,
  programs: string[],
  name: string,
  fn: (t: Deno.TestContext) => void | Promise<void>,
): Promise<boolean> {
  return t.step({ name, ...needs(name, ...programs), fn });
}
