/* ui_view.c: the time window and the vertical scroll (ui.h): resize, fit,
 * the first view without outliers, zoom, pan, scroll, fitting a span, and
 * bringing a row or an event into the part of the canvas no panel covers
 * (st_ui_set_cover keeps the row a navigation brought there clear). */
#include "ui_internal.h"

/* Keeps the view on the trace: at most MAX_WINDOW_TRACES trace lengths wide,
 * and overlapping the trace's time range by a tenth of the window. */
#define MAX_WINDOW_TRACES 4.0
/* The first view: the bulk of the events with st_view_fit's 2% margins,
 * when isolated outliers far from it would make the work a sliver. */
#define BULK_MARGIN 0.02

static float max_scroll(const st_ui *ui) {
  /* the last rows can be scrolled above a panel at the bottom */
  float m = st_layout_height(ui->layout) - (ui->view.height - ST_VIEW_AXIS_H - ui->cover_bottom);
  return m > 0 ? m : 0;
}

void ui_clamp_time(st_ui *ui) {
  st_view *v = &ui->view;
  double dur = (double)st_trace_duration_ns(ui->trace);
  if (dur < 1000) dur = 1000;
  double tw = st_view_timeline_w(v);
  if (tw < 1) tw = 1;
  double max_nspp = dur * MAX_WINDOW_TRACES / tw;
  if (v->ns_per_px > max_nspp) v->ns_per_px = max_nspp;
  double win = tw * v->ns_per_px;
  double lo = -0.9 * win, hi = dur - 0.1 * win;
  if (v->t0_ns < lo) v->t0_ns = lo;
  if (v->t0_ns > hi) v->t0_ns = hi;
}

unsigned ui_clamp_scroll(st_ui *ui) {
  float s = ui->view.scroll_y, m = max_scroll(ui);
  if (!(s >= 0)) s = 0;
  if (s > m) s = m;
  if (s == ui->view.scroll_y) return 0;
  ui->view.scroll_y = s;
  return ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_resize(st_ui *ui, float w, float h, float dpr) {
  if (!ui) return 0;
  /* keep the left edge and the scale; the timeline just shows more or less */
  ui->view.width = w > 0 ? w : 1;
  ui->view.height = h > 0 ? h : 1;
  ui->view.dpr = dpr > 0 ? dpr : 1;
  ui_clamp_scroll(ui);
  return ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_fit(st_ui *ui) {
  if (!ui) return 0;
  float sy = ui->view.scroll_y;
  st_view_fit(&ui->view, ui->trace, ui->view.width, ui->view.height, ui->view.dpr);
  ui->view.scroll_y = sy; /* 0 fits time; the vertical position stays */
  ui_clamp_scroll(ui);
  ui->outliers_hidden = 0;
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned ui_fit_bulk(st_ui *ui) {
  st_bulk_range(ui->trace, &ui->bulk);
  ui->axis_zero = ui->bulk.outside && ui->bulk.before ? (double)ui->bulk.t0_ns : 0;
  if (!ui->bulk.outside) return 0;
  double a = (double)ui->bulk.t0_ns, b = (double)ui->bulk.t1_ns;
  double m = (b - a > MIN_FIT_NS ? b - a : MIN_FIT_NS) * BULK_MARGIN;
  unsigned ch = st_ui_set_view(ui, a - m, b + m);
  ui->outliers_hidden = 1;
  return ch;
}

double st_ui_axis_zero(const st_ui *ui) { return ui ? ui->axis_zero : 0; }

void st_ui_set_axis_zero(st_ui *ui, double zero_ns) {
  if (ui && isfinite(zero_ns)) ui->axis_zero = zero_ns;
}

uint64_t st_ui_outliers_hidden(const st_ui *ui, int64_t *t0_ns, int64_t *t1_ns) {
  if (!ui || !ui->outliers_hidden) return 0;
  if (t0_ns) *t0_ns = ui->bulk.t0_ns;
  if (t1_ns) *t1_ns = ui->bulk.t1_ns;
  return ui->bulk.outside;
}

unsigned st_ui_set_view(st_ui *ui, double t0, double t1) {
  if (!ui || !isfinite(t0) || !isfinite(t1) || !(t1 > t0)) return 0;
  double w = st_view_timeline_w(&ui->view);
  if (w < 1) w = 1;
  double nspp = (t1 - t0) / w;
  if (nspp < 1e-3) { /* st_view's clamp: keep the centre */
    double c = (t0 + t1) / 2;
    nspp = 1e-3;
    t0 = c - nspp * w / 2;
  }
  if (nspp > 1e15) nspp = 1e15;
  ui->view.ns_per_px = nspp;
  ui->view.t0_ns = t0;
  ui_clamp_time(ui);
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_zoom(st_ui *ui, double factor, float x) {
  if (!ui) return 0;
  st_view_zoom(&ui->view, factor, x);
  ui_clamp_time(ui);
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_pan_px(st_ui *ui, float dx) {
  if (!ui || dx == 0) return 0;
  st_view_pan_px(&ui->view, dx);
  ui_clamp_time(ui);
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_scroll_px(st_ui *ui, float dy) {
  if (!ui || !isfinite(dy)) return 0;
  ui->target_row = UINT32_MAX; /* the user (or a caller) scrolls: no target is kept */
  float before = ui->view.scroll_y;
  ui->view.scroll_y += dy;
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | (ui->view.scroll_y != before ? ST_UI_VIEW | ST_UI_REDRAW : 0);
}

void st_ui_window(const st_ui *ui, double *t0, double *t1) {
  double a = ui ? ui->view.t0_ns : 0;
  double b = ui ? a + st_view_timeline_w(&ui->view) * ui->view.ns_per_px : 0;
  if (t0) *t0 = a;
  if (t1) *t1 = b;
}

unsigned ui_fit_span(st_ui *ui, double s, double e) {
  double w = e - s;
  if (w < MIN_FIT_NS) {
    double c = (s + e) / 2;
    w = MIN_FIT_NS;
    s = c - w / 2;
    e = c + w / 2;
  }
  return st_ui_set_view(ui, s - w * FIT_MARGIN, e + w * FIT_MARGIN);
}

/* The canvas's y range [*y0, *y1) where scrolled rows show and no panel
 * covers them (st_ui_set_cover); the whole scrolled area when the panels
 * leave less than two rows. */
static void free_area(const st_ui *ui, float *y0, float *y1) {
  float top = ST_VIEW_AXIS_H + st_layout_pinned_height(ui->layout), bot = ui->view.height;
  float a = ui->cover_top > top ? ui->cover_top : top, b = bot - ui->cover_bottom;
  if (b - a < 2 * ST_VIEW_ROW_H) a = top, b = bot;
  *y0 = a, *y1 = b;
}

/* Scrolls so that the content span [y0, y1) is in the free area (a third
 * from its top; at its top with at_top, or when taller than it) unless it
 * is there already (and not at_top); 1 if the scroll was set. */
static int scroll_span(st_ui *ui, float y0, float y1, int at_top) {
  float fy0, fy1;
  free_area(ui, &fy0, &fy1);
  float off = fy0 - ST_VIEW_AXIS_H, h = fy1 - fy0; /* content y = scroll_y + screen y - AXIS */
  float top = ui->view.scroll_y + off;
  if (!at_top && y0 >= top && y1 <= top + h) return 0;
  ui->view.scroll_y = at_top || y1 - y0 > h * 2 / 3 ? y0 - off : y0 - off - h / 3;
  return 1;
}

/* Scrolls so that item i (with head items above it) is in the free area
 * unless it is there already or pinned; i becomes the target kept clear of
 * the panels (st_ui_set_cover). 1 if the scroll was set. */
static int scroll_to_head(st_ui *ui, uint32_t i, uint32_t head, int at_top) {
  const st_layout_item *items = st_layout_items(ui->layout, NULL);
  const st_layout_item *it = &items[i];
  if (i < st_layout_pinned_items(ui->layout)) return 0;
  if (head > i) head = i;
  ui->target_row = it->kind == ST_LAYOUT_ROW ? it->row : UINT32_MAX;
  ui->target_head = head;
  return scroll_span(ui, items[i - head].y, it->y + it->h, at_top);
}

int ui_scroll_to(st_ui *ui, uint32_t i) { return scroll_to_head(ui, i, 0, 0); }

unsigned st_ui_show_row(st_ui *ui, uint32_t row, uint32_t head, int at_top) {
  if (!ui) return 0;
  uint32_t n;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  uint32_t i = st_layout_item_of_row(ui->layout, row);
  if (i >= n || items[i].kind != ST_LAYOUT_ROW) return ST_UI_HANDLED;
  float before = ui->view.scroll_y;
  scroll_to_head(ui, i, head, at_top);
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | (ui->view.scroll_y != before ? ST_UI_VIEW | ST_UI_REDRAW : 0);
}

unsigned st_ui_set_cover(st_ui *ui, float top, float bottom) {
  if (!ui) return 0;
  top = isfinite(top) && top > 0 ? top : 0;
  bottom = isfinite(bottom) && bottom > 0 ? bottom : 0;
  if (top == ui->cover_top && bottom == ui->cover_bottom) return 0;
  ui->cover_top = top, ui->cover_bottom = bottom;
  float before = ui->view.scroll_y;
  uint32_t n, row = ui->target_row;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  uint32_t i = row == UINT32_MAX ? n : st_layout_item_of_row(ui->layout, row);
  if (i < n && items[i].kind == ST_LAYOUT_ROW) scroll_to_head(ui, i, ui->target_head, 0);
  ui_clamp_scroll(ui);
  return ST_UI_HANDLED | (ui->view.scroll_y != before ? ST_UI_VIEW | ST_UI_REDRAW : 0);
}

unsigned st_ui_reveal(st_ui *ui, st_event_ref ref) {
  if (!ui || !st_ref_valid(ui->trace, ref)) return 0;
  unsigned ch = ST_UI_HANDLED;
  const st_row *r = &st_trace_rows(ui->trace, NULL)[ref.row];
  const st_track *tr = &st_trace_tracks(ui->trace, NULL)[r->track];
  if (st_layout_collapsed(ui->layout, tr->process)) {
    st_layout_set_collapsed(ui->layout, tr->process, 0);
    ch |= ST_UI_LAYOUT | ST_UI_REDRAW;
  }
  /* vertically: the row inside the visible area, else a third from the top */
  uint32_t n;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  uint32_t i = st_layout_item_of_row(ui->layout, ref.row);
  if (i < n && items[i].kind == ST_LAYOUT_ROW && ui_scroll_to(ui, i)) {
    ui_clamp_scroll(ui);
    ch |= ST_UI_VIEW | ST_UI_REDRAW;
  }
  /* horizontally: centred; zoomed out if wider than 80% of the window,
   * zoomed in if narrower than REVEAL_MIN_PX (an instant keeps the zoom:
   * its marker has a fixed size) */
  double s = (double)r->start[ref.index], d = (double)r->dur[ref.index];
  double t0, t1;
  st_ui_window(ui, &t0, &t1);
  double w = t1 - t0, tw = st_view_timeline_w(&ui->view);
  if (d > 0.8 * w) w = d / 0.8;
  if (d > 0 && tw > REVEAL_MIN_PX && d / w * tw < REVEAL_MIN_PX) w = d * tw / REVEAL_MIN_PX;
  double c = s + d / 2;
  ch |= st_ui_set_view(ui, c - w / 2, c + w / 2);
  return ch;
}
