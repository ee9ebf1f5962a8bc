/**
 * Regular expressions from callers, run on an RE2 engine (re2js): matching takes time linear in
 * the text whatever the pattern, so no pattern can stall the one thread that serves every
 * session, and no V8 flag is needed for that. RE2 has no backreferences or lookarounds; patterns
 * using them are refused. Pure.
 *
 * @module
 */

import { loadRe2, type RE2JS } from "../../../deps.ts";
import { TmuxError } from "../../errors.ts";

/** A compiled caller pattern. */
export interface LinePattern {
  /** Whether the pattern matches anywhere in `line`. */
  test(line: string): boolean;
  /**
   * The most work matching may do per character, in steps of the match clock's measure:
   * a regular expression's program size (RE2 keeps at most one thread per instruction), 1 for a
   * literal text.
   */
  readonly steps: number;
}

/** Largest pattern accepted, in characters (RE2 compiles in time and memory bounded by it). */
const PATTERN_MAX = 1000;

/** Compiles a caller's regular expression; a bad or unsupported one is an invalid_argument. */
export async function compileUserRegex(
  source: string,
  options: { caseSensitive: boolean },
): Promise<LinePattern> {
  if (source.length > PATTERN_MAX) {
    throw new TmuxError("invalid_argument", `regular expressions are at most ${PATTERN_MAX} long`);
  }
  const compile = await loadRe2();
  let re: RE2JS;
  try {
    re = compile(source, options.caseSensitive);
  } catch (error) {
    throw new TmuxError(
      "invalid_argument",
      `bad regular expression ${JSON.stringify(source)}: ${(error as Error).message} ` +
        "(RE2 syntax: no backreferences or lookarounds)",
    );
  }
  return { test: (line: string) => re.matcher(line).find(), steps: re.programSize() };
}

/** A compiled pattern, with the text it was compiled from. */
export interface SourcePattern extends LinePattern {
  /** The pattern as the caller wrote it. */
  source: string;
}

/** Compiles patterns into line tests; a bad regular expression is an invalid_argument. */
export async function compilePatterns(
  patterns: string[],
  options: { regex: boolean; caseSensitive: boolean },
): Promise<SourcePattern[]> {
  return await Promise.all(patterns.map(async (source) => {
    if (options.regex) {
      const re = await compileUserRegex(source, options);
      return { source, test: (line: string) => re.test(line), steps: re.steps };
    }
    const needle = options.caseSensitive ? source : source.toLowerCase();
    return {
      source,
      test: (line: string) => (options.caseSensitive ? line : line.toLowerCase()).includes(needle),
      steps: 1,
    };
  }));
}
