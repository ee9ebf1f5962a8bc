/**
 * The server's `instructions`: what a client shows its model before any tool is loaded (Claude
 * Code decides from them when to search for this server's tools), so they say what the server is
 * for, which tool to reach first, and once what the tools' inputs share (their schemas are
 * terse: a model reads them in every conversation). Kept under 2 KB.
 *
 * @module
 */

/** The instructions sent at `initialize`. */
export const INSTRUCTIONS =
  `tmux-mcp drives tmux: its sessions, windows and panes, and the shells and \
programs running in them (also on remote hosts over ssh, when the operator declared them). Use it \
to run shell commands in a terminal that persists between calls, to watch or drive long-running and \
interactive programs (servers, builds, REPLs, editors, other agents in a pane), and to read what a \
pane shows.

Reach for run_command first: it types a shell command into a pane's shell, waits for the shell \
to report its end, and returns the real exit status and the output (first and last lines of a \
long one; read_command_output pages the rest). create_session makes a detached session whose \
pane_id run_command takes; list_panes finds existing ones. A run that timed out may still be \
running: collect it with wait_for_command (its run_id), and retry only when started is false.

For a program that reads the keyboard (a REPL, an editor, a TUI, another agent), send_keys with \
wait: {} types and returns the answer in one call: it ends at the program's prompt, after quiet, \
or at its exit (wait_for_text waits the same ways, capture_pane and snapshot_pane read the \
screen). C-c interrupts. run_command types nothing into a shell that is not reading a command \
line, send_keys nothing into a pane in copy-mode (unless force): the refusal says why.

Shared by the tools: a pane_id may be replaced by window_id, session_id or session_name (their \
active pane), a session_id by session_name; timeout is in seconds, clamped to the server's \
ceiling; a program waiting for input is told by the kernel (else by a known REPL's or shell's \
prompt); a person may be typing when their keys came in the last 2 s or their text is on \
the command line. Errors are values: a code (invalid_argument, not_found, ...) and a message \
saying what to do.`;
