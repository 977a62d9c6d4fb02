/* ui_search.c: search over the whole trace (ui.h): the matches (names, or
 * the srcs an "in args" pass found), the current one, stepping with
 * Enter / PageDown (a hidden match's section opened), following another
 * pane's search. */
#include "ui_internal.h"

#include <string.h>

unsigned st_ui_search(st_ui *ui, const char *text, size_t len) {
  if (!ui) return 0;
  st_find_set(ui->find, text, len);
  ui->find_cur = ST_REF_NONE;
  return ST_UI_HANDLED | ST_UI_SEARCH | ST_UI_REDRAW;
}

unsigned st_ui_search_srcs(st_ui *ui, const char *text, size_t len, const uint64_t *srcs,
                           size_t n) {
  if (!ui) return 0;
  if (st_find_set(ui->find, text, len) == ST_OK && len) st_find_add_srcs(ui->find, srcs, n);
  ui->find_cur = ST_REF_NONE;
  return ST_UI_HANDLED | ST_UI_SEARCH | ST_UI_REDRAW;
}

unsigned st_ui_search_add_srcs(st_ui *ui, uint32_t part, const uint64_t *srcs, size_t n) {
  if (!ui || !st_find_active(ui->find)) return 0;
  if (st_find_add_srcs_part(ui->find, part, srcs, n) != ST_OK) return 0;
  return ST_UI_SEARCH | ST_UI_REDRAW;
}

const st_find *st_ui_find(const st_ui *ui) { return ui ? ui->find : NULL; }

st_event_ref st_ui_search_current(const st_ui *ui) { return ui ? ui->find_cur : ST_REF_NONE; }

unsigned st_ui_search_follow(st_ui *ui, st_event_ref ref) {
  if (!ui) return 0;
  if (ref.row == UINT32_MAX) {
    ui->find_cur = ST_REF_NONE;
    return ST_UI_SEARCH;
  }
  if (!st_ref_valid(ui->trace, ref) || !st_find_is_match(ui->find, ref.row, ref.index)) return 0;
  ui->find_cur = ref;
  return ST_UI_SEARCH | ST_UI_REDRAW | st_ui_reveal(ui, ref);
}

unsigned st_ui_search_copy(st_ui *dst, const st_ui *src) {
  if (!dst || !src) return 0;
  if (st_find_copy(dst->find, src->find) != ST_OK) {
    dst->find_cur = ST_REF_NONE;
    return 0;
  }
  dst->find_cur = src->find_cur;
  return ST_UI_SEARCH | ST_UI_REDRAW;
}

/* Search steps skip the matches in tracks the track filter hides. The user
 * typed the filter to narrow the view to some tracks: a step that lifted
 * the filter to show a match elsewhere would undo that choice and lose the
 * text typed, and a step that selected a match it cannot show would leave
 * the user looking at nothing. So a step goes to the next match that can
 * be shown, and the search count says how many the filter hides ("3 of 12
 * (5 hidden by the track filter)", panel.c), so that clearing the filter
 * is the user's decision, made knowing what it brings back. */
static int hidden_row(const void *ud, uint32_t row) {
  const st_ui *ui = ud;
  return st_layout_row_filtered(ui->layout, row);
}

uint64_t st_ui_search_hidden(const st_ui *ui) {
  if (!ui || !*st_layout_filter(ui->layout)) return 0;
  return st_find_count_skipped(ui->find, hidden_row, ui);
}

int64_t st_ui_search_place(const st_ui *ui) {
  if (!ui || !st_ref_valid(ui->trace, ui->find_cur) || hidden_row(ui, ui->find_cur.row)) return -1;
  return (int64_t)st_find_rank_skip(ui->find, ui->find_cur,
                                    *st_layout_filter(ui->layout) ? hidden_row : NULL, ui);
}

unsigned st_ui_search_step(st_ui *ui, int dir) {
  if (!ui) return 0;
  st_event_ref next = ui->find_cur;
  st_find_skip_fn skip = *st_layout_filter(ui->layout) ? hidden_row : NULL;
  /* |dir| steps, each O(rows log n); more than there are matches wraps round */
  uint64_t n = (uint64_t)(dir < 0 ? -(int64_t)dir : dir);
  uint64_t count = st_find_count(ui->find) - st_ui_search_hidden(ui);
  if (n > count) n = count ? (n - 1) % count + 1 : 0;
  if (!n) n = 1;
  for (uint64_t k = 0; k < n; k++)
    if (!st_find_step_skip(ui->find, next, dir < 0 ? -1 : 1, 1, skip, ui, &next))
      return ST_UI_HANDLED;
  ui->find_cur = next;
  unsigned ch = ST_UI_SEARCH | st_ui_select(ui, next, 0) | st_ui_reveal(ui, next);
  return ch | ST_UI_HANDLED | ST_UI_REDRAW;
}

unsigned st_ui_search_box_key(st_ui *ui, const char *key, unsigned mods) {
  if (!ui || !key) return 0;
  if (!strcmp(key, "Escape")) return ST_UI_HANDLED | ST_UI_TO_TIMELINE;
  if (mods & (ST_MOD_CTRL | ST_MOD_META | ST_MOD_ALT)) return 0;
  int steps = ui_search_key_steps(ui, key, mods);
  if (steps) return st_ui_search_step(ui, steps);
  /* Enter with nothing to find is still the box's: no form to submit */
  return !strcmp(key, "Enter") ? ST_UI_HANDLED : 0;
}

/* Matches a key steps through while a search is active (0: none):
 * Enter / shift+Enter one, PageDown / PageUp SEARCH_PAGE. */
int ui_search_key_steps(const st_ui *ui, const char *key, unsigned mods) {
  if (!st_find_active(ui->find)) return 0;
  int back = (mods & ST_MOD_SHIFT) != 0;
  if (!strcmp(key, "Enter")) return back ? -1 : 1;
  if (!strcmp(key, "PageDown")) return SEARCH_PAGE;
  if (!strcmp(key, "PageUp")) return -SEARCH_PAGE;
  return 0;
}
