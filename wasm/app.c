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
#include "summary.h"
#include "flame_panel.h"

#define LABEL_FONT_PX 12.0f
#define BACKGROUND_RGBA 0xFFFBFAFAu /* before any trace: matches web/style.css */

/* ---- state --------------------------------------------------------------- */

static st_app g_app;

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
  if (app->ui) st_app_apply(app, st_ui_resize(app->ui, css_w, css_h, dpr));
  st_app_request_redraw(app);
}

void st_app_request_redraw(st_app *app) { app->dirty = 1; }

/* ---- loading ------------------------------------------------------------- */

int st_app_load_begin(st_app *app, const char *name) {
  if (app->loader) st_loader_destroy(app->loader);
  copy_str(app->load_name, sizeof app->load_name, name && *name ? name : "trace");
  st_load_desc d = {0};
  d.alloc = app->alloc;
  d.file_name = app->load_name;
  app->loader = st_loader_create(&d);
  app->push_code = ST_OK;
  app->load_t0_ms = st_platform_now_ms();
  if (!app->loader) {
    snprintf(app->error, sizeof app->error, "%s: out of memory starting the load", app->load_name);
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

int st_app_load_finish(st_app *app) {
  if (!app->loader) {
    snprintf(app->error, sizeof app->error, "no load in progress");
    return ST_APP_LOAD_FAILED;
  }
  st_error err;
  memset(&err, 0, sizeof err);
  st_trace *t = st_loader_finish(app->loader, &err);
  st_stats stats = *st_loader_stats(app->loader);
  st_argsrc *args = st_loader_take_args_source(app->loader);             /* args on selection */
  char *info = dup_str(t ? st_loader_metadata_json(app->loader) : NULL); /* trace-info panel */
  st_loader_destroy(app->loader);
  app->loader = NULL;
  if (!t) {
    free(info);
    st_argsrc_destroy(args);
    if (err.code == ST_OK) st_error_set(&err, ST_ERR_FORMAT, 0, "no trace data");
    set_error(app, &err);
    return ST_APP_LOAD_FAILED;
  }
  st_error lerr;
  memset(&lerr, 0, sizeof lerr);
  st_lod *lod = st_lod_build(&app->alloc, t, &lerr);
  st_ui *ui = lod ? st_ui_create(&app->alloc, t, app->css_w, app->css_h, app->dpr) : NULL;
  if (!lod || !ui) {
    if (lerr.code == ST_OK) st_error_set(&lerr, ST_ERR_NOMEM, 0, "out of memory");
    set_error(app, &lerr);
    free(info);
    st_argsrc_destroy(args);
    st_lod_destroy(lod);
    st_trace_destroy(t);
    return ST_APP_LOAD_FAILED;
  }
  /* success: swap in (the ui and the lod point into the trace: free them first) */
  st_summary_forget(app);
  st_flame_forget(app);
  st_ui_destroy(app->ui);
  st_lod_destroy(app->lod);
  st_trace_destroy(app->trace);
  app->trace = t;
  st_argsrd_set_source(args);
  app->lod = lod;
  app->ui = ui;
  app->stats = stats;
  app->has_stats = 1;
  free(app->info_json);
  app->info_json = info;
  app->animating = 0;
  st_ui_set_tool(ui, (st_tool)app->tool);
  copy_str(app->trace_name, sizeof app->trace_name, app->load_name);
  st_app_apply(app, ST_UI_REDRAW | ST_UI_VIEW | ST_UI_SELECTION | ST_UI_SEARCH | ST_UI_MARK |
                        ST_UI_TOOL | ST_UI_LAYOUT);
  app->loaded_pending = 1;
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
  /* The first frame now, not at the next animation frame (up to 16 ms of
   * waiting, ~11 ms per load in a profile of the 30 MB trace): WebGL may
   * draw outside requestAnimationFrame, and the browser shows the canvas
   * at its next composite either way. */
  st_app_frame(app);
  return rc;
}

void st_app_load_abort(st_app *app) {
  if (app->loader) st_loader_destroy(app->loader);
  app->loader = NULL;
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

static st_code build(st_app *app) {
  st_draw_input in = {.trace = app->trace,
                      .lod = app->lod,
                      .layout = st_ui_layout(app->ui),
                      .view = st_ui_view(app->ui),
                      .font = st_glyphs_font(app->glyphs)};
  st_draw_overlay ov;
  st_ui_overlay(app->ui, &ov);
  return st_draw_frame_overlay(&app->dl, &in, &ov, &app->alloc);
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

const char *st_app_info_json(const st_app *app) { return app->info_json ? app->info_json : "{}"; }

const char *st_app_stats_json(st_app *app) {
  static char *buf;
  static size_t cap;
  if (!app->has_stats) return "null";
  st_stats s = app->stats;
  if (app->loaded_pending) s.load_ms = st_platform_now_ms() - app->load_t0_ms;
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
