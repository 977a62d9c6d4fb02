/* flame_panel.c: the page's flame graph (core/index/flame.h), exported to web/flame.js.
 *
 * A snapshot like the summary table: st_wasm_flame_take() aggregates once
 * (what it came from is kept in the core's flame), the page draws it from
 * the JSON, and clicks go back through the core's hit test and selection.
 *
 *   st_wasm_flame_take(from, source, track) -> events aggregated (-1: failed)
 *       from: 0 the selection, 1 the timing mark's range, 2 the visible
 *             window, -1 the first that applies (selection, mark, window)
 *       source: 0 samples, 1 slices, -1 samples if there are any, else slices
 *       track: a range's thread (a track index of it), -1 every thread
 *   st_wasm_flame_json(min_share) -> {"from","start_us","end_us","track","threads":[...],
 *       "tree":{...}} (tree: core/ui/panel.h st_panel_flame_json; start/end null
 *       for a selection; threads: st_panel_threads_json, what track may name)
 *   st_wasm_flame_hit(fx, depth)  -> node index at share fx of row depth, -1 if none
 *   st_wasm_flame_select(node)    -> selects the events behind node (the
 *                                    samples through it / the slices at it);
 *                                    returns how many
 * A new trace drops the snapshot (st_flame_forget, from the swap in app.c).
 */
#include <emscripten.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "flame.h" /* core/index/flame.h */
#include "flame_panel.h"
#include "panel.h"

static struct {
  st_flame *f;
  const st_trace *trace; /* the trace on screen it was taken from (side by side:
                          * both panes show it, so either pane may use it) */
  int from;              /* 0 selection, 1 mark, 2 window; -1 none */
  int track;             /* the range's thread, -1 all */
  double t0_ns, t1_ns;
  st_panel_buf tree, threads;
  char *out;
  size_t out_cap;
} g_fl = {NULL, NULL, -1, -1, 0, 0, {0}, {0}, NULL, 0};

/* The snapshot is of the trace on screen (a new one drops it: st_flame_forget). */
static int shown(const st_app *app) {
  return app->ui && g_fl.f && g_fl.from >= 0 && g_fl.trace == app->trace;
}

void st_flame_forget(st_app *app) {
  st_flame_destroy(g_fl.f);
  g_fl.f = NULL;
  g_fl.trace = NULL;
  g_fl.from = -1;
  (void)app;
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

EMSCRIPTEN_KEEPALIVE double st_wasm_flame_take(int from, int source, int track) {
  st_app *app = st_app_get();
  if (!app->ui) return -1;
  if (g_fl.trace != app->trace) st_flame_forget(app);
  if (!g_fl.f) g_fl.f = st_flame_create(&app->alloc);
  if (!g_fl.f) return -1;
  g_fl.trace = app->trace;
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
    g_fl.t0_ns = g_fl.t1_ns = 0;
  } else {
    if (from == 2) st_ui_window(app->ui, &m0, &m1);
    if (m1 < m0) {
      double x = m0;
      m0 = m1;
      m1 = x;
    }
    g_fl.t0_ns = m0;
    g_fl.t1_ns = m1;
    q.t0 = clamp_ns(m0);
    q.t1 = clamp_ns(ceil(m1));
  }
  g_fl.from = from;
  g_fl.track = from == 0 ? -1 : track;
  if (source < 0) {
    if (from == 0) {
      source = selection_has_samples(app->trace, sel) ? ST_FLAME_SAMPLES : ST_FLAME_SLICES;
    } else {
      if (st_flame_build(g_fl.f, app->trace, &q) != ST_OK) return -1;
      source = st_flame_events(g_fl.f) ? ST_FLAME_SAMPLES : ST_FLAME_SLICES;
    }
  }
  q.source = source ? ST_FLAME_SLICES : ST_FLAME_SAMPLES;
  if (st_flame_build(g_fl.f, app->trace, &q) != ST_OK) {
    g_fl.from = -1;
    return -1;
  }
  return (double)st_flame_events(g_fl.f);
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_flame_json(double min_share) {
  st_app *app = st_app_get();
  if (!shown(app)) return "null";
  if (!(min_share >= 0 && min_share <= 1)) min_share = 0;
  int samples = st_flame_source_of(g_fl.f) == ST_FLAME_SAMPLES;
  if (st_panel_flame_json(&g_fl.tree, app->trace, g_fl.f, min_share, 20000, &app->alloc) != ST_OK ||
      st_panel_threads_json(&g_fl.threads, app->trace, samples ? ST_TRACK_SAMPLES : ST_TRACK_SLICES,
                            &app->alloc) != ST_OK)
    return "null";
  size_t need = g_fl.tree.len + g_fl.threads.len + 200;
  if (need > g_fl.out_cap) {
    char *o = realloc(g_fl.out, need);
    if (!o) return "null";
    g_fl.out = o;
    g_fl.out_cap = need;
  }
  static const char *names[] = {"selection", "mark", "window"};
  double origin_us = (double)st_trace_origin_ns(app->trace) / 1000.0;
  if (g_fl.from == 0)
    snprintf(g_fl.out, g_fl.out_cap,
             "{\"from\":\"selection\",\"start_us\":null,\"end_us\":null,\"track\":-1,"
             "\"threads\":%s,\"tree\":%s}",
             g_fl.threads.text, g_fl.tree.text);
  else
    snprintf(g_fl.out, g_fl.out_cap,
             "{\"from\":\"%s\",\"start_us\":%.17g,\"end_us\":%.17g,\"track\":%d,"
             "\"threads\":%s,\"tree\":%s}",
             names[g_fl.from], origin_us + g_fl.t0_ns / 1000.0, origin_us + g_fl.t1_ns / 1000.0,
             g_fl.track, g_fl.threads.text, g_fl.tree.text);
  return g_fl.out;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_flame_hit(double fx, int depth) {
  st_app *app = st_app_get();
  if (!shown(app) || depth < 0) return -1;
  uint32_t n = st_flame_hit(g_fl.f, fx, (uint32_t)depth);
  return n == UINT32_MAX ? -1 : (int)n;
}

EMSCRIPTEN_KEEPALIVE double st_wasm_flame_select(int node) {
  st_app *app = st_app_get();
  if (!shown(app) || node < 0) return -1;
  st_selection *s = st_selection_create(&app->alloc);
  if (!s) return -1;
  double n = -1;
  if (st_flame_select(g_fl.f, (uint32_t)node, s) == ST_OK) {
    unsigned ch = st_ui_set_selection(app->ui, s);
    st_app_apply(app, ch);
    n = (double)st_selection_count(st_ui_selection(app->ui));
  }
  st_selection_destroy(s);
  return n;
}
