/**
 * The prompts of the interactive programs agents talk to most, recognised on the row under the
 * cursor once the program is quiet: the program is waiting for input again, so an exchange with it
 * is over. Each is anchored to the whole row (a line of output that merely contains `>>> ` is not
 * a prompt), and the row must be the last thing written. Pure.
 *
 * @module
 */

/** A known prompt: the program it belongs to (for the reader) and the whole row it shows. */
interface KnownPrompt {
  program: string;
  row: RegExp;
}

/** Rows as capture-pane gives them: trailing spaces dropped. */
const PROMPTS: readonly KnownPrompt[] = [
  { program: "python", row: /^(>>>|\.\.\.)$/ },
  { program: "pdb", row: /^\(Pdb\)$/ },
  { program: "ipdb", row: /^ipdb>$/ },
  { program: "node", row: /^(>|\.\.\.)$/ },
  { program: "sqlite3", row: /^(sqlite>|\s*\.\.\.>)$/ },
  // psql: the database name, then = (a new statement) or - ( ' " ( (inside one), then # or >.
  { program: "psql", row: /^[\w.-]{1,64}[=\-'"(][#>]$/ },
  { program: "mysql", row: /^(mysql|mariadb \[[^\]]{0,64}\])>$/ },
  { program: "gdb", row: /^\((gdb|lldb)\)$/ },
  { program: "irb", row: /^irb\([^)]{0,64}\):\d{1,6}(:\d{1,6})?[>*"'`]$/ },
  { program: "ghci", row: /^(ghci|Prelude[\w. ]{0,64})>$/ },
  { program: "lua", row: /^>>?$/ },
  { program: "R", row: /^[>+]$/ },
  // A shell's (also through ssh): $, # or % alone, after user@host or a path, or after the
  // shell's name and version (bash-5.2$); not any row ending in one (a progress bar's 100%).
  { program: "shell", row: /^[$#%]$|^\S{0,128}[@:~/]\S{0,128}[$#%]$|^[a-z]+-[\d.]+[$#]$/ },
];

/** The row, trailing spaces dropped, when it is a known prompt; else null. */
export function knownPrompt(row: string): string | null {
  if (row.length > 256) return null;
  const text = row.trimEnd();
  return PROMPTS.some((prompt) => prompt.row.test(text)) ? text : null;
}
