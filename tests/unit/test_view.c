/* test_view.c: viewport arithmetic (fit, zoom around the mouse, pan, clamps)
 * and the layout (sections, rows, counters, collapse, first_at). */
#include "check.h"
#include "view.h"

#include <math.h>

static st_trace *small_trace(void) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t p1 = st_builder_process(b, 10), p2 = st_builder_process(b, 20);
  uint32_t t1 = st_builder_track(b, p1, ST_TRACK_SLICES, 1, st_strtab_intern(s, "main", 4));
  uint32_t t2 = st_builder_track(b, p2, ST_TRACK_SLICES, 2, 0);
  uint32_t c = st_builder_track(b, p2, ST_TRACK_COUNTER, 0, st_strtab_intern(s, "mem", 3));
  st_builder_slice(b, t1, 1000, 9000, 0, 0, 0, 0);
  st_builder_slice(b, t1, 2000, 1000, 0, 0, 0, 0); /* depth 1 */
  st_builder_slice(b, t1, 2100, 100, 0, 0, 0, 0);  /* depth 2 */
  st_builder_slice(b, t2, 5000, 100, 0, 0, 0, 0);
  st_builder_counter(b, c, 1000, 1);
  st_builder_counter(b, c, 11000, 2);
  return st_builder_finish(b, NULL);
}

static void test_fit_and_mapping(void) {
  st_trace *t = small_trace();
  st_view v;
  st_view_fit(&v, t, 1220, 700, 2);
  CHECK(v.width == 1220 && v.height == 700 && v.dpr == 2 && v.scroll_y == 0);
  CHECK_EQ_INT((int)st_view_timeline_w(&v), 1000);
  float x0 = st_view_x_of(&v, 0), x1 = st_view_x_of(&v, (double)st_trace_duration_ns(t));
  CHECK(x0 > ST_VIEW_GUTTER_W && x0 < ST_VIEW_GUTTER_W + 40);
  CHECK(x1 < 1220 && x1 > 1180);
  CHECK(fabs(st_view_time_at(&v, st_view_x_of(&v, 1234)) - 1234) < 1e-3);
  /* empty trace: still a sane scale */
  st_builder *b = st_builder_create(NULL);
  st_trace *e = st_builder_finish(b, NULL);
  st_view_fit(&v, e, 800, 600, 1);
  CHECK(v.ns_per_px > 0 && isfinite(v.t0_ns));
  st_view_fit(&v, e, 100, 600, 1); /* canvas narrower than the gutter */
  CHECK(v.ns_per_px > 0 && isfinite(v.ns_per_px));
  CHECK(st_view_timeline_w(&v) == 0);
  st_trace_destroy(e);
  st_trace_destroy(t);
}

static void test_zoom_keeps_mouse_time(void) {
  st_view v = {.t0_ns = -500, .ns_per_px = 37.5, .width = 1500, .height = 800, .dpr = 1};
  const float xs[] = {ST_VIEW_GUTTER_W, 300.5f, 777, 1499};
  const double fs[] = {2.0, 0.5, 10.0, 1.0001, 1e-3};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
      double before = st_view_time_at(&v, xs[i]), s0 = v.ns_per_px;
      st_view_zoom(&v, fs[k], xs[i]);
      CHECK(fabs(st_view_time_at(&v, xs[i]) - before) < 1e-6 * fmax(1, fabs(before)));
      CHECK(fabs(v.ns_per_px - s0 / fs[k]) < 1e-9 * s0 / fs[k]);
    }
  }
  /* outside the timeline: zoom around its centre */
  float cx = ST_VIEW_GUTTER_W + st_view_timeline_w(&v) / 2;
  double c = st_view_time_at(&v, cx);
  st_view_zoom(&v, 4, 10);
  CHECK(fabs(st_view_time_at(&v, cx) - c) < 1e-6 * fmax(1, fabs(c)));
  /* clamps and bad factors */
  for (int i = 0; i < 100; i++) st_view_zoom(&v, 10, 500);
  CHECK(v.ns_per_px >= 1e-3);
  for (int i = 0; i < 100; i++) st_view_zoom(&v, 0.1, 500);
  CHECK(v.ns_per_px <= 1e15);
  double s = v.ns_per_px;
  st_view_zoom(&v, 0, 500);
  st_view_zoom(&v, -2, 500);
  st_view_zoom(&v, NAN, 500);
  CHECK(v.ns_per_px == s);
}

static void test_pan(void) {
  st_view v = {.t0_ns = 100, .ns_per_px = 2, .width = 1000, .height = 500, .dpr = 1};
  double t = st_view_time_at(&v, 500);
  st_view_pan_px(&v, 50);
  CHECK(fabs(st_view_time_at(&v, 500) - (t + 100)) < 1e-9);
  st_view_pan_px(&v, -50);
  CHECK(fabs(v.t0_ns - 100) < 1e-9);
}

static uint32_t linear_first_at(const st_layout_item *it, uint32_t n, float y) {
  for (uint32_t i = 0; i < n; i++)
    if (it[i].y + it[i].h > y) return i;
  return n;
}

/* Rows that say what they are (issue 12): a thread's instants are ordered
 * just before its slices and laid out as their marker lane (one label, no
 * gap); labels that would read the same in a section say what tells them
 * apart (a thread its tid); sections apart may repeat a label. */
static void test_marker_lane_and_labels(void) {
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  uint32_t py = st_strtab_intern(s, "python", 6), st = st_strtab_intern(s, "Steps", 5);
  uint32_t p = st_builder_process(b, 10), q = st_builder_process(b, 20);
  /* created instants first, and with a lower sort key than the slices' */
  uint32_t mk = st_builder_track(b, p, ST_TRACK_INSTANTS, 7, py);
  uint32_t as = st_builder_track(b, p, ST_TRACK_ASYNC, 55, py);
  uint32_t t7 = st_builder_track(b, p, ST_TRACK_SLICES, 7, py);
  uint32_t t8 = st_builder_track(b, p, ST_TRACK_SLICES, 8, py);
  uint32_t pi = st_builder_track(b, p, ST_TRACK_INSTANTS, -1, 0); /* the process's own */
  uint32_t q1 = st_builder_track(b, q, ST_TRACK_SLICES, 1, st);
  uint32_t q1m = st_builder_track(b, q, ST_TRACK_INSTANTS, 1, st);
  uint32_t q2 = st_builder_track(b, q, ST_TRACK_SLICES, 2, st_strtab_intern(s, "Ops", 3));
  st_builder_slice(b, mk, 1500, 0, 0, 0, 0, ST_EV_INSTANT);
  st_builder_slice(b, t7, 1000, 1000, 0, 0, 1, 0);
  st_builder_slice(b, t7, 1200, 100, 0, 0, 2, 0); /* depth 1 */
  st_builder_slice(b, t8, 1000, 50, 0, 0, 3, 0);
  st_builder_slice(b, as, 1000, 50, 0, 0, 4, 0);
  st_builder_slice(b, pi, 1100, 0, 0, 0, 5, ST_EV_INSTANT);
  st_builder_slice(b, q1, 1000, 50, 0, 0, 6, 0);
  st_builder_slice(b, q1m, 1010, 0, 0, 0, 7, ST_EV_INSTANT);
  st_builder_slice(b, q2, 1000, 50, 0, 0, 8, 0);
  st_trace *t = st_builder_finish(b, NULL);
  CHECK(t != NULL);
  if (!t) return;
  uint32_t nt;
  const st_track *ts = st_trace_tracks(t, &nt);
  /* the markers sit just before their thread's slices */
  uint32_t markers = 0;
  for (uint32_t i = 0; i < nt; i++) {
    if (!ts[i].markers) continue;
    markers++;
    CHECK(i + 1 < nt && ts[i + 1].kind == ST_TRACK_SLICES && ts[i + 1].key == ts[i].key);
  }
  CHECK_EQ_INT(markers, 2);
  st_layout *l = st_layout_create(NULL, t);
  uint32_t n;
  const st_layout_item *it = st_layout_items(l, &n);
  char buf[320];
  const char *want[] = {"python (tid 7)", "python (tid 8)", "python (async #3)",
                        "instants",       "Steps",          "Ops"};
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (it[i].kind == ST_LAYOUT_SECTION || !it[i].first_of_track) continue;
    st_layout_track_label(l, it[i].track, buf, sizeof buf);
    if (k < 6) CHECK_EQ_STR(buf, want[k]);
    k++;
    if (ts[it[i].track].markers) {
      /* one track: the lane, then the thread's 2 (or 1) slice rows, no gap, no label */
      CHECK(i + 1 < n && !it[i + 1].first_of_track && it[i + 1].y == it[i].y + it[i].h);
      CHECK(ts[it[i + 1].track].kind == ST_TRACK_SLICES);
      CHECK_EQ_INT(st_layout_item_of_row(l, it[i + 1].row), i + 1);
      CHECK_EQ_INT(st_layout_item_of_row(l, it[i].row), i);
    }
  }
  CHECK_EQ_INT(k, 6);
  st_layout_destroy(l);
  st_trace_destroy(t);
}

static void test_layout(void) {
  st_trace *t = small_trace();
  st_layout *l = st_layout_create(NULL, t);
  CHECK(l != NULL);
  uint32_t n;
  const st_layout_item *it = st_layout_items(l, &n);
  /* section(10), 3 rows of main; section(20), 1 row, counter */
  CHECK_EQ_INT(n, 7);
  CHECK_EQ_INT(it[0].kind, ST_LAYOUT_SECTION);
  CHECK_EQ_INT(it[0].process, 0);
  CHECK_EQ_INT(it[1].kind, ST_LAYOUT_ROW);
  CHECK_EQ_INT(it[1].first_of_track, 1);
  CHECK_EQ_INT(it[2].first_of_track, 0);
  CHECK_EQ_INT(it[3].row, 2);
  CHECK_EQ_INT(it[4].kind, ST_LAYOUT_SECTION);
  CHECK_EQ_INT(it[4].process, 1);
  CHECK_EQ_INT(it[5].kind, ST_LAYOUT_ROW);
  CHECK_EQ_INT(it[6].kind, ST_LAYOUT_COUNTER);
  CHECK_EQ_INT(it[6].row, 0);
  CHECK(it[6].h == ST_VIEW_COUNTER_H);
  for (uint32_t i = 1; i < n; i++) CHECK(it[i].y >= it[i - 1].y + it[i - 1].h);
  float h = st_layout_height(l);
  CHECK(h >= it[n - 1].y + it[n - 1].h);
  for (float y = -5; y < h + 10; y += 0.75f)
    CHECK_EQ_INT(st_layout_first_at(l, y), linear_first_at(it, n, y));

  st_layout_set_collapsed(l, 0, 1);
  CHECK(st_layout_collapsed(l, 0));
  it = st_layout_items(l, &n);
  CHECK_EQ_INT(n, 4);
  CHECK_EQ_INT(it[0].kind, ST_LAYOUT_SECTION);
  CHECK_EQ_INT(it[1].kind, ST_LAYOUT_SECTION);
  CHECK(st_layout_height(l) < h);
  for (float y = -5; y < h + 10; y += 0.75f)
    CHECK_EQ_INT(st_layout_first_at(l, y), linear_first_at(it, n, y));
  st_layout_set_collapsed(l, 0, 0);
  st_layout_items(l, &n);
  CHECK_EQ_INT(n, 7);
  CHECK(st_layout_height(l) == h);
  st_layout_set_collapsed(l, 99, 1); /* out of range: ignored */
  CHECK(!st_layout_collapsed(l, 99));
  st_layout_destroy(l);
  st_trace_destroy(t);
  CHECK(st_layout_create(NULL, NULL) == NULL);
}

int main(void) {
  RUN(test_fit_and_mapping);
  RUN(test_zoom_keeps_mouse_time);
  RUN(test_pan);
  RUN(test_layout);
  RUN(test_marker_lane_and_labels);
  return check_report();
}
