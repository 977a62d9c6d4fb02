/* test_bulk.c: the first view's range (core/index/bulk.h) against its rule:
 * a lone event a million seconds before the work is left out (and counted),
 * outliers on both sides, an event that straddles the gap joins it to the
 * bulk, a sparse but continuous tail is kept, more than 1% far away is not
 * an outlier, tiny and empty traces, counters, and the ui's first view with
 * key 0 showing everything again. */
#include "check.h"
#include "bulk.h"
#include "ui.h"

#define SEC 1000000000LL

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

/* n events of 1 ms every 2 ms from `at` on one thread; then `extra`
 * (start, dur) pairs on another thread. Absolute ns. */
static st_trace *make(int n, int64_t at, const int64_t *extra, int nextra) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t t1 = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t t2 = st_builder_track(b, p, ST_TRACK_SLICES, 2, 0);
  uint32_t nm = S(b, "work");
  for (int i = 0; i < n; i++) st_builder_slice(b, t1, at + i * 2000000LL, 1000000, nm, 0, 0, 0);
  for (int i = 0; i < nextra; i++)
    st_builder_slice(b, t2, extra[2 * i], extra[2 * i + 1], S(b, "odd"), 0, 0, 0);
  return st_builder_finish(b, NULL);
}

static void test_one_far_outlier(void) {
  /* the Fuchsia shape: one event 1e6 s before 500 events spanning 1 s */
  int64_t base = 1000000 * SEC;
  int64_t odd[] = {0, 1000};
  st_trace *t = make(500, base, odd, 1);
  st_bulk b;
  st_bulk_range(t, &b);
  CHECK_EQ_INT(b.outside, 1);
  CHECK_EQ_INT(b.before, 1);
  CHECK_EQ_INT(b.after, 0);
  CHECK_EQ_INT(b.t0_ns, base); /* times from trace start: the odd one is 0 */
  CHECK_EQ_INT(b.t1_ns, base + 499 * 2000000LL + 1000000); /* the last event's end */
  st_trace_destroy(t);
}

static void test_both_sides_and_counters(void) {
  int64_t base = 50 * SEC;
  int64_t odd[] = {0, 10, base + 10000 * SEC, 5};
  st_trace *t = make(300, base, odd, 2);
  st_bulk r;
  st_bulk_range(t, &r);
  CHECK_EQ_INT(r.outside, 2);
  CHECK_EQ_INT(r.before, 1);
  CHECK_EQ_INT(r.after, 1);
  CHECK_EQ_INT(r.t0_ns, base);
  st_trace_destroy(t);
}

static void test_kept(void) {
  st_bulk r;
  /* an event straddling the gap (from the outlier into the work) joins them */
  int64_t base = 1000 * SEC;
  int64_t straddle[] = {0, base + 5000000};
  st_trace *t = make(400, base, straddle, 1);
  st_bulk_range(t, &r);
  CHECK_EQ_INT(r.outside, 0);
  CHECK_EQ_INT(r.t0_ns, 0);
  st_trace_destroy(t);
  /* a sparse but continuous tail: 50 events each 0.5 s apart after 200
   * dense ones in 0.4 s: no empty gap longer than 3 x IQR, nothing left out */
  int64_t tail[100];
  for (int i = 0; i < 50; i++) tail[2 * i] = 400000000LL + i * (SEC / 2), tail[2 * i + 1] = 1000;
  t = make(200, 0, tail, 50);
  st_bulk_range(t, &r);
  CHECK_EQ_INT(r.outside, 0);
  st_trace_destroy(t);
  /* far away but more than 1% of the events: not outliers */
  int64_t many[20];
  for (int i = 0; i < 10; i++) many[2 * i] = 1000 * SEC + i * 1000, many[2 * i + 1] = 10;
  t = make(200, 0, many, 10);
  st_bulk_range(t, &r);
  CHECK_EQ_INT(r.outside, 0);
  st_trace_destroy(t);
  /* 2 events: nothing to call an outlier; 1 event; none */
  int64_t two[] = {0, 10, 1000 * SEC, 10};
  t = make(0, 0, two, 2);
  st_bulk_range(t, &r);
  CHECK_EQ_INT(r.outside, 0);
  CHECK_EQ_INT(r.t1_ns, 1000 * SEC + 10);
  st_trace_destroy(t);
  t = make(1, 0, NULL, 0);
  st_bulk_range(t, &r);
  CHECK(r.outside == 0 && r.t0_ns == 0 && r.t1_ns == 1000000);
  st_trace_destroy(t);
  st_bulk_range(NULL, &r);
  CHECK(r.outside == 0 && r.t1_ns == 0);
}

static void test_counter_outlier(void) {
  /* a counter sample far after the slices is an event like any other */
  st_builder *b = st_builder_create(NULL);
  uint32_t p = st_builder_process(b, 1);
  uint32_t t1 = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t c = st_builder_track(b, p, ST_TRACK_COUNTER, 0, S(b, "mem"));
  for (int i = 0; i < 200; i++) st_builder_slice(b, t1, i * 1000, 500, S(b, "w"), 0, 0, 0);
  for (int i = 0; i < 50; i++) st_builder_counter(b, c, i * 4000, i);
  st_builder_counter(b, c, 3600 * SEC, 1);
  st_trace *t = st_builder_finish(b, NULL);
  st_bulk r;
  st_bulk_range(t, &r);
  CHECK_EQ_INT(r.outside, 1);
  CHECK_EQ_INT(r.after, 1);
  CHECK_EQ_INT(r.t1_ns, 199 * 1000 + 500);
  st_trace_destroy(t);
}

static void test_ui_first_view(void) {
  int64_t base = 1000000 * SEC;
  int64_t odd[] = {0, 1000};
  st_trace *t = make(500, base, odd, 1);
  st_ui *ui = st_ui_create(NULL, t, 1220, 700, 1);
  double w0, w1;
  st_ui_window(ui, &w0, &w1);
  /* the work fills the view (2% margins), the outlier is off screen */
  double span = 499 * 2000000.0 + 1000000;
  CHECK(w0 < (double)base && w0 > (double)base - 0.05 * span);
  CHECK(w1 > (double)base + span && w1 < (double)base + 1.05 * span);
  int64_t a, z;
  CHECK_EQ_INT(st_ui_outliers_hidden(ui, &a, &z), 1);
  CHECK(a == base && z == base + (int64_t)span);
  /* 0 shows everything; the notice is gone */
  unsigned ch = st_ui_key_down(ui, "0", 0);
  CHECK(ch & ST_UI_VIEW);
  st_ui_window(ui, &w0, &w1);
  CHECK(w0 <= 0 && w1 >= (double)base + span);
  CHECK_EQ_INT(st_ui_outliers_hidden(ui, NULL, NULL), 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
  /* without outliers the first view is the whole trace, as before */
  t = make(100, 0, NULL, 0);
  ui = st_ui_create(NULL, t, 1220, 700, 1);
  st_ui_window(ui, &w0, &w1);
  CHECK(w0 < 0 && w1 > 199000000.0);
  CHECK_EQ_INT(st_ui_outliers_hidden(ui, NULL, NULL), 0);
  st_ui_destroy(ui);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_one_far_outlier);
  RUN(test_both_sides_and_counters);
  RUN(test_kept);
  RUN(test_counter_outlier);
  RUN(test_ui_first_view);
  return check_report();
}
