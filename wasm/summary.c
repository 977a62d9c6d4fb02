/* summary.c: the page's summary table (aggregation by name of the selection
 * or of everything in the visible window), exported to web/panels.js.
 *
 * The table is a snapshot: st_wasm_summary_take() aggregates once and keeps
 * the set of events it came from (for the window: one index span per row),
 * so re-sorting does not re-aggregate, and a row click can narrow the
 * selection to one name and then to another name of the same set (the
 * first click would otherwise have removed the others from the selection).
 *
 *   st_wasm_summary_take(window)          -> events aggregated (-1: failed)
 *   st_wasm_summary_json(col, desc, max)  -> {"source","events","names","rows":[...]}
 *                                            (core/ui/panel.h), sorted by col
 *   st_wasm_summary_select(name_id)       -> selects the set's events of that
 *                                            name (-1: the whole set again)
 * A new trace drops the snapshot (st_summary_forget, from the swap in app.c).
 */
#include <emscripten.h>
#include <math.h>
#include <stdint.h>

#include "app.h"
#include "panel.h"
#include "summary.h"

static struct {
  st_agg *agg;        /* the aggregation, sorted on demand */
  st_selection *base; /* the events it came from */
  int source;         /* -1 none, 0 selection, 1 window */
  const st_ui *ui;    /* the ui it was taken from */
  st_panel_buf text;
} g_sum = {NULL, NULL, -1, NULL, {0}};

void st_summary_forget(st_app *app) {
  st_agg_destroy(g_sum.agg);
  st_selection_destroy(g_sum.base);
  g_sum.agg = NULL;
  g_sum.base = NULL;
  g_sum.source = -1;
  g_sum.ui = NULL;
  (void)app;
}

static int64_t clamp_ns(double t) {
  if (!(t > -9.2e18)) return INT64_MIN + 1;
  if (t > 9.2e18) return INT64_MAX - 1;
  return (int64_t)floor(t);
}

/* Every event intersecting the visible window, one span per row (the same
 * events st_ui_summarize(window) aggregates). */
static st_code window_set(const st_ui *ui, st_selection *s) {
  double t0, t1;
  st_ui_window(ui, &t0, &t1);
  int64_t a = clamp_ns(t0), b = clamp_ns(ceil(t1));
  uint32_t nr;
  const st_row *rows = st_trace_rows(st_ui_trace(ui), &nr);
  st_selection_clear(s);
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t lo = st_row_first_end_gt(&rows[r], a), hi = st_row_first_start_ge(&rows[r], b);
    if (lo < hi && st_selection_add(s, r, lo, hi) != ST_OK) return ST_ERR_NOMEM;
  }
  return ST_OK;
}

EMSCRIPTEN_KEEPALIVE double st_wasm_summary_take(int window) {
  st_app *app = st_app_get();
  if (!app->ui) return -1;
  if (g_sum.ui != app->ui) st_summary_forget(app);
  if (!g_sum.agg) g_sum.agg = st_agg_create(&app->alloc, app->trace);
  if (!g_sum.base) g_sum.base = st_selection_create(&app->alloc);
  g_sum.source = -1;
  if (!g_sum.agg || !g_sum.base) return -1;
  g_sum.ui = app->ui;
  st_code c = window ? window_set(app->ui, g_sum.base)
                     : st_selection_copy(g_sum.base, st_ui_selection(app->ui));
  if (c == ST_OK) c = st_ui_summarize(app->ui, g_sum.agg, window);
  if (c != ST_OK) return -1;
  g_sum.source = window ? 1 : 0;
  return (double)st_agg_events(g_sum.agg);
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_summary_json(int col, int descending, int max_rows) {
  st_app *app = st_app_get();
  if (!app->ui || g_sum.ui != app->ui || g_sum.source < 0) return "null";
  if (col < ST_AGG_NAME || col > ST_AGG_MAX) col = ST_AGG_TOTAL;
  st_agg_sort(g_sum.agg, (st_agg_col)col, descending);
  st_code c =
      st_panel_agg_json(&g_sum.text, app->ui, g_sum.agg, g_sum.source ? "window" : "selection",
                        max_rows > 0 ? (uint32_t)max_rows : 0, &app->alloc);
  return c == ST_OK && g_sum.text.text ? g_sum.text.text : "null";
}

/* Selects the snapshot's events named name_id (negative: all of them).
 * Returns the number of events selected. */
EMSCRIPTEN_KEEPALIVE double st_wasm_summary_select(double name_id) {
  st_app *app = st_app_get();
  if (!app->ui || g_sum.ui != app->ui || g_sum.source < 0) return 0;
  unsigned ch = st_ui_set_selection(app->ui, g_sum.base);
  if (ch && name_id >= 0 && name_id <= (double)UINT32_MAX)
    ch |= st_ui_select_name(app->ui, (uint32_t)name_id, 0);
  st_app_apply(app, ch);
  return (double)st_selection_count(st_ui_selection(app->ui));
}
