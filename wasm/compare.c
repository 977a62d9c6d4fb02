/* compare.c: two runs compared in the page (issue 13): B aligned on A at
 * their first common step marker (core/index/profile.h st_profile_compare_offset)
 * and the diff table (core/index/diff.h) of the first two traces shown, A the
 * baseline and B the candidate. The traces are the workspace's (app.h): a
 * compare is a batch of two files; every part of the merged view has its
 * own model, so the diff runs on the two models as they are (their times
 * are on the shared timeline: a range is the same scene window for both).
 *
 *   st_wasm_compare_align()        -> {"kind","offset_us","step"} | null
 *   st_wasm_diff(by, range, t0_us, t1_us, step, col, desc) -> the diff JSON
 *       (core/index/diff.h st_diff_json); range 0 whole traces, 1 [t0, t1) in the
 *       view's microseconds (st_wasm_view_json's), 2 step `step` of each
 *   st_wasm_diff_sort(col, desc)   -> the same diff re-sorted
 *   st_wasm_diff_select(row)       -> selects the row's events in A and B;
 *                                     returns how many
 */
#include <emscripten.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "compare.h"
#include "diff.h"
#include "profile.h"

static st_diff *g_diff;
static const st_trace *g_merged; /* the view the diff's rows map to */
static char *g_json;

static const char *diff_text(void) {
  free(g_json);
  g_json = NULL;
  if (!g_diff) return "null";
  size_t need = st_diff_json(g_diff, 0, NULL, 0);
  g_json = malloc(need + 1);
  if (!g_json) return "null";
  st_diff_json(g_diff, 0, g_json, need + 1);
  return g_json;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_compare_align(void) {
  static char buf[160];
  st_app *app = st_app_get();
  if (app->shown_count < 2 || !app->merged) return "null";
  st_app_trace *a = &app->traces[app->shown[0]], *b = &app->traces[app->shown[1]];
  st_profile_alignment al;
  if (st_profile_compare_offset(&app->alloc, a->trace, b->trace, &al) != ST_OK) return "null";
  /* al.offset_ns moves B's times (as they are now) onto A's */
  if (!st_app_set_offset(app, app->shown[1], (double)b->offset_ns + (double)al.offset_ns))
    return "null";
  static const char *const kinds[] = {"start", "profiler_step", "steps_line", "xla_module",
                                      "events"};
  snprintf(buf, sizeof buf, "{\"kind\":\"%s\",\"offset_us\":%.17g,\"step\":%lld}",
           (unsigned)al.kind < 5 ? kinds[al.kind] : "start",
           (double)(b->offset_ns - a->offset_ns) / 1000.0, (long long)al.step);
  return buf;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_diff(int by, int range, double t0_us, double t1_us,
                                              double step, const char *col, int desc) {
  st_app *app = st_app_get();
  st_diff_destroy(g_diff);
  g_diff = NULL;
  g_merged = NULL;
  if (app->shown_count < 2 || !app->merged) return "null";
  const st_trace *a = app->traces[app->shown[0]].trace, *b = app->traces[app->shown[1]].trace;
  st_diff_opts o;
  memset(&o, 0, sizeof o);
  o.by = by ? ST_DIFF_BY_CAT : ST_DIFF_BY_NAME;
  if (range == 1) { /* the window, in the view's microseconds: scene ns */
    double origin = (double)st_trace_origin_ns(app->merged);
    double s0 = t0_us * 1000.0 - origin, s1 = t1_us * 1000.0 - origin;
    if (!(s1 > s0) || !(fabs(s0) < 9e18) || !(fabs(s1) < 9e18)) return "null";
    o.range_a = o.range_b = 1;
    o.a_t0_ns = o.b_t0_ns = (int64_t)floor(s0);
    o.a_t1_ns = o.b_t1_ns = (int64_t)ceil(s1);
  } else if (range == 2) { /* one step of each */
    st_event_ref r;
    if (!(step >= 0 && step < 9e18) ||
        !st_profile_find_step(a, (int64_t)step, &r, &o.a_t0_ns, &o.a_t1_ns) ||
        !st_profile_find_step(b, (int64_t)step, &r, &o.b_t0_ns, &o.b_t1_ns))
      return "null";
    o.range_a = o.range_b = 1;
  }
  st_error err;
  g_diff = st_diff_build(&app->alloc, a, b, &o, &err);
  if (!g_diff) return "null";
  g_merged = app->merged;
  st_diff_col c = st_diff_col_parse(col, strlen(col));
  if (c != ST_DIFF_COL_COUNT_) st_diff_sort(g_diff, c, desc);
  return diff_text();
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_diff_sort(const char *col, int desc) {
  st_diff_col c = st_diff_col_parse(col, strlen(col));
  if (!g_diff || c == ST_DIFF_COL_COUNT_) return "null";
  st_diff_sort(g_diff, c, desc);
  return diff_text();
}

EMSCRIPTEN_KEEPALIVE double st_wasm_diff_select(int row) {
  st_app *app = st_app_get();
  uint32_t n;
  st_diff_rows(g_diff, &n);
  if (!g_diff || !app->ui || g_merged != app->merged || row < 0 || (uint32_t)row >= n) return -1;
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(app->merged, &np);
  st_selection *sel = st_selection_create(&app->alloc);
  if (!sel || np < 2) {
    st_selection_destroy(sel);
    return -1;
  }
  double count = 0;
  for (int side = 0; side < 2; side++) {
    st_diff_iter it;
    st_event_ref ref;
    st_diff_events_begin(g_diff, (uint32_t)row, (st_diff_side)side, &it);
    while (st_diff_events_next(&it, &ref)) /* a part's row r is the view's row_base + r */
      if (st_selection_add(sel, parts[side].row_base + ref.row, ref.index, ref.index + 1) == ST_OK)
        count++;
  }
  st_app_apply(app, st_ui_set_selection(app->ui, sel));
  st_selection_destroy(sel);
  return count;
}

/* The workspace changed (a new batch): the diff's traces are gone. */
void st_compare_forget(void) {
  st_diff_destroy(g_diff);
  g_diff = NULL;
  g_merged = NULL;
}
