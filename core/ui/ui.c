/* ui.c: interaction state machine (see ui.h): the state, created and
 * destroyed; following another pane (compare side by side); the summary of
 * the selection or the window; the draw overlay (selection, search
 * dimming, marks, hover). The rest of the state's operations are in the
 * files listed in ui_internal.h. */
#include "ui_internal.h"

#include <string.h>

st_ui *st_ui_create(const st_alloc *a, const st_trace *t, float w, float h, float dpr) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!t) return NULL;
  st_ui *ui = st_calloc(&al, 1, sizeof *ui);
  if (!ui) return NULL;
  ui->alloc = al;
  ui->trace = t;
  ui->layout = st_layout_create(&al, t);
  ui->sel = st_selection_create(&al);
  ui->tmp = st_selection_create(&al);
  ui->find = st_find_create(&al, t);
  if (!ui->layout || !ui->sel || !ui->tmp || !ui->find) {
    st_ui_destroy(ui);
    return NULL;
  }
  ui->find_cur = ST_REF_NONE;
  ui->target_row = UINT32_MAX;
  ui->hover = no_hit();
  ui->flow_mode = ST_FLOWS_SELECTION;
  st_view_fit(&ui->view, t, w, h, dpr);
  ui_fit_bulk(ui);
  return ui;
}

void st_ui_destroy(st_ui *ui) {
  if (!ui) return;
  st_alloc a = ui->alloc;
  st_layout_destroy(ui->layout);
  st_selection_destroy(ui->sel);
  st_selection_destroy(ui->tmp);
  st_find_destroy(ui->find);
  st_free(&a, ui);
}

const st_view *st_ui_view(const st_ui *ui) { return ui ? &ui->view : NULL; }

const st_layout *st_ui_layout(const st_ui *ui) { return ui ? ui->layout : NULL; }

const st_trace *st_ui_trace(const st_ui *ui) { return ui ? ui->trace : NULL; }

unsigned st_ui_follow(st_ui *dst, const st_ui *src, unsigned ch) {
  if (!dst || !src || dst == src) return 0;
  unsigned out = 0;
  if (ch & ST_UI_VIEW) {
    double t0, t1;
    st_ui_window(src, &t0, &t1);
    st_ui_set_view(dst, t0, t1);
    out = ST_UI_REDRAW;
  }
  if (ch & ST_UI_SELECTION) out |= st_ui_set_selection(dst, src->sel) ? ST_UI_REDRAW : 0;
  if (ch & ST_UI_MARK) {
    double m0, m1;
    if (st_ui_mark(src, &m0, &m1))
      st_ui_set_mark(dst, m0, m1);
    else
      st_ui_clear_mark(dst);
    out = ST_UI_REDRAW;
  }
  if (ch & ST_UI_SEARCH) {
    /* a new query, or "in args" results dst lacks (a pane made after the
     * search) or must drop (a name search replaced them) */
    const st_find *fa = src->find, *fb = dst->find;
    if (strcmp(st_find_text(fa), st_find_text(fb)) != 0 ||
        st_find_in_args(fa) != st_find_in_args(fb) || st_find_count(fa) != st_find_count(fb))
      if (!st_ui_search_copy(dst, src)) { /* out of memory: names at least */
        const char *q = st_find_text(fa);
        st_ui_search(dst, q, strlen(q));
      }
    /* a step made in src: dst's current match follows (revealed there) */
    if (src->find_cur.row != dst->find_cur.row || src->find_cur.index != dst->find_cur.index)
      st_ui_search_follow(dst, src->find_cur);
    out = ST_UI_REDRAW;
  }
  if (ch & ST_UI_TOOL) out |= st_ui_set_tool(dst, st_ui_tool(src)) ? ST_UI_REDRAW : 0;
  if (ch & ST_UI_FLOWS) out |= st_ui_set_flow_mode(dst, st_ui_flow_mode(src)) & ST_UI_REDRAW;
  if (ch & ST_UI_TRACKS) out |= st_ui_copy_tracks(dst, src) ? ST_UI_REDRAW : 0;
  return out;
}

st_code st_ui_summarize(const st_ui *ui, st_agg *g, int window) {
  if (!ui || !g) return ST_ERR_ARG;
  st_agg_reset(g);
  if (window) {
    double t0, t1;
    st_ui_window(ui, &t0, &t1);
    return st_agg_add_window(g, to_ns(t0), to_ns(ceil(t1)));
  }
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(ui->sel, &ns);
  for (uint32_t k = 0; k < ns; k++) {
    st_code c = st_agg_add(g, sp[k].row, sp[k].lo, sp[k].hi);
    if (c != ST_OK) return c;
  }
  return ST_OK;
}

static int ov_selected(void *ud, uint32_t row, uint32_t index, uint32_t count) {
  const st_ui *ui = ud;
  return st_selection_any_in(ui->sel, row, index, index + count);
}

static int ov_matches(void *ud, uint32_t row, uint32_t index, uint32_t count) {
  const st_ui *ui = ud;
  return st_find_count_in(ui->find, row, index, index + count) > 0;
}

void st_ui_overlay(const st_ui *ui, st_draw_overlay *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  if (!ui) return;
  o->ud = (void *)(uintptr_t)ui; /* the callbacks only read */
  o->axis_zero_ns = ui->axis_zero;
  if (st_selection_count(ui->sel)) {
    o->selected = ov_selected;
    o->sel = ui->sel;
  }
  if (st_find_active(ui->find)) o->matches = ov_matches;
  o->flows = ui->flow_mode == ST_FLOWS_ALL;
  st_event_ref one;
  if (ui->flow_mode != ST_FLOWS_OFF && st_ui_selected_one(ui, &one)) {
    o->has_focus = 1;
    o->focus_row = one.row;
    o->focus_index = one.index;
  } else if (ui->flow_mode != ST_FLOWS_OFF && st_selection_count(ui->sel)) {
    o->has_focus = 1; /* several (a box): the union of their chains */
    o->chain_sel = ui->sel;
  }
  uint32_t ph = ui_pin_hover(ui, &ui->hover);
  o->pin_hover = ph != UINT32_MAX;
  o->pin_hover_track = ph;
  o->has_mark = ui->has_mark;
  o->mark_t0_ns = ui->mark_t0;
  o->mark_t1_ns = ui->mark_t1;
  if (ui->drag == DRAG_ACTIVE && ui->drag_tool == ST_TOOL_SELECT) {
    o->has_box = 1;
    o->box_x0 = st_view_x_of(&ui->view, ui->down_t);
    float pin_h = st_layout_pinned_height(ui->layout);
    o->box_y0 = ui->down_cy + ST_VIEW_AXIS_H - (ui->down_cy < pin_h ? 0 : ui->view.scroll_y);
    o->box_x1 = ui->last_x;
    o->box_y1 = ui->last_y;
  }
  if (ui->drag == DRAG_ACTIVE && ui->drag_tool == ST_TOOL_ZOOM) {
    o->has_range = 1;
    o->range_t0_ns = ui->down_t;
    o->range_t1_ns = ui_time_at_clamped(ui, ui->last_x);
  }
}
