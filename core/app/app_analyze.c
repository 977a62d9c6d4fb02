/* app_analyze.c: answers for the files shown (issue 18 in the page, app.h
 * "analysis"): the analysis of core/analysis/analyze.h over the shown files'
 * own models, written by st_analysis_json exactly as `strata analyze
 * FILE... --json` writes it (times in each file's own time: a merged
 * view's parts are shifted back by st_trace_shift_ns); going to one
 * file's window (a step, an idle gap: the time window set and that file's
 * or device's section scrolled to the top); selecting every event of a
 * name (an op of the overview: its instances). The last analysis is
 * kept (its devices' processes, for going to a device) with its JSON
 * until the next or until the view goes: asked again the same (step name,
 * ops, gaps) while the files shown did not move, it answers that JSON
 * without analysing again (the page asks once after a trace's first
 * frame, so that the overview opens within a frame). Calls app_view.c,
 * and app_collectives.c to drop the collectives with the analysis.
 */
#include "app_internal.h"

#include <math.h>
#include <string.h>

#include "analyze.h"
#include "memory.h"

/* ---- the analysis as JSON -------------------------------------------------------- */

typedef struct an_text {
  const st_analysis *an;
  const st_analysis_json_opts *jo;
} an_text;

static void write_analysis(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const an_text *t = arg;
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  o->len += st_analysis_json(t->an, t->jo, room ? o->buf + o->len : NULL, room);
}

static void cause_forget(st_app *app) {
  const st_alloc *a = &app->self_alloc;
  st_free(a, app->an.cause_g0);
  st_free(a, app->an.cause_g1);
  st_free(a, app->an.cause_rows);
  app->an.cause_g0 = app->an.cause_g1 = NULL;
  app->an.cause_rows = NULL;
  memset(&app->an.cause_band, 0, sizeof app->an.cause_band);
  if (app->an.cause_on) st_app_request_redraw(app);
  app->an.cause_on = 0;
}

void st_app_analyze_forget(st_app *app) {
  cause_forget(app);
  st_panel_buf_free(&app->an.cause_text, &app->self_alloc);
  st_app_coll_forget(app);
  st_analysis_destroy(app->an.result);
  app->an.result = NULL;
  st_free(&app->self_alloc, app->an.step);
  app->an.step = NULL;
}

/* 1: the kept analysis answers (step_name, top_ops, max_gaps) as asked now. */
static int kept(const st_app *app, const char *step_name, int top_ops, int max_gaps) {
  return app->an.result && app->an.step && app->an.text.text &&
         strcmp(app->an.step, step_name) == 0 && app->an.top == top_ops &&
         app->an.gaps == max_gaps && app->an.moves == app->moves;
}

const char *st_app_analyze(st_app *app, const char *step_name, int top_ops, int max_gaps) {
  uint32_t n = st_app_count(app);
  if (!app->trace || !n || n > ST_APP_MAX_TRACES) return "null";
  const st_trace *traces[ST_APP_MAX_TRACES];
  const char *files[ST_APP_MAX_TRACES], *groups[ST_APP_MAX_TRACES];
  int64_t shift[ST_APP_MAX_TRACES];
  for (uint32_t k = 0; k < n; k++) {
    st_traceset_file f;
    if (!st_traceset_get(app->set, st_app_part(app, k), &f)) return "null";
    traces[k] = f.trace;
    files[k] = f.name;
    groups[k] = f.group;
    shift[k] = st_trace_shift_ns(f.trace);
  }
  st_analyze_opts o;
  memset(&o, 0, sizeof o);
  if (step_name && step_name[0]) {
    o.step_name = step_name;
    o.step_name_len = strlen(step_name);
  }
  o.top_ops = top_ops < 0 ? 20 : top_ops == 0 ? UINT32_MAX : (uint32_t)top_ops; /* as the CLI */
  o.max_gaps = max_gaps > 0 && max_gaps <= 100000 ? (uint32_t)max_gaps : 0;
  const char *key = step_name ? step_name : "";
  if (top_ops < 0) top_ops = -1; /* one key for the default */
  if (kept(app, key, top_ops, (int)o.max_gaps)) return app->an.text.text;
  st_app_analyze_forget(app);
  st_error err;
  st_analysis *an = st_analyze(&app->alloc, traces, n, &o, &err);
  if (!an) return "null";
  app->an.made++;
  st_analysis_json_opts jo = {.files = files, .groups = groups, .shift_ns = shift};
  an_text t = {an, &jo};
  app->an.result = an;
  const char *out = st_app_json(app, &app->an.text, write_analysis, &t, NULL);
  if (!out) return "null";
  size_t kl = strlen(key);
  app->an.step = st_malloc(&app->self_alloc, kl + 1);
  if (app->an.step) { /* else not kept: the next ask analyses again */
    memcpy(app->an.step, key, kl + 1);
    app->an.top = top_ops;
    app->an.gaps = (int)o.max_gaps;
    app->an.moves = app->moves;
  }
  return out;
}

uint64_t st_app_analyses_made(const st_app *app) { return app ? app->an.made : 0; }

/* ---- going to a file's window ------------------------------------------------------ */

/* Scrolls so the section of view process vp (UINT32_MAX: part k's group
 * header) is at the top, expanding it (and its file's group) if collapsed. */
static void scroll_to(st_app *app, uint32_t part, uint32_t vp) {
  st_ui *ui = app->ui;
  uint32_t np;
  st_trace_parts(app->trace, &np);
  if (np && st_layout_group_collapsed(st_ui_layout(ui), part))
    st_app_apply(app, st_ui_toggle_group(ui, part));
  if (vp != UINT32_MAX && st_layout_collapsed(st_ui_layout(ui), vp))
    st_app_apply(app, st_ui_toggle_section(ui, vp));
  uint32_t ni;
  const st_layout_item *it = st_layout_items(st_ui_layout(ui), &ni);
  for (uint32_t i = 0; i < ni; i++) {
    int hit = vp == UINT32_MAX ? (np ? it[i].kind == ST_LAYOUT_GROUP && it[i].row == part : 1)
                               : it[i].kind == ST_LAYOUT_SECTION && it[i].process == vp;
    if (!hit) continue;
    /* to the top of the scrolled tracks (under the pinned ones, if any) and
     * clear of the panels: the header and its first row */
    uint32_t j = i;
    while (j < ni && it[j].kind != ST_LAYOUT_ROW) j++;
    if (j < ni) st_app_apply(app, st_ui_show_row(ui, it[j].row, j - i, 1));
    return;
  }
}

int st_app_analyze_show(st_app *app, double trace, double device, double start_us, double end_us) {
  uint32_t n = st_app_count(app);
  if (!app->ui || !app->trace || !(trace >= 0 && trace < (double)n) || !isfinite(start_us) ||
      !isfinite(end_us) || !(end_us > start_us) || !(fabs(start_us) < 9e12) ||
      !(fabs(end_us) < 9e12))
    return 0;
  uint32_t k = (uint32_t)trace;
  st_traceset_file f;
  if (!st_traceset_get(app->set, st_app_part(app, k), &f)) return 0;
  uint32_t np, nd;
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  const st_an_device *dev = st_analysis_devices(app->an.result, &nd);
  uint32_t vp = UINT32_MAX; /* the device's process in the view */
  if (device >= 0 && device < (double)nd && dev[(uint32_t)device].trace == k &&
      st_analysis_trace(app->an.result, k) == f.trace)
    vp = (np ? parts[k].process_base : 0) + dev[(uint32_t)device].process;
  /* the file's own us -> scene ns (its times were moved by its shift) */
  double shift = (double)st_trace_shift_ns(f.trace);
  double t0 = (double)llround(start_us * 1000.0) + shift;
  double t1 = (double)llround(end_us * 1000.0) + shift;
  scroll_to(app, k, vp);
  st_app_apply(app, st_ui_set_view(app->ui, t0, t1));
  return 1;
}

/* Memory device m of the analysis (memory.h; issue 34): file k's device
 * section scrolled to the top, [start_us, end_us] of the file's own time
 * shown (the page passes a window around the peak). */
int st_app_memory_show(st_app *app, double mem, double start_us, double end_us) {
  uint32_t nm;
  const st_mem_device *md = st_memory_devices(st_analysis_memory(app->an.result), &nm);
  if (!app->ui || !app->trace || !(mem >= 0 && mem < (double)nm) || !isfinite(start_us) ||
      !isfinite(end_us) || !(end_us > start_us) || !(fabs(start_us) < 9e12) ||
      !(fabs(end_us) < 9e12))
    return 0;
  const st_mem_device *d = &md[(uint32_t)mem];
  uint32_t k = d->trace;
  st_traceset_file f;
  if (k >= st_app_count(app) || !st_traceset_get(app->set, st_app_part(app, k), &f) ||
      st_analysis_trace(app->an.result, k) != f.trace)
    return 0;
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  uint32_t vp =
      d->process == UINT32_MAX ? UINT32_MAX : (np ? parts[k].process_base : 0) + d->process;
  double shift = (double)st_trace_shift_ns(f.trace);
  scroll_to(app, k, vp);
  st_app_apply(app, st_ui_set_view(app->ui, (double)llround(start_us * 1000.0) + shift,
                                   (double)llround(end_us * 1000.0) + shift));
  return 1;
}

/* ---- an idle cause's gaps ------------------------------------------------------------ */

double st_app_cause_gaps(st_app *app, double device, double cause) {
  cause_forget(app);
  uint32_t nd, nc;
  const st_an_device *dev = st_analysis_devices(app->an.result, &nd);
  const st_an_cause *cs = st_analysis_causes(app->an.result, &nc);
  const st_an_span *sp = st_analysis_cause_gaps(app->an.result, NULL);
  if (!app->ui || !app->an.result || !(device >= 0 && device < (double)nd)) return -1;
  const st_an_device *d = &dev[(uint32_t)device];
  if (!(cause >= 0 && cause < (double)d->causes)) return -1;
  const st_an_cause *c = &cs[d->first_cause + (uint32_t)cause];
  uint32_t np, *rows = NULL, nr = 0;
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  if (np ? d->trace >= np : d->trace != 0) return -1;
  uint32_t base = np ? parts[d->trace].row_base : 0;
  const st_alloc *a = &app->self_alloc;
  if (st_analysis_device_rows(app->an.result, a, (uint32_t)device, &rows, &nr) != ST_OK) return -1;
  uint32_t n = c->gaps;
  app->an.cause_g0 = st_calloc(a, n ? n : 1, sizeof *app->an.cause_g0);
  app->an.cause_g1 = st_calloc(a, n ? n : 1, sizeof *app->an.cause_g1);
  if (!app->an.cause_g0 || !app->an.cause_g1) {
    st_free(a, rows);
    cause_forget(app);
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) { /* in time order, disjoint */
    app->an.cause_g0[i] = sp[c->first_gap + i].t0_ns;
    app->an.cause_g1[i] = sp[c->first_gap + i].t1_ns;
  }
  for (uint32_t r = 0; r < nr; r++) rows[r] += base; /* the view's rows */
  app->an.cause_rows = rows;
  app->an.cause_band = (st_draw_band_set){0};
  app->an.cause_band.rows = rows;
  app->an.cause_band.row_count = nr;
  app->an.cause_band.t0_ns = app->an.cause_g0;
  app->an.cause_band.t1_ns = app->an.cause_g1;
  app->an.cause_band.count = n;
  app->an.cause_on = 1;
  app->an.cause_dev = (uint32_t)device;
  app->an.cause_ix = (uint32_t)cause;
  app->ops.gaps_on = 0; /* this highlight in place of every gap's */
  st_app_request_redraw(app);
  return (double)n;
}

typedef struct cause_arg {
  const st_an_span *sp;
  uint32_t n;
  int64_t shift;
} cause_arg;

static void write_cause(st_jout *o, st_app *app, const void *arg) {
  const cause_arg *c = arg;
  st_jout_lit(o, "{\"device\":");
  st_jout_u64(o, app->an.cause_dev);
  st_jout_lit(o, ",\"cause\":");
  st_jout_u64(o, app->an.cause_ix);
  st_jout_lit(o, ",\"gaps\":[");
  for (uint32_t i = 0; i < c->n; i++) {
    st_jout_lit(o, i ? ",[" : "[");
    st_jout_us(o, c->sp[i].t0_ns - c->shift);
    st_jout_lit(o, ",");
    st_jout_us(o, c->sp[i].t1_ns - c->shift);
    st_jout_lit(o, "]");
  }
  st_jout_lit(o, "]}");
}

const char *st_app_cause_gaps_json(st_app *app) {
  if (!app->an.cause_on || !app->an.result) return "null";
  uint32_t nd;
  const st_an_device *d = &st_analysis_devices(app->an.result, &nd)[app->an.cause_dev];
  const st_an_cause *c =
      &st_analysis_causes(app->an.result, NULL)[d->first_cause + app->an.cause_ix];
  cause_arg arg = {st_analysis_cause_gaps(app->an.result, NULL) + c->first_gap, c->gaps,
                   st_trace_shift_ns(st_analysis_trace(app->an.result, d->trace))};
  return st_app_json(app, &app->an.cause_text, write_cause, &arg, "null");
}

/* ---- every event of a name --------------------------------------------------------- */

double st_app_select_name(st_app *app, const char *name) {
  if (!app->ui || !app->trace || !name) return -1;
  const st_trace *t = app->trace;
  const st_strtab *strs = st_trace_strings(t);
  size_t want = strlen(name);
  uint32_t nids = st_strtab_count(strs), nr, nt;
  /* per name id: 0 not looked at yet, 1 the name, 2 another */
  uint8_t *is = st_calloc(&app->alloc, nids ? nids : 1, 1);
  st_selection *sel = st_selection_create(&app->alloc);
  if (!is || !sel) {
    st_free(&app->alloc, is);
    st_selection_destroy(sel);
    return -1;
  }
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  double count = 0;
  int ok = 1;
  for (uint32_t r = 0; ok && r < nr; r++) {
    const st_row *row = &rows[r];
    if (row->track >= nt ||
        (tracks[row->track].kind != ST_TRACK_SLICES && tracks[row->track].kind != ST_TRACK_ASYNC))
      continue;
    uint32_t run = 0; /* matches just before i */
    for (uint32_t i = 0; i <= row->count; i++) {
      int match = 0;
      if (i < row->count && row->name[i] < nids) {
        uint32_t id = row->name[i];
        if (!is[id]) {
          size_t l;
          const char *s = st_strtab_get(strs, id, &l);
          is[id] = s && l == want && !memcmp(s, name, want) ? 1 : 2;
        }
        match = is[id] == 1;
      }
      if (match) {
        run++;
      } else if (run) {
        ok = st_selection_add(sel, r, i - run, i) == ST_OK;
        count += run;
        run = 0;
      }
    }
  }
  unsigned ch = ok ? st_ui_set_selection(app->ui, sel) : 0;
  ok = ch != 0;
  st_app_apply(app, ch);
  st_free(&app->alloc, is);
  st_selection_destroy(sel);
  return ok ? count : -1;
}
