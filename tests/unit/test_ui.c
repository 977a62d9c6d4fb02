/* test_ui.c: the interaction state machine driven through its semantic
 * input calls, as the page does: hit testing (events, near misses at coarse
 * zoom, sections, counters, gutter, axis), each tool's drag outcome, click
 * and ctrl+click selection, box selection against brute force, m / f / Esc,
 * W/S zoom around the mouse (and the centre when it is outside), A/D with
 * held acceleration through tick(), wheel variants, search stepping that
 * selects and reveals, collapse by header click and collapse-all, double
 * click zoom, the summary, and the overlay in the draw list. */
#include "check.h"
#include "test_util.h"
#include "ui.h"

#include <math.h>
#include <stdlib.h>

#define W 1220.0f /* timeline 1000 px wide */
#define H 700.0f

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

/* P10 "host"/T1: A [0, 9000) > B [1000, 2000) > C [1100, 1200); A > D [4000, 6000);
 *               E [11000, 11500)
 * P20/T2: F [500, 800), G [4000, 4100); counter "mem" 1 @ 0, 3 @ 6000
 * P30/T4: 1000 "tiny" events of 2 ns, every 5 ns from 0
 * (times after rebasing: the first event starts at 1000 in absolute ns) */
static st_trace *trace(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p1 = st_builder_process(b, 10), p2 = st_builder_process(b, 20),
           p3 = st_builder_process(b, 30);
  st_builder_process_name(b, p1, S(b, "host"));
  uint32_t t1 = st_builder_track(b, p1, ST_TRACK_SLICES, 1, S(b, "main"));
  uint32_t t2 = st_builder_track(b, p2, ST_TRACK_SLICES, 2, 0);
  uint32_t c = st_builder_track(b, p2, ST_TRACK_COUNTER, 0, S(b, "mem"));
  uint32_t t4 = st_builder_track(b, p3, ST_TRACK_SLICES, 4, 0);
  st_builder_slice(b, t1, 1000, 9000, S(b, "A"), 0, 0, 0);
  st_builder_slice(b, t1, 2000, 1000, S(b, "B"), 0, 0, 0);
  st_builder_slice(b, t1, 2100, 100, S(b, "C"), 0, 0, 0);
  st_builder_slice(b, t1, 5000, 2000, S(b, "D"), 0, 0, 0);
  st_builder_slice(b, t1, 12000, 500, S(b, "E"), 0, 0, 0);
  st_builder_slice(b, t2, 1500, 300, S(b, "F"), 0, 0, 0);
  st_builder_slice(b, t2, 5000, 100, S(b, "G"), 0, 0, 0);
  st_builder_counter(b, c, 1000, 1);
  st_builder_counter(b, c, 7000, 3);
  for (int i = 0; i < 1000; i++) st_builder_slice(b, t4, 1000 + i * 5, 2, S(b, "tiny"), 0, 0, 0);
  return st_builder_finish(b, NULL);
}

static st_event_ref find(const st_trace *t, const char *name) { return tu_ref_named(t, name); }

/* Canvas position of the middle of an event. */
static void where(const st_ui *ui, st_event_ref r, float *x, float *y) {
  const st_trace *t = st_ui_trace(ui);
  const st_row *row = &st_trace_rows(t, NULL)[r.row];
  double mid = (double)row->start[r.index] + (double)row->dur[r.index] / 2;
  *x = st_view_x_of(st_ui_view(ui), mid);
  uint32_t n;
  const st_layout_item *items = st_layout_items(st_ui_layout(ui), &n);
  *y = -1;
  for (uint32_t i = 0; i < n; i++)
    if (items[i].kind == ST_LAYOUT_ROW && items[i].row == r.row)
      *y = items[i].y + items[i].h / 2 + ST_VIEW_AXIS_H - st_ui_view(ui)->scroll_y;
}

static float section_y(const st_ui *ui, uint32_t process) {
  uint32_t n;
  const st_layout_item *items = st_layout_items(st_ui_layout(ui), &n);
  for (uint32_t i = 0; i < n; i++)
    if (items[i].kind == ST_LAYOUT_SECTION && items[i].process == process)
      return items[i].y + items[i].h / 2 + ST_VIEW_AXIS_H - st_ui_view(ui)->scroll_y;
  return -1;
}

static int selected(const st_ui *ui, st_event_ref r) {
  return st_selection_contains(st_ui_selection(ui), r.row, r.index);
}

static unsigned click(st_ui *ui, float x, float y, unsigned mods) {
  unsigned ch = st_ui_pointer_down(ui, x, y, ST_BUTTON_LEFT, mods);
  ch |= st_ui_pointer_up(ui, x, y, 0, mods);
  return ch;
}

static unsigned drag(st_ui *ui, float x0, float y0, float x1, float y1, unsigned mods) {
  unsigned ch = st_ui_pointer_down(ui, x0, y0, ST_BUTTON_LEFT, mods);
  for (int k = 1; k <= 4; k++)
    ch |= st_ui_pointer_move(ui, x0 + (x1 - x0) * k / 4, y0 + (y1 - y0) * k / 4, ST_BUTTON_LEFT,
                             mods);
  ch |= st_ui_pointer_up(ui, x1, y1, 0, mods);
  return ch;
}

static void test_hit(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  const st_view *v = st_ui_view(ui);
  const st_layout *l = st_ui_layout(ui);
  st_event_ref A = find(t, "A"), C = find(t, "C"), G = find(t, "G");
  float x, y;
  where(ui, A, &x, &y);
  st_hit h = st_hit_test(t, l, v, x, y, 3);
  CHECK(h.kind == ST_HIT_EVENT && h.row == A.row && h.index == A.index);
  /* C is 100 ns: about 7.5 px at this scale; a point 2 px right of its end still hits it */
  where(ui, C, &x, &y);
  float xe = st_view_x_of(v, 1200);
  h = st_hit_test(t, l, v, xe + 2, y, 3);
  CHECK(h.kind == ST_HIT_EVENT && h.row == C.row && h.index == C.index);
  h = st_hit_test(t, l, v, xe + 6, y, 3);
  CHECK(h.kind == ST_HIT_ROW && h.row == C.row);
  /* coarse zoom (the widest the view goes: 4 trace lengths): G (100 ns) is about 2 px;
   * 3 px right of its middle picks it */
  st_ui_set_view(ui, 0, 1000.0 * 1000);
  CHECK(v->ns_per_px < 50);
  where(ui, G, &x, &y);
  h = st_hit_test(t, l, v, x + 3, y, 3);
  CHECK(h.kind == ST_HIT_EVENT && h.index == G.index);
  /* the view stays on the trace */
  st_ui_set_view(ui, 1e9, 1e9 + 1000);
  CHECK(st_view_x_of(v, 11500) > ST_VIEW_GUTTER_W);
  /* many tiny events under one pixel: the nearest to the cursor's time */
  st_ui_fit(ui);
  st_event_ref T = find(t, "tiny");
  where(ui, T, &x, &y);
  float xt = st_view_x_of(v, 500 * 5 + 1); /* the 500th tiny one */
  h = st_hit_test(t, l, v, xt, y, 3);
  CHECK(h.kind == ST_HIT_EVENT && h.row == T.row);
  CHECK(h.index >= 495 && h.index <= 505);
  /* section header (gutter and timeline), gutter label, axis, counter, nothing */
  float sy = section_y(ui, 0);
  h = st_hit_test(t, l, v, 10, sy, 3);
  CHECK(h.kind == ST_HIT_SECTION && h.process == 0);
  h = st_hit_test(t, l, v, 600, sy, 3);
  CHECK(h.kind == ST_HIT_SECTION && h.process == 0);
  where(ui, A, &x, &y);
  CHECK(st_hit_test(t, l, v, 10, y, 3).kind == ST_HIT_GUTTER);
  CHECK(st_hit_test(t, l, v, 600, 5, 3).kind == ST_HIT_AXIS);
  CHECK(st_hit_test(t, l, v, 10, 5, 3).kind == ST_HIT_NONE);
  CHECK(st_hit_test(t, l, v, 600, H - 2, 3).kind == ST_HIT_NONE);
  CHECK(st_hit_test(t, l, v, -1, 100, 3).kind == ST_HIT_NONE);
  uint32_t n;
  const st_layout_item *items = st_layout_items(l, &n);
  for (uint32_t i = 0; i < n; i++) {
    if (items[i].kind != ST_LAYOUT_COUNTER) continue;
    float cy = items[i].y + 10 + ST_VIEW_AXIS_H;
    h = st_hit_test(t, l, v, st_view_x_of(v, 5000), cy, 3);
    CHECK(h.kind == ST_HIT_COUNTER && h.index == 0 && h.value == 1);
    h = st_hit_test(t, l, v, st_view_x_of(v, 6000), cy, 3);
    CHECK(h.kind == ST_HIT_COUNTER && h.index == 1 && h.value == 3);
  }
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_click_select(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_event_ref A = find(t, "A"), D = find(t, "D"), F = find(t, "F");
  float x, y;
  where(ui, A, &x, &y);
  unsigned ch = click(ui, x, y, 0);
  CHECK(ch & ST_UI_SELECTION);
  CHECK(selected(ui, A) && st_selection_count(st_ui_selection(ui)) == 1);
  st_event_ref one;
  CHECK(st_ui_selected_one(ui, &one) && one.row == A.row && one.index == A.index);
  /* plain click on another replaces; ctrl+click adds; ctrl+click again removes */
  where(ui, D, &x, &y);
  click(ui, x, y, 0);
  CHECK(!selected(ui, A) && selected(ui, D));
  where(ui, F, &x, &y);
  click(ui, x, y, ST_MOD_CTRL);
  CHECK(selected(ui, D) && selected(ui, F) && st_selection_count(st_ui_selection(ui)) == 2);
  where(ui, A, &x, &y);
  click(ui, x, y, ST_MOD_META); /* cmd on macOS */
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 3);
  where(ui, F, &x, &y);
  click(ui, x, y, ST_MOD_CTRL);
  CHECK(!selected(ui, F) && st_selection_count(st_ui_selection(ui)) == 2);
  /* ctrl+click on empty space keeps it; a plain click there clears */
  click(ui, st_view_x_of(st_ui_view(ui), 10000), y, ST_MOD_CTRL);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 2);
  ch = click(ui, st_view_x_of(st_ui_view(ui), 10000), y, 0);
  CHECK((ch & ST_UI_SELECTION) && st_selection_count(st_ui_selection(ui)) == 0);
  /* a small wobble under the click slop is still a click */
  where(ui, A, &x, &y);
  st_ui_pointer_down(ui, x, y, ST_BUTTON_LEFT, 0);
  st_ui_pointer_move(ui, x + 1, y + 1, ST_BUTTON_LEFT, 0);
  st_ui_pointer_up(ui, x + 1, y + 1, 0, 0);
  CHECK(selected(ui, A));
  /* clicks select in every tool */
  st_ui_set_tool(ui, ST_TOOL_PAN);
  where(ui, D, &x, &y);
  click(ui, x, y, 0);
  CHECK(selected(ui, D) && !selected(ui, A));
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_box_select(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  const st_view *v = st_ui_view(ui);
  st_event_ref A = find(t, "A"), B = find(t, "B"), C = find(t, "C"), D = find(t, "D"),
               E = find(t, "E"), F = find(t, "F"), G = find(t, "G"), T = find(t, "tiny");
  float xa, ya, xc, yc, xf, yf, xt, yt;
  where(ui, A, &xa, &ya);
  where(ui, C, &xc, &yc);
  where(ui, F, &xf, &yf);
  where(ui, T, &xt, &yt);
  /* from t = 1500 on the A row down to t = 4500 on F's row: A, B, D, G (C and F end
   * before 1500) */
  float x0 = st_view_x_of(v, 1500), x1 = st_view_x_of(v, 4500);
  unsigned ch = drag(ui, x0, ya - 5, x1, yf + 5, 0);
  CHECK(ch & ST_UI_SELECTION);
  CHECK(selected(ui, A) && selected(ui, B) && !selected(ui, C) && selected(ui, D));
  CHECK(!selected(ui, F) && selected(ui, G) && !selected(ui, E));
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 4);
  /* the box drawn while dragging */
  st_ui_pointer_down(ui, x0, ya, ST_BUTTON_LEFT, 0);
  st_ui_pointer_move(ui, x1, yf, ST_BUTTON_LEFT, 0);
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  CHECK(ov.has_box && fabsf(ov.box_x0 - x0) < 0.01f && ov.box_x1 == x1 && ov.box_y1 == yf);
  st_ui_key_down(ui, "Escape", 0); /* cancels the drag, keeps the selection */
  st_ui_overlay(ui, &ov);
  CHECK(!ov.has_box && st_selection_count(st_ui_selection(ui)) == 4);
  st_ui_pointer_up(ui, x1, yf, 0, 0);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 4);
  /* the tiny row: events intersecting [1000 + 100 * 5, 1000 + 300 * 5] */
  x0 = st_view_x_of(v, 1500);
  x1 = st_view_x_of(v, 2500);
  drag(ui, x0, yt - 3, x1, yt + 3, 0);
  uint64_t brute = 0;
  const st_row *tr = &st_trace_rows(t, NULL)[T.row];
  double ta = st_view_time_at(v, x0), tb = st_view_time_at(v, x1);
  for (uint32_t i = 0; i < tr->count; i++)
    brute += (double)(tr->start[i] + tr->dur[i]) > floor(ta) && (double)tr->start[i] <= ceil(tb);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), brute);
  CHECK(brute > 150 && brute < 250);
  /* ctrl adds to the selection */
  drag(ui, st_view_x_of(v, 10900), ya - 3, st_view_x_of(v, 11600), ya + 3, ST_MOD_CTRL);
  CHECK(selected(ui, E) && st_selection_count(st_ui_selection(ui)) == brute + 1);
  /* the summary of the selection */
  st_agg *g = st_agg_create(NULL, t);
  CHECK(st_ui_summarize(ui, g, 0) == ST_OK);
  CHECK_EQ_INT(st_agg_events(g), brute + 1);
  uint32_t n;
  st_agg_rows(g, &n);
  CHECK_EQ_INT(n, 2);
  /* select-by-name narrows to those events */
  uint32_t tiny = st_trace_rows(t, NULL)[T.row].name[0];
  st_ui_select_name(ui, tiny, 0);
  CHECK(!selected(ui, E) && st_selection_count(st_ui_selection(ui)) == brute);
  /* a kept set comes back whole (what the page's summary rows start from) */
  st_selection *kept = st_selection_create(NULL);
  st_selection_add(kept, E.row, E.index, E.index + 1);
  CHECK(st_ui_set_selection(ui, kept) & ST_UI_SELECTION);
  CHECK(selected(ui, E) && st_selection_count(st_ui_selection(ui)) == 1);
  CHECK(st_ui_set_selection(ui, NULL) == 0 && st_selection_count(st_ui_selection(ui)) == 1);
  st_selection_destroy(kept);
  st_agg_destroy(g);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_tools(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  const st_view *v = st_ui_view(ui);
  /* keys pick tools */
  const char *keys[] = {"2", "3", "4", "1", "@", "#", "$", "!"};
  const st_tool want[] = {ST_TOOL_PAN, ST_TOOL_ZOOM, ST_TOOL_TIMING, ST_TOOL_SELECT,
                          ST_TOOL_PAN, ST_TOOL_ZOOM, ST_TOOL_TIMING, ST_TOOL_SELECT};
  for (int k = 0; k < 8; k++) {
    unsigned ch = st_ui_key_down(ui, keys[k], k >= 4 ? ST_MOD_SHIFT : 0);
    CHECK((ch & ST_UI_TOOL) && st_ui_tool(ui) == want[k]);
  }
  /* pan: drag left by 100 px and up by 0 moves time by 100 px worth */
  st_ui_set_tool(ui, ST_TOOL_PAN);
  double t0 = v->t0_ns, nspp = v->ns_per_px;
  unsigned ch = drag(ui, 700, 200, 600, 200, 0);
  CHECK(ch & ST_UI_VIEW);
  CHECK(fabs(v->t0_ns - (t0 + 100 * nspp)) < 1e-6 * nspp);
  CHECK(v->ns_per_px == nspp);
  /* middle-button drag pans in any tool */
  st_ui_set_tool(ui, ST_TOOL_SELECT);
  t0 = v->t0_ns;
  st_ui_pointer_down(ui, 600, 200, ST_BUTTON_MIDDLE, 0);
  st_ui_pointer_move(ui, 650, 200, ST_BUTTON_MIDDLE, 0);
  st_ui_pointer_up(ui, 650, 200, 0, 0);
  CHECK(fabs(v->t0_ns - (t0 - 50 * nspp)) < 1e-6 * nspp);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(ui)), 0);
  /* zoom: drag from t = 2000 to t = 6000 shows exactly that */
  st_ui_fit(ui);
  st_ui_set_tool(ui, ST_TOOL_ZOOM);
  float xa = st_view_x_of(v, 2000), xb = st_view_x_of(v, 6000);
  st_ui_pointer_down(ui, xb, 300, ST_BUTTON_LEFT, 0);
  st_ui_pointer_move(ui, xa, 320, ST_BUTTON_LEFT, 0);
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  CHECK(ov.has_range && fabs(ov.range_t0_ns - 6000) < 1 && fabs(ov.range_t1_ns - 2000) < 1);
  st_ui_pointer_up(ui, xa, 320, 0, 0);
  double w0, w1;
  st_ui_window(ui, &w0, &w1);
  CHECK(fabs(w0 - 2000) < 1 && fabs(w1 - 6000) < 1);
  /* timing: drag marks the interval; the axis shows it */
  st_ui_fit(ui);
  st_ui_set_tool(ui, ST_TOOL_TIMING);
  xa = st_view_x_of(v, 1000);
  xb = st_view_x_of(v, 3000);
  ch = drag(ui, xa, 300, xb, 400, 0);
  CHECK(ch & ST_UI_MARK);
  double m0, m1;
  CHECK(st_ui_mark(ui, &m0, &m1));
  CHECK(fabs(m0 - 1000) < 1 && fabs(m1 - 3000) < 1);
  /* a drag on the axis measures whatever the tool */
  st_ui_set_tool(ui, ST_TOOL_PAN);
  drag(ui, st_view_x_of(v, 4000), 10, st_view_x_of(v, 5000), 12, 0);
  CHECK(st_ui_mark(ui, &m0, &m1) && fabs(m0 - 4000) < 1 && fabs(m1 - 5000) < 1);
  /* Esc during a timing drag restores the previous mark */
  st_ui_pointer_down(ui, st_view_x_of(v, 100), 10, ST_BUTTON_LEFT, 0);
  st_ui_pointer_move(ui, st_view_x_of(v, 9000), 10, ST_BUTTON_LEFT, 0);
  st_ui_key_down(ui, "Escape", 0);
  st_ui_pointer_up(ui, st_view_x_of(v, 9000), 10, 0, 0);
  CHECK(st_ui_mark(ui, &m0, &m1) && fabs(m0 - 4000) < 1 && fabs(m1 - 5000) < 1);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_mark_fit_esc(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_event_ref B = find(t, "B"), G = find(t, "G");
  float x, y;
  where(ui, B, &x, &y);
  click(ui, x, y, 0);
  where(ui, G, &x, &y);
  click(ui, x, y, ST_MOD_CTRL);
  /* m: the span of B [1000, 2000) and G [4000, 4100) */
  unsigned ch = st_ui_key_down(ui, "m", 0);
  CHECK(ch & ST_UI_MARK);
  double m0, m1;
  CHECK(st_ui_mark(ui, &m0, &m1) && m0 == 1000 && m1 == 4100);
  /* f: the view fits the span with a margin */
  ch = st_ui_key_down(ui, "f", 0);
  CHECK(ch & ST_UI_VIEW);
  double w0, w1;
  st_ui_window(ui, &w0, &w1);
  CHECK(w0 < 1000 && w0 > 1000 - 3100 * 0.1 && w1 > 4100 && w1 < 4100 + 3100 * 0.1);
  /* Esc clears selection and mark */
  ch = st_ui_key_down(ui, "Escape", 0);
  CHECK((ch & ST_UI_SELECTION) && (ch & ST_UI_MARK));
  CHECK(st_selection_count(st_ui_selection(ui)) == 0 && !st_ui_mark(ui, NULL, NULL));
  /* with nothing selected m and f do nothing */
  st_ui_window(ui, &w0, &w1);
  st_ui_key_down(ui, "f", 0);
  st_ui_key_down(ui, "m", 0);
  double v0, v1;
  st_ui_window(ui, &v0, &v1);
  CHECK(v0 == w0 && v1 == w1 && !st_ui_mark(ui, NULL, NULL));
  /* 0 fits the trace */
  st_ui_key_down(ui, "0", 0);
  st_ui_window(ui, &v0, &v1);
  CHECK(v0 < 0 && v1 > 11500);
  /* / and ctrl+F ask for the search box; ? toggles help; ctrl+other is the browser's */
  CHECK(st_ui_key_down(ui, "/", 0) & ST_UI_FOCUS_SEARCH);
  CHECK(st_ui_key_down(ui, "f", ST_MOD_CTRL) & ST_UI_FOCUS_SEARCH);
  CHECK(st_ui_key_down(ui, "F", ST_MOD_META) & ST_UI_FOCUS_SEARCH);
  CHECK(st_ui_key_down(ui, "w", ST_MOD_CTRL) == 0);
  CHECK((st_ui_key_down(ui, "?", ST_MOD_SHIFT) & ST_UI_HELP) && st_ui_help_visible(ui));
  CHECK((st_ui_key_down(ui, "Escape", 0) & ST_UI_HELP) && !st_ui_help_visible(ui));
  CHECK(st_ui_key_down(ui, "q", 0) == 0);
  /* double click zooms to the slice and selects it */
  st_ui_fit(ui);
  where(ui, B, &x, &y);
  ch = st_ui_double_click(ui, x, y, 0);
  CHECK((ch & ST_UI_VIEW) && selected(ui, B));
  st_ui_window(ui, &v0, &v1);
  CHECK(fabs(v0 - (1000 - 50)) < 1 && fabs(v1 - (2000 + 50)) < 1);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_keys_zoom_pan(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  const st_view *v = st_ui_view(ui);
  /* W around the mouse: the time under it stays */
  st_ui_pointer_move(ui, 400, 300, 0, 0);
  double at = st_view_time_at(v, 400), s0 = v->ns_per_px;
  unsigned ch = st_ui_key_down(ui, "w", 0);
  CHECK((ch & ST_UI_VIEW) && (ch & ST_UI_ANIMATING));
  CHECK(v->ns_per_px < s0);
  CHECK(fabs(st_view_time_at(v, 400) - at) < 1e-6 * fabs(at) + 1e-6);
  /* held: each tick zooms on, and faster as it is held */
  double prev = v->ns_per_px, r1 = 0, rlast = 0;
  for (int k = 0; k < 40; k++) {
    ch = st_ui_tick(ui, 16);
    CHECK(ch & ST_UI_ANIMATING);
    double r = log(prev / v->ns_per_px);
    if (k == 0) r1 = r;
    rlast = r;
    prev = v->ns_per_px;
  }
  CHECK(r1 > 0 && rlast > r1 * 2.5);
  CHECK(fabs(st_view_time_at(v, 400) - at) < 1e-6 * fabs(at) + 1e-3);
  /* auto-repeat keydowns do not add steps */
  prev = v->ns_per_px;
  st_ui_key_down(ui, "w", 0);
  CHECK(v->ns_per_px == prev);
  ch = st_ui_key_up(ui, "w", 0);
  CHECK(!(ch & ST_UI_ANIMATING) && !st_ui_animating(ui));
  CHECK(st_ui_tick(ui, 16) == 0 && v->ns_per_px == prev);
  /* S with the mouse outside the timeline: around the centre */
  st_ui_pointer_leave(ui);
  float cx = ST_VIEW_GUTTER_W + st_view_timeline_w(v) / 2;
  double ct = st_view_time_at(v, cx);
  prev = v->ns_per_px;
  st_ui_key_down(ui, "S", ST_MOD_SHIFT);
  st_ui_tick(ui, 50);
  st_ui_key_up(ui, "S", 0);
  CHECK(v->ns_per_px > prev);
  CHECK(fabs(st_view_time_at(v, cx) - ct) < 1e-6 * fabs(ct) + 1e-3);
  /* the mouse over the gutter also means the centre */
  st_ui_pointer_move(ui, 100, 300, 0, 0);
  ct = st_view_time_at(v, cx);
  st_ui_key_down(ui, "w", 0);
  st_ui_key_up(ui, "w", 0);
  CHECK(fabs(st_view_time_at(v, cx) - ct) < 1e-6 * fabs(ct) + 1e-3);
  /* D: a press pans at once; holding accelerates (zoomed in, so there is room) */
  st_ui_set_view(ui, 0, 100);
  double t0 = v->t0_ns;
  st_ui_key_down(ui, "d", 0);
  CHECK(v->t0_ns > t0);
  double last = v->t0_ns, d1 = 0, dl = 0;
  for (int k = 0; k < 60; k++) {
    st_ui_tick(ui, 16);
    double d = v->t0_ns - last;
    if (k == 0) d1 = d;
    dl = d;
    last = v->t0_ns;
  }
  CHECK(d1 > 0 && dl > 3 * d1);
  /* past HOLD_ACCEL_MS the speed stays at its maximum: every 16 ms tick
   * pans the same (it grew every frame when the maximum's term counted from
   * the 1 s mark instead of from the tick's start) */
  st_ui_set_view(ui, 0, 100);
  double dfirst = 0, dmax = 0, dmin = 1e300;
  for (int k = 0; k < 200; k++) {
    last = v->t0_ns;
    st_ui_tick(ui, 16);
    double d = v->t0_ns - last;
    if (k < 10) continue; /* held 1.1 s and more from here */
    if (k == 10) dfirst = d;
    if (d > dmax) dmax = d;
    if (d < dmin) dmin = d;
  }
  CHECK(dfirst > 0 && dmin > 0.999 * dfirst && dmax < 1.001 * dfirst);
  CHECK(dfirst > 3.8 * d1 && dfirst < 4.1 * d1);
  st_ui_key_up(ui, "d", 0);
  /* A goes the other way; blur releases held keys */
  last = v->t0_ns;
  st_ui_key_down(ui, "a", 0);
  st_ui_tick(ui, 16);
  CHECK(v->t0_ns < last);
  st_ui_blur(ui);
  CHECK(!st_ui_animating(ui));
  last = v->t0_ns;
  st_ui_tick(ui, 16);
  CHECK(v->t0_ns == last);
  /* a huge dt (background tab) is clamped */
  st_ui_key_down(ui, "d", 0);
  last = v->t0_ns;
  st_ui_tick(ui, 100);
  double d100 = v->t0_ns - last;
  last = v->t0_ns;
  st_ui_tick(ui, 100000);
  CHECK(v->t0_ns - last < 2 * d100);
  st_ui_key_up(ui, "d", 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_wheel(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, 120, 1); /* short: the tracks scroll */
  const st_view *v = st_ui_view(ui);
  /* ctrl+wheel (and pinch, which arrives as ctrl+wheel) zooms at the cursor */
  double at = st_view_time_at(v, 500), s0 = v->ns_per_px;
  unsigned ch = st_ui_wheel(ui, 0, -100, ST_MOD_CTRL, 500, 60);
  CHECK(ch & ST_UI_VIEW);
  CHECK(v->ns_per_px < s0 && fabs(st_view_time_at(v, 500) - at) < 1e-3);
  s0 = v->ns_per_px;
  st_ui_wheel(ui, 0, 3.5f, ST_MOD_CTRL, 500, 60); /* a small pinch-out step */
  CHECK(v->ns_per_px > s0 && fabs(st_view_time_at(v, 500) - at) < 1e-3);
  s0 = v->ns_per_px;
  st_ui_wheel(ui, 0, -100, ST_MOD_META, 700, 60);
  CHECK(v->ns_per_px < s0);
  /* shift+wheel pans */
  double t0 = v->t0_ns;
  s0 = v->ns_per_px;
  st_ui_wheel(ui, 0, 50, ST_MOD_SHIFT, 500, 60);
  CHECK(fabs(v->t0_ns - (t0 + 50 * s0)) < 1e-6 * s0 + 1e-9);
  t0 = v->t0_ns;
  st_ui_wheel(ui, -30, 0, ST_MOD_SHIFT, 500, 60); /* already horizontal */
  CHECK(fabs(v->t0_ns - (t0 - 30 * s0)) < 1e-6 * s0 + 1e-9);
  /* plain wheel scrolls the tracks, clamped to the layout */
  CHECK(v->scroll_y == 0);
  ch = st_ui_wheel(ui, 0, 40, 0, 500, 60);
  CHECK((ch & ST_UI_VIEW) && v->scroll_y == 40);
  st_ui_wheel(ui, 0, 100000, 0, 500, 60);
  float maxs = st_layout_height(st_ui_layout(ui)) - (120 - ST_VIEW_AXIS_H);
  CHECK(fabsf(v->scroll_y - maxs) < 0.01f);
  st_ui_wheel(ui, 0, -100000, 0, 500, 60);
  CHECK(v->scroll_y == 0);
  /* plain horizontal wheel pans */
  t0 = v->t0_ns;
  st_ui_wheel(ui, 20, 0, 0, 500, 60);
  CHECK(v->t0_ns > t0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

static void test_search_and_sections(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_event_ref A = find(t, "A"), B = find(t, "B");
  /* collapse P10 by clicking its header; the search expands it again */
  unsigned ch = click(ui, 10, section_y(ui, 0), 0);
  CHECK((ch & ST_UI_LAYOUT) && st_layout_collapsed(st_ui_layout(ui), 0));
  CHECK(st_selection_count(st_ui_selection(ui)) == 0);
  click(ui, 600, section_y(ui, 0), 0); /* the header across the timeline works too */
  CHECK(!st_layout_collapsed(st_ui_layout(ui), 0));
  click(ui, 10, section_y(ui, 0), 0);
  CHECK(st_layout_collapsed(st_ui_layout(ui), 0));
  ch = st_ui_search(ui, "b", 1);
  CHECK(ch & ST_UI_SEARCH);
  CHECK_EQ_INT(st_find_count(st_ui_find(ui)), 1);
  st_ui_set_view(ui, 50000, 60000); /* far away */
  ch = st_ui_search_step(ui, 1);
  CHECK((ch & ST_UI_SELECTION) && (ch & ST_UI_LAYOUT) && (ch & ST_UI_VIEW));
  CHECK(selected(ui, B) && !st_layout_collapsed(st_ui_layout(ui), 0));
  st_event_ref cur = st_ui_search_current(ui);
  CHECK(cur.row == B.row && cur.index == B.index);
  double w0, w1;
  st_ui_window(ui, &w0, &w1);
  CHECK(fabs((w0 + w1) / 2 - 1500) < 1 && fabs((w1 - w0) - 10000) < 1); /* centred, same zoom */
  /* dimming: the overlay says which ranges match */
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  CHECK(ov.matches && ov.selected);
  CHECK(ov.matches(ov.ud, B.row, B.index, 1) && !ov.matches(ov.ud, A.row, A.index, 1));
  CHECK(ov.selected(ov.ud, B.row, B.index, 1) && !ov.selected(ov.ud, A.row, A.index, 1));
  /* "a": A only... and "tiny" has an "i"; search "i" gives 1000 matches in time order */
  st_ui_search(ui, "I", 1);
  CHECK_EQ_INT(st_find_count(st_ui_find(ui)), 1000);
  st_ui_search_step(ui, -1); /* previous from nothing: the last */
  cur = st_ui_search_current(ui);
  CHECK(cur.index == 999);
  st_ui_search_step(ui, 1); /* wraps to the first */
  CHECK(st_ui_search_current(ui).index == 0);
  /* a second view follows the first one's step (side-by-side panes): its
   * current match, revealed, not selected; the next step goes on from it */
  st_ui *ui2 = st_ui_create(NULL, t, W, H, 1);
  st_ui_search(ui2, "I", 1);
  st_ui_set_view(ui2, 50000, 60000);
  cur = st_ui_search_current(ui);
  st_ui_search_step(ui, 1);
  st_event_ref next = st_ui_search_current(ui);
  ch = st_ui_search_follow(ui2, next);
  CHECK((ch & ST_UI_SEARCH) && (ch & ST_UI_VIEW));
  CHECK(st_ui_search_current(ui2).row == next.row && st_ui_search_current(ui2).index == 1);
  CHECK(st_selection_count(st_ui_selection(ui2)) == 0);
  st_ui_window(ui2, &w0, &w1);
  CHECK(w0 <= (double)st_trace_rows(t, NULL)[next.row].start[next.index] && w1 > w0);
  CHECK(w1 < 50000);
  st_ui_search_step(ui2, -1); /* back from the followed match */
  CHECK(st_ui_search_current(ui2).row == cur.row && st_ui_search_current(ui2).index == 0);
  CHECK_EQ_INT(st_ui_search_follow(ui2, A), 0); /* not a match of "I" */
  CHECK(st_ui_search_current(ui2).index == 0);
  CHECK(st_ui_search_follow(ui2, ST_REF_NONE) & ST_UI_SEARCH);
  CHECK(st_ui_search_current(ui2).row == UINT32_MAX);
  /* copying a search ("in args" matches too) from one view to another */
  uint64_t src0 = 0;                       /* every event of this trace was added with src 0 */
  st_ui_search_srcs(ui, "b", 1, &src0, 1); /* B by name, the 1007 events by their "args" */
  CHECK_EQ_INT(st_find_count(st_ui_find(ui)), 1007);
  st_ui_search_step(ui, 1);
  ch = st_ui_search_copy(ui2, ui);
  CHECK(ch & ST_UI_SEARCH);
  CHECK_EQ_INT(st_find_count(st_ui_find(ui2)), 1007);
  CHECK_EQ_INT(st_find_name_count(st_ui_find(ui2)), 1);
  CHECK(st_find_in_args(st_ui_find(ui2)) && st_find_is_match(st_ui_find(ui2), A.row, A.index));
  CHECK_EQ_STR(st_find_text(st_ui_find(ui2)), "b");
  CHECK(st_ui_search_current(ui2).row == st_ui_search_current(ui).row &&
        st_ui_search_current(ui2).index == st_ui_search_current(ui).index);
  st_ui_search(ui, "", 0);
  st_ui_search_copy(ui2, ui); /* no search: cleared */
  CHECK(!st_find_active(st_ui_find(ui2)) && st_find_count(st_ui_find(ui2)) == 0);
  st_trace *other = trace();
  st_ui *ui3 = st_ui_create(NULL, other, W, H, 1);
  CHECK_EQ_INT(st_ui_search_copy(ui3, ui2), 0); /* another trace */
  st_ui_destroy(ui3);
  st_trace_destroy(other);
  st_ui_destroy(ui2);
  st_ui_search(ui, "", 0);
  st_ui_overlay(ui, &ov);
  CHECK(!ov.matches);
  /* collapse all, then expand all */
  ch = st_ui_collapse_all(ui);
  CHECK((ch & ST_UI_LAYOUT) && st_ui_all_collapsed(ui));
  uint32_t n;
  st_layout_items(st_ui_layout(ui), &n);
  CHECK_EQ_INT(n, 3);
  st_ui_collapse_all(ui);
  CHECK(!st_ui_all_collapsed(ui) && !st_layout_collapsed(st_ui_layout(ui), 2));
  /* the visible-window summary */
  st_agg *g = st_agg_create(NULL, t);
  st_ui_set_view(ui, 0, 3000);
  CHECK(st_ui_summarize(ui, g, 1) == ST_OK);
  /* A B C F and tiny 0..599 (start < 3000) */
  CHECK_EQ_INT(st_agg_events(g), 4 + 600);
  st_agg_destroy(g);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

/* Search leads somewhere visible (issue 12): a match narrower than a few
 * pixels is zoomed in on and its row scrolled into view; Enter / shift+Enter
 * and PageDown / PageUp step on the timeline too while a search is active;
 * Esc in the box hands the keys back with the search and selection kept,
 * and a second Esc (on the timeline) clears both. */
static void test_search_reveals_and_keys(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, 120, 1); /* short: P30's row starts below the fold */
  const st_view *v = st_ui_view(ui);
  CHECK(st_ui_key_down(ui, "Enter", 0) == 0); /* no search: not the timeline's key */
  st_ui_search(ui, "tiny", 4);
  st_ui_fit(ui);
  unsigned ch = st_ui_search_box_key(ui, "Enter", 0);
  CHECK((ch & ST_UI_SELECTION) && (ch & ST_UI_VIEW));
  st_event_ref cur = st_ui_search_current(ui);
  CHECK(cur.index == 0);
  /* the 2 ns event is at least 32 px wide and its row is on screen */
  CHECK(2.0 / v->ns_per_px >= 31.9);
  float x, y;
  where(ui, cur, &x, &y);
  CHECK(x > ST_VIEW_GUTTER_W && x < W && y > ST_VIEW_AXIS_H && y < 120);
  /* Enter, PageDown, PageUp, shift+Enter on the timeline */
  CHECK(st_ui_key_down(ui, "Enter", 0) & ST_UI_SEARCH);
  CHECK(st_ui_search_current(ui).index == 1);
  st_ui_key_down(ui, "PageDown", 0);
  CHECK(st_ui_search_current(ui).index == 11);
  CHECK(st_find_rank(st_ui_find(ui), st_ui_search_current(ui)) == 11);
  st_ui_key_down(ui, "PageUp", 0);
  st_ui_key_down(ui, "Enter", ST_MOD_SHIFT);
  CHECK(st_ui_search_current(ui).index == 0);
  st_ui_search_box_key(ui, "PageUp", 0); /* wraps round: 10 back from the first */
  CHECK(st_ui_search_current(ui).index == 990);
  CHECK(st_ui_search_box_key(ui, "x", 0) == 0); /* typed by the box */
  CHECK(st_ui_search_box_key(ui, "Enter", ST_MOD_CTRL) == 0);
  /* Esc in the box: the keys go back, nothing is cleared */
  ch = st_ui_search_box_key(ui, "Escape", 0);
  CHECK((ch & ST_UI_TO_TIMELINE) && !(ch & (ST_UI_SEARCH | ST_UI_SELECTION)));
  CHECK(st_find_active(st_ui_find(ui)) && st_selection_count(st_ui_selection(ui)) == 1);
  /* f then acts on the match; W zooms further */
  st_ui_fit(ui);
  st_ui_key_down(ui, "f", 0);
  double w0, w1;
  st_ui_window(ui, &w0, &w1);
  CHECK(w1 - w0 < 2000); /* MIN_FIT_NS with margins */
  /* the second Esc clears the selection and the search */
  ch = st_ui_key_down(ui, "Escape", 0);
  CHECK((ch & ST_UI_SEARCH) && (ch & ST_UI_SELECTION));
  CHECK(!st_find_active(st_ui_find(ui)) && st_selection_count(st_ui_selection(ui)) == 0);
  CHECK(st_ui_key_down(ui, "PageDown", 0) == 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

/* ---- the overlay in the draw list --------------------------------------- */

static int fake_glyph(void *ud, uint32_t cp, st_glyph *g) {
  *g = (st_glyph){7, 0.5f, -9, 6.5f, 2, (float)cp, 0, (float)cp, 1};
  return 1;
}

static void test_draw_overlay(void) {
  st_trace *t = trace();
  st_lod *lod = st_lod_build(NULL, t, NULL);
  st_ui *ui = st_ui_create(NULL, t, W, H, 1);
  st_font font = {12, 10, 3, fake_glyph, NULL};
  st_draw_input in = {t, lod, st_ui_layout(ui), st_ui_view(ui), &font};
  st_drawlist dl = {0};
  st_event_ref B = find(t, "B");
  float x, y;
  where(ui, B, &x, &y);
  click(ui, x, y, 0);
  st_ui_search(ui, "B", 1);
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  int sel = 0, dim = 0, undim = 0;
  for (uint32_t i = 0; i < dl.rect_count; i++) {
    const st_rect *r = &dl.rects[i];
    if (r->flags & ST_RECT_SELECTED) {
      sel++;
      CHECK(r->x <= x && r->x + r->w >= x && r->y <= y && r->y + r->h >= y);
      CHECK(!(r->flags & ST_RECT_DIMMED));
    }
    if (r->flags & ST_RECT_DIMMED) dim++;
    if (!(r->flags & ST_RECT_DIMMED) && r->y <= y && r->y + r->h >= y && r->x >= ST_VIEW_GUTTER_W &&
        r->h < ST_VIEW_ROW_H)
      undim++;
  }
  CHECK_EQ_INT(sel, 1);
  CHECK(dim >= 6);
  CHECK_EQ_INT(undim, 1); /* in B's row only B itself is bright */
  /* the timing mark: a band, two edge lines, a bar and a label on the axis */
  uint32_t rects0 = dl.rect_count, lines0 = dl.line_count, glyphs0 = dl.glyph_count;
  st_ui_key_down(ui, "Escape", 0);
  st_ui_set_mark(ui, 1000, 3000);
  st_ui_overlay(ui, &ov);
  CHECK(st_draw_frame_overlay(&dl, &in, &ov, NULL) == ST_OK);
  CHECK(dl.line_count >= lines0 + 2);
  int bar = 0;
  float xa = st_view_x_of(st_ui_view(ui), 1000), xb = st_view_x_of(st_ui_view(ui), 3000);
  for (uint32_t i = 0; i < dl.rect_count; i++) {
    const st_rect *r = &dl.rects[i];
    if (r->y < ST_VIEW_AXIS_H && fabsf(r->x - xa) < 0.5f && fabsf(r->x + r->w - xb) < 0.5f) bar++;
  }
  CHECK_EQ_INT(bar, 1);
  /* "2 us" is drawn: its glyphs are on the axis */
  int label = 0;
  for (uint32_t i = 0; i < dl.glyph_count; i++)
    if (dl.glyphs[i].y < ST_VIEW_AXIS_H && dl.glyphs[i].x > xa && dl.glyphs[i].x < xb &&
        dl.glyphs[i].u0 == 'u')
      label++;
  CHECK(label >= 1);
  (void)rects0;
  (void)glyphs0;
  /* without an overlay nothing extra is drawn and nothing is flagged */
  CHECK(st_draw_frame(&dl, &in, NULL) == ST_OK);
  for (uint32_t i = 0; i < dl.rect_count; i++)
    CHECK(!(dl.rects[i].flags & (ST_RECT_SELECTED | ST_RECT_DIMMED)));
  st_drawlist_free(&dl, NULL);
  st_ui_destroy(ui);
  st_lod_destroy(lod);
  st_trace_destroy(t);
}

/* st_ui_follow: a second view of the trace takes what changed in the first
 * (side-by-side panes), bit by bit, and nothing else. */
static void test_follow(void) {
  st_trace *t = trace();
  st_ui *a = st_ui_create(NULL, t, W, H, 1), *b = st_ui_create(NULL, t, W, H, 1);
  st_event_ref A = find(t, "A"), B = find(t, "B");
  double a0, a1, b0, b1;
  st_ui_set_view(a, 2000, 3000);
  CHECK_EQ_INT(st_ui_follow(b, a, 0), 0); /* nothing changed: nothing followed */
  st_ui_window(b, &b0, &b1);
  CHECK(b0 != 2000);
  CHECK_EQ_INT(st_ui_follow(b, a, ST_UI_VIEW), ST_UI_REDRAW);
  st_ui_window(a, &a0, &a1);
  st_ui_window(b, &b0, &b1);
  CHECK(b0 == a0 && b1 == a1 && a0 == 2000);
  /* the selection, only with its bit */
  st_ui_select(a, A, 0);
  st_ui_follow(b, a, ST_UI_VIEW);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(b)), 0);
  CHECK_EQ_INT(st_ui_follow(b, a, ST_UI_SELECTION), ST_UI_REDRAW);
  st_event_ref one;
  CHECK(st_ui_selected_one(b, &one) && one.row == A.row && one.index == A.index);
  /* the mark, set and cleared */
  st_ui_set_mark(a, 1500, 2500);
  st_ui_follow(b, a, ST_UI_MARK);
  CHECK(st_ui_mark(b, &b0, &b1) && b0 == 1500 && b1 == 2500);
  st_ui_clear_mark(a);
  st_ui_follow(b, a, ST_UI_MARK);
  CHECK(!st_ui_mark(b, &b0, &b1));
  /* the tool */
  st_ui_set_tool(a, ST_TOOL_TIMING);
  st_ui_follow(b, a, ST_UI_TOOL);
  CHECK_EQ_INT(st_ui_tool(b), ST_TOOL_TIMING);
  /* the search: the query, then a step made in a (b's current match follows,
   * b's selection stays its own) */
  st_ui_search(a, "b", 1);
  CHECK_EQ_INT(st_ui_follow(b, a, ST_UI_SEARCH), ST_UI_REDRAW);
  CHECK_EQ_STR(st_find_text(st_ui_find(b)), "b");
  CHECK_EQ_INT(st_find_count(st_ui_find(b)), 1);
  st_ui_search_step(a, 1);
  CHECK(st_ui_search_current(a).row == B.row);
  st_ui_follow(b, a, ST_UI_SEARCH);
  CHECK(st_ui_search_current(b).row == B.row && st_ui_search_current(b).index == B.index);
  CHECK(st_ui_selected_one(b, &one) && one.row == A.row);
  /* "in args" matches are copied too (srcs: every event here has src 0) */
  uint64_t src0 = 0;
  st_ui_search_srcs(a, "b", 1, &src0, 1);
  st_ui_follow(b, a, ST_UI_SEARCH);
  CHECK_EQ_INT(st_find_count(st_ui_find(b)), st_find_count(st_ui_find(a)));
  CHECK(st_find_in_args(st_ui_find(b)));
  CHECK_EQ_INT(st_ui_follow(b, b, ST_UI_VIEW), 0); /* itself: nothing */
  CHECK_EQ_INT(st_ui_follow(NULL, a, ST_UI_VIEW), 0);
  st_ui_destroy(b);
  st_ui_destroy(a);
  st_trace_destroy(t);
}

/* A panel over the canvas (st_ui_set_cover): a revealed event lands above a
 * bottom panel and below a top one; a panel that opens over the target
 * moves it out from under; once the user scrolls, the target is no longer
 * kept. */
static void test_cover(void) {
  st_trace *t = trace();
  st_ui *ui = st_ui_create(NULL, t, W, 200, 1); /* short: the tracks scroll */
  st_event_ref g = find(t, "G"), tiny = find(t, "tiny");
  float x, y;
  st_ui_set_cover(ui, 0, 100); /* the bottom half covered */
  st_ui_reveal(ui, tiny);
  where(ui, tiny, &x, &y);
  CHECK(y > ST_VIEW_AXIS_H && y + ST_VIEW_ROW_H / 2 <= 100);
  /* a panel that opens over the target moves it out from under */
  st_ui_set_cover(ui, 0, 0);
  st_ui_reveal(ui, g);
  where(ui, g, &x, &y);
  float top = y - 5; /* the panel's top edge: over the row */
  CHECK(top - ST_VIEW_AXIS_H >= 2 * ST_VIEW_ROW_H);
  CHECK(st_ui_set_cover(ui, 0, 200 - top) & ST_UI_VIEW);
  where(ui, g, &x, &y);
  CHECK(y > ST_VIEW_AXIS_H && y + ST_VIEW_ROW_H / 2 <= top + 0.5f);
  /* a top panel: the target below it */
  st_ui_set_cover(ui, 0, 0);
  st_ui_scroll_px(ui, 1000); /* the user scrolls: no target kept */
  float s = st_ui_view(ui)->scroll_y;
  CHECK((st_ui_set_cover(ui, 0, 60) & ST_UI_VIEW) == 0 || st_ui_view(ui)->scroll_y <= s);
  st_ui_set_cover(ui, 120, 0);
  st_ui_reveal(ui, tiny);
  where(ui, tiny, &x, &y);
  CHECK(y - ST_VIEW_ROW_H / 2 >= 120 - 0.5f && y < 200);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_hit);
  RUN(test_click_select);
  RUN(test_box_select);
  RUN(test_tools);
  RUN(test_mark_fit_esc);
  RUN(test_keys_zoom_pan);
  RUN(test_wheel);
  RUN(test_search_and_sections);
  RUN(test_search_reveals_and_keys);
  RUN(test_draw_overlay);
  RUN(test_follow);
  RUN(test_cover);
  return check_report();
}
