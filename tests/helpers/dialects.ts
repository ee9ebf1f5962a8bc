// The shells run_command supports, each with the few commands a test types in its own language
// and a way to start it with a startup file that stalls (a slow rc, as a pyenv lock makes one).

/** A start: environment variables to add and the shell's arguments. */
export interface Start {
  env?: Record<string, string>;
  args: string[];
}

/** One shell: how to start it and how to say a few things in it. */
export interface Dialect {
  /** The program to start (looked up on PATH). */
  program: string;
  /** What tmux reports as the pane's command once the shell is up. */
  shown: string;
  /** Whether it is a POSIX shell (`set -e` and `read` mean what they mean there). */
  posix: boolean;
  /** Arguments for a plain start, in a home of its own. */
  args: string[];
  /**
   * How to start it so that its startup file sleeps `seconds` first, after writing that file
   * into `home`; absent for a shell where the test has no such file.
   */
  slowStart?: (home: string, seconds: number) => Promise<Start>;
  /** Readies a fresh home for a quiet start, when the shell needs it. */
  prepare?: (home: string) => Promise<void>;
  /** Appends a line holding `word` to `file`. */
  append(word: string, file: string): string;
  /** Sleeps for `seconds` (a fraction allowed). */
  sleep(seconds: number): string;
  /** A command that fails. */
  fail: string;
}

const plain = {
  append: (word: string, file: string) => `echo ${word} >> ${file}`,
  sleep: (seconds: number) => `sleep ${seconds}`,
  fail: "false",
};

/** Writes `text` as `home`/`name` (its folders made) and returns the file's path. */
async function write(home: string, name: string, text: string): Promise<string> {
  const path = `${home}/${name}`;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
  return path;
}

/** Every shell the interruption test drives, by name. */
export const DIALECTS: Record<string, Dialect> = {
  bash: {
    program: "bash",
    shown: "bash",
    posix: true,
    args: ["--norc", "--noprofile"],
    slowStart: async (home, s) => ({ args: ["--rcfile", await write(home, "rc", `sleep ${s}\n`)] }),
    ...plain,
  },
  zsh: {
    program: "zsh",
    shown: "zsh",
    posix: true,
    args: ["-f"],
    slowStart: async (home, s) => (await write(home, ".zshrc", `sleep ${s}\n`), { args: [] }),
    ...plain,
  },
  dash: {
    program: "dash",
    shown: "dash",
    posix: true,
    args: [],
    slowStart: async (home, s) => ({
      env: { ENV: await write(home, "rc", `sleep ${s}\n`) },
      args: [],
    }),
    ...plain,
  },
  fish: {
    program: "fish",
    shown: "fish",
    posix: false,
    args: [],
    slowStart: (_home, s) => Promise.resolve({ args: ["-C", `sleep ${s}`] }),
    // Else its first start generates completions from man pages, in the foreground.
    prepare: (home) =>
      Deno.mkdir(`${home}/.local/share/fish/generated_completions`, { recursive: true }),
    ...plain,
  },
  nu: {
    program: "nu",
    shown: "nu",
    posix: false,
    args: [],
    append: (word, file) => `"${word}\\n" | save --append ${file}`,
    sleep: (seconds) => `sleep ${Math.round(seconds * 1000)}ms`,
    fail: "error make {msg: boom}",
  },
  elvish: {
    program: "elvish",
    shown: "elvish",
    posix: false,
    args: [],
    slowStart: async (
      home,
      s,
    ) => (await write(home, ".config/elvish/rc.elv", `e:sleep ${s}\n`), { args: [] }),
    ...plain,
    fail: "fail boom",
  },
  xonsh: { program: "xonsh", shown: "xonsh", posix: false, args: [], ...plain },
  // tcsh calls itself -csh, and bsd-csh started as csh calls itself -sh.
  tcsh: {
    program: "tcsh",
    shown: "csh",
    posix: false,
    args: [],
    slowStart: async (home, s) => (await write(home, ".tcshrc", `sleep ${s}\n`), { args: [] }),
    ...plain,
  },
  csh: {
    program: "csh",
    shown: "sh",
    posix: false,
    args: [],
    slowStart: async (home, s) => (await write(home, ".cshrc", `sleep ${s}\n`), { args: [] }),
    ...plain,
  },
  rc: { program: "rc", shown: "rc", posix: false, args: [], ...plain },
};
