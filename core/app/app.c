/* app.c: the app's life and its loads (app.h): create and destroy, loading
 * a file or the demo into the batch in progress of its trace set
 * (core/set/traceset.h), and ending a batch: the set builds the view of the
 * batch's files (leaving out the last while it does not fit), the app puts
 * its level-of-detail index and ui on it (the set's build_view hook) and
 * drops them, with every panel's snapshot (their forget hooks), before the
 * traces they point into go (drop_view, on_close). The top file of
 * core/app: calls the others, none calls it.
 */
#include "app_internal.h"

#include <string.h>

#include "demo.h"

#define BACKGROUND_RGBA 0xFFFBFAFAu /* before any trace: matches web/style.css */

/* ---- life ---------------------------------------------------------------------- */

/* The set's allocator: whatever the app's is now (st_app_set_alloc). */
static void *forward_alloc(void *ud, void *ptr, size_t size) {
  const st_app *app = ud;
  if (!size) {
    st_free(&app->alloc, ptr);
    return NULL;
  }
  return st_realloc(&app->alloc, ptr, size);
}

/* The set closes a file: what is in flight for it goes first. */
static void on_close(void *user, st_trace_handle h) {
  st_app_args_forget(user, h);
  st_app_stream_forget(user, h);
  st_app_spill_forget(user, h);
}

st_app *st_app_create(const st_app_desc *desc) {
  if (!desc || !desc->platform.now_ms) return NULL;
  st_app *app = st_calloc(&desc->alloc, 1, sizeof *app);
  if (!app) return NULL;
  app->alloc = app->self_alloc = desc->alloc;
  app->pf = desc->platform;
  app->set_alloc = (st_alloc){forward_alloc, app};
  st_traceset_desc sd = {0};
  sd.alloc = sd.load_alloc = app->set_alloc;
  sd.capacity = ST_APP_SET_SLOTS;
  sd.data_size = sizeof(st_app_file);
  sd.on_close = on_close;
  sd.user = app;
  app->set = st_traceset_create(&sd);
  if (!app->set) {
    st_free(&desc->alloc, app);
    return NULL;
  }
  app->css_w = desc->css_w >= 1 ? desc->css_w : 800;
  app->css_h = desc->css_h >= 1 ? desc->css_h : 600;
  app->dpr = desc->dpr > 0 ? desc->dpr : 1;
  app->tool = ST_TOOL_SELECT; /* the core's default; 2 / middle drag pan */
  app->flow_mode = ST_FLOWS_SELECTION;
  app->dl.clear_rgba = BACKGROUND_RGBA;
  app->dirty = 1;
  app->sum.source = -1;
  app->fl.from = app->fl.track = -1;
  app->args.s_part = UINT32_MAX;
  return app;
}

void st_app_destroy(st_app *app) {
  if (!app) return;
  st_app_drop_view(app);
  st_traceset_destroy(app->set); /* on_close for each file */
  st_app_args_forget(app, (st_trace_handle){0});
  st_app_demo_release(app);
  const st_alloc *a = &app->self_alloc;
  st_drawlist_free(&app->dl, a);
  st_drawlist_free(&app->dl2, a);
  st_free(a, app->args.acc);
  st_panel_buf_free(&app->args.text, a);
  st_panel_buf_free(&app->sum.text, a);
  st_panel_buf_free(&app->fl.tree, a);
  st_panel_buf_free(&app->fl.threads, a);
  st_panel_buf_free(&app->fl.text, a);
  st_panel_buf_free(&app->cmp.text, a);
  st_panel_buf_free(&app->ops.text, a);
  st_panel_buf_free(&app->notes.text, a);
  st_panel_buf_free(&app->panel, a);
  st_panel_buf_free(&app->text, a);
  st_panel_buf_free(&app->small, a);
  st_panel_buf_free(&app->an.text, a);
  st_panel_buf_free(&app->coll_text, a);
  st_panel_buf_free(&app->stream.text, a);
  st_app_stream_drop_samples(app);
  st_free(a, app->stream.ranges);
  st_alloc self = *a;
  st_free(&self, app);
}

void st_app_set_alloc(st_app *app, st_alloc alloc) { app->alloc = alloc; }

void st_app_set_font(st_app *app, const st_font *font) {
  app->font = font;
  app->dirty = 1;
}

/* ---- loading ---------------------------------------------------------------------- */

/* streaming: 0 resident; else load_begin_stream with these figures */
static int load_begin(st_app *app, const char *name, int streaming, uint64_t block_bytes,
                      uint32_t max_buckets, const void *stx, size_t stx_len) {
  st_app_copy_line(app->load_name, sizeof app->load_name, name && *name ? name : "trace");
  if (!app->batch_open) { /* a load on its own: a batch of one */
    st_app_batch_begin(app);
    app->batch_open = 2;
  }
  app->load_t0_ms = st_app_now(app);
  if (app->batch_loaded >= ST_APP_MAX_TRACES) { /* the view shows at most that many */
    snprintf(app->error, sizeof app->error, "%s: not opened: %d files open together at most",
             app->load_name, ST_APP_MAX_TRACES);
    if (app->batch_open == 2) st_app_batch_end(app);
    return 0;
  }
  st_error err;
  memset(&err, 0, sizeof err);
  st_code c =
      streaming == 2 ? st_traceset_load_begin_index(app->set, app->load_name, stx, stx_len, &err)
      : streaming
          ? st_traceset_load_begin_stream(app->set, app->load_name, block_bytes, max_buckets)
          : st_traceset_load_begin(app->set, app->load_name);
  app->loading = c == ST_OK;
  if (!app->loading) {
    if (streaming == 2 && err.msg[0]) /* not an index: why, with the byte offset */
      st_load_error_line(&err, app->load_name, app->error, sizeof app->error);
    else
      snprintf(app->error, sizeof app->error, "%s: out of memory starting the load",
               app->load_name);
    if (app->batch_open == 2) st_app_batch_end(app);
    return 0;
  }
  return 1;
}

int st_app_load_begin(st_app *app, const char *name) {
  return load_begin(app, name, 0, 0, 0, NULL, 0);
}

int st_app_load_begin_index(st_app *app, const char *name, const void *stx, size_t len) {
  return load_begin(app, name, 2, 0, 0, stx, len);
}

int st_app_load_begin_stream(st_app *app, const char *name, double block_bytes,
                             double max_buckets) {
  uint64_t bb = block_bytes >= 4096 && block_bytes < 1e15 ? (uint64_t)block_bytes : 0;
  uint32_t mb = max_buckets >= 64 && max_buckets < 4e9 ? (uint32_t)max_buckets : 0;
  return load_begin(app, name, 1, bb, mb, NULL, 0);
}

st_code st_app_load_push(st_app *app, const void *data, size_t len) {
  if (!app->loading) return ST_ERR_ARG;
  return st_traceset_load_push(app->set, data, len);
}

int st_app_load_apply_needs_bytes(st_app *app, const void *result, size_t rlen) {
  return app->loading ? st_traceset_load_apply_needs_bytes(app->set, result, rlen) : 0;
}

st_code st_app_load_apply(st_app *app, const void *result, size_t rlen, const void *bytes,
                          size_t blen) {
  if (!app->loading) return ST_ERR_ARG;
  return st_traceset_load_apply(app->set, result, rlen, bytes, blen);
}

void st_app_load_set_inflated(st_app *app, const st_source_info *info, st_code code,
                              const st_error *err) {
  if (app->loading) st_traceset_load_set_inflated(app->set, info, code, err);
}

int st_app_load_finish(st_app *app) {
  if (!app->loading) {
    snprintf(app->error, sizeof app->error, "no load in progress");
    return ST_APP_LOAD_FAILED;
  }
  app->loading = 0;
  int single = app->batch_open == 2;
  st_error err;
  memset(&err, 0, sizeof err);
  st_trace_handle h = st_traceset_load_finish(app->set, &err);
  if (!h.id) {
    /* the same one-line diagnosis as the CLI: "<file>: <what> (at byte N...)" */
    st_load_error_line(&err, app->load_name, app->error, sizeof app->error);
    if (single) st_app_batch_end(app);
    return ST_APP_LOAD_FAILED;
  }
  st_traceset_set_load_figures(app->set, h, st_app_now(app) - app->load_t0_ms, st_app_heap(app));
  app->batch_loaded++;
  app->last = h;
  int rc = ST_APP_LOAD_OK;
  app->error[0] = 0;
  if (err.code != ST_OK) {
    /* damaged part-way: shown, with the CLI's warning line */
    char line[sizeof app->error];
    st_load_error_line(&err, NULL, line, sizeof line);
    st_jout o = {.buf = app->error, .cap = sizeof app->error}; /* a bounded concatenation */
    st_jout_lit(&o, app->load_name);
    st_jout_lit(&o, ": warning: ");
    st_jout_lit(&o, line);
    st_jout_lit(&o, "; kept what was read before it");
    st_jout_end(&o);
    rc = ST_APP_LOAD_PARTIAL;
  }
  if (single && !st_app_batch_end(app)) return ST_APP_LOAD_FAILED;
  return rc;
}

void st_app_load_abort(st_app *app) {
  st_traceset_load_abort(app->set);
  app->loading = 0;
  if (app->batch_open == 2) st_app_batch_end(app);
}

/* The demo is generated straight into the loader, and its bytes are also
 * kept (12 MB) so that its events' args can be shown like a file's. If they
 * cannot be kept, the demo still loads, without args. */
static int demo_write(void *ud, const void *data, size_t len) {
  st_app *app = ud;
  if (app->demo_bytes || app->demo_len == 0) {
    size_t need = app->demo_len + len;
    void *nb = app->demo_bytes;
    if (st_grow_from(&app->self_alloc, &nb, &app->demo_cap, need, 1, (size_t)16 << 20)) {
      app->demo_bytes = nb;
    } else {
      st_free(&app->self_alloc, app->demo_bytes);
      app->demo_bytes = NULL;
      app->demo_cap = 0;
      app->demo_len = 1; /* stop keeping; the load goes on */
    }
    if (app->demo_bytes) {
      memcpy(app->demo_bytes + app->demo_len, data, len);
      app->demo_len += len;
    }
  }
  return st_app_load_push(app, data, len) == ST_OK ? 0 : 1;
}

int st_app_load_demo(st_app *app) {
  if (!st_app_load_begin(app, "demo trace (built in)")) return ST_APP_LOAD_FAILED;
  st_app_demo_release(app);
  st_demo_desc d = {0};
  d.seed = 1;
  d.target_events = ST_DEMO_EVENTS;
  st_demo_write(&d, demo_write, app);
  return st_app_load_finish(app);
}

const unsigned char *st_app_demo_bytes(const st_app *app, size_t *len) {
  *len = app->demo_bytes ? app->demo_len : 0;
  return app->demo_bytes;
}

void st_app_demo_release(st_app *app) {
  st_free(&app->self_alloc, app->demo_bytes);
  app->demo_bytes = NULL;
  app->demo_len = app->demo_cap = 0;
}

/* ---- batches ------------------------------------------------------------------------ */

void st_app_batch_begin(st_app *app) {
  if (app->batch_open) st_app_batch_end(app);
  st_traceset_batch_begin(app->set); /* out of memory: the loads say so */
  app->batch_open = 1;
  app->batch_loaded = 0;
  app->batch_t0_ms = st_app_now(app);
}

static const unsigned ALL_CHANGED = ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SELECTION | ST_UI_SEARCH |
                                    ST_UI_MARK | ST_UI_TOOL | ST_UI_LAYOUT;

uint32_t st_app_batch_end(st_app *app) {
  if (!app->batch_open) return 0;
  app->batch_open = 0;
  app->dropped[0] = 0;
  if (app->loading) st_app_load_abort(app);
  if (!app->batch_loaded) {                 /* nothing loaded: what is shown stays */
    if (st_traceset_previewing(app->set)) { /* a streaming load's preview goes */
      st_traceset_end_desc back = {st_app_build_view, st_app_drop_view, app};
      st_traceset_batch_end(app->set, &back, NULL);
      if (app->ui) st_app_apply(app, ALL_CHANGED);
      app->dirty = 1;
      return 0;
    }
    st_traceset_batch_end(app->set, NULL, NULL);
    return 0;
  }
  char keep[sizeof app->error];
  memcpy(keep, app->error, sizeof keep); /* a partial load's warning */
  double u0 = 0, u1 = 0; /* a streaming load's preview the user zoomed: the view stays */
  int user_view = st_app_stream_user_view(app, &u0, &u1);
  if (app->pf.view_begins) app->pf.view_begins(app->pf.ud);
  st_traceset_end_desc end = {st_app_build_view, st_app_drop_view, app};
  st_traceset_report rep;
  uint32_t n = st_traceset_batch_end(app->set, &end, &rep);
  if (!n) { /* not even the first file's view: the batch went, the files shown before stay */
    memcpy(app->error, rep.error, sizeof app->error);
    if (app->ui) st_app_apply(app, ALL_CHANGED);
    return 0;
  }
  memcpy(app->dropped, rep.dropped_text, sizeof app->dropped);
  memcpy(app->error, keep, sizeof keep);
  app->has_stats = 1;
  app->load_t0_ms = app->batch_t0_ms;
  if (user_view) st_app_stream_keep_view(app, u0, u1);
  st_app_apply(app, ALL_CHANGED);
  app->loaded_pending = 1;
  return n;
}
