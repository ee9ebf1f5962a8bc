/**
 * Regular expressions from callers, compiled so that none can stall the server (one thread serves
 * every session). With V8's linear-time engine enabled ({@linkcode LINEAR_REGEX_V8_FLAGS}, set by
 * `deno task start` and the binaries), a match that backtracks too much is finished in linear
 * time. That engine runs neither backreferences, lookarounds nor case-insensitive matching, and it
 * is absent when the flags were not given: for those, patterns that nest unbounded quantifiers,
 * the shape of catastrophic backtracking such as `(a+)+`, are refused. Pure.
 *
 * @module
 */

import { TmuxError } from "./errors.ts";

/** The V8 flags that turn on the linear-time fallback for regular expressions. */
export const LINEAR_REGEX_V8_FLAGS =
  "--enable-experimental-regexp-engine,--enable-experimental-regexp-engine-on-excessive-backtracks";

/** Whether this process runs with the linear-time engine (the `l` flag exists only then). */
function linearEngine(): boolean {
  try {
    // deno-lint-ignore no-invalid-regexp
    new RegExp("", "l");
    return true;
  } catch {
    return false;
  }
}

const LINEAR = linearEngine();

/**
 * True when an unbounded quantifier (`*`, `+`, `{n,}`) applies to a group that holds a quantifier
 * itself. Escapes and character classes are skipped; a bounded `{n,m}` counts as a quantifier
 * inside but not as the unbounded one outside.
 */
export function nestsQuantifiers(source: string): boolean {
  // For each open group: whether it holds a quantifier so far.
  const groups: boolean[] = [];
  let lastGroupQuantified = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    const closedGroup = lastGroupQuantified;
    lastGroupQuantified = false;
    if (char === "\\") {
      i++;
    } else if (char === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (char === "(") {
      groups.push(false);
      // A group's own syntax: (?: (?= (?! (?<= (?<! (?<name>
      const head = source.slice(i).match(/^\(\?(?:<[A-Za-z_$][\w$]*>|<[=!]|[:=!])/);
      if (head) i += head[0].length - 1;
    } else if (char === ")") {
      lastGroupQuantified = groups.pop() ?? false;
    } else if (char === "*" || char === "+" || char === "?" || char === "{") {
      const bound = char === "{" ? source.slice(i).match(/^\{\d+(,\d*)?\}/) : null;
      if (char === "{" && bound === null) continue; // a literal brace
      const unbounded = char === "*" || char === "+" || /^\{\d+,\}$/.test(bound?.[0] ?? "");
      if (closedGroup && unbounded) return true;
      if (groups.length > 0) groups[groups.length - 1] = true;
      if (bound) i += bound[0].length - 1;
    }
    // A group that holds a quantifier makes its enclosing group hold one too.
    if (char === ")" && lastGroupQuantified && groups.length > 0) groups[groups.length - 1] = true;
  }
  return false;
}

/** Compiles a caller's regular expression; a bad or unsafe one is an invalid_argument. */
export function compileUserRegex(source: string, options: { caseSensitive: boolean }): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(source, options.caseSensitive ? "" : "i");
  } catch (error) {
    throw new TmuxError(
      "invalid_argument",
      `bad regular expression ${JSON.stringify(source)}: ${(error as Error).message}`,
    );
  }
  // What keeps a pattern on the backtracking engine.
  const linear = LINEAR && options.caseSensitive && !/\\[1-9k]|\(\?<?[=!]/.test(source);
  if (!linear && nestsQuantifiers(source)) {
    throw new TmuxError(
      "invalid_argument",
      `regular expression ${JSON.stringify(source)} nests unbounded quantifiers, which can ` +
        "take exponential time; " + (LINEAR
          ? "it can run with case_sensitive: true and without backreferences or lookarounds"
          : `start the server with --v8-flags=${LINEAR_REGEX_V8_FLAGS} to allow it`),
    );
  }
  return re;
}
