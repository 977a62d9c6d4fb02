/* app.c: the app's life and its loads (app.h): create and destroy, loading
 * a file or the demo into the batch in progress, and ending a batch: the
 * traces shown are replaced by the batch's once their view (merge, level-
 * of-detail index, ui) is built, files left out from the end while it does
 * not fit in memory. The panels' snapshots are dropped (their forget hooks)
 * before the traces they point into go. The top file of core/app: calls the
 * others, none calls it.
 */
#include "app_internal.h"

#include <string.h>

#include "demo.h"

#define BACKGROUND_RGBA 0xFFFBFAFAu /* before any trace: matches web/style.css */

/* ---- life ---------------------------------------------------------------------- */

st_app *st_app_create(const st_app_desc *desc) {
  if (!desc || !desc->platform.now_ms) return NULL;
  st_app *app = st_calloc(&desc->alloc, 1, sizeof *app);
  if (!app) return NULL;
  app->alloc = app->self_alloc = desc->alloc;
  app->pf = desc->platform;
  app->css_w = desc->css_w >= 1 ? desc->css_w : 800;
  app->css_h = desc->css_h >= 1 ? desc->css_h : 600;
  app->dpr = desc->dpr > 0 ? desc->dpr : 1;
  app->tool = ST_TOOL_SELECT; /* the core's default; 2 / middle drag pan */
  app->dl.clear_rgba = BACKGROUND_RGBA;
  app->dirty = 1;
  app->sum.source = -1;
  app->fl.from = app->fl.track = -1;
  app->args.slot = app->args.s_slot = app->args.s_part = UINT32_MAX;
  app->last_slot = UINT32_MAX;
  return app;
}

/* The view goes (the ui and the lod point into the traces), and every
 * snapshot taken of it. */
static void drop_view(st_app *app) {
  st_app_summary_forget(app);
  st_app_flame_forget(app);
  st_app_diff_forget(app);
  if (app->side) { /* back to one pane */
    app->ui = app->pane[0];
    st_ui_destroy(app->pane[1]);
    app->pane[0] = app->pane[1] = NULL;
    app->side = 0;
    app->pane_dx = 0;
  }
  st_ui_destroy(app->ui);
  st_lod_destroy(app->lod);
  st_trace_destroy(app->merged);
  app->ui = NULL;
  app->lod = NULL;
  app->merged = NULL;
  app->trace = NULL;
}

/* A trace goes: what is in flight for it first, then the slot. */
static void close_slot(st_app *app, uint32_t slot) {
  st_app_args_forget(app, slot);
  st_app_slot_close(app, slot);
}

void st_app_destroy(st_app *app) {
  if (!app) return;
  drop_view(app);
  st_app_args_forget(app, UINT32_MAX);
  st_loader_destroy(app->loader);
  for (uint32_t i = 0; i < ST_APP_MAX_TRACES; i++)
    if (app->traces[i].trace) close_slot(app, i);
  st_strtab_destroy(app->strings);
  st_strtab_destroy(app->batch_strings);
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
  st_panel_buf_free(&app->panel, a);
  st_panel_buf_free(&app->text, a);
  st_panel_buf_free(&app->small, a);
  st_alloc self = *a;
  st_free(&self, app);
}

void st_app_set_alloc(st_app *app, st_alloc alloc) { app->alloc = alloc; }

void st_app_set_font(st_app *app, const st_font *font) {
  app->font = font;
  app->dirty = 1;
}

/* ---- loading ---------------------------------------------------------------------- */

int st_app_load_begin(st_app *app, const char *name) {
  st_loader_destroy(app->loader);
  app->loader = NULL;
  st_app_copy_line(app->load_name, sizeof app->load_name, name && *name ? name : "trace");
  if (!app->batch_open) { /* a load on its own: a batch of one */
    st_app_batch_begin(app);
    app->batch_open = 2;
  }
  st_load_desc d = {0};
  d.alloc = app->alloc;
  d.file_name = app->load_name;
  d.strings = app->batch_strings;
  app->loader = app->batch_strings ? st_loader_create(&d) : NULL;
  app->push_code = ST_OK;
  app->load_t0_ms = st_app_now(app);
  if (!app->loader) {
    snprintf(app->error, sizeof app->error, "%s: out of memory starting the load", app->load_name);
    if (app->batch_open == 2) st_app_batch_end(app);
    return 0;
  }
  return 1;
}

st_code st_app_load_push(st_app *app, const void *data, size_t len) {
  if (!app->loader) return ST_ERR_ARG;
  if (app->push_code != ST_OK) return app->push_code;
  app->push_code = st_loader_push(app->loader, data, len);
  return app->push_code;
}

/* A copy of s in the app's memory (NULL for NULL or on failure: "{}" then). */
static char *dup_str(st_app *app, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = st_malloc(&app->self_alloc, n);
  if (d) memcpy(d, s, n);
  return d;
}

int st_app_load_finish(st_app *app) {
  if (!app->loader) {
    snprintf(app->error, sizeof app->error, "no load in progress");
    return ST_APP_LOAD_FAILED;
  }
  int single = app->batch_open == 2;
  st_error err;
  memset(&err, 0, sizeof err);
  st_trace *t = st_loader_finish(app->loader, &err);
  st_stats stats = *st_loader_stats(app->loader);
  st_argsrc *args = st_loader_take_args_source(app->loader); /* args on selection */
  char *info = dup_str(app, t ? st_loader_metadata_json(app->loader) : NULL); /* info panel */
  st_loader_destroy(app->loader);
  app->loader = NULL;
  uint32_t slot = t ? st_app_slot_free(app) : UINT32_MAX;
  if (!t || slot == UINT32_MAX) {
    st_free(&app->self_alloc, info);
    st_argsrc_destroy(args);
    if (t) {
      st_trace_destroy(t);
      st_error_set(&err, ST_ERR_LIMIT, 0, "too many traces open (64)");
    }
    if (err.code == ST_OK) st_error_set(&err, ST_ERR_FORMAT, 0, "no trace data");
    /* the same one-line diagnosis as the CLI: "<file>: <what> (at byte N...)" */
    st_load_error_line(&err, app->load_name, app->error, sizeof app->error);
    if (single) st_app_batch_end(app);
    return ST_APP_LOAD_FAILED;
  }
  st_app_trace *s = &app->traces[slot];
  uint32_t gen = s->gen ? s->gen : 1;
  memset(s, 0, sizeof *s);
  s->gen = gen;
  s->trace = t;
  s->in_batch = 1;
  s->seq = ++app->seq;
  s->stats = stats;
  s->stats.load_ms = st_app_now(app) - app->load_t0_ms;
  s->stats.heap_bytes = st_app_heap(app);
  s->info_json = info;
  s->args = args;
  st_app_copy_line(s->name, sizeof s->name, app->load_name);
  app->batch_loaded++;
  app->last_slot = slot;
  int rc = ST_APP_LOAD_OK;
  app->error[0] = 0;
  if (err.code != ST_OK) {
    /* damaged part-way: shown, with the CLI's warning line */
    char line[sizeof app->error];
    st_load_error_line(&err, NULL, line, sizeof line);
    st_jout o = {app->error, sizeof app->error, 0}; /* a bounded concatenation */
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
  st_loader_destroy(app->loader);
  app->loader = NULL;
  if (app->batch_open == 2) st_app_batch_end(app);
}

/* The demo is generated straight into the loader, and its bytes are also
 * kept (12 MB) so that its events' args can be shown like a file's. If they
 * cannot be kept, the demo still loads, without args. */
static int demo_write(void *ud, const void *data, size_t len) {
  st_app *app = ud;
  if (app->demo_bytes || app->demo_len == 0) {
    size_t need = app->demo_len + len;
    if (need > app->demo_cap) {
      size_t cap = app->demo_cap ? app->demo_cap : (size_t)16 << 20;
      while (cap < need) cap *= 2;
      unsigned char *nb = st_realloc(&app->self_alloc, app->demo_bytes, cap);
      if (!nb) {
        st_free(&app->self_alloc, app->demo_bytes);
        app->demo_bytes = NULL;
        app->demo_cap = 0;
        app->demo_len = 1; /* stop keeping; the load goes on */
      } else {
        app->demo_bytes = nb;
        app->demo_cap = cap;
      }
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
  app->batch_strings = st_strtab_create(&app->alloc);
  app->batch_open = 1;
  app->batch_loaded = 0;
  app->batch_t0_ms = st_app_now(app);
}

/* The view of the traces shown: one as itself, several merged under their
 * group names at their offsets. 0 on failure, with app->error saying which
 * stage failed for which file(s): "out of memory building the
 * level-of-detail index for run.json (after its 5,000,000 events, 612 MB
 * read)"; several files: "... of 3 files together". */
static int build_view(st_app *app) {
  uint32_t n = app->shown_count;
  if (!n) return 1;
  st_trace *view = app->traces[app->shown[0]].trace;
  st_error err;
  memset(&err, 0, sizeof err);
  if (n > 1) {
    st_trace *parts[ST_APP_MAX_TRACES];
    uint32_t names[ST_APP_MAX_TRACES];
    int64_t offs[ST_APP_MAX_TRACES];
    for (uint32_t k = 0; k < n; k++) {
      st_app_trace *s = &app->traces[app->shown[k]];
      parts[k] = s->trace;
      names[k] = st_strtab_intern(app->strings, s->group, strlen(s->group));
      if (names[k] == ST_STR_NONE) names[k] = ST_STR_EMPTY;
      offs[k] = s->offset_ns;
    }
    view = app->merged = st_trace_merge(&app->alloc, parts, names, offs, n, &err);
    if (view) /* normalised */
      for (uint32_t k = 0; k < n; k++)
        app->traces[app->shown[k]].offset_ns = st_trace_parts(view, NULL)[k].offset_ns;
  }
  st_lod *lod = view ? st_lod_build(&app->alloc, view, &err) : NULL;
  st_ui *ui = lod ? st_ui_create(&app->alloc, view, app->css_w, app->css_h, app->dpr) : NULL;
  if (!ui) {
    if (lod && err.code == ST_OK)
      st_error_set(&err, ST_ERR_NOMEM, 0, "out of memory creating the view");
    if (err.code == ST_OK) st_error_set(&err, ST_ERR_NOMEM, 0, "out of memory");
    if (n == 1) {
      char ext[96];
      st_app_load_extent(&app->traces[app->shown[0]], ext, sizeof ext);
      snprintf(app->error, sizeof app->error, "%s for %s (%s)", err.msg,
               app->traces[app->shown[0]].name, ext);
    } else {
      snprintf(app->error, sizeof app->error, "%s of %u files together", err.msg, n);
    }
    st_lod_destroy(lod);
    st_trace_destroy(app->merged);
    app->merged = NULL;
    return 0;
  }
  app->trace = view;
  app->lod = lod;
  app->ui = ui;
  app->animating = 0;
  st_ui_set_tool(ui, (st_tool)app->tool);
  return 1;
}

/* Appends "<file>: not shown: <why> (<extent>)\n" to app->dropped. */
static void note_dropped(st_app *app, const st_app_trace *s, const char *why) {
  size_t len = strlen(app->dropped);
  char ext[96];
  st_app_load_extent(s, ext, sizeof ext);
  snprintf(app->dropped + len, sizeof app->dropped - len, "%s: not shown: %s (%s)\n", s->name, why,
           ext);
}

static const unsigned ALL_CHANGED = ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SELECTION | ST_UI_SEARCH |
                                    ST_UI_MARK | ST_UI_TOOL | ST_UI_LAYOUT;

uint32_t st_app_batch_end(st_app *app) {
  if (!app->batch_open) return 0;
  app->batch_open = 0;
  app->dropped[0] = 0;
  if (!app->batch_loaded) { /* nothing loaded: what is shown stays */
    st_strtab_destroy(app->batch_strings);
    app->batch_strings = NULL;
    return 0;
  }
  /* The batch replaces the traces shown. Their view goes first (the ui and
   * the lod point into them, and the memory is the new view's); their
   * models stay until the new view is built, to come back if it cannot be. */
  drop_view(app);
  uint32_t old[ST_APP_MAX_TRACES], nold = st_app_slots_by_load(app, 0, old);
  st_strtab *old_strings = app->strings;
  app->strings = app->batch_strings;
  app->shown_count = st_app_slots_by_load(app, 1, app->shown); /* display order: load order */
  st_app_place(app);
  char keep[sizeof app->error];
  memcpy(keep, app->error, sizeof keep); /* a partial load's warning */
  if (app->pf.view_begins) app->pf.view_begins(app->pf.ud);
  int built;
  while (!(built = build_view(app)) && app->shown_count > 1) {
    /* the view of them all does not fit: the last file is left out */
    uint32_t last = app->shown[--app->shown_count];
    note_dropped(app, &app->traces[last], app->error);
    close_slot(app, last);
    st_app_place(app); /* group names unique among those left (and their clocks) */
  }
  if (!built) { /* not even the first file's view: the batch goes, the old traces stay */
    char why[sizeof app->error];
    memcpy(why, app->error, sizeof why);
    for (uint32_t k = 0; k < app->shown_count; k++) close_slot(app, app->shown[k]);
    st_strtab_destroy(app->strings);
    app->strings = old_strings;
    app->batch_strings = NULL;
    memcpy(app->shown, old, sizeof old);
    app->shown_count = nold;
    if (!build_view(app)) app->shown_count = 0;
    memcpy(app->error, why, sizeof why);
    app->dropped[0] = 0; /* the error says it: nothing of the batch is shown */
    if (app->ui) st_app_apply(app, ALL_CHANGED);
    return 0;
  }
  for (uint32_t k = 0; k < nold; k++) close_slot(app, old[k]);
  st_strtab_destroy(old_strings);
  app->batch_strings = NULL;
  for (uint32_t k = 0; k < app->shown_count; k++) app->traces[app->shown[k]].in_batch = 0;
  memcpy(app->error, keep, sizeof keep);
  app->has_stats = 1;
  app->load_t0_ms = app->batch_t0_ms;
  st_app_apply(app, ALL_CHANGED);
  app->loaded_pending = 1;
  return app->shown_count;
}
