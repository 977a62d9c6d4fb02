/* app_opstats.c: op statistics with distributions, duration histograms and
 * idle gaps of the view (app.h; issue 18): thin over core/analysis/opstats.h
 * (the statistics and the log bins) and core/analysis/analyze.h (steps and
 * idle gaps), so the page shows the numbers `strata analyze` prints.
 *
 * Scopes: 0 the whole trace, 1 the visible window, 2 one step (its window
 * in each file; a file without that step counts nothing), 3 the selection.
 * The files of a merged view share its timeline, so a time range applies to
 * the view as one trace; a step's windows are per file (its parts).
 *
 * The analysis (steps, the ST_APP_GAPS longest idle gaps with the host
 * slices overlapping each) is made on first use for the view on screen and
 * dropped with it or when files move (app->moves); from its gaps, one band
 * set per device (core/draw/draw.h st_draw_band_set: the device's rows,
 * its gaps by start) is what the frame shades when the highlight is on.
 * Calls app_view.c and app_set.c.
 */
#include "app_internal.h"

#include <math.h>
#include <stdlib.h>

static const char *const scope_names[] = {"trace", "window", "step", "selection"};

void st_app_opstats_forget(st_app *app) {
  st_app_ops *o = &app->ops;
  const st_alloc *a = &app->self_alloc;
  st_analysis_destroy(o->an);
  st_free(a, o->sets);
  st_free(a, o->g0);
  st_free(a, o->g1);
  st_free(a, o->rows);
  st_free(a, o->set_of);
  o->set_of = NULL;
  o->an = NULL;
  o->sets = NULL;
  o->g0 = o->g1 = NULL;
  o->rows = NULL;
  o->nsets = 0;
  o->trace = NULL;
}

/* The files of the view: its parts (merged) or the trace itself; *base
 * gets each one's first row in the view. */
static uint32_t view_files(const st_app *app, const st_trace **out, uint32_t *base) {
  uint32_t n;
  const st_trace_part *p = st_trace_parts(app->trace, &n);
  if (!p || !n) {
    out[0] = app->trace;
    base[0] = 0;
    return 1;
  }
  if (n > ST_APP_MAX_TRACES) n = ST_APP_MAX_TRACES;
  for (uint32_t k = 0; k < n; k++) {
    out[k] = p[k].trace;
    base[k] = p[k].row_base;
  }
  return n;
}

typedef struct gap_ix {
  uint32_t device, gap;
  int64_t t0;
} gap_ix;

static int cmp_gap(const void *x, const void *y) {
  const gap_ix *a = x, *b = y;
  if (a->device != b->device) return a->device < b->device ? -1 : 1;
  return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

/* The band sets of the analysis's gaps: per device with gaps, its rows (in
 * the view) and its gaps by start (disjoint: their ends ascend too). */
static st_code make_bands(st_app *app, const uint32_t *base) {
  st_app_ops *o = &app->ops;
  const st_alloc *a = &app->self_alloc;
  uint32_t ng, nd;
  const st_an_gap *g = st_analysis_gaps(o->an, &ng);
  const st_an_device *dv = st_analysis_devices(o->an, &nd);
  if (!ng || !nd) return ST_OK;
  gap_ix *ix = st_calloc(a, ng, sizeof *ix);
  o->g0 = st_calloc(a, ng, sizeof *o->g0);
  o->g1 = st_calloc(a, ng, sizeof *o->g1);
  o->sets = st_calloc(a, nd, sizeof *o->sets);
  o->set_of = st_calloc(a, nd, sizeof *o->set_of);
  if (!ix || !o->g0 || !o->g1 || !o->sets || !o->set_of) {
    st_free(a, ix);
    return ST_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < ng; i++) ix[i] = (gap_ix){g[i].device, i, g[i].t0_ns};
  qsort(ix, ng, sizeof *ix, cmp_gap);
  for (uint32_t i = 0; i < ng; i++) {
    o->g0[i] = g[ix[i].gap].t0_ns;
    o->g1[i] = g[ix[i].gap].t1_ns;
  }
  for (uint32_t d = 0; d < nd; d++) o->set_of[d] = UINT32_MAX;
  /* first the rows of every set (one array), then the pointers into it */
  uint32_t total_rows = 0, *first_row = st_calloc(a, nd, sizeof *first_row);
  st_code rc = first_row ? ST_OK : ST_ERR_NOMEM;
  for (uint32_t i = 0; i < ng && rc == ST_OK;) {
    uint32_t d = ix[i].device, j = i;
    while (j < ng && ix[j].device == d) j++;
    st_draw_band_set *s = &o->sets[o->nsets];
    o->set_of[d] = o->nsets;
    s->t0_ns = o->g0 + i;
    s->t1_ns = o->g1 + i;
    s->count = j - i;
    uint32_t *rows = NULL, nr = 0;
    rc = st_analysis_device_rows(o->an, a, d, &rows, &nr);
    if (rc == ST_OK && nr) {
      uint32_t *nrows = total_rows <= UINT32_MAX - nr
                            ? st_realloc_array(a, o->rows, (size_t)total_rows + nr, sizeof *nrows)
                            : NULL;
      if (!nrows) {
        rc = ST_ERR_NOMEM;
      } else {
        o->rows = nrows;
        for (uint32_t r = 0; r < nr; r++) o->rows[total_rows + r] = base[dv[d].trace] + rows[r];
        first_row[o->nsets] = total_rows;
        s->row_count = nr;
        total_rows += nr;
      }
    }
    st_free(a, rows);
    o->nsets++;
    i = j;
  }
  for (uint32_t k = 0; rc == ST_OK && k < o->nsets; k++)
    o->sets[k].rows = o->sets[k].row_count ? o->rows + first_row[k] : NULL;
  st_free(a, first_row);
  st_free(a, ix);
  return rc;
}

/* The analysis of the view on screen (made now if needed); NULL if none
 * could be made. */
static const st_analysis *analysis(st_app *app) {
  st_app_ops *o = &app->ops;
  if (!app->trace) return NULL;
  if (o->trace == app->trace && o->moves == app->moves) return o->an; /* NULL: failed */
  st_app_opstats_forget(app);                                         /* keeps gaps_on */
  o->trace = app->trace; /* tried once per view (a failure is not retried every frame) */
  o->moves = app->moves;
  const st_trace *files[ST_APP_MAX_TRACES];
  uint32_t base[ST_APP_MAX_TRACES];
  uint32_t n = view_files(app, files, base);
  st_analyze_opts opts = {.max_gaps = ST_APP_GAPS, .no_ops = 1};
  st_error err;
  o->an = st_analyze(&app->self_alloc, files, n, &opts, &err);
  if (o->an && make_bands(app, base) != ST_OK) {
    st_app_opstats_forget(app);
    o->trace = app->trace;
  }
  return o->an;
}

static int64_t clamp_ns(double t) {
  if (!(t > -9.2e18)) return INT64_MIN + 1;
  if (t > 9.2e18) return INT64_MAX - 1;
  return (int64_t)floor(t);
}

/* The ranges of a time scope: per file k, [t0[k], t1[k]); 0 if the scope
 * is not one of time (the selection) or cannot be had. */
static int scope_ranges(st_app *app, int scope, double step, uint32_t n, int64_t *t0, int64_t *t1) {
  double w0 = 0, w1 = 0;
  if (scope == 1) st_ui_window(app->ui, &w0, &w1);
  const st_analysis *an = NULL;
  if (scope == 2) {
    an = analysis(app);
    if (!an || !(fabs(step) < 9e18)) return 0;
  }
  for (uint32_t k = 0; k < n; k++) {
    if (scope == 0) {
      t0[k] = INT64_MIN;
      t1[k] = INT64_MAX;
    } else if (scope == 1) {
      t0[k] = clamp_ns(w0);
      t1[k] = clamp_ns(ceil(w1));
    } else {
      uint32_t j = st_analysis_find_step(an, k, (int64_t)step);
      const st_an_step *s = j != UINT32_MAX ? &st_analysis_steps(an, NULL)[j] : NULL;
      t0[k] = s ? s->t0_ns : 0;
      t1[k] = s ? s->t1_ns : 0; /* an empty range: nothing counted */
    }
  }
  return 1;
}

/* ---- op statistics ------------------------------------------------------- */

typedef struct ops_arg {
  const st_opstats *s;
  int scope;
  double step;
} ops_arg;

static void write_ops(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const ops_arg *x = arg;
  uint32_t n;
  const st_opstat *r = st_opstats_rows(x->s, &n);
  st_jout_lit(o, "{\"scope\":");
  st_jout_str(o, scope_names[x->scope], strlen(scope_names[x->scope]));
  st_jout_lit(o, ",\"step\":");
  if (x->scope == 2)
    st_jout_i64(o, (int64_t)x->step);
  else
    st_jout_lit(o, "null");
  st_jout_lit(o, ",\"names\":");
  st_jout_u64(o, st_opstats_names(x->s));
  st_jout_lit(o, ",\"rows\":[");
  for (uint32_t i = 0; i < n; i++) {
    if (i) st_jout_lit(o, ",");
    st_opstat_json(o, &r[i]);
  }
  st_jout_lit(o, "]}");
}

const char *st_app_opstats_json(st_app *app, int scope, double step, int top) {
  if (!app->ui || scope < 0 || scope > 3) return "null";
  const st_trace *files[ST_APP_MAX_TRACES];
  uint32_t base[ST_APP_MAX_TRACES];
  int64_t t0[ST_APP_MAX_TRACES], t1[ST_APP_MAX_TRACES];
  st_error err;
  st_opstats *s = NULL;
  uint32_t keep = top > 0 ? (uint32_t)top : 0;
  if (scope == 3) {
    s = st_opstats_build_sel(&app->alloc, app->trace, st_ui_selection(app->ui), keep, &err);
  } else if (scope == 2) {
    uint32_t n = view_files(app, files, base);
    if (!scope_ranges(app, scope, step, n, t0, t1)) return "null";
    s = st_opstats_build(&app->alloc, files, n, t0, t1, keep, &err);
  } else {
    if (!scope_ranges(app, scope, step, 1, t0, t1)) return "null";
    const st_trace *t = app->trace;
    s = st_opstats_build(&app->alloc, &t, 1, scope ? t0 : NULL, scope ? t1 : NULL, keep, &err);
  }
  if (!s) return "null";
  ops_arg x = {s, scope, step};
  const char *out = st_app_json(app, &app->ops.text, write_ops, &x, "null");
  st_opstats_destroy(s);
  return out;
}

/* ---- histograms ---------------------------------------------------------- */

typedef struct hist_arg {
  const char *name;
  size_t len;
  int scope;
  const st_hist_bin *bins;
  uint32_t n, first;
} hist_arg;

static void write_hist(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const hist_arg *x = arg;
  st_jout_lit(o, "{\"name\":");
  if (x->name)
    st_jout_str(o, x->name, x->len);
  else
    st_jout_lit(o, "null");
  st_jout_lit(o, ",\"scope\":");
  st_jout_str(o, scope_names[x->scope], strlen(scope_names[x->scope]));
  st_jout_lit(o, ",\"bins\":[");
  for (uint32_t i = 0; i < x->n; i++) {
    st_jout_lit(o, i ? ",{\"bin\":" : "{\"bin\":");
    st_jout_u64(o, x->first + i);
    st_jout_lit(o, ",\"lo_us\":");
    st_jout_us(o, x->bins[i].lo_ns);
    st_jout_lit(o, ",\"hi_us\":");
    st_jout_us(o, x->bins[i].hi_ns);
    st_jout_lit(o, ",\"count\":");
    st_jout_u64(o, x->bins[i].count);
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]}");
}

const char *st_app_histogram_json(st_app *app, const char *name, int scope, double step) {
  if (!app->ui || scope < 0 || scope > 3) return "null";
  st_hist_bin bins[ST_HIST_BINS_MAX];
  hist_arg x = {name, name ? strlen(name) : 0, scope, bins, 0, 0};
  if (scope == 3) {
    x.n =
        st_opstats_histogram_sel(app->trace, st_ui_selection(app->ui), name, x.len, bins, &x.first);
  } else {
    const st_trace *files[ST_APP_MAX_TRACES];
    uint32_t base[ST_APP_MAX_TRACES];
    int64_t t0[ST_APP_MAX_TRACES], t1[ST_APP_MAX_TRACES];
    uint32_t n = view_files(app, files, base);
    if (!scope_ranges(app, scope, step, n, t0, t1)) return "null";
    x.n = st_opstats_histogram(files, n, t0, t1, name, x.len, bins, &x.first);
  }
  return st_app_json(app, &app->ops.text, write_hist, &x, "null");
}

double st_app_histogram_select(st_app *app, const char *name, int scope, double step, double lo_us,
                               double hi_us) {
  if (!app->ui || scope < 0 || scope > 3 || !(lo_us >= 0) || !(hi_us > lo_us)) return -1;
  int64_t lo = clamp_ns(lo_us * 1000.0), hi = clamp_ns(hi_us * 1000.0);
  st_selection *out = st_selection_create(&app->alloc);
  if (!out) return -1;
  st_code c = ST_OK;
  size_t len = name ? strlen(name) : 0;
  if (scope == 3) {
    c = st_opstats_select(app->trace, 0, 0, st_ui_selection(app->ui), name, len, lo, hi, 0, out);
  } else {
    const st_trace *files[ST_APP_MAX_TRACES];
    uint32_t base[ST_APP_MAX_TRACES];
    int64_t t0[ST_APP_MAX_TRACES], t1[ST_APP_MAX_TRACES];
    uint32_t n = view_files(app, files, base);
    if (!scope_ranges(app, scope, step, n, t0, t1)) c = ST_ERR_ARG;
    for (uint32_t k = 0; c == ST_OK && k < n; k++)
      c = st_opstats_select(files[k], t0[k], t1[k], NULL, name, len, lo, hi, base[k], out);
  }
  double got = -1;
  if (c == ST_OK) {
    st_app_apply(app, st_ui_set_selection(app->ui, out));
    got = (double)st_selection_count(st_ui_selection(app->ui));
  }
  st_selection_destroy(out);
  return got;
}

/* ---- idle gaps ----------------------------------------------------------- */

double st_app_idle_gaps_show(st_app *app, int on) {
  st_app_ops *o = &app->ops;
  if (on < 0) on = app->an.cause_on || !o->gaps_on; /* from a cause's gaps: every gap */
  o->gaps_on = on ? 1 : 0;
  app->an.cause_on = 0; /* an idle cause's gaps (st_app_cause_gaps) no longer */
  st_app_request_redraw(app);
  if (!on) return 0;
  uint32_t n = 0;
  if (analysis(app)) st_analysis_gaps(app->ops.an, &n);
  return (double)n;
}

int st_app_idle_gaps_shown(const st_app *app) { return app->ops.gaps_on; }

void st_app_idle_gaps_overlay(st_app *app, st_draw_overlay *ov) {
  st_app_ops *o = &app->ops;
  if (app->an.cause_on) { /* one idle cause's gaps (app_analyze.c) */
    ov->bands = &app->an.cause_band;
    ov->band_sets = 1;
    return;
  }
  if (!o->gaps_on || !analysis(app)) return;
  ov->bands = o->sets;
  ov->band_sets = o->nsets;
}

/* The view's microseconds (its file's timebase, as st_app_view_json) of ns t. */
static double view_us(const st_app *app, int64_t t) {
  return ((double)st_trace_origin_ns(app->trace) + (double)t) / 1000.0;
}

static void write_gaps(st_jout *o, st_app *app, const void *arg) {
  int max = *(const int *)arg;
  const st_analysis *an = app->ops.an;
  uint32_t ng, nd;
  const st_an_gap *g = st_analysis_gaps(an, &ng);
  const st_an_device *dv = st_analysis_devices(an, &nd);
  st_jout_lit(o, "{\"devices\":");
  st_jout_u64(o, nd);
  st_jout_lit(o, ",\"highlighted\":");
  st_jout_u64(o, ng);
  st_jout_lit(o, ",\"shown\":");
  st_jout_lit(o, app->ops.gaps_on ? "true" : "false");
  st_jout_lit(o, ",\"gaps\":[");
  uint32_t n = max > 0 && (uint32_t)max < ng ? (uint32_t)max : ng;
  for (uint32_t i = 0; i < n; i++) {
    const st_an_gap *p = &g[i];
    const st_an_device *d = &dv[p->device];
    st_jout_lit(o, i ? ",{\"index\":" : "{\"index\":");
    st_jout_u64(o, i);
    st_jout_lit(o, ",\"trace\":");
    st_jout_u64(o, d->trace);
    st_jout_lit(o, ",\"device\":");
    st_jout_str(o, d->name, strlen(d->name));
    st_jout_lit(o, ",\"start_us\":");
    st_jout_sig(o, view_us(app, p->t0_ns), 17);
    st_jout_lit(o, ",\"end_us\":");
    st_jout_sig(o, view_us(app, p->t1_ns), 17);
    st_jout_lit(o, ",\"dur_us\":");
    st_jout_us(o, p->t1_ns - p->t0_ns);
    st_jout_lit(o, ",\"host\":[");
    const st_trace *t = st_analysis_trace(an, d->trace);
    uint32_t nr;
    const st_row *rows = st_trace_rows(t, &nr);
    for (uint32_t h = 0; h < p->host_count; h++) {
      st_event_ref ref = p->host[h].ref;
      if (ref.row >= nr || ref.index >= rows[ref.row].count) continue;
      size_t l;
      const char *nm = st_strtab_get(st_trace_strings(t), rows[ref.row].name[ref.index], &l);
      st_jout_lit(o, h ? ",{\"name\":" : "{\"name\":");
      st_jout_str(o, nm, l);
      st_jout_lit(o, ",\"start_us\":");
      st_jout_sig(o, view_us(app, rows[ref.row].start[ref.index]), 17);
      st_jout_lit(o, ",\"dur_us\":");
      st_jout_us(o, rows[ref.row].dur[ref.index]);
      st_jout_lit(o, ",\"overlap_us\":");
      st_jout_us(o, p->host[h].overlap_ns);
      st_jout_lit(o, "}");
    }
    st_jout_lit(o, "]}");
  }
  st_jout_lit(o, "]}");
}

const char *st_app_idle_gaps_json(st_app *app, int max) {
  if (!app->ui || !analysis(app)) return "null";
  return st_app_json(app, &app->ops.text, write_gaps, &max, "null");
}

int st_app_idle_gap_go(st_app *app, int index) {
  if (!app->ui || index < 0 || !analysis(app)) return 0;
  uint32_t ng, nd;
  const st_an_gap *g = st_analysis_gaps(app->ops.an, &ng);
  st_analysis_devices(app->ops.an, &nd);
  if ((uint32_t)index >= ng) return 0;
  const st_an_gap *p = &g[index];
  double len = (double)(p->t1_ns - p->t0_ns), margin = len * 0.25 + 1;
  unsigned ch = st_ui_set_view(app->ui, (double)p->t0_ns - margin, (double)p->t1_ns + margin);
  /* and down to the device's first row shown */
  uint32_t k = p->device < nd ? app->ops.set_of[p->device] : UINT32_MAX;
  const st_draw_band_set *s =
      k < app->ops.nsets && app->ops.sets[k].rows ? &app->ops.sets[k] : NULL;
  if (s) {
    const st_layout *lay = st_ui_layout(app->ui);
    uint32_t n;
    const st_layout_item *items = st_layout_items(lay, &n);
    uint32_t it = st_layout_item_of_row(lay, s->rows[0]);
    if (it < n && it >= st_layout_pinned_items(lay)) { /* a pinned row is in view already */
      const st_view *v = st_ui_view(app->ui);
      ch |= st_ui_scroll_px(app->ui, items[it].y - st_layout_pinned_height(lay) - v->scroll_y -
                                         2 * ST_VIEW_ROW_H);
    }
  }
  st_app_apply(app, ch);
  return 1;
}
