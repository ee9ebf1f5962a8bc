/**
 * Caller-written tmux formats, allowed only when they are plain variable look-ups and literal text.
 * tmux formats can run shell jobs (`#()`) and re-expand stored text (modifiers such as `E:`, `T:`,
 * `S:`, `P:`, `W:`, `s/../../`, `=N`, nested `#{#{...}}`), and a pane can store such text in its
 * title or path. A deny-list of that syntax cannot be complete, so this is an allow-list: `##`,
 * `#{name}` with a name from {@linkcode FORMAT_VARIABLES} or a user option (`#{@name}`), and the
 * one-letter aliases of plain variables. Pure.
 *
 * @module
 */

import { TmuxError } from "../errors.ts";

/** Plain variables a caller's format may name: tmux 3.3's pane, window, session and server ones. */
export const FORMAT_VARIABLES: ReadonlySet<string> = new Set(
  [
    "active_window_index alternate_on alternate_saved_x alternate_saved_y cursor_character",
    "cursor_flag cursor_x cursor_y history_bytes history_limit history_size host host_short",
    "insert_flag keypad_cursor_flag keypad_flag last_window_index next_session_id origin_flag",
    "pane_active pane_at_bottom pane_at_left pane_at_right pane_at_top pane_bg pane_bottom",
    "pane_current_command pane_current_path pane_dead pane_dead_signal pane_dead_status",
    "pane_dead_time pane_fg pane_height pane_id pane_in_mode pane_index pane_input_off",
    "pane_last pane_left pane_marked pane_marked_set pane_mode pane_path pane_pid pane_pipe",
    "pane_right pane_search_string pane_start_command pane_start_path pane_synchronized",
    "pane_tabs pane_title pane_top pane_tty pane_width pid scroll_region_lower",
    "scroll_region_upper session_activity session_alerts session_attached session_created",
    "session_group session_group_attached session_group_size session_grouped session_id",
    "session_last_attached session_many_attached session_marked session_name session_path",
    "session_stack session_windows socket_path start_time uid user version window_active",
    "window_activity window_activity_flag window_bell_flag window_bigger window_cell_height",
    "window_cell_width window_end_flag window_flags window_height window_id window_index",
    "window_last_flag window_layout window_linked window_linked_sessions window_marked_flag",
    "window_name window_offset_x window_offset_y window_panes window_raw_flags",
    "window_silence_flag window_stack_index window_start_flag window_visible_layout",
    "window_width window_zoomed_flag wrap_flag",
  ].join(" ").split(" "),
);

/** One-letter aliases (`#S`) that tmux reads as plain variables. */
const ALIASES = new Set(["D", "F", "H", "I", "P", "S", "T", "W", "h"]);

const USER_OPTION = /^@[A-Za-z][A-Za-z0-9_-]{0,63}$/;

function refuse(reason: string): never {
  throw new TmuxError(
    "invalid_argument",
    `format refused: ${reason}; only literal text, ## and #{variable} (a tmux variable ` +
      "such as pane_current_path, or a user option like @name) are allowed",
  );
}

/** Checks a caller's format against the allow-list; throws invalid_argument otherwise. */
export function checkPlainFormat(format: string): void {
  for (let i = format.indexOf("#"); i >= 0; i = format.indexOf("#", i)) {
    const next = format[i + 1];
    if (next === "#" || (next !== undefined && ALIASES.has(next))) {
      i += 2;
      continue;
    }
    if (next !== "{") refuse(`'#${next ?? ""}' is not a plain variable`);
    const close = format.indexOf("}", i + 2);
    const name = close < 0 ? "" : format.slice(i + 2, close);
    if (!FORMAT_VARIABLES.has(name) && !USER_OPTION.test(name)) {
      refuse(`#{${name.slice(0, 40)}${close < 0 ? "" : "}"} is not a plain variable`);
    }
    i = close + 1;
  }
}
