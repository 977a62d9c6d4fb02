/* ui.c: interaction state machine (see ui.h).
 *
 * Contents
 *   1. state, create/destroy
 *   2. view operations
 *   3. selection, marks, reveal
 *   4. pointer and wheel
 *   5. keys and held-key motion
 *   6. search, sections, summary, overlay
 *
 * Costs: a pointer move does one hit test (O(log n)); a box selection does
 * two binary searches per row in the box; search stepping is O(rows log n);
 * only explicit summary / select-by-name requests walk events, and only
 * the ones asked about.
 */
#include "ui.h"

#include <math.h>
#include <string.h>

#include "bulk.h"

#define CLICK_SLOP_PX 4.0f     /* a press that moves less than this is a click */
#define HIT_SLOP_PX 3.0f       /* pick the nearest event within this many px */
#define WHEEL_ZOOM_RATE 0.0025 /* zoom factor e^(rate * px): a 100 px notch = 1.28x */
#define KEY_TAP_ZOOM 1.25      /* a press of W / S zooms at once by this */
#define KEY_TAP_PAN 0.1f       /* a press of A / D pans at once by this much of the width */
#define HOLD_ZOOM_RATE 1.733   /* ln 2 * 2.5: 2.5 doublings per second at first */
#define HOLD_PAN_RATE 0.6      /* timeline widths per second at first */
#define HOLD_ACCEL_MS 1000.0   /* speed grows linearly to HOLD_MAX_SPEED over this */
#define HOLD_MAX_SPEED 4.0
#define TICK_MAX_MS 100.0 /* a long frame (background tab) moves no further than this */
#define ARROW_SCROLL_ROWS 3.0f
#define FIT_MARGIN 0.05    /* f / double-click: margin on each side, of the span */
#define MIN_FIT_NS 1000.0  /* fitting an instant shows at least 1 us */
#define REVEAL_MIN_PX 32.0 /* reveal zooms in until the event is this wide (a label fits) */
#define SEARCH_PAGE 10     /* PageDown / PageUp step this many matches */

enum { HOLD_ZOOM_IN = 0, HOLD_ZOOM_OUT, HOLD_LEFT, HOLD_RIGHT, HOLD_N };
enum { DRAG_NONE = 0, DRAG_PRESSED, DRAG_ACTIVE };
#define DRAG_SHIFT 100 /* drag_tool: alt+drag of a merged trace's file header moves it */

/* ==== 1. state =========================================================== */

struct st_ui {
  st_alloc alloc;
  const st_trace *trace;
  st_layout *layout;
  st_view view;
  st_tool tool;
  st_selection *sel;
  st_selection *tmp; /* scratch for select-by-name */
  st_find *find;
  st_event_ref find_cur;
  st_hit hover;
  int pointer_in;
  float px, py; /* last pointer position */
  /* drag */
  int drag;
  int drag_tool;        /* st_tool the drag performs */
  unsigned drag_button; /* ST_BUTTON_* that started it */
  unsigned drag_mods;
  float down_x, down_y, last_x, last_y, travel;
  double down_t;   /* time under the press */
  float down_cy;   /* content y of the press */
  int mark_before; /* the mark before a timing drag (Esc restores it) */
  double mark_before_t0, mark_before_t1;
  /* timing mark */
  int has_mark;
  double mark_t0, mark_t1;
  /* held keys */
  unsigned held;
  double held_ms[HOLD_N];
  int help;
  int flow_mode; /* st_flow_mode; ST_FLOWS_SELECTION by default */
  /* moving a merged trace's part in time (alt+drag of its header): the
   * front end takes the pending move with st_ui_take_shift */
  uint32_t shift_part;
  double shift_pending_ns;
  /* the first view: where the events are (core/index/bulk.h) */
  st_bulk bulk;
  int outliers_hidden; /* the first view leaves bulk.outside events out, until 0 */
  double axis_zero;    /* where the axis reads 0: the bulk's start if events before it were
                        * left out of the first view, else the trace's start (0) */
  /* panels over the canvas (st_ui_set_cover): CSS px covered from its top
   * and from its bottom */
  float cover_top, cover_bottom;
  /* the row a navigation brought into view (with head_items items above it,
   * its headers), kept clear of the panels until the user scrolls;
   * UINT32_MAX: none */
  uint32_t target_row, target_head;
};

static int hit_same(const st_hit *a, const st_hit *b) {
  return a->kind == b->kind && a->item == b->item && a->row == b->row && a->index == b->index;
}

static st_hit no_hit(void) {
  return (st_hit){ST_HIT_NONE, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0, NAN};
}

static unsigned fit_bulk(st_ui *ui);

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
  fit_bulk(ui);
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

/* ==== 2. view ============================================================ */

static float max_scroll(const st_ui *ui) {
  /* the last rows can be scrolled above a panel at the bottom */
  float m = st_layout_height(ui->layout) - (ui->view.height - ST_VIEW_AXIS_H - ui->cover_bottom);
  return m > 0 ? m : 0;
}

/* Keeps the view on the trace: at most MAX_WINDOW_TRACES trace lengths wide,
 * and overlapping the trace's time range by a tenth of the window. */
#define MAX_WINDOW_TRACES 4.0
static void clamp_time(st_ui *ui) {
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

static unsigned clamp_scroll(st_ui *ui) {
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
  clamp_scroll(ui);
  return ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_fit(st_ui *ui) {
  if (!ui) return 0;
  float sy = ui->view.scroll_y;
  st_view_fit(&ui->view, ui->trace, ui->view.width, ui->view.height, ui->view.dpr);
  ui->view.scroll_y = sy; /* 0 fits time; the vertical position stays */
  clamp_scroll(ui);
  ui->outliers_hidden = 0;
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

/* The first view: the bulk of the events with st_view_fit's 2% margins,
 * when isolated outliers far from it would make the work a sliver. */
#define BULK_MARGIN 0.02
static unsigned fit_bulk(st_ui *ui) {
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
  clamp_time(ui);
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_zoom(st_ui *ui, double factor, float x) {
  if (!ui) return 0;
  st_view_zoom(&ui->view, factor, x);
  clamp_time(ui);
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_pan_px(st_ui *ui, float dx) {
  if (!ui || dx == 0) return 0;
  st_view_pan_px(&ui->view, dx);
  clamp_time(ui);
  return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_scroll_px(st_ui *ui, float dy) {
  if (!ui || !isfinite(dy)) return 0;
  ui->target_row = UINT32_MAX; /* the user (or a caller) scrolls: no target is kept */
  float before = ui->view.scroll_y;
  ui->view.scroll_y += dy;
  clamp_scroll(ui);
  return ST_UI_HANDLED | (ui->view.scroll_y != before ? ST_UI_VIEW | ST_UI_REDRAW : 0);
}

void st_ui_window(const st_ui *ui, double *t0, double *t1) {
  double a = ui ? ui->view.t0_ns : 0;
  double b = ui ? a + st_view_timeline_w(&ui->view) * ui->view.ns_per_px : 0;
  if (t0) *t0 = a;
  if (t1) *t1 = b;
}

static int64_t to_ns(double t) {
  if (!(t > -9.2e18)) return INT64_MIN + 1;
  if (t > 9.2e18) return INT64_MAX - 1;
  return (int64_t)floor(t);
}

static unsigned fit_span(st_ui *ui, double s, double e) {
  double w = e - s;
  if (w < MIN_FIT_NS) {
    double c = (s + e) / 2;
    w = MIN_FIT_NS;
    s = c - w / 2;
    e = c + w / 2;
  }
  return st_ui_set_view(ui, s - w * FIT_MARGIN, e + w * FIT_MARGIN);
}

/* ==== 3. selection, marks, reveal ======================================== */

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

static int scroll_to(st_ui *ui, uint32_t i);

unsigned st_ui_fit_selection(st_ui *ui) {
  int64_t a, b;
  if (!st_ui_selection_span(ui, &a, &b)) return ui ? ST_UI_HANDLED : 0;
  unsigned ch = fit_span(ui, (double)a, (double)b);
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(ui->sel, &ns);
  /* and bring the first selected row into view */
  uint32_t n;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  uint32_t i = st_layout_item_of_row(ui->layout, sp[0].row);
  if (i < n && items[i].kind == ST_LAYOUT_ROW && scroll_to(ui, i))
    ch |= clamp_scroll(ui) | ST_UI_VIEW | ST_UI_REDRAW;
  return ch;
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

static int scroll_to(st_ui *ui, uint32_t i) { return scroll_to_head(ui, i, 0, 0); }

unsigned st_ui_show_row(st_ui *ui, uint32_t row, uint32_t head, int at_top) {
  if (!ui) return 0;
  uint32_t n;
  const st_layout_item *items = st_layout_items(ui->layout, &n);
  uint32_t i = st_layout_item_of_row(ui->layout, row);
  if (i >= n || items[i].kind != ST_LAYOUT_ROW) return ST_UI_HANDLED;
  float before = ui->view.scroll_y;
  scroll_to_head(ui, i, head, at_top);
  clamp_scroll(ui);
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
  clamp_scroll(ui);
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
  if (i < n && items[i].kind == ST_LAYOUT_ROW && scroll_to(ui, i)) {
    clamp_scroll(ui);
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

/* ==== 4. pointer and wheel =============================================== */

static float content_y(const st_ui *ui, float y) {
  return st_layout_content_y(ui->layout, &ui->view, y);
}

/* The track whose label the pointer is on (its pin mark shows), or UINT32_MAX. */
static uint32_t pin_hover(const st_ui *ui, const st_hit *h) {
  if (h->kind != ST_HIT_GUTTER && h->kind != ST_HIT_PIN) return UINT32_MAX;
  return st_layout_track_head(ui->layout, h->track);
}

static unsigned update_hover(st_ui *ui, float x, float y) {
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
  if (hit_same(&h, &ui->hover)) {
    ui->hover = h; /* t_ns / value follow the pointer */
    return 0;
  }
  unsigned pin = pin_hover(ui, &h) != pin_hover(ui, &ui->hover) ? ST_UI_REDRAW : 0;
  ui->hover = h;
  return ST_UI_HOVER | pin;
}

unsigned st_ui_pointer_down(st_ui *ui, float x, float y, unsigned buttons, unsigned mods) {
  if (!ui) return 0;
  ui->px = x;
  ui->py = y;
  ui->pointer_in = 1;
  if (ui->drag) return ST_UI_HANDLED; /* a second button during a drag */
  unsigned button = buttons & ST_BUTTON_LEFT     ? ST_BUTTON_LEFT
                    : buttons & ST_BUTTON_MIDDLE ? ST_BUTTON_MIDDLE
                                                 : 0;
  if (!button) return 0;
  ui->drag = DRAG_PRESSED;
  ui->drag_button = button;
  ui->drag_mods = mods;
  ui->drag_tool = button == ST_BUTTON_MIDDLE ? ST_TOOL_PAN : (int)ui->tool;
  /* a drag on the time axis always measures */
  if (button == ST_BUTTON_LEFT && y < ST_VIEW_AXIS_H && x >= ST_VIEW_GUTTER_W)
    ui->drag_tool = ST_TOOL_TIMING;
  ui->down_x = ui->last_x = x;
  ui->down_y = ui->last_y = y;
  ui->travel = 0;
  ui->down_t = st_view_time_at(&ui->view, x < ST_VIEW_GUTTER_W ? ST_VIEW_GUTTER_W : x);
  ui->down_cy = content_y(ui, y);
  if (button == ST_BUTTON_LEFT && (mods & ST_MOD_ALT)) {
    st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
    if (h.kind == ST_HIT_GROUP) {
      ui->drag_tool = DRAG_SHIFT;
      ui->shift_part = h.row;
      ui->shift_pending_ns = 0;
    }
  }
  ui->mark_before = ui->has_mark;
  ui->mark_before_t0 = ui->mark_t0;
  ui->mark_before_t1 = ui->mark_t1;
  return ST_UI_HANDLED;
}

static double time_at_clamped(const st_ui *ui, float x) {
  if (x < ST_VIEW_GUTTER_W) x = ST_VIEW_GUTTER_W;
  if (x > ui->view.width) x = ui->view.width;
  return st_view_time_at(&ui->view, x);
}

unsigned st_ui_pointer_move(st_ui *ui, float x, float y, unsigned buttons, unsigned mods) {
  if (!ui) return 0;
  ui->px = x;
  ui->py = y;
  ui->pointer_in = x >= 0 && y >= 0 && x < ui->view.width && y < ui->view.height;
  if (!ui->drag) return update_hover(ui, x, y);
  if (!(buttons & ui->drag_button)) return st_ui_pointer_up(ui, x, y, buttons, mods);
  float dx = x - ui->last_x, dy = y - ui->last_y;
  ui->last_x = x;
  ui->last_y = y;
  ui->travel += fabsf(dx) + fabsf(dy);
  unsigned ch = ST_UI_HANDLED;
  if (ui->drag == DRAG_PRESSED) {
    if (ui->travel < CLICK_SLOP_PX) return ch;
    ui->drag = DRAG_ACTIVE;
    if (ui->hover.kind != ST_HIT_NONE) {
      ui->hover = no_hit(); /* no tooltip while dragging */
      ch |= ST_UI_HOVER;
    }
    /* the first move past the slop pans by the whole travel */
    dx = x - ui->down_x;
    dy = y - ui->down_y;
  }
  switch (ui->drag_tool) {
  case ST_TOOL_PAN:
    st_view_pan_px(&ui->view, -dx);
    clamp_time(ui);
    if (dy != 0) ui->target_row = UINT32_MAX;
    ui->view.scroll_y -= dy;
    clamp_scroll(ui);
    ch |= ST_UI_VIEW | ST_UI_REDRAW;
    break;
  case ST_TOOL_TIMING: ch |= st_ui_set_mark(ui, ui->down_t, time_at_clamped(ui, x)); break;
  case DRAG_SHIFT:
    ui->shift_pending_ns += (double)dx * ui->view.ns_per_px;
    ch |= ST_UI_SHIFT | ST_UI_REDRAW;
    break;
  default: /* select box, zoom range: drawn from the drag state */ ch |= ST_UI_REDRAW; break;
  }
  return ch;
}

static void click(st_ui *ui, float x, float y, unsigned mods, unsigned *ch) {
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
  int add = (mods & (ST_MOD_CTRL | ST_MOD_META)) != 0;
  if (h.kind == ST_HIT_SECTION) {
    *ch |= st_ui_toggle_section(ui, h.process);
  } else if (h.kind == ST_HIT_PIN) {
    *ch |= st_ui_set_pinned(ui, h.track, !st_layout_pinned(ui->layout, h.track));
  } else if (h.kind == ST_HIT_GROUP) {
    *ch |= st_ui_toggle_group(ui, h.row);
  } else if (h.kind == ST_HIT_EVENT) {
    *ch |= st_ui_select(ui, (st_event_ref){h.row, h.index}, add);
  } else if (!add && h.kind != ST_HIT_AXIS && h.kind != ST_HIT_GUTTER &&
             st_selection_count(ui->sel)) {
    st_selection_clear(ui->sel);
    *ch |= ST_UI_SELECTION | ST_UI_REDRAW;
  }
}

unsigned st_ui_pointer_up(st_ui *ui, float x, float y, unsigned buttons, unsigned mods) {
  if (!ui || !ui->drag) return 0;
  unsigned ch = ST_UI_HANDLED;
  int was = ui->drag;
  ui->drag = DRAG_NONE;
  if (was == DRAG_PRESSED) {
    if (ui->drag_button == ST_BUTTON_LEFT) click(ui, ui->down_x, ui->down_y, ui->drag_mods, &ch);
    return ch | update_hover(ui, x, y);
  }
  double t = time_at_clamped(ui, x);
  switch (ui->drag_tool) {
  case ST_TOOL_SELECT: {
    int add = ((ui->drag_mods | mods) & (ST_MOD_CTRL | ST_MOD_META | ST_MOD_SHIFT)) != 0;
    ch |= st_ui_select_box(ui, ui->down_t, t, ui->down_cy, content_y(ui, y), add);
    ch |= ST_UI_REDRAW;
    break;
  }
  case ST_TOOL_ZOOM:
    if (fabs(st_view_x_of(&ui->view, t) - st_view_x_of(&ui->view, ui->down_t)) >= CLICK_SLOP_PX)
      ch |= st_ui_set_view(ui, fmin(ui->down_t, t), fmax(ui->down_t, t));
    ch |= ST_UI_REDRAW;
    break;
  case ST_TOOL_TIMING: ch |= st_ui_set_mark(ui, ui->down_t, t); break;
  default: break;
  }
  return ch | update_hover(ui, x, y);
}

unsigned st_ui_pointer_leave(st_ui *ui) {
  if (!ui) return 0;
  ui->pointer_in = 0;
  if (ui->hover.kind == ST_HIT_NONE) return 0;
  ui->hover = no_hit();
  return ST_UI_HOVER;
}

unsigned st_ui_double_click(st_ui *ui, float x, float y, unsigned mods) {
  if (!ui) return 0;
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, x, y, HIT_SLOP_PX);
  if (h.kind != ST_HIT_EVENT) return 0;
  const st_row *r = &st_trace_rows(ui->trace, NULL)[h.row];
  double s = (double)r->start[h.index], e = s + (double)r->dur[h.index];
  unsigned ch = st_ui_select(ui, (st_event_ref){h.row, h.index}, 0);
  return ch | fit_span(ui, s, e) | update_hover(ui, x, y);
}

unsigned st_ui_wheel(st_ui *ui, float dx, float dy, unsigned mods, float x, float y) {
  if (!ui || !isfinite(dx) || !isfinite(dy)) return 0;
  ui->px = x;
  ui->py = y;
  unsigned ch = ST_UI_HANDLED;
  if (mods & (ST_MOD_CTRL | ST_MOD_META)) {
    ch |= st_ui_zoom(ui, exp(-(double)dy * WHEEL_ZOOM_RATE), x);
  } else if (mods & ST_MOD_SHIFT) {
    /* some platforms turn shift+wheel into a horizontal wheel themselves */
    ch |= st_ui_pan_px(ui, dy != 0 ? dy : dx);
  } else {
    if (dy != 0) ch |= st_ui_scroll_px(ui, dy);
    if (dx != 0) ch |= st_ui_pan_px(ui, dx);
  }
  if (ch & ST_UI_VIEW) ch |= update_hover(ui, x, y);
  return ch;
}

/* ==== 5. keys ============================================================ */

static int hold_index(const char *k) {
  if (!k || !k[0] || k[1]) return -1;
  switch (k[0]) {
  case 'w':
  case 'W': return HOLD_ZOOM_IN;
  case 's':
  case 'S': return HOLD_ZOOM_OUT;
  case 'a':
  case 'A': return HOLD_LEFT;
  case 'd':
  case 'D': return HOLD_RIGHT;
  default: return -1;
  }
}

/* The zoom anchor: the mouse if it is over the timeline, else the centre. */
static float zoom_x(const st_ui *ui) {
  if (ui->pointer_in && ui->px >= ST_VIEW_GUTTER_W && ui->px < ui->view.width &&
      ui->py >= ST_VIEW_AXIS_H)
    return ui->px;
  return -1; /* st_view_zoom: outside the timeline means the centre */
}

static void hold_move(st_ui *ui, int which, double amount) {
  float w = st_view_timeline_w(&ui->view);
  switch (which) {
  case HOLD_ZOOM_IN: st_view_zoom(&ui->view, amount, zoom_x(ui)); break;
  case HOLD_ZOOM_OUT: st_view_zoom(&ui->view, 1.0 / amount, zoom_x(ui)); break;
  case HOLD_LEFT: st_view_pan_px(&ui->view, -(float)(amount * w)); break;
  case HOLD_RIGHT: st_view_pan_px(&ui->view, (float)(amount * w)); break;
  }
  clamp_time(ui);
}

int st_ui_animating(const st_ui *ui) { return ui && ui->held; }

unsigned st_ui_tick(st_ui *ui, double dt) {
  if (!ui || !ui->held) return 0;
  if (!(dt > 0)) return ST_UI_ANIMATING;
  if (dt > TICK_MAX_MS) dt = TICK_MAX_MS;
  for (int k = 0; k < HOLD_N; k++) {
    if (!(ui->held & 1u << k)) continue;
    /* speed rises linearly from 1x to HOLD_MAX_SPEED over HOLD_ACCEL_MS,
     * then stays there; integrate it over [t, t + dt]: the ramp's part is
     * [ta, tb], the maximum's [max(t, tb), t2] */
    double t = ui->held_ms[k], t2 = t + dt;
    double slope = (HOLD_MAX_SPEED - 1) / HOLD_ACCEL_MS;
    double ta = t < HOLD_ACCEL_MS ? t : HOLD_ACCEL_MS, tb = t2 < HOLD_ACCEL_MS ? t2 : HOLD_ACCEL_MS;
    double dist_ms =
        (tb - ta) * (1 + slope * (ta + tb) / 2) + (t2 - (t > tb ? t : tb)) * HOLD_MAX_SPEED;
    ui->held_ms[k] = t2;
    if (k == HOLD_ZOOM_IN || k == HOLD_ZOOM_OUT)
      hold_move(ui, k, exp(HOLD_ZOOM_RATE * dist_ms / 1000.0));
    else
      hold_move(ui, k, HOLD_PAN_RATE * dist_ms / 1000.0);
  }
  return ST_UI_VIEW | ST_UI_REDRAW | ST_UI_ANIMATING | update_hover(ui, ui->px, ui->py);
}

unsigned st_ui_set_tool(st_ui *ui, st_tool tool) {
  if (!ui || (unsigned)tool > ST_TOOL_TIMING) return 0;
  if (ui->tool == tool) return ST_UI_HANDLED;
  ui->tool = tool;
  return ST_UI_HANDLED | ST_UI_TOOL;
}

st_tool st_ui_tool(const st_ui *ui) { return ui ? ui->tool : ST_TOOL_SELECT; }

const char *st_ui_tool_name(st_tool tool) {
  switch (tool) {
  case ST_TOOL_SELECT: return "select";
  case ST_TOOL_PAN: return "pan";
  case ST_TOOL_ZOOM: return "zoom";
  case ST_TOOL_TIMING: return "timing";
  }
  return "select";
}

static unsigned cancel_drag(st_ui *ui) {
  if (!ui->drag) return 0;
  int active = ui->drag == DRAG_ACTIVE;
  ui->drag = DRAG_NONE;
  if (!active) return ST_UI_HANDLED;
  unsigned ch = ST_UI_HANDLED | ST_UI_REDRAW;
  if (ui->drag_tool == ST_TOOL_TIMING) {
    ui->has_mark = ui->mark_before;
    ui->mark_t0 = ui->mark_before_t0;
    ui->mark_t1 = ui->mark_before_t1;
    ch |= ST_UI_MARK;
  }
  return ch;
}

/* Matches a key steps through while a search is active (0: none):
 * Enter / shift+Enter one, PageDown / PageUp SEARCH_PAGE. */
static int search_key_steps(const st_ui *ui, const char *key, unsigned mods) {
  if (!st_find_active(ui->find)) return 0;
  int back = (mods & ST_MOD_SHIFT) != 0;
  if (!strcmp(key, "Enter")) return back ? -1 : 1;
  if (!strcmp(key, "PageDown")) return SEARCH_PAGE;
  if (!strcmp(key, "PageUp")) return -SEARCH_PAGE;
  return 0;
}

/* p: pins / unpins the track under the pointer (its rows or its label). */
static unsigned pin_key(st_ui *ui) {
  st_hit h = st_hit_test(ui->trace, ui->layout, &ui->view, ui->px, ui->py, HIT_SLOP_PX);
  if (!ui->pointer_in || h.track == UINT32_MAX) return ST_UI_HANDLED;
  unsigned ch = st_ui_set_pinned(ui, h.track, !st_layout_pinned(ui->layout, h.track));
  return ch | ST_UI_HANDLED | update_hover(ui, ui->px, ui->py);
}

unsigned st_ui_key_down(st_ui *ui, const char *key, unsigned mods) {
  if (!ui || !key) return 0;
  int cmd = (mods & (ST_MOD_CTRL | ST_MOD_META)) != 0;
  if (cmd) {
    if ((key[0] == 'f' || key[0] == 'F') && !key[1]) return ST_UI_HANDLED | ST_UI_FOCUS_SEARCH;
    return 0; /* the browser's shortcuts */
  }
  if (mods & ST_MOD_ALT) return 0;
  int h = hold_index(key);
  if (h >= 0) {
    if (ui->held & 1u << h) return ST_UI_HANDLED | ST_UI_ANIMATING; /* auto-repeat */
    ui->held |= 1u << h;
    ui->held_ms[h] = 0;
    hold_move(ui, h, h <= HOLD_ZOOM_OUT ? KEY_TAP_ZOOM : KEY_TAP_PAN);
    return ST_UI_HANDLED | ST_UI_VIEW | ST_UI_REDRAW | ST_UI_ANIMATING |
           update_hover(ui, ui->px, ui->py);
  }
  if (!strcmp(key, "Escape")) {
    unsigned ch = cancel_drag(ui);
    if (ch) return ch;
    if (ui->help) return st_ui_set_help(ui, 0);
    return st_ui_clear(ui);
  }
  int steps = search_key_steps(ui, key, mods);
  if (steps) return st_ui_search_step(ui, steps);
  if (!strcmp(key, "ArrowLeft"))
    return st_ui_pan_px(ui, -st_view_timeline_w(&ui->view) * KEY_TAP_PAN);
  if (!strcmp(key, "ArrowRight"))
    return st_ui_pan_px(ui, st_view_timeline_w(&ui->view) * KEY_TAP_PAN);
  if (!strcmp(key, "ArrowUp")) return st_ui_scroll_px(ui, -ST_VIEW_ROW_H * ARROW_SCROLL_ROWS);
  if (!strcmp(key, "ArrowDown")) return st_ui_scroll_px(ui, ST_VIEW_ROW_H * ARROW_SCROLL_ROWS);
  if (!key[0] || key[1]) return 0;
  switch (key[0]) {
  case '0': return st_ui_fit(ui);
  case '1':
  case '!': return st_ui_set_tool(ui, ST_TOOL_SELECT);
  case '2':
  case '@': return st_ui_set_tool(ui, ST_TOOL_PAN);
  case '3':
  case '#': return st_ui_set_tool(ui, ST_TOOL_ZOOM);
  case '4':
  case '$': return st_ui_set_tool(ui, ST_TOOL_TIMING);
  case 'm':
  case 'M': return st_ui_mark_selection(ui);
  case 'f':
  case 'F': return st_ui_fit_selection(ui);
  case '/': return ST_UI_HANDLED | ST_UI_FOCUS_SEARCH;
  case '?': return st_ui_set_help(ui, !ui->help);
  case 'l':
  case 'L': return st_ui_set_flow_mode(ui, (st_flow_mode)((ui->flow_mode + 1) % 3));
  case 'p':
  case 'P': return pin_key(ui);
  case 't':
  case 'T': return ST_UI_HANDLED | ST_UI_FOCUS_FILTER;
  default: return 0;
  }
}

unsigned st_ui_key_up(st_ui *ui, const char *key, unsigned mods) {
  if (!ui || !key) return 0;
  int h = hold_index(key);
  if (h < 0 || !(ui->held & 1u << h)) return 0;
  ui->held &= ~(1u << h);
  return ST_UI_HANDLED | (ui->held ? ST_UI_ANIMATING : 0);
}

unsigned st_ui_blur(st_ui *ui) {
  if (!ui) return 0;
  ui->held = 0;
  return cancel_drag(ui);
}

st_hit st_ui_hover(const st_ui *ui) { return ui ? ui->hover : no_hit(); }

const char *st_ui_cursor(const st_ui *ui) {
  if (!ui) return "default";
  if (ui->drag == DRAG_ACTIVE) {
    switch (ui->drag_tool) {
    case ST_TOOL_PAN: return "grabbing";
    case ST_TOOL_ZOOM: return "zoom-in";
    case ST_TOOL_TIMING: return "col-resize";
    default: return "crosshair";
    }
  }
  if (ui->hover.kind == ST_HIT_SECTION || ui->hover.kind == ST_HIT_GROUP ||
      ui->hover.kind == ST_HIT_PIN)
    return "pointer";
  if (ui->hover.kind == ST_HIT_AXIS) return "col-resize";
  switch (ui->tool) {
  case ST_TOOL_PAN: return "grab";
  case ST_TOOL_ZOOM: return "zoom-in";
  case ST_TOOL_TIMING: return "col-resize";
  default: return ui->hover.kind == ST_HIT_EVENT ? "pointer" : "default";
  }
}

int st_ui_help_visible(const st_ui *ui) { return ui && ui->help; }

st_flow_mode st_ui_flow_mode(const st_ui *ui) {
  return ui ? (st_flow_mode)ui->flow_mode : ST_FLOWS_SELECTION;
}

unsigned st_ui_set_flow_mode(st_ui *ui, st_flow_mode mode) {
  if (!ui || (unsigned)mode > ST_FLOWS_ALL) return 0;
  ui->flow_mode = (int)mode;
  return ST_UI_HANDLED | ST_UI_FLOWS | ST_UI_REDRAW;
}

const char *st_flow_mode_name(st_flow_mode mode) {
  switch (mode) {
  case ST_FLOWS_OFF: return "off";
  case ST_FLOWS_ALL: return "all";
  default: return "selection";
  }
}

int st_flow_mode_parse(const char *s, size_t len, st_flow_mode *mode) {
  for (int m = ST_FLOWS_OFF; m <= ST_FLOWS_ALL; m++) {
    const char *name = st_flow_mode_name((st_flow_mode)m);
    if (s && strlen(name) == len && !memcmp(name, s, len)) {
      if (mode) *mode = (st_flow_mode)m;
      return 1;
    }
  }
  return 0;
}

unsigned st_ui_set_help(st_ui *ui, int visible) {
  if (!ui) return 0;
  ui->help = visible != 0;
  return ST_UI_HANDLED | ST_UI_HELP;
}

/* ==== 6. search, sections, summary, overlay ============================== */

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

unsigned st_ui_toggle_group(st_ui *ui, uint32_t part) {
  if (!ui || part >= st_layout_group_count(ui->layout)) return 0;
  st_layout_set_group_collapsed(ui->layout, part, !st_layout_group_collapsed(ui->layout, part));
  clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_LAYOUT | ST_UI_REDRAW;
}

unsigned st_ui_set_group_hidden(st_ui *ui, uint32_t part, int hidden) {
  if (!ui || part >= st_layout_group_count(ui->layout)) return 0;
  st_layout_set_group_hidden(ui->layout, part, hidden);
  clamp_scroll(ui);
  return ST_UI_LAYOUT | ST_UI_REDRAW;
}

int st_ui_take_shift(st_ui *ui, uint32_t *part, double *delta_ns) {
  if (!ui || ui->shift_pending_ns == 0) return 0;
  *part = ui->shift_part;
  *delta_ns = ui->shift_pending_ns;
  ui->shift_pending_ns = 0;
  return 1;
}

unsigned st_ui_search_box_key(st_ui *ui, const char *key, unsigned mods) {
  if (!ui || !key) return 0;
  if (!strcmp(key, "Escape")) return ST_UI_HANDLED | ST_UI_TO_TIMELINE;
  if (mods & (ST_MOD_CTRL | ST_MOD_META | ST_MOD_ALT)) return 0;
  int steps = search_key_steps(ui, key, mods);
  if (steps) return st_ui_search_step(ui, steps);
  /* Enter with nothing to find is still the box's: no form to submit */
  return !strcmp(key, "Enter") ? ST_UI_HANDLED : 0;
}

unsigned st_ui_toggle_section(st_ui *ui, uint32_t process) {
  if (!ui) return 0;
  uint32_t np;
  st_trace_processes(ui->trace, &np);
  if (process >= np) return 0;
  st_layout_set_collapsed(ui->layout, process, !st_layout_collapsed(ui->layout, process));
  clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_LAYOUT | ST_UI_REDRAW;
}

/* The layout changed which tracks show: the scroll stays inside it. */
static unsigned tracks_changed(st_ui *ui) {
  clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_TRACKS | ST_UI_LAYOUT | ST_UI_VIEW | ST_UI_REDRAW;
}

unsigned st_ui_set_track_filter(st_ui *ui, const char *text, size_t len) {
  if (!ui) return 0;
  const char *was = st_layout_filter(ui->layout);
  if (strlen(was) == len && (!len || !memcmp(was, text, len))) return ST_UI_HANDLED;
  if (!st_layout_set_filter(ui->layout, text, len)) return 0;
  return tracks_changed(ui);
}

unsigned st_ui_set_pinned(st_ui *ui, uint32_t track, int pinned) {
  if (!ui || !st_layout_set_pinned(ui->layout, track, pinned)) return ui ? ST_UI_HANDLED : 0;
  return tracks_changed(ui);
}

unsigned st_ui_set_show_empty(st_ui *ui, int show) {
  if (!ui) return 0;
  if (st_layout_show_empty(ui->layout) == (show != 0)) return ST_UI_HANDLED;
  st_layout_set_show_empty(ui->layout, show);
  return tracks_changed(ui);
}

unsigned st_ui_copy_tracks(st_ui *dst, const st_ui *src) {
  if (!dst || !src || dst->trace != src->trace) return 0;
  const char *f = st_layout_filter(src->layout);
  unsigned ch = st_ui_set_track_filter(dst, f, strlen(f));
  ch |= st_ui_set_show_empty(dst, st_layout_show_empty(src->layout));
  uint32_t n, nd;
  const uint32_t *pins = st_layout_pins(src->layout, &n);
  const uint32_t *had = st_layout_pins(dst->layout, &nd);
  for (uint32_t k = nd; k-- > 0;) /* back to front: unpinning shifts the later ones */
    if (!st_layout_pinned(src->layout, had[k])) ch |= st_ui_set_pinned(dst, had[k], 0);
  for (uint32_t k = 0; k < n; k++) ch |= st_ui_set_pinned(dst, pins[k], 1);
  return ch;
}

int st_ui_all_collapsed(const st_ui *ui) {
  uint32_t np;
  if (!ui) return 0;
  st_trace_processes(ui->trace, &np);
  for (uint32_t p = 0; p < np; p++)
    if (!st_layout_collapsed(ui->layout, p)) return 0;
  return np > 0;
}

unsigned st_ui_collapse_all(st_ui *ui) {
  if (!ui) return 0;
  uint32_t np;
  st_trace_processes(ui->trace, &np);
  int collapse = !st_ui_all_collapsed(ui);
  for (uint32_t p = 0; p < np; p++) st_layout_set_collapsed(ui->layout, p, collapse);
  clamp_scroll(ui);
  return ST_UI_HANDLED | ST_UI_LAYOUT | ST_UI_REDRAW;
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
  uint32_t ph = pin_hover(ui, &ui->hover);
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
    o->range_t1_ns = time_at_clamped(ui, ui->last_x);
  }
}
