/* ui_select.c: the selection (one event, a box, every event of a name)
 * and the timing mark (ui.h); fitting the view to the selection. */
#include "ui_internal.h"

#include <string.h>

const st_selection *st_ui_selection(const st_ui *ui) { return ui ? ui->sel : NULL; }

int st_ui_selected_one(const st_ui *ui, st_event_ref *out) {
  uint32_t n;
  const st_sel_span *sp = st_selection_spans(ui ? ui->sel : NULL, &n);
  if (n != 1 || sp[0].hi - sp[0].lo != 1) return 0;
  if (out) *out = (st_event_ref){sp[0].row, sp[0].lo};
  return 1;
}

unsigned st_ui_select(st_ui *ui, st_event_ref ref, int add) {
  if (!ui || !st_ref_valid(ui->trace, ref)) return 0;
  if (add) {
    st_selection_toggle(ui->sel, ref.row, ref.index);
  } else {
    st_event_ref one;
    if (st_ui_selected_one(ui, &one) && one.row == ref.row && one.index == ref.index)
      return ST_UI_HANDLED;
    st_selection_clear(ui->sel);
    st_selection_add(ui->sel, ref.row, ref.index, ref.index + 1);
  }
  return ST_UI_HANDLED | ST_UI_SELECTION | ST_UI_REDRAW;
}

unsigned st_ui_select_box(st_ui *ui, double t0, double t1, float y0, float y1, int add) {
  if (!ui) return 0;
  if (t1 < t0) {
    double t = t0;
    t0 = t1;
    t1 = t;
  }
  if (y1 < y0) {
    float t = y0;
    y0 = y1;
    y1 = t;
  }
  if (!add) st_selection_clear(ui->sel);
  uint32_t n, nr;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  const st_row *rows = st_trace_rows(ui->trace, &nr);
  int64_t a = to_ns(t0), b = to_ns(ceil(t1));
  for (uint32_t i = st_layout_first_at(ui->layout, y0); i < n && items[i].y < y1; i++) {
    if (items[i].kind != ST_LAYOUT_ROW || items[i].row >= nr) continue;
    const st_row *r = &rows[items[i].row];
    uint32_t lo = st_row_first_end_gt(r, a), hi = st_row_first_start_gt(r, b);
    if (st_selection_add(ui->sel, items[i].row, lo, hi) != ST_OK) break;
  }
  return ST_UI_HANDLED | ST_UI_SELECTION | ST_UI_REDRAW;
}

unsigned st_ui_select_name(st_ui *ui, uint32_t name, int window) {
  if (!ui) return 0;
  st_selection_clear(ui->tmp);
  uint32_t nr;
  const st_row *rows = st_trace_rows(ui->trace, &nr);
  if (window) {
    double t0, t1;
    st_ui_window(ui, &t0, &t1);
    int64_t a = to_ns(t0), b = to_ns(ceil(t1));
    for (uint32_t r = 0; r < nr; r++) {
      uint32_t lo = st_row_first_end_gt(&rows[r], a), hi = st_row_first_start_ge(&rows[r], b);
      for (uint32_t i = lo; i < hi; i++)
        if (rows[r].name[i] == name && st_selection_add(ui->tmp, r, i, i + 1) != ST_OK) return 0;
    }
  } else {
    uint32_t ns;
    const st_sel_span *sp = st_selection_spans(ui->sel, &ns);
    for (uint32_t k = 0; k < ns; k++)
      for (uint32_t i = sp[k].lo; i < sp[k].hi; i++)
        if (sp[k].row < nr && rows[sp[k].row].name[i] == name &&
            st_selection_add(ui->tmp, sp[k].row, i, i + 1) != ST_OK)
          return 0;
  }
  if (st_selection_copy(ui->sel, ui->tmp) != ST_OK) return 0;
  return ST_UI_HANDLED | ST_UI_SELECTION | ST_UI_REDRAW;
}

unsigned st_ui_set_selection(st_ui *ui, const st_selection *s) {
  if (!ui || !s || st_selection_copy(ui->sel, s) != ST_OK) return 0;
  return ST_UI_HANDLED | ST_UI_SELECTION | ST_UI_REDRAW;
}

unsigned st_ui_clear(st_ui *ui) {
  if (!ui) return 0;
  unsigned ch = ST_UI_HANDLED;
  if (st_selection_count(ui->sel)) {
    st_selection_clear(ui->sel);
    ch |= ST_UI_SELECTION | ST_UI_REDRAW;
  }
  if (ui->has_mark) {
    ui->has_mark = 0;
    ch |= ST_UI_MARK | ST_UI_REDRAW;
  }
  if (ui->find_cur.row != UINT32_MAX) {
    ui->find_cur = ST_REF_NONE;
    ch |= ST_UI_SEARCH;
  }
  if (st_find_active(ui->find)) {
    st_find_set(ui->find, "", 0);
    ch |= ST_UI_SEARCH | ST_UI_REDRAW;
  }
  return ch;
}

int st_ui_selection_span(const st_ui *ui, int64_t *t0, int64_t *t1) {
  uint32_t ns, nr;
  const st_sel_span *sp = st_selection_spans(ui ? ui->sel : NULL, &ns);
  if (!ns) return 0;
  const st_row *rows = st_trace_rows(ui->trace, &nr);
  int64_t a = INT64_MAX, b = INT64_MIN;
  for (uint32_t k = 0; k < ns; k++) {
    if (sp[k].row >= nr || sp[k].hi > rows[sp[k].row].count) continue;
    const st_row *r = &rows[sp[k].row];
    /* starts and ends are both sorted along a row */
    if (r->start[sp[k].lo] < a) a = r->start[sp[k].lo];
    int64_t e = r->start[sp[k].hi - 1] + r->dur[sp[k].hi - 1];
    if (e > b) b = e;
  }
  if (a > b) return 0;
  if (t0) *t0 = a;
  if (t1) *t1 = b;
  return 1;
}

unsigned st_ui_set_mark(st_ui *ui, double t0, double t1) {
  if (!ui || !isfinite(t0) || !isfinite(t1)) return 0;
  ui->has_mark = 1;
  ui->mark_t0 = t0 < t1 ? t0 : t1;
  ui->mark_t1 = t0 < t1 ? t1 : t0;
  return ST_UI_HANDLED | ST_UI_MARK | ST_UI_REDRAW;
}

unsigned st_ui_clear_mark(st_ui *ui) {
  if (!ui || !ui->has_mark) return 0;
  ui->has_mark = 0;
  return ST_UI_HANDLED | ST_UI_MARK | ST_UI_REDRAW;
}

int st_ui_mark(const st_ui *ui, double *t0, double *t1) {
  if (!ui || !ui->has_mark) return 0;
  if (t0) *t0 = ui->mark_t0;
  if (t1) *t1 = ui->mark_t1;
  return 1;
}

unsigned st_ui_mark_selection(st_ui *ui) {
  int64_t a, b;
  if (!st_ui_selection_span(ui, &a, &b)) return ui ? ST_UI_HANDLED : 0;
  return st_ui_set_mark(ui, (double)a, (double)b);
}

unsigned st_ui_fit_selection(st_ui *ui) {
  int64_t a, b;
  if (!st_ui_selection_span(ui, &a, &b)) return ui ? ST_UI_HANDLED : 0;
  unsigned ch = ui_fit_span(ui, (double)a, (double)b);
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(ui->sel, &ns);
  /* and bring the first selected row into view */
  uint32_t n;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  uint32_t i = st_layout_item_of_row(ui->layout, sp[0].row);
  if (i < n && items[i].kind == ST_LAYOUT_ROW && ui_scroll_to(ui, i))
    ch |= ui_clamp_scroll(ui) | ST_UI_VIEW | ST_UI_REDRAW;
  return ch;
}
