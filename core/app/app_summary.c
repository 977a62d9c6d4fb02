/* app_summary.c: the summary table (aggregation by name of the selection or
 * of everything in the visible window), a snapshot (app.h): taken once with
 * the set of events it came from (for the window: one index span per row),
 * so re-sorting does not aggregate again, and a row click can narrow the
 * selection to one name and then to another name of the same set (the
 * first click would otherwise have removed the others from the selection).
 * Calls app_view.c.
 */
#include "app_internal.h"

#include <math.h>

void st_app_summary_forget(st_app *app) {
  st_app_summary *s = &app->sum;
  st_agg_destroy(s->agg);
  st_selection_destroy(s->base);
  s->agg = NULL;
  s->base = NULL;
  s->source = -1;
  s->ui = NULL;
}

/* The snapshot is of the ui in use, taken since the files last moved. */
static int current(const st_app *app) {
  const st_app_summary *s = &app->sum;
  return app->ui && s->ui == app->ui && s->source >= 0 && s->moves == app->moves;
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

double st_app_summary_take(st_app *app, int window) {
  st_app_summary *s = &app->sum;
  if (!app->ui) return -1;
  if (s->ui != app->ui) st_app_summary_forget(app);
  if (!s->agg) s->agg = st_agg_create(&app->alloc, app->trace);
  if (!s->base) s->base = st_selection_create(&app->alloc);
  s->source = -1;
  if (!s->agg || !s->base) return -1;
  s->ui = app->ui;
  s->moves = app->moves;
  st_code c =
      window ? window_set(app->ui, s->base) : st_selection_copy(s->base, st_ui_selection(app->ui));
  if (c == ST_OK) c = st_ui_summarize(app->ui, s->agg, window);
  if (c != ST_OK) return -1;
  s->source = window ? 1 : 0;
  return (double)st_agg_events(s->agg);
}

const char *st_app_summary_json(st_app *app, int col, int descending, int max_rows) {
  st_app_summary *s = &app->sum;
  if (!current(app)) return "null";
  if (col < ST_AGG_NAME || col > ST_AGG_MAX) col = ST_AGG_TOTAL;
  st_agg_sort(s->agg, (st_agg_col)col, descending);
  st_code c = st_panel_agg_json(&s->text, app->ui, s->agg, s->source ? "window" : "selection",
                                max_rows > 0 ? (uint32_t)max_rows : 0, &app->self_alloc);
  return c == ST_OK && s->text.text ? s->text.text : "null";
}

double st_app_summary_select(st_app *app, double name_id) {
  if (!current(app)) return 0;
  unsigned ch = st_ui_set_selection(app->ui, app->sum.base);
  if (ch && name_id >= 0 && name_id <= (double)UINT32_MAX)
    ch |= st_ui_select_name(app->ui, (uint32_t)name_id, 0);
  st_app_apply(app, ch);
  return (double)st_selection_count(st_ui_selection(app->ui));
}
