/* app_diff.c: two runs compared (app.h): B aligned on A at their first
 * common step marker (core/set/profile.h st_profile_compare_offset) and
 * the diff table (core/analysis/diff.h) of the first two traces shown, A the
 * baseline and B the candidate (their file names in the JSON: "file_a",
 * "file_b"). Every part of the merged view has its own
 * model, so the diff runs on the two models as they are (their times are on
 * the shared timeline: a range is the same window for both). Calls
 * app_view.c.
 */
#include "app_internal.h"

#include <math.h>
#include <string.h>

#include "profile.h"

void st_app_diff_forget(st_app *app) {
  st_diff_destroy(app->cmp.diff);
  app->cmp.diff = NULL;
  app->cmp.merged = NULL;
}

/* st_diff_json's object with the two files' names added: "file_a", "file_b". */
static void write_diff(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  size_t n = st_diff_json(app->cmp.diff, 0, room ? o->buf + o->len : NULL, room);
  o->len += n ? n - 1 : 0; /* the closing brace: the names go in first */
  for (uint32_t k = 0; k < 2; k++) {
    st_traceset_file f;
    const char *name = st_traceset_get(app->set, st_app_part(app, k), &f) && f.name ? f.name : "";
    st_jout_lit(o, k ? ",\"file_b\":" : ",\"file_a\":");
    st_jout_str(o, name, strlen(name));
  }
  st_jout_lit(o, "}");
}

static const char *diff_text(st_app *app) {
  if (!app->cmp.diff) return "null";
  return st_app_json(app, &app->cmp.text, write_diff, NULL, "null");
}

typedef struct alignment {
  st_profile_alignment al;
  double offset_us;
} alignment;

static void write_alignment(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  static const char *const kinds[] = {"start", "profiler_step", "steps_line", "xla_module",
                                      "events"};
  const alignment *a = arg;
  const char *kind = (unsigned)a->al.kind < 5 ? kinds[a->al.kind] : "start";
  st_jout_lit(o, "{\"kind\":");
  st_jout_str(o, kind, strlen(kind));
  st_jout_lit(o, ",\"offset_us\":");
  st_jout_sig(o, a->offset_us, 17);
  st_jout_lit(o, ",\"step\":");
  st_jout_i64(o, a->al.step);
  st_jout_lit(o, "}");
}

const char *st_app_compare_align(st_app *app) {
  st_traceset_file a, b;
  if (!app->trace || !st_traceset_get(app->set, st_app_part(app, 0), &a) ||
      !st_traceset_get(app->set, st_app_part(app, 1), &b))
    return "null";
  alignment al;
  if (st_profile_compare_offset(&app->alloc, a.trace, b.trace, &al.al) != ST_OK) return "null";
  /* al.offset_ns moves B's times (as they are now) onto A's */
  if (!st_app_set_offset_ns(app, st_app_part(app, 1),
                            (double)b.offset_ns + (double)al.al.offset_ns))
    return "null";
  st_traceset_get(app->set, st_app_part(app, 0), &a); /* the offsets now */
  st_traceset_get(app->set, st_app_part(app, 1), &b);
  al.offset_us = (double)(b.offset_ns - a.offset_ns) / 1000.0;
  return st_app_json(app, &app->small, write_alignment, &al, "null");
}

const char *st_app_diff(st_app *app, int by, int range, double t0_us, double t1_us, double step,
                        const char *col, int desc) {
  st_app_diff_forget(app);
  st_traceset_file fa, fb;
  if (!app->trace || !col || !st_traceset_get(app->set, st_app_part(app, 0), &fa) ||
      !st_traceset_get(app->set, st_app_part(app, 1), &fb))
    return "null";
  const st_trace *a = fa.trace, *b = fb.trace;
  st_diff_opts o;
  memset(&o, 0, sizeof o);
  o.by = by ? ST_DIFF_BY_CAT : ST_DIFF_BY_NAME;
  if (range == 1) { /* the window, in the view's microseconds: scene ns */
    double origin = (double)st_trace_origin_ns(app->trace);
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
  app->cmp.diff = st_diff_build(&app->alloc, a, b, &o, &err);
  if (!app->cmp.diff) return "null";
  app->cmp.merged = app->trace;
  st_diff_col c = st_diff_col_parse(col, strlen(col));
  if (c != ST_DIFF_COL_COUNT_) st_diff_sort(app->cmp.diff, c, desc);
  return diff_text(app);
}

const char *st_app_diff_sort(st_app *app, const char *col, int desc) {
  if (!app->cmp.diff || !col) return "null";
  st_diff_col c = st_diff_col_parse(col, strlen(col));
  if (c == ST_DIFF_COL_COUNT_) return "null";
  st_diff_sort(app->cmp.diff, c, desc);
  return diff_text(app);
}

double st_app_diff_select(st_app *app, int row) {
  uint32_t n;
  if (!app->cmp.diff || !app->ui || app->cmp.merged != app->trace || row < 0) return -1;
  st_diff_rows(app->cmp.diff, &n);
  if ((uint32_t)row >= n) return -1;
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  st_selection *sel = st_selection_create(&app->alloc);
  if (!sel || np < 2) {
    st_selection_destroy(sel);
    return -1;
  }
  double count = 0;
  for (int side = 0; side < 2; side++) {
    st_diff_iter it;
    st_event_ref ref;
    st_diff_events_begin(app->cmp.diff, (uint32_t)row, (st_diff_side)side, &it);
    while (st_diff_events_next(&it, &ref)) /* a part's row r is the view's row_base + r */
      if (st_selection_add(sel, parts[side].row_base + ref.row, ref.index, ref.index + 1) == ST_OK)
        count++;
  }
  st_app_apply(app, st_ui_set_selection(app->ui, sel));
  /* the first selected row in view, clear of the panels */
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(sel, &ns);
  if (ns) st_app_apply(app, st_ui_show_row(app->ui, sp[0].row, 0, 0));
  st_selection_destroy(sel);
  return count;
}
