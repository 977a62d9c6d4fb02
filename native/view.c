/* view.c: the native window's loop (see native.h).
 *
 * Events are waited for (no busy loop while nothing happens); a frame is
 * built and drawn only when the session says something changed, and every
 * frame while held keys move the view. A frame: the core's draw list (with
 * the ui's overlay) -> the page's GL renderer (wasm/gl_renderer.c) with the
 * page's glyph atlas (wasm/glyphs.c) -> swap. As in the page, an atlas that
 * fills up mid-frame is reset and the frame built once more, so every frame
 * drawn is complete; the screenshot is the first one.
 */
#include "native.h"

#include <GLES3/gl3.h>
#include <stdio.h>
#include <string.h>

#include "frame_json.h"
#include "gl_renderer.h"
#include "glyphs.h"
#include "input.h"
#include "screenshot.h"
#include "session.h"
#include "title.h"
#include "window.h"

#define LABEL_FONT_PX 12.0f /* as the page's (wasm/app.c) */

typedef struct view {
  nv_window win;
  st_gl_renderer *renderer;
  st_glyphs *glyphs;
  nv_session s;
  nv_input in;
  char title[512];
} view;

static double now_ms(void) {
  return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency();
}

/* Builds the frame's draw list; a full atlas is reset and the frame built
 * again (a single frame never needs a whole atlas). */
static st_code build(view *v) {
  st_code c = nv_session_build(&v->s, st_glyphs_font(v->glyphs));
  if (c == ST_OK && st_glyphs_end_frame(v->glyphs)) {
    st_glyphs_reset(v->glyphs);
    c = nv_session_build(&v->s, st_glyphs_font(v->glyphs));
    st_glyphs_end_frame(v->glyphs);
  }
  return c;
}

static void draw(view *v) {
  st_gl_renderer_draw(v->renderer, &v->s.dl, st_glyphs_texture(v->glyphs), v->win.fb_w, v->win.fb_h,
                      v->win.dpr);
}

static void update_title(view *v, const char *name) {
  char t[sizeof v->title];
  nv_title(&v->s, &v->in, name, t, sizeof t);
  if (strcmp(t, v->title) != 0) {
    memcpy(v->title, t, sizeof t);
    SDL_SetWindowTitle(v->win.win, t);
  }
}

/* --screenshot: the first frame, drawn offscreen, to a PNG (+ its draw list). */
static int screenshot(view *v, const st_native_opts *o, char *err, size_t cap) {
  nv_offscreen off;
  if (!nv_offscreen_begin(&off, v->win.fb_w, v->win.fb_h)) {
    snprintf(err, cap, "cannot create an offscreen framebuffer");
    return 0;
  }
  if (build(v) != ST_OK) {
    nv_offscreen_end(&off);
    snprintf(err, cap, "out of memory building the frame");
    return 0;
  }
  draw(v);
  glFinish();
  int ok = nv_screenshot_png(o->screenshot, v->win.fb_w, v->win.fb_h, err, cap);
  nv_offscreen_end(&off);
  if (ok && o->frame_json)
    ok = nv_frame_json_write(o->frame_json, &v->s.dl, v->s.css_w, v->s.css_h, v->s.dpr, err, cap);
  return ok;
}

static void handle(view *v, const SDL_Event *e, int *quit) {
  if (e->type == SDL_QUIT) {
    *quit = 1;
  } else if (e->type == SDL_WINDOWEVENT && (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
                                            e->window.event == SDL_WINDOWEVENT_EXPOSED)) {
    if (nv_window_sync_size(&v->win)) {
      st_glyphs_set_dpr(v->glyphs, v->win.dpr);
      nv_session_resize(&v->s, (float)v->win.w, (float)v->win.h, v->win.dpr);
    }
    v->s.dirty = 1;
  } else {
    nv_input_event(&v->in, &v->s, e, now_ms());
  }
}

static int run(view *v, const st_native_opts *o, char *err, size_t cap) {
  if (o->screenshot) return screenshot(v, o, err, cap);
  SDL_StopTextInput(); /* typing goes to the search box only while it is open */
  int quit = 0;
  while (!quit) {
    SDL_Event e;
    /* wait while idle; poll while keys are held (motion by elapsed time) */
    if (v->s.animating || v->s.dirty ? SDL_PollEvent(&e) : SDL_WaitEventTimeout(&e, 250)) {
      handle(v, &e, &quit);
      while (!quit && SDL_PollEvent(&e)) handle(v, &e, &quit);
    }
    nv_session_tick(&v->s, now_ms());
    if (!v->s.dirty) continue;
    if (build(v) != ST_OK) {
      snprintf(err, cap, "out of memory building the frame");
      return 0;
    }
    draw(v);
    if ((v->s.changed & ST_UI_HELP) && st_ui_help_visible(v->s.ui)) nv_help_print();
    v->s.changed = 0;
    update_title(v, o->name);
    nv_window_swap(&v->win);
  }
  return 1;
}

int st_native_view(st_trace *trace, const st_native_opts *o) {
  view v;
  char err[512] = "";
  memset(&v, 0, sizeof v);
  int w = o->width > 0 ? o->width : 1280, h = o->height > 0 ? o->height : 800;
  int ok = nv_window_open(&v.win, o->name, w, h, o->screenshot != NULL, err, sizeof err);
  if (ok) {
    v.renderer = st_gl_renderer_create();
    v.glyphs = st_glyphs_create(LABEL_FONT_PX, v.win.dpr);
    if (!v.renderer || !v.glyphs)
      snprintf(err, sizeof err, "the GL ES 3 renderer could not be set up (shaders, textures)");
    ok = v.renderer && v.glyphs &&
         nv_session_init(&v.s, trace, (float)v.win.w, (float)v.win.h, v.win.dpr, err, sizeof err);
    if (ok) ok = run(&v, o, err, sizeof err);
    nv_session_free(&v.s);
    st_glyphs_destroy(v.glyphs);
    st_gl_renderer_destroy(v.renderer);
    nv_window_close(&v.win);
  }
  if (!ok) fprintf(stderr, "strata: view: %s\n", err);
  return ok ? 0 : 1;
}
