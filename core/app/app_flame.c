/* app_flame.c: the flame graph (core/analysis/flame.h) of the trace on screen,
 * a snapshot like the summary table (app.h): taken once (what it came from
 * is kept in the core's flame), shown from its JSON, and clicks go back
 * through the core's hit test and selection. Calls app_view.c.
 */
#include "app_internal.h"

#include <math.h>

/* The snapshot is of the trace on screen (a new one drops it). */
static int shown(const st_app *app) {
  return app->ui && app->fl.f && app->fl.from >= 0 && app->fl.trace == app->trace;
}

void st_app_flame_forget(st_app *app) {
  st_flame_destroy(app->fl.f);
  app->fl.f = NULL;
  app->fl.trace = NULL;
  app->fl.from = -1;
}

static int64_t clamp_ns(double t) {
  if (!(t > -9.2e18)) return INT64_MIN + 1;
  if (t > 9.2e18) return INT64_MAX - 1;
  return (int64_t)floor(t);
}

/* Whether the selection holds a sample. */
static int selection_has_samples(const st_trace *t, const st_selection *s) {
  uint32_t ns, nr, nt;
  const st_sel_span *sp = st_selection_spans(s, &ns);
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tr = st_trace_tracks(t, &nt);
  for (uint32_t i = 0; i < ns; i++)
    if (sp[i].row < nr && rows[sp[i].row].track < nt &&
        tr[rows[sp[i].row].track].kind == ST_TRACK_SAMPLES)
      return 1;
  return 0;
}

double st_app_flame_take(st_app *app, int from, int source, int track) {
  st_app_flame *fl = &app->fl;
  if (!app->ui) return -1;
  if (fl->trace != app->trace) st_app_flame_forget(app);
  if (!fl->f) fl->f = st_flame_create(&app->alloc);
  if (!fl->f) return -1;
  fl->trace = app->trace;
  const st_selection *sel = st_ui_selection(app->ui);
  double m0, m1;
  int has_mark = st_ui_mark(app->ui, &m0, &m1);
  if (from < 0) from = st_selection_count(sel) ? 0 : has_mark ? 1 : 2;
  if (from == 1 && !has_mark) return -1;
  uint32_t nt;
  st_trace_tracks(app->trace, &nt);
  if (track < 0 || (uint32_t)track >= nt) track = -1;
  st_flame_query q = {ST_FLAME_SAMPLES, NULL, 0, 0, track < 0 ? UINT32_MAX : (uint32_t)track};
  if (from == 0) {
    q.sel = sel;
    fl->t0_ns = fl->t1_ns = 0;
  } else {
    if (from == 2) st_ui_window(app->ui, &m0, &m1);
    if (m1 < m0) {
      double x = m0;
      m0 = m1;
      m1 = x;
    }
    fl->t0_ns = m0;
    fl->t1_ns = m1;
    q.t0 = clamp_ns(m0);
    q.t1 = clamp_ns(ceil(m1));
  }
  fl->from = from;
  fl->track = from == 0 ? -1 : track;
  if (source < 0) {
    if (from == 0) {
      source = selection_has_samples(app->trace, sel) ? ST_FLAME_SAMPLES : ST_FLAME_SLICES;
    } else {
      if (st_flame_build(fl->f, app->trace, &q) != ST_OK) return -1;
      source = st_flame_events(fl->f) ? ST_FLAME_SAMPLES : ST_FLAME_SLICES;
    }
  }
  q.source = source ? ST_FLAME_SLICES : ST_FLAME_SAMPLES;
  if (st_flame_build(fl->f, app->trace, &q) != ST_OK) {
    fl->from = -1;
    return -1;
  }
  return (double)st_flame_events(fl->f);
}

static void write_flame(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  static const char *const names[] = {"selection", "mark", "window"};
  const st_app_flame *fl = &app->fl;
  double origin_us = (double)st_trace_origin_ns(app->trace) / 1000.0;
  st_jout_lit(o, "{\"from\":");
  st_jout_str(o, names[fl->from], strlen(names[fl->from]));
  if (fl->from == 0) {
    st_jout_lit(o, ",\"start_us\":null,\"end_us\":null,\"track\":-1");
  } else {
    st_jout_lit(o, ",\"start_us\":");
    st_jout_sig(o, origin_us + fl->t0_ns / 1000.0, 17);
    st_jout_lit(o, ",\"end_us\":");
    st_jout_sig(o, origin_us + fl->t1_ns / 1000.0, 17);
    st_jout_lit(o, ",\"track\":");
    st_jout_i64(o, fl->track);
  }
  st_jout_lit(o, ",\"threads\":");
  st_jout_put(o, fl->threads.text, fl->threads.len);
  st_jout_lit(o, ",\"tree\":");
  st_jout_put(o, fl->tree.text, fl->tree.len);
  st_jout_lit(o, "}");
}

const char *st_app_flame_json(st_app *app, double min_share) {
  st_app_flame *fl = &app->fl;
  if (!shown(app)) return "null";
  if (!(min_share >= 0 && min_share <= 1)) min_share = 0;
  int samples = st_flame_source_of(fl->f) == ST_FLAME_SAMPLES;
  if (st_panel_flame_json(&fl->tree, app->trace, fl->f, min_share, 20000, &app->self_alloc) !=
          ST_OK ||
      st_panel_threads_json(&fl->threads, app->trace, samples ? ST_TRACK_SAMPLES : ST_TRACK_SLICES,
                            &app->self_alloc) != ST_OK)
    return "null";
  return st_app_json(app, &fl->text, write_flame, NULL, "null");
}

int st_app_flame_hit(st_app *app, double fx, int depth) {
  if (!shown(app) || depth < 0) return -1;
  uint32_t n = st_flame_hit(app->fl.f, fx, (uint32_t)depth);
  return n == UINT32_MAX ? -1 : (int)n;
}

double st_app_flame_select(st_app *app, int node) {
  if (!shown(app) || node < 0) return -1;
  st_selection *s = st_selection_create(&app->alloc);
  if (!s) return -1;
  double n = -1;
  if (st_flame_select(app->fl.f, (uint32_t)node, s) == ST_OK) {
    st_app_apply(app, st_ui_set_selection(app->ui, s));
    n = (double)st_selection_count(st_ui_selection(app->ui));
  }
  st_selection_destroy(s);
  return n;
}
