/* app_stream.c: streaming mode in the app (core/import/stream/stream.h):
 * which window of a streamed file the view wants read, the window load the
 * platform feeds with the file's bytes (the core does no I/O), and the
 * swap of the file's model, summary or window, under a view that keeps
 * its time window, scroll and notes.
 */
#include "app_internal.h"

#include <math.h>
#include <string.h>

/* bytes of a window's model per event, about (its lod and ui included) */
#define ST_APP_STREAM_EVENT_BYTES 64.0

static const unsigned ALL_CHANGED = ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SELECTION | ST_UI_SEARCH |
                                    ST_UI_MARK | ST_UI_TOOL | ST_UI_LAYOUT;

/* ---- the windows shown ----------------------------------------------------------------- */

static int shown_window(const st_app *app, st_trace_handle h, int64_t *t0, int64_t *t1) {
  const st_app_file *f = st_app_file_of(app, h);
  if (!st_traceset_showing_window(app->set, h) || !f || !f->window) return 0;
  *t0 = f->window_t0;
  *t1 = f->window_t1;
  return 1;
}

/* Forgets file h's window, then records [t0, t1] as it if on. */
static void note_shown(st_app *app, st_trace_handle h, int on, int64_t t0, int64_t t1) {
  st_app_file *f = st_app_file_of(app, h);
  if (!f) return;
  f->window = on;
  f->window_t0 = on ? t0 : 0;
  f->window_t1 = on ? t1 : 0;
}

void st_app_stream_forget(st_app *app, st_trace_handle h) {
  st_app_stream *s = &app->stream;
  if (s->w && (!h.id || s->h.id == h.id)) {
    st_stream_read_end(s->rd);
    s->rd = NULL;
    st_stream_window_destroy(s->w);
    s->w = NULL;
    s->h = (st_trace_handle){0};
    s->n = 0;
    s->bytes = s->pushed = 0;
  }
  if (h.id) note_shown(app, h, 0, 0, 0);
}

void st_app_stream_abort(st_app *app) {
  st_app_stream_forget(app, app->stream.h);
  app->stream.want_budget = 0; /* a failed read is not due again until the front end asks */
}

double st_app_stream_pending(const st_app *app) {
  return app->stream.w ? (double)(app->stream.bytes - app->stream.pushed) : 0;
}

/* ---- what the view wants --------------------------------------------------------------- */

typedef struct want {
  st_trace_handle h;
  int summary;    /* 1: put the summary back */
  int filter;     /* 1: the ranges pass the budget, the window's events do not: keep only them */
  int copy;       /* 1: the ranges are of the file's re-ordered copy (app_spill.c) */
  int64_t t0, t1; /* else: read this window (the file's ns) */
  uint64_t bytes;
} want;

static int want_of(st_app *app, double budget, want *out) {
  memset(out, 0, sizeof *out);
  if (!app->ui || !app->trace || app->side || app->stream.w || app->batch_open) return 0;
  double v0 = 0, v1 = 0;
  st_ui_window(app->ui, &v0, &v1);
  for (uint32_t k = 0; k < st_app_count(app); k++) {
    st_trace_handle h = st_app_part(app, k);
    st_stream *sm = st_traceset_stream(app->set, h);
    st_traceset_file f;
    if (!sm || !st_traceset_get(app->set, h, &f)) continue;
    st_stream_info info;
    st_stream_info_get(sm, &info);
    if (!info.windows) continue;
    int64_t dur = st_trace_duration_ns(st_traceset_summary(app->set, h));
    double a0 = v0 - (double)f.offset_ns, a1 = v1 - (double)f.offset_ns;
    if (a1 < 0 || a0 > (double)dur) continue; /* the file is not in view */
    if (a0 < 0) a0 = 0;
    if (a1 > (double)dur) a1 = (double)dur;
    int64_t c0, c1;
    int has = shown_window(app, h, &c0, &c1);
    if (has && (double)c0 <= a0 && (double)c1 >= a1) continue; /* the window covers the view */
    /* a window three views wide, so panning stays in it; else the view */
    double span = a1 - a0;
    double w0 = a0 - span < 0 ? 0 : a0 - span,
           w1 = a1 + span > (double)dur ? (double)dur : a1 + span;
    uint64_t bytes = 0;
    for (int pass = 0; pass < 2; pass++) {
      int64_t t0 = (int64_t)(pass ? a0 : w0), t1 = (int64_t)ceil(pass ? a1 : w1);
      st_stream_window_plan(sm, t0, t1, NULL, 0, &bytes);
      if ((double)bytes <= budget) {
        *out = (want){h, 0, 0, info.spilled, t0, t1, bytes};
        return 1;
      }
    }
    if (info.spilled) { /* the copy's partitions are in time: a filtered read is no better */
      if (!has) continue;
      *out = (want){h, 1, 0, 0, 0, 0, 0}; /* too much for this view: the summary again */
      return 1;
    }
    if (app->stream.spill && app->stream.spill_h.id == h.id) {
      /* its re-ordered copy is being made: reading the whole file now would
       * only race it (time and memory); the summary serves until then */
      if (!has) continue;
      *out = (want){h, 1, 0, 0, 0, 0, 0};
      return 1;
    }
    /* the view's blocks pass the budget (an unsorted trace: each block spans
     * much of its time), but its events may not: read them all, keep only
     * the window's (ST_STREAM_EVENT_BYTES of model per event, about). Such a
     * read costs the same for any window, so the widest that fits is taken
     * (81, 27, 9, 3 views, the view): panning then reads again less often */
    static const double widths[] = {40, 13, 4, 1, 0};
    for (int pass = 0; pass < 5; pass++) {
      double side = widths[pass] * span;
      int64_t t0 = (int64_t)(a0 - side < 0 ? 0 : a0 - side);
      int64_t t1 = (int64_t)ceil(a1 + side > (double)dur ? (double)dur : a1 + side);
      if ((double)st_stream_events_in(sm, t0, t1) * ST_APP_STREAM_EVENT_BYTES <= budget) {
        st_stream_window_plan(sm, t0, t1, NULL, 0, &bytes);
        *out = (want){h, 0, 1, 0, t0, t1, bytes};
        return 1;
      }
    }
    if (has) { /* too much to read for this view: the summary again */
      *out = (want){h, 1, 0, 0, 0, 0, 0};
      return 1;
    }
  }
  return 0;
}

static void write_want(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const want *w = arg;
  st_jout_lit(o, "{\"handle\":");
  st_jout_u64(o, w->h.id);
  if (w->summary) {
    st_jout_lit(o, ",\"summary\":true}");
    return;
  }
  st_jout_lit(o, ",\"t0_ns\":");
  st_jout_i64(o, w->t0);
  st_jout_lit(o, ",\"t1_ns\":");
  st_jout_i64(o, w->t1);
  st_jout_lit(o, ",\"bytes\":");
  st_jout_u64(o, w->bytes);
  st_jout_lit(o, w->filter ? ",\"filter\":true" : ",\"filter\":false");
  st_jout_lit(o, w->copy ? ",\"copy\":true}" : ",\"copy\":false}");
}

uint64_t st_app_stream_due(st_app *app) {
  if (app->stream.w) return app->stream.bytes - app->stream.pushed;
  want w;
  if (!(app->stream.want_budget > 0) || !want_of(app, app->stream.want_budget, &w) || w.summary)
    return 0;
  return w.bytes ? w.bytes : 1; /* a read is due, whatever it costs */
}

const char *st_app_stream_want(st_app *app, double budget_bytes) {
  want w;
  if (budget_bytes > 0) app->stream.want_budget = budget_bytes;
  if (!(budget_bytes > 0) || !want_of(app, budget_bytes, &w)) return "null";
  return st_app_json(app, &app->stream.text, write_want, &w, "null");
}

/* ---- a window load ---------------------------------------------------------------------- */

int st_app_stream_begin(st_app *app, st_trace_handle h, double t0_ns, double t1_ns, int filter) {
  st_app_stream *s = &app->stream;
  if (s->w || !st_app_shown(app, h, NULL) || !isfinite(t0_ns) || !isfinite(t1_ns) ||
      !(t1_ns >= t0_ns) || t0_ns < -9.2e18 || t1_ns > 9.2e18)
    return -1;
  st_stream *sm = st_traceset_stream(app->set, h);
  if (!sm) return -1;
  int64_t t0 = (int64_t)t0_ns, t1 = (int64_t)t1_ns;
  uint64_t bytes = 0;
  uint32_t n = st_stream_window_plan(sm, t0, t1, NULL, 0, &bytes);
  if (n > s->cap) {
    st_stream_range *r = st_realloc_array(&app->self_alloc, s->ranges, n, sizeof *r);
    if (!r) return -1;
    s->ranges = r;
    s->cap = n;
  }
  st_stream_window_plan(sm, t0, t1, s->ranges, n, &bytes);
  st_error err;
  s->w = st_stream_window_begin(sm, st_traceset_summary(app->set, h), s->ranges, n, &err);
  if (!s->w) {
    snprintf(app->error, sizeof app->error, "window: %s", err.msg);
    return -1;
  }
  st_stream_window_set_span(s->w, t0, t1);
  st_stream_window_set_filter(s->w, filter);
  s->filter = filter != 0;
  s->h = h;
  s->n = n;
  s->bytes = bytes;
  s->pushed = 0;
  s->t0 = t0;
  s->t1 = t1;
  app->dirty = 1; /* the status says what is being read */
  return (int)n;
}

double st_app_stream_range(const st_app *app, int k, int length) {
  const st_app_stream *s = &app->stream;
  if (!s->w || k < 0 || (uint32_t)k >= s->n) return -1;
  return (double)(length ? s->ranges[k].length : s->ranges[k].offset);
}

int st_app_stream_push(st_app *app, int k, const void *data, size_t len) {
  st_app_stream *s = &app->stream;
  /* order and lengths are the core's to check: chunks of any size */
  if (!s->w || k < 0) return 0;
  st_code c = st_stream_window_push(s->w, (uint32_t)k, data, len);
  if (c != ST_OK) {
    snprintf(app->error, sizeof app->error, "window not read: %s",
             c == ST_ERR_NOMEM ? "out of memory (the heap budget)"
             : c == ST_ERR_ARG
                 ? "bytes out of order"
                 : "its bytes no longer parse (the file changed since it was opened?)");
    return 0;
  }
  s->pushed += len;
  return 1;
}

double st_app_stream_raw_begin(st_app *app, double offset, double len) {
  st_app_stream *s = &app->stream;
  st_stream *sm = s->w ? st_traceset_stream(app->set, s->h) : NULL;
  if (!sm || !(offset >= 0 && offset < 1.8e19) || !(len > 0 && len <= 1e15)) return -1;
  st_stream_read_end(s->rd);
  uint64_t from = 0;
  s->rd = st_stream_read_begin(sm, (uint64_t)offset, (uint64_t)len, &from);
  return s->rd ? (double)from : -1;
}

int st_app_stream_raw_push(st_app *app, int k, const void *raw, size_t n) {
  st_app_stream *s = &app->stream;
  if (!s->w || !s->rd) return -1;
  int done = 0;
  if (st_stream_read_push(s->rd, raw, n, &done) != ST_OK) {
    snprintf(app->error, sizeof app->error,
             "window: the compressed file could not be read (changed since it was opened?)");
    return -1;
  }
  if (!done && n) return 0;
  size_t len = 0;
  const uint8_t *data = st_stream_read_data(s->rd, &len);
  int ok = st_app_stream_push(app, k, data, len);
  st_stream_read_end(s->rd);
  s->rd = NULL;
  return ok ? 1 : -1;
}

/* Puts model (NULL: the summary) in file h's place, keeping the view's
 * time window and scroll. 1, or 0 with app->error. */
static int show(st_app *app, st_trace_handle h, st_trace *model) {
  double v0 = 0, v1 = 0, zero = 0;
  float scroll = 0;
  if (app->ui) {
    st_ui_window(app->ui, &v0, &v1);
    scroll = st_ui_view(app->ui)->scroll_y;
    zero = st_ui_axis_zero(app->ui); /* the window reads the axis as its summary did */
  }
  st_traceset_end_desc end = {st_app_build_view, st_app_drop_view, app};
  st_error err;
  memset(&err, 0, sizeof err);
  app->stream.swapping = 1;
  st_code c = st_traceset_show_model(app->set, h, model, &end, &err);
  app->stream.swapping = 0;
  if (c != ST_OK) snprintf(app->error, sizeof app->error, "window not shown: %s", err.msg);
  if (app->ui) {
    st_ui_set_axis_zero(app->ui, zero);
    st_ui_set_view(app->ui, v0, v1);
    st_ui_scroll_px(app->ui, scroll);
    st_app_apply(app, ALL_CHANGED);
  }
  app->dirty = 1;
  return c == ST_OK;
}

int st_app_stream_finish(st_app *app) {
  st_app_stream *s = &app->stream;
  if (!s->w) return 0;
  st_error err;
  memset(&err, 0, sizeof err);
  st_trace *t = st_stream_window_finish(s->w, &err);
  if (!t && !err.msg[0]) st_error_set(&err, ST_ERR_ARG, 0, "not every range was read");
  st_trace_handle h = s->h;
  int64_t t0 = s->t0, t1 = s->t1;
  st_stream_read_end(s->rd);
  s->rd = NULL;
  st_stream_window_destroy(s->w);
  s->w = NULL;
  s->h = (st_trace_handle){0};
  s->bytes = s->pushed = 0;
  if (t && err.code != ST_OK) {
    /* the pass read these bytes whole: damage now means the file changed
     * since; a window half read would be a wrong picture, so none */
    st_trace_destroy(t);
    t = NULL;
    snprintf(app->error, sizeof app->error,
             "window not read: %s (the file changed since it was opened?)", err.msg);
    return 0;
  }
  if (!t) {
    snprintf(app->error, sizeof app->error, "window not read: %s", err.msg);
    return 0;
  }
  if (!show(app, h, t)) {
    note_shown(app, h, 0, 0, 0);
    return 0;
  }
  note_shown(app, h, 1, t0, t1);
  return 1;
}

int st_app_stream_show_summary(st_app *app, st_trace_handle h) {
  if (!st_app_shown(app, h, NULL) || !st_traceset_showing_window(app->set, h)) return 0;
  note_shown(app, h, 0, 0, 0);
  return show(app, h, NULL);
}

/* ---- a load from an index file ------------------------------------------------------------ */

void st_app_stream_drop_samples(st_app *app) {
  for (uint32_t k = 0; k < ST_STX_SAMPLES; k++) {
    st_free(&app->self_alloc, app->stream.sample[k]);
    app->stream.sample[k] = NULL;
    app->stream.sample_len[k] = 0;
  }
}

int st_app_load_index_samples(st_app *app) {
  st_stream *sm = app->loading ? st_traceset_loading_stream(app->set) : NULL;
  if (!sm) return -1;
  st_app_stream_drop_samples(app);
  st_stream_range r[ST_STX_SAMPLES];
  return (int)st_stream_identity_plan(sm, r);
}

double st_app_load_index_range(const st_app *app, int k, int length) {
  st_stream *sm = app->loading ? st_traceset_loading_stream(app->set) : NULL;
  st_stream_range r[ST_STX_SAMPLES];
  uint32_t n = sm ? st_stream_identity_plan(sm, r) : 0;
  if (k < 0 || (uint32_t)k >= n) return -1;
  return (double)(length ? r[k].length : r[k].offset);
}

int st_app_load_index_sample(st_app *app, int k, const void *data, size_t len) {
  if (!app->loading || k < 0 || k >= ST_STX_SAMPLES || (len && !data)) return 0;
  uint8_t *p = st_realloc(&app->self_alloc, app->stream.sample[k], len ? len : 1);
  if (!p) return 0;
  if (len) memcpy(p, data, len);
  app->stream.sample[k] = p;
  app->stream.sample_len[k] = len;
  return 1;
}

int st_app_load_index_verify(st_app *app, double raw_size) {
  st_stream *sm = app->loading ? st_traceset_loading_stream(app->set) : NULL;
  if (!sm || !(raw_size >= 0 && raw_size < 1.8e19)) return 0;
  st_stream_range r[ST_STX_SAMPLES];
  uint32_t n = st_stream_identity_plan(sm, r);
  const uint8_t *samples[ST_STX_SAMPLES];
  for (uint32_t k = 0; k < n; k++) /* a sample not read, or short: NULL (a mismatch) */
    samples[k] = app->stream.sample[k] && app->stream.sample_len[k] == r[k].length
                     ? app->stream.sample[k]
                     : NULL;
  st_error err;
  memset(&err, 0, sizeof err);
  st_code c = st_traceset_load_index_verify(app->set, (uint64_t)raw_size, samples, n, &err);
  st_app_stream_drop_samples(app);
  if (c != ST_OK) st_app_copy_line(app->error, sizeof app->error, err.msg);
  return c == ST_OK;
}

/* ---- the preview while the pass runs --------------------------------------------------- */

/* The view's window in absolute ns (the file's clock). */
static void abs_window(const st_app *app, double *a0, double *a1) {
  double v0 = 0, v1 = 0;
  st_ui_window(app->ui, &v0, &v1);
  double o = (double)st_trace_origin_ns(app->trace);
  *a0 = o + v0;
  *a1 = o + v1;
}

int st_app_stream_user_view(const st_app *app, double *a0, double *a1) {
  if (!st_traceset_previewing(app->set) || !app->ui || !app->trace) return 0;
  abs_window(app, a0, a1);
  return *a0 != app->stream.pv0 || *a1 != app->stream.pv1;
}

void st_app_stream_keep_view(st_app *app, double a0, double a1) {
  if (!app->ui || !app->trace) return;
  double o = (double)st_trace_origin_ns(app->trace);
  st_app_apply(app, st_ui_set_view(app->ui, a0 - o, a1 - o));
}

double st_app_stream_preview(st_app *app) {
  if (!app->loading) return 0;
  double a0 = 0, a1 = 0;
  float scroll = app->ui ? st_ui_view(app->ui)->scroll_y : 0;
  int keep = st_app_stream_user_view(app, &a0, &a1); /* the user zoomed the last preview */
  st_traceset_end_desc end = {st_app_build_view, st_app_drop_view, app};
  st_error err;
  memset(&err, 0, sizeof err);
  app->stream.swapping = 1;
  st_code c = st_traceset_preview(app->set, &end, &err);
  app->stream.swapping = 0;
  if (app->ui) {
    if (c == ST_OK && keep) {
      st_app_stream_keep_view(app, a0, a1);
      st_ui_scroll_px(app->ui, scroll);
    }
    st_app_apply(app, ALL_CHANGED);
    /* the view a preview chose itself: the user moved it if it differs */
    if (c == ST_OK && !keep) abs_window(app, &app->stream.pv0, &app->stream.pv1);
  }
  app->dirty = 1;
  return c == ST_OK && app->trace ? (double)st_trace_event_count(app->trace) : 0;
}

/* ---- what streaming mode holds, as JSON -------------------------------------------------- */

static void write_state(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  st_jout_lit(o, "{\"files\":[");
  int first = 1;
  for (uint32_t k = 0; k < st_app_count(app); k++) {
    st_trace_handle h = st_app_part(app, k);
    st_stream *sm = st_traceset_stream(app->set, h);
    if (!sm) continue;
    st_stream_info in;
    st_stream_info_get(sm, &in);
    if (!first) st_jout_lit(o, ",");
    first = 0;
    st_jout_lit(o, "{\"handle\":");
    st_jout_u64(o, h.id);
    st_jout_lit(o, ",\"windows\":");
    st_jout_lit(o, in.windows ? "true" : "false");
    st_jout_lit(o, ",\"blocks\":");
    st_jout_u64(o, in.blocks);
    st_jout_lit(o, ",\"exact\":");
    st_jout_u64(o, in.exact);
    st_jout_lit(o, ",\"bucket_ns\":");
    st_jout_i64(o, in.bucket_ns);
    st_jout_lit(o, ",\"summary_events\":");
    st_jout_u64(o, in.summary_events);
    st_jout_lit(o, ",\"index_bytes\":");
    st_jout_u64(o, in.bytes);
    st_jout_lit(o, in.unsorted ? ",\"unsorted\":true" : ",\"unsorted\":false");
    st_jout_lit(o, in.spill_wanted ? ",\"copy_wanted\":true" : ",\"copy_wanted\":false");
    st_jout_lit(o, ",\"copy_bytes\":");
    st_jout_u64(o, app->stream.spill && app->stream.spill_h.id == h.id
                       ? st_stream_spill_written(app->stream.spill)
                       : in.spill_bytes);
    st_jout_lit(o, in.spilled                                            ? ",\"copy\":\"done\""
                   : app->stream.spill && app->stream.spill_h.id == h.id ? ",\"copy\":\"running\""
                                                                         : ",\"copy\":null");
    int64_t t0, t1;
    if (shown_window(app, h, &t0, &t1)) {
      st_jout_lit(o, ",\"window_ns\":[");
      st_jout_i64(o, t0);
      st_jout_lit(o, ",");
      st_jout_i64(o, t1);
      st_jout_lit(o, "]");
    } else {
      st_jout_lit(o, ",\"window_ns\":null");
    }
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "],\"pending\":");
  st_jout_u64(o, app->stream.w ? app->stream.bytes - app->stream.pushed : 0);
  st_jout_lit(o, ",\"reading\":");
  st_jout_u64(o, app->stream.w ? app->stream.bytes : 0);
  st_jout_lit(o, app->stream.w && app->stream.filter ? ",\"filter\":true" : ",\"filter\":false");
  st_jout_lit(o, "}");
}

const char *st_app_stream_json(st_app *app) {
  return st_app_json(app, &app->stream.text, write_state, NULL, "null");
}
