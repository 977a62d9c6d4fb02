/* app.c: the page application's state machine (see app.h): loading and
 * swapping traces, the viewport, and producing a frame when something
 * changed. Browser specifics stay behind platform.h, js_bridge.h, the GL
 * renderer and the glyph atlas.
 *
 * Contents:
 *   state     the one st_app
 *   loading   begin / push / finish / demo
 *   view      fit, zoom, pan, scroll, click, get/set in file microseconds
 *   frame     draw list -> GL, load-completion report
 *   stats     JSON for the page
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "js_bridge.h"
#include "platform.h"

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
  app->dirty = 1;
  return app->renderer && app->glyphs;
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

/* ---- view helpers -------------------------------------------------------- */

static float timeline_h(const st_app *app) {
  float h = app->view.height - ST_VIEW_AXIS_H;
  return h > 0 ? h : 0;
}

/* Keeps the view on the trace: the window overlaps the trace's time range,
 * it is not wider than a few trace lengths, and the scroll stays within the
 * track area. */
static void clamp_view(st_app *app) {
  st_view *v = &app->view;
  if (!app->trace) return;
  double dur = (double)st_trace_duration_ns(app->trace);
  if (dur < 1000) dur = 1000;
  double tw = st_view_timeline_w(v);
  if (tw < 1) tw = 1;
  double max_nspp = dur * 4 / tw;
  if (v->ns_per_px > max_nspp) v->ns_per_px = max_nspp;
  double win = tw * v->ns_per_px;
  double lo = -0.9 * win, hi = dur - 0.1 * win;
  if (v->t0_ns < lo) v->t0_ns = lo;
  if (v->t0_ns > hi) v->t0_ns = hi;
  float max_scroll = app->layout ? st_layout_height(app->layout) - timeline_h(app) + 8 : 0;
  if (max_scroll < 0) max_scroll = 0;
  if (v->scroll_y > max_scroll) v->scroll_y = max_scroll;
  if (v->scroll_y < 0) v->scroll_y = 0;
}

void st_app_fit(st_app *app) {
  if (!app->trace) return;
  st_view_fit(&app->view, app->trace, app->css_w, app->css_h, app->dpr);
  app->view.scroll_y = 0;
  clamp_view(app);
  st_app_request_redraw(app);
}

void st_app_zoom(st_app *app, double factor, float x) {
  if (!app->trace || !(factor > 0)) return;
  st_view_zoom(&app->view, factor, x);
  clamp_view(app);
  st_app_request_redraw(app);
}

void st_app_pan_px(st_app *app, float dx) {
  if (!app->trace) return;
  st_view_pan_px(&app->view, dx);
  clamp_view(app);
  st_app_request_redraw(app);
}

void st_app_scroll_px(st_app *app, float dy) {
  if (!app->trace) return;
  app->view.scroll_y += dy;
  clamp_view(app);
  st_app_request_redraw(app);
}

int st_app_click(st_app *app, float x, float y) {
  if (!app->layout || y < ST_VIEW_AXIS_H || x < 0 || x >= app->view.width) return 0;
  float cy = y - ST_VIEW_AXIS_H + app->view.scroll_y;
  uint32_t n = 0;
  const st_layout_item *items = st_layout_items(app->layout, &n);
  uint32_t i = st_layout_first_at(app->layout, cy);
  if (i >= n) return 0;
  const st_layout_item *it = &items[i];
  if (it->kind != ST_LAYOUT_SECTION || cy < it->y || cy >= it->y + it->h) return 0;
  int c = st_layout_collapsed(app->layout, it->process);
  st_layout_set_collapsed(app->layout, it->process, !c);
  clamp_view(app);
  st_app_request_redraw(app);
  return 1;
}

void st_app_view_get(const st_app *app, double *start_us, double *end_us, double *scroll_y) {
  const st_view *v = &app->view;
  double origin = app->trace ? (double)st_trace_origin_ns(app->trace) : 0;
  double t1 = v->t0_ns + (double)st_view_timeline_w(v) * v->ns_per_px;
  *start_us = (origin + v->t0_ns) / 1000.0;
  *end_us = (origin + t1) / 1000.0;
  *scroll_y = v->scroll_y;
}

int st_app_view_set(st_app *app, double start_us, double end_us) {
  if (!app->trace || !isfinite(start_us) || !isfinite(end_us) || !(end_us > start_us)) return 0;
  double origin = (double)st_trace_origin_ns(app->trace);
  double tw = st_view_timeline_w(&app->view);
  if (tw < 1) tw = 1;
  app->view.t0_ns = start_us * 1000.0 - origin;
  app->view.ns_per_px = (end_us - start_us) * 1000.0 / tw;
  if (app->view.ns_per_px < 1e-3) app->view.ns_per_px = 1e-3;
  clamp_view(app);
  st_app_request_redraw(app);
  return 1;
}

void st_app_resize(st_app *app, float css_w, float css_h, float dpr) {
  if (!(css_w >= 1)) css_w = 1;
  if (!(css_h >= 1)) css_h = 1;
  if (!(dpr > 0)) dpr = 1;
  int had = app->css_w > 0 && app->trace;
  /* keep the visible time range across a resize */
  double t0 = app->view.t0_ns;
  double t1 = t0 + (double)st_view_timeline_w(&app->view) * app->view.ns_per_px;
  app->css_w = css_w;
  app->css_h = css_h;
  app->dpr = dpr;
  app->view.width = css_w;
  app->view.height = css_h;
  app->view.dpr = dpr;
  st_platform_canvas_size((int)lroundf(css_w * dpr), (int)lroundf(css_h * dpr));
  if (app->glyphs) st_glyphs_set_dpr(app->glyphs, dpr);
  if (had) {
    double tw = st_view_timeline_w(&app->view);
    if (tw >= 1 && t1 > t0) app->view.ns_per_px = (t1 - t0) / tw;
    clamp_view(app);
  } else if (app->trace) {
    st_app_fit(app);
  }
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
  st_loader_destroy(app->loader);
  app->loader = NULL;
  if (!t) {
    if (err.code == ST_OK) st_error_set(&err, ST_ERR_FORMAT, 0, "no trace data");
    set_error(app, &err);
    return ST_APP_LOAD_FAILED;
  }
  st_error lerr;
  memset(&lerr, 0, sizeof lerr);
  st_lod *lod = st_lod_build(&app->alloc, t, &lerr);
  st_layout *layout = lod ? st_layout_create(&app->alloc, t) : NULL;
  if (!lod || !layout) {
    if (lerr.code == ST_OK) st_error_set(&lerr, ST_ERR_NOMEM, 0, "out of memory");
    set_error(app, &lerr);
    st_lod_destroy(lod);
    st_trace_destroy(t);
    return ST_APP_LOAD_FAILED;
  }
  /* success: swap in */
  st_layout_destroy(app->layout);
  st_lod_destroy(app->lod);
  st_trace_destroy(app->trace);
  app->trace = t;
  app->lod = lod;
  app->layout = layout;
  app->stats = stats;
  app->has_stats = 1;
  copy_str(app->trace_name, sizeof app->trace_name, app->load_name);
  app->view.width = app->css_w;
  app->view.height = app->css_h;
  st_app_fit(app);
  app->loaded_pending = 1;
  if (err.code != ST_OK) {
    /* damaged part-way: shown, with the CLI's warning line */
    char line[sizeof app->error];
    st_load_error_line(&err, NULL, line, sizeof line);
    snprintf(app->error, sizeof app->error, "%s: warning: %s; kept what was read before it",
             app->load_name, line);
    return ST_APP_LOAD_PARTIAL;
  }
  app->error[0] = 0;
  return ST_APP_LOAD_OK;
}

void st_app_load_abort(st_app *app) {
  if (app->loader) st_loader_destroy(app->loader);
  app->loader = NULL;
}

static int demo_write(void *ud, const void *data, size_t len) {
  return st_app_load_push(ud, data, len) == ST_OK ? 0 : 1;
}

int st_app_load_demo(st_app *app) {
  if (!st_app_load_begin(app, "demo trace (built in)")) return ST_APP_LOAD_FAILED;
  st_demo_desc d = {0};
  d.seed = 1;
  d.target_events = ST_DEMO_EVENTS;
  st_demo_write(&d, demo_write, app);
  return st_app_load_finish(app);
}

/* ---- frame --------------------------------------------------------------- */

static st_code build(st_app *app) {
  st_draw_input in = {app->trace, app->lod, app->layout, &app->view, st_glyphs_font(app->glyphs)};
  return st_draw_frame(&app->dl, &in, &app->alloc);
}

void st_app_frame(st_app *app) {
  if (!app->dirty || !app->renderer || !app->glyphs || !st_platform_gl_ready()) return;
  app->dirty = 0;
  double t0 = st_platform_now_ms();
  if (app->trace) {
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
