/* app.c: the page application's state machine (see app.h): loading and
 * swapping traces, routing the core ui's change bits, and producing a frame
 * when something changed. Browser specifics stay behind platform.h,
 * js_bridge.h, the GL renderer and the glyph atlas.
 *
 * Contents:
 *   state     the one st_app
 *   view      change bits, fit, view get/set in file microseconds, resize
 *   loading   begin / push / finish / abort / demo
 *   frame     held-key ticks, draw list (+ ui overlay) -> GL, load report
 *   stats     JSON for the page
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "args_reader.h"
#include "js_bridge.h"
#include "platform.h"
#include "compare.h"
#include "summary.h"
#include "workspace.h"
#include "flame_panel.h"
#include "heap_budget.h"

#define LABEL_FONT_PX 12.0f
#define BACKGROUND_RGBA 0xFFFBFAFAu /* before any trace: matches web/style.css */

/* ---- state --------------------------------------------------------------- */

static st_app g_app;
_Static_assert(ST_APP_MAX_TRACES == ST_ARGSRD_SLOTS, "one args slot per trace slot");

st_app *st_app_get(void) { return &g_app; }

int st_app_init_gfx(st_app *app) {
  if (!app->dpr) app->dpr = 1.0f;
  app->renderer = st_gl_renderer_create();
  app->glyphs = st_glyphs_create(LABEL_FONT_PX, app->dpr);
  app->dl.clear_rgba = BACKGROUND_RGBA;
  app->tool = ST_TOOL_SELECT; /* the core's default; 2 / middle drag pan */
  app->dirty = 1;
  return app->renderer && app->glyphs;
}

/* A malloc'd copy of s (NULL for NULL or on failure: the panel then says "{}"). */
static char *dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void copy_str(char *dst, size_t cap, const char *src) {
  if (!src) src = "";
  size_t n = strlen(src);
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
  /* one line: the name is shown in messages */
  for (size_t i = 0; i < n; i++)
    if (dst[i] == '\n' || dst[i] == '\r') dst[i] = ' ';
}

/* ---- view ---------------------------------------------------------------- */

void st_app_apply(st_app *app, unsigned ch) {
  uint32_t part;
  double delta;
  if ((ch & ST_UI_SHIFT) && app->ui && st_ui_take_shift(app->ui, &part, &delta) &&
      part < app->shown_count) { /* alt+drag of a file's header */
    uint32_t slot = app->shown[part];
    st_app_set_offset(app, slot, (double)app->traces[slot].offset_ns + delta);
  }
  if (app->side && app->ui) { /* the panes show the same time, selection, mark and search */
    st_ui *other = app->ui == app->pane[0] ? app->pane[1] : app->pane[0];
    if (other && (ch & ST_UI_VIEW)) {
      double t0, t1;
      st_ui_window(app->ui, &t0, &t1);
      st_ui_set_view(other, t0, t1);
      ch |= ST_UI_REDRAW;
    }
    if (other && (ch & ST_UI_SELECTION)) st_ui_set_selection(other, st_ui_selection(app->ui));
    if (other && (ch & ST_UI_MARK)) {
      double m0, m1;
      if (st_ui_mark(app->ui, &m0, &m1))
        st_ui_set_mark(other, m0, m1);
      else
        st_ui_clear_mark(other);
    }
    if (other && (ch & ST_UI_SEARCH)) {
      /* the same search: a new query, or "in args" results the other pane
       * lacks (a pane made after the search) or must drop (a name search
       * replaced them), are copied over; the args passes add their hits
       * to both panes (args_search_api.c) */
      const st_find *fa = st_ui_find(app->ui), *fb = st_ui_find(other);
      if (strcmp(st_find_text(fa), st_find_text(fb)) != 0 ||
          st_find_in_args(fa) != st_find_in_args(fb) || st_find_count(fa) != st_find_count(fb))
        if (!st_ui_search_copy(other, app->ui)) { /* out of memory: names at least */
          const char *q = st_find_text(fa);
          st_ui_search(other, q, strlen(q));
        }
      /* a step made in one pane: the other follows (its current match, and
       * the event revealed in the pane that shows its file) */
      st_event_ref cur = st_ui_search_current(app->ui), oc = st_ui_search_current(other);
      if (cur.row != oc.row || cur.index != oc.index) st_ui_search_follow(other, cur);
      ch |= ST_UI_REDRAW;
    }
    if (other && (ch & ST_UI_TOOL)) st_ui_set_tool(other, st_ui_tool(app->ui));
  }
  if (ch & ST_UI_REDRAW) app->dirty = 1;
  if (ch & ST_UI_ANIMATING) {
    if (!app->animating) app->last_tick_ms = st_platform_now_ms();
    app->animating = 1;
    app->dirty = 1;
  }
  /* at once, not at the next frame: the page's panels (tool, search box
   * focus, details) must agree with the state as soon as the event is done */
  unsigned panels = ch & ~(unsigned)(ST_UI_HANDLED | ST_UI_REDRAW | ST_UI_ANIMATING);
  if (panels) st_js_ui_changed(panels);
}

void st_app_fit(st_app *app) {
  if (app->ui) st_app_apply(app, st_ui_fit(app->ui));
}

void st_app_view_get(const st_app *app, double *start_us, double *end_us, double *scroll_y) {
  double t0 = 0, t1 = 0;
  double origin = app->trace ? (double)st_trace_origin_ns(app->trace) : 0;
  if (app->ui) st_ui_window(app->ui, &t0, &t1);
  *start_us = (origin + t0) / 1000.0;
  *end_us = (origin + t1) / 1000.0;
  *scroll_y = app->ui ? st_ui_view(app->ui)->scroll_y : 0;
}

int st_app_view_set(st_app *app, double start_us, double end_us) {
  if (!app->ui || !isfinite(start_us) || !isfinite(end_us) || !(end_us > start_us)) return 0;
  double origin = (double)st_trace_origin_ns(app->trace);
  st_app_apply(app, st_ui_set_view(app->ui, start_us * 1000.0 - origin, end_us * 1000.0 - origin));
  return 1;
}

void st_app_resize(st_app *app, float css_w, float css_h, float dpr) {
  if (!(css_w >= 1)) css_w = 1;
  if (!(css_h >= 1)) css_h = 1;
  if (!(dpr > 0)) dpr = 1;
  app->css_w = css_w;
  app->css_h = css_h;
  app->dpr = dpr;
  st_platform_canvas_size((int)lroundf(css_w * dpr), (int)lroundf(css_h * dpr));
  if (app->glyphs) st_glyphs_set_dpr(app->glyphs, dpr);
  if (app->side) {
    st_ui_resize(app->pane[1 - (app->ui == app->pane[1])], css_w / 2, css_h, dpr);
    app->pane_dx = app->ui == app->pane[1] ? css_w / 2 : 0;
    st_app_apply(app, st_ui_resize(app->ui, css_w / 2, css_h, dpr));
  } else if (app->ui) {
    st_app_apply(app, st_ui_resize(app->ui, css_w, css_h, dpr));
  }
  st_app_request_redraw(app);
}

void st_app_request_redraw(st_app *app) { app->dirty = 1; }

/* ---- loading ------------------------------------------------------------- */

int st_app_load_begin(st_app *app, const char *name) {
  if (app->loader) st_loader_destroy(app->loader);
  app->loader = NULL;
  copy_str(app->load_name, sizeof app->load_name, name && *name ? name : "trace");
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
  app->load_t0_ms = st_platform_now_ms();
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

/* The same one-line diagnosis as the CLI: "<file>: <what> (at byte N[, line
 * L, column C])". */
static void set_error(st_app *app, const st_error *err) {
  st_load_error_line(err, app->load_name, app->error, sizeof app->error);
}

static uint32_t free_slot(const st_app *app) {
  for (uint32_t i = 0; i < ST_APP_MAX_TRACES; i++)
    if (!app->traces[i].trace) return i;
  return UINT32_MAX;
}

/* Frees a slot: its model, metadata and args source; its handles go stale. */
static void close_slot(st_app *app, uint32_t slot) {
  st_app_trace *s = &app->traces[slot];
  st_trace_destroy(s->trace);
  free(s->info_json);
  st_argsrd_close(slot);
  uint32_t gen = s->gen + 1;
  memset(s, 0, sizeof *s);
  s->gen = gen & 0x7FFFFFu ? gen & 0x7FFFFFu : 1;
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
  st_argsrc *args = st_loader_take_args_source(app->loader);             /* args on selection */
  char *info = dup_str(t ? st_loader_metadata_json(app->loader) : NULL); /* trace-info panel */
  st_loader_destroy(app->loader);
  app->loader = NULL;
  uint32_t slot = t ? free_slot(app) : UINT32_MAX;
  if (!t || slot == UINT32_MAX) {
    free(info);
    st_argsrc_destroy(args);
    if (t) {
      st_trace_destroy(t);
      st_error_set(&err, ST_ERR_LIMIT, 0, "too many traces open (64)");
    }
    if (err.code == ST_OK) st_error_set(&err, ST_ERR_FORMAT, 0, "no trace data");
    set_error(app, &err);
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
  s->stats.load_ms = st_platform_now_ms() - app->load_t0_ms;
  s->stats.heap_bytes = st_platform_heap_bytes();
  s->info_json = info;
  copy_str(s->name, sizeof s->name, app->load_name);
  unsigned cur = st_argsrd_current();
  st_argsrd_use(slot);
  st_argsrd_set_source(args);
  st_argsrd_reset();
  st_argsrd_use(cur);
  app->batch_loaded++;
  app->last_slot = slot;
  int rc = ST_APP_LOAD_OK;
  app->error[0] = 0;
  if (err.code != ST_OK) {
    /* damaged part-way: shown, with the CLI's warning line */
    char line[sizeof app->error];
    st_load_error_line(&err, NULL, line, sizeof line);
    snprintf(app->error, sizeof app->error, "%s: warning: %s; kept what was read before it",
             app->load_name, line);
    rc = ST_APP_LOAD_PARTIAL;
  }
  if (single && !st_app_batch_end(app)) return ST_APP_LOAD_FAILED;
  return rc;
}

void st_app_load_abort(st_app *app) {
  if (app->loader) st_loader_destroy(app->loader);
  app->loader = NULL;
  if (app->batch_open == 2) st_app_batch_end(app);
}

/* ---- workspace ------------------------------------------------------------ */

void st_app_batch_begin(st_app *app) {
  if (app->batch_open) st_app_batch_end(app);
  app->batch_strings = st_strtab_create(&app->alloc);
  app->batch_open = 1;
  app->batch_loaded = 0;
  app->batch_t0_ms = st_platform_now_ms();
}

uint32_t st_app_handle_of(const st_app *app, uint32_t slot) {
  if (slot >= ST_APP_MAX_TRACES || !app->traces[slot].trace) return 0;
  return slot | (app->traces[slot].gen ? app->traces[slot].gen : 1) << 8;
}

uint32_t st_app_slot_of(const st_app *app, double handle) {
  if (!(handle >= 1 && handle < 2147483648.0)) return UINT32_MAX;
  uint32_t h = (uint32_t)handle, slot = h & 0xFFu;
  if ((double)h != handle || slot >= ST_APP_MAX_TRACES || !app->traces[slot].trace ||
      app->traces[slot].in_batch || st_app_handle_of(app, slot) != h)
    return UINT32_MAX;
  return slot;
}

static void drop_view(st_app *app) {
  st_summary_forget(app);
  st_flame_forget(app);
  st_compare_forget();
  if (app->side) { /* back to one pane (the ui and the lod point into the traces) */
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

/* "5,000,000" */
static void fmt_count(char *buf, size_t cap, uint64_t v) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
  for (int i = 0; i < n && (size_t)o + 2 < cap; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = 0;
}

/* "612 MB", "1.51 GB", "9.6 MB", "512 bytes" */
static void fmt_bytes(char *buf, size_t cap, uint64_t v) {
  if (v >= 1000000000u)
    snprintf(buf, cap, "%.2f GB", (double)v / 1e9);
  else if (v >= 100000000u)
    snprintf(buf, cap, "%.0f MB", (double)v / 1e6);
  else if (v >= 1000000u)
    snprintf(buf, cap, "%.1f MB", (double)v / 1e6);
  else if (v >= 1000u)
    snprintf(buf, cap, "%.1f kB", (double)v / 1e3);
  else
    snprintf(buf, cap, "%llu bytes", (unsigned long long)v);
}

/* How far a trace's load had got: "after its 5,000,000 events, 612 MB read"
 * (the whole file was read: a byte offset would say nothing). */
static void load_extent(const st_app_trace *s, char *buf, size_t cap) {
  char ev[32], by[32];
  fmt_count(ev, sizeof ev, s->stats.events);
  fmt_bytes(by, sizeof by, s->stats.bytes_in);
  snprintf(buf, cap, "after its %s events, %s read", ev, by);
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
      load_extent(&app->traces[app->shown[0]], ext, sizeof ext);
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

/* The slots holding traces of the batch in progress (in_batch) or not, in
 * load order. */
static uint32_t slots_by_load(const st_app *app, int in_batch, uint32_t *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < ST_APP_MAX_TRACES; i++)
    if (app->traces[i].trace && !app->traces[i].in_batch == !in_batch) out[n++] = i;
  for (uint32_t i = 1; i < n; i++) /* insertion sort by load order */
    for (uint32_t j = i; j > 0 && app->traces[out[j]].seq < app->traces[out[j - 1]].seq; j--) {
      uint32_t tmp = out[j];
      out[j] = out[j - 1];
      out[j - 1] = tmp;
    }
  return n;
}

/* Appends "<file>: <why>\n" to app->dropped. */
static void note_dropped(st_app *app, const st_app_trace *s, const char *why) {
  size_t len = strlen(app->dropped);
  char ext[96];
  load_extent(s, ext, sizeof ext);
  snprintf(app->dropped + len, sizeof app->dropped - len, "%s: not shown: %s (%s)\n", s->name, why,
           ext);
}

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
  uint32_t old[ST_APP_MAX_TRACES], nold = slots_by_load(app, 0, old);
  st_strtab *old_strings = app->strings;
  app->strings = app->batch_strings;
  app->shown_count = slots_by_load(app, 1, app->shown); /* display order: load order */
  st_ws_place(app);
  char keep[sizeof app->error];
  memcpy(keep, app->error, sizeof keep); /* a partial load's warning */
  st_heap_budget_view_begins();          /* a test's budget (heap_budget.h), if armed */
  int built;
  while (!(built = build_view(app)) && app->shown_count > 1) {
    /* the view of them all does not fit: the last file is left out */
    uint32_t last = app->shown[--app->shown_count];
    note_dropped(app, &app->traces[last], app->error);
    close_slot(app, last);
    st_ws_place(app); /* group names unique among those left (and their clocks) */
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
    if (app->ui)
      st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SELECTION | ST_UI_SEARCH | ST_UI_MARK |
                            ST_UI_TOOL | ST_UI_LAYOUT);
    return 0;
  }
  for (uint32_t k = 0; k < nold; k++) close_slot(app, old[k]);
  st_strtab_destroy(old_strings);
  app->batch_strings = NULL;
  for (uint32_t k = 0; k < app->shown_count; k++) app->traces[app->shown[k]].in_batch = 0;
  memcpy(app->error, keep, sizeof keep);
  copy_str(app->trace_name, sizeof app->trace_name,
           app->shown_count == 1 ? app->traces[app->shown[0]].name : "");
  if (app->shown_count > 1)
    snprintf(app->trace_name, sizeof app->trace_name, "%u traces", app->shown_count);
  app->has_stats = 1;
  app->load_t0_ms = app->batch_t0_ms;
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SELECTION | ST_UI_SEARCH | ST_UI_MARK |
                        ST_UI_TOOL | ST_UI_LAYOUT);
  app->loaded_pending = 1;
  /* The first frame now, not at the next animation frame (up to 16 ms of
   * waiting, ~11 ms per load in a profile of the 30 MB trace): WebGL may
   * draw outside requestAnimationFrame, and the browser shows the canvas
   * at its next composite either way. */
  st_app_frame(app);
  return app->shown_count;
}

int st_app_align_selection(st_app *app) {
  if (!app->merged || !app->ui) return 0;
  uint32_t n = app->shown_count, ns;
  const st_sel_span *sp = st_selection_spans(st_ui_selection(app->ui), &ns);
  const st_row *rows = st_trace_rows(app->merged, NULL);
  int64_t first[ST_APP_MAX_TRACES];
  uint8_t have[ST_APP_MAX_TRACES] = {0};
  uint32_t ref = UINT32_MAX, count = 0;
  /* each file's earliest selected event; the first file with one is the reference */
  for (uint32_t i = 0; i < ns; i++) {
    uint32_t k = st_trace_part_of_row(app->merged, sp[i].row);
    if (k >= n) continue;
    int64_t t = rows[sp[i].row].start[sp[i].lo];
    if (!have[k] || t < first[k]) first[k] = t;
    if (!have[k]) count++;
    have[k] = 1;
  }
  for (uint32_t k = 0; k < n && ref == UINT32_MAX; k++)
    if (have[k]) ref = k;
  if (count < 2) return 0;
  int64_t offs[ST_APP_MAX_TRACES], deltas[ST_APP_MAX_TRACES];
  for (uint32_t k = 0; k < n; k++) {
    offs[k] = app->traces[app->shown[k]].offset_ns;
    if (have[k]) offs[k] += first[ref] - first[k];
  }
  if (st_trace_merge_set_offsets(app->merged, offs, deltas) != ST_OK) return 0;
  const st_trace_part *parts = st_trace_parts(app->merged, NULL);
  for (uint32_t k = 0; k < n; k++) {
    st_lod_shift_rows(app->lod, parts[k].row_base, parts[k].row_base + parts[k].row_count,
                      deltas[k]);
    app->traces[app->shown[k]].offset_ns = parts[k].offset_ns;
  }
  st_summary_forget(app);
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SHIFT);
  return (int)count;
}

int st_app_set_offset(st_app *app, uint32_t slot, double offset_ns) {
  if (!app->merged || slot >= ST_APP_MAX_TRACES || !isfinite(offset_ns) ||
      !(fabs(offset_ns) < 4e18))
    return 0;
  uint32_t n = app->shown_count, k = 0;
  while (k < n && app->shown[k] != slot) k++;
  if (k == n) return 0;
  int64_t offs[ST_APP_MAX_TRACES], deltas[ST_APP_MAX_TRACES];
  for (uint32_t i = 0; i < n; i++) offs[i] = app->traces[app->shown[i]].offset_ns;
  offs[k] = (int64_t)llround(offset_ns);
  if (st_trace_merge_set_offsets(app->merged, offs, deltas) != ST_OK) return 0;
  const st_trace_part *parts = st_trace_parts(app->merged, NULL);
  for (uint32_t i = 0; i < n; i++) {
    st_lod_shift_rows(app->lod, parts[i].row_base, parts[i].row_base + parts[i].row_count,
                      deltas[i]);
    app->traces[app->shown[i]].offset_ns = parts[i].offset_ns;
  }
  st_summary_forget(app);
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SHIFT);
  return 1;
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
      unsigned char *nb = realloc(app->demo_bytes, cap);
      if (!nb) {
        free(app->demo_bytes);
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
  free(app->demo_bytes);
  app->demo_bytes = NULL;
  app->demo_len = app->demo_cap = 0;
}

/* ---- frame --------------------------------------------------------------- */

static st_code build_ui(st_app *app, st_ui *ui, st_drawlist *dl) {
  st_draw_input in = {.trace = app->trace,
                      .lod = app->lod,
                      .layout = st_ui_layout(ui),
                      .view = st_ui_view(ui),
                      .font = st_glyphs_font(app->glyphs)};
  st_draw_overlay ov;
  st_ui_overlay(ui, &ov);
  return st_draw_frame_overlay(dl, &in, &ov, &app->alloc);
}

/* Appends src's primitives to dst moved right by dx (the right pane). */
static st_code append_moved(st_app *app, st_drawlist *dst, const st_drawlist *src, float dx) {
  const st_alloc *a = &app->alloc;
  uint32_t nr = dst->rect_count + src->rect_count, ng = dst->glyph_count + src->glyph_count;
  uint32_t nl = dst->line_count + src->line_count, nc = dst->cmd_count + src->cmd_count;
#define GROW(field, cap, n)                                                                        \
  if ((n) > dst->cap) {                                                                            \
    void *p = st_realloc_array(a, dst->field, (n), sizeof *dst->field);                            \
    if (!p) return ST_ERR_NOMEM;                                                                   \
    dst->field = p;                                                                                \
    dst->cap = (n);                                                                                \
  }
  GROW(rects, rect_cap, nr)
  GROW(glyphs, glyph_cap, ng)
  GROW(lines, line_cap, nl)
  GROW(cmds, cmd_cap, nc)
#undef GROW
  for (uint32_t i = 0; i < src->rect_count; i++) {
    st_rect r = src->rects[i];
    r.x += dx;
    dst->rects[dst->rect_count + i] = r;
  }
  for (uint32_t i = 0; i < src->glyph_count; i++) {
    st_glyph_quad q = src->glyphs[i];
    q.x += dx;
    dst->glyphs[dst->glyph_count + i] = q;
  }
  for (uint32_t i = 0; i < src->line_count; i++) {
    st_line l = src->lines[i];
    l.x0 += dx;
    l.x1 += dx;
    dst->lines[dst->line_count + i] = l;
  }
  for (uint32_t i = 0; i < src->cmd_count; i++) {
    st_draw_cmd c = src->cmds[i];
    c.first += c.kind == ST_DRAW_RECTS    ? dst->rect_count
               : c.kind == ST_DRAW_GLYPHS ? dst->glyph_count
                                          : dst->line_count;
    c.clip_x += dx;
    dst->cmds[dst->cmd_count + i] = c;
  }
  dst->rect_count = nr, dst->glyph_count = ng, dst->line_count = nl, dst->cmd_count = nc;
  dst->flows_drawn += src->flows_drawn;
  return ST_OK;
}

static st_code build(st_app *app) {
  if (!app->side) return build_ui(app, app->ui, &app->dl);
  st_code c = build_ui(app, app->pane[0], &app->dl);
  if (c == ST_OK) c = build_ui(app, app->pane[1], &app->dl2);
  if (c == ST_OK) c = append_moved(app, &app->dl, &app->dl2, app->css_w / 2);
  return c;
}

int st_app_set_side_by_side(st_app *app, int on) {
  on = on ? 1 : 0;
  if (on == app->side || !app->ui) return app->side;
  if (on && (!app->merged || app->shown_count < 2)) return 0;
  uint32_t nparts;
  st_trace_parts(app->merged, &nparts);
  if (on) {
    st_ui *b = st_ui_create(&app->alloc, app->merged, app->css_w / 2, app->css_h, app->dpr);
    if (!b) return -1; /* out of memory: stays stacked */
    st_ui *a = app->ui;
    for (uint32_t k = 0; k < nparts; k++) {
      st_ui_set_group_hidden(a, k, k != 0);
      st_ui_set_group_hidden(b, k, k != 1);
    }
    double t0, t1;
    st_ui_window(a, &t0, &t1);
    st_ui_resize(a, app->css_w / 2, app->css_h, app->dpr);
    st_ui_set_view(a, t0, t1);
    st_ui_set_view(b, t0, t1);
    st_ui_set_tool(b, (st_tool)app->tool);
    app->pane[0] = a;
    app->pane[1] = b;
    app->pane_dx = 0;
    app->side = 1;
  } else {
    st_ui *a = app->pane[0];
    double t0, t1;
    st_ui_window(app->ui, &t0, &t1);
    app->ui = a;
    st_ui_destroy(app->pane[1]);
    app->pane[0] = app->pane[1] = NULL;
    app->side = 0;
    app->pane_dx = 0;
    for (uint32_t k = 0; k < nparts; k++) st_ui_set_group_hidden(a, k, 0);
    st_ui_resize(a, app->css_w, app->css_h, app->dpr);
    st_ui_set_view(a, t0, t1);
  }
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_LAYOUT | ST_UI_SELECTION | ST_UI_SEARCH);
  return app->side;
}

float st_app_route_x(st_app *app, float x) {
  if (!app->side) return x;
  float half = app->css_w / 2;
  st_ui *want = app->pane[x >= half];
  if (want && app->ui != want) {
    st_app_apply(app, st_ui_pointer_leave(app->ui));
    app->ui = want;
    st_app_apply(app, ST_UI_SELECTION | ST_UI_SEARCH | ST_UI_TOOL | ST_UI_MARK);
  }
  app->pane_dx = app->ui == app->pane[1] ? half : 0;
  return x - app->pane_dx;
}

void st_app_frame(st_app *app) {
  if (app->animating && app->ui) {
    /* held navigation keys: the core moves by elapsed time */
    double now = st_platform_now_ms();
    st_app_apply(app, st_ui_tick(app->ui, now - app->last_tick_ms));
    app->last_tick_ms = now;
    app->animating = st_ui_animating(app->ui);
  }
  if (!app->dirty || !app->renderer || !app->glyphs || !st_platform_gl_ready()) return;
  app->dirty = 0;
  double t0 = st_platform_now_ms();
  if (app->ui) {
    st_code c = build(app);
    /* atlas full: this frame missed glyphs; start the atlas over and redo
     * the frame once (a single frame never needs a whole atlas) */
    if (c == ST_OK && st_glyphs_end_frame(app->glyphs)) {
      st_glyphs_reset(app->glyphs);
      c = build(app);
      st_glyphs_end_frame(app->glyphs);
    }
    if (c != ST_OK) {
      app->dl.rect_count = app->dl.glyph_count = app->dl.line_count = app->dl.cmd_count = 0;
    }
  } else {
    app->dl.rect_count = app->dl.glyph_count = app->dl.line_count = app->dl.cmd_count = 0;
  }
  int fb_w = (int)lroundf(app->css_w * app->dpr), fb_h = (int)lroundf(app->css_h * app->dpr);
  st_gl_renderer_draw(app->renderer, &app->dl, st_glyphs_texture(app->glyphs), fb_w, fb_h,
                      app->dpr);
  double t1 = st_platform_now_ms();
  app->frames++;
  app->last_frame_ms = t1 - t0;
  app->last_rects = app->dl.rect_count;
  app->last_glyphs = app->dl.glyph_count;
  if (app->loaded_pending) {
    app->loaded_pending = 0;
    app->stats.load_ms = t1 - app->load_t0_ms;
    st_js_notify_loaded();
  }
}

/* ---- stats --------------------------------------------------------------- */

const char *st_app_info_json(const st_app *app) {
  const char *j = app->shown_count ? app->traces[app->shown[0]].info_json : NULL;
  return j ? j : "{}";
}

const char *st_app_stats_json(st_app *app) {
  static char *buf;
  static size_t cap;
  if (!app->has_stats || !app->shown_count) return "null";
  double load_ms =
      app->loaded_pending ? st_platform_now_ms() - app->load_t0_ms : app->stats.load_ms;
  if (app->shown_count > 1) { /* totals, and each file's own */
    static char *multi;
    free(multi);
    multi = st_ws_stats_json(app, (double)st_platform_heap_bytes(), load_ms);
    return multi ? multi : "null";
  }
  st_stats s = app->traces[app->shown[0]].stats;
  s.load_ms = load_ms;
  s.heap_bytes = st_platform_heap_bytes();
  if (!buf) {
    buf = malloc(4096);
    if (!buf) return "null";
    cap = 4096;
  }
  size_t need = st_stats_json(&s, buf, cap);
  if (need + 1 > cap) {
    char *n = realloc(buf, need + 1);
    if (!n) return "null";
    buf = n;
    cap = need + 1;
    st_stats_json(&s, buf, cap);
  }
  return buf;
}
