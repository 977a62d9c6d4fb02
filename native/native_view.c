/* native_view.c: the native window's loop (see native.h): the platform of the
 * page's app (core/app/app.h) on the desktop, as wasm/main.c is in the page.
 *
 * The app gets the platform's clock, the glyph atlas's "full" answer and
 * the panel bits through st_app_platform. Events are waited for (no busy
 * loop while nothing happens); st_app_frame builds a frame only when
 * something changed (every frame while held keys move the view), and it
 * is drawn with the page's GL renderer and glyph atlas (core/render/,
 * labels from glyphs_native.c), then swapped in. An atlas that fills up mid-frame
 * is reset and the frame built once more (glyphs_full), so every frame
 * drawn is complete; --screenshot saves the first one.
 */
#include "native.h"

#include <GLES3/gl3.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "cursor.h"
#include "frame_json.h"
#include "gl_renderer.h"
#include "glyphs.h"
#include "glyphs_native.h"
#include "native_input.h"
#include "screenshot.h"
#include "title.h"
#include "window.h"

#define LABEL_FONT_PX 12.0f /* as the page's */

typedef struct view {
  nv_window win;
  st_gl_renderer *renderer;
  st_glyphs *glyphs;
  st_app *app;
  nv_input in;
  nv_cursor cursor;
  unsigned changed; /* ST_UI_* panel bits since the last frame (platform.ui_changed) */
  char title[512];
} view;

static double now_ms(void *ud) {
  (void)ud;
  return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency();
}

static void ui_changed(void *ud, unsigned bits) { ((view *)ud)->changed |= bits; }

/* The atlas filled up while the frame was built: it starts over, and the
 * app builds the frame once more. */
static int glyphs_full(void *ud) {
  view *v = ud;
  if (!st_glyphs_end_frame(v->glyphs)) return 0;
  st_glyphs_reset(v->glyphs);
  return 1;
}

static void draw(view *v, const st_drawlist *dl) {
  st_gl_renderer_draw(v->renderer, dl, st_glyphs_texture(v->glyphs), v->win.fb_w, v->win.fb_h,
                      v->win.dpr);
}

static void update_title(view *v, const char *name) {
  char t[sizeof v->title];
  nv_title(v->app, &v->in, name, t, sizeof t);
  if (strcmp(t, v->title) != 0) {
    memcpy(v->title, t, sizeof t);
    SDL_SetWindowTitle(v->win.win, t);
  }
}

/* --screenshot: the first frame, drawn offscreen, to a PNG (+ its draw list). */
static int screenshot(view *v, const st_native_opts *o, char *err, size_t cap) {
  nv_offscreen off;
  const st_drawlist *dl = st_app_frame(v->app);
  if (!dl) {
    snprintf(err, cap, "no frame to draw");
    return 0;
  }
  if (!nv_offscreen_begin(&off, v->win.fb_w, v->win.fb_h)) {
    snprintf(err, cap, "cannot create an offscreen framebuffer");
    return 0;
  }
  draw(v, dl);
  glFinish();
  int ok = nv_screenshot_png(o->screenshot, v->win.fb_w, v->win.fb_h, err, cap);
  nv_offscreen_end(&off);
  st_app_frame_done(v->app);
  if (ok && o->frame_json)
    ok = nv_frame_json_write(o->frame_json, dl, (float)v->win.w, (float)v->win.h, v->win.dpr, err,
                             cap);
  return ok;
}

static void handle(view *v, const SDL_Event *e, int *quit) {
  if (e->type == SDL_QUIT) {
    *quit = 1;
  } else if (e->type == SDL_WINDOWEVENT && (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
                                            e->window.event == SDL_WINDOWEVENT_DISPLAY_CHANGED ||
                                            e->window.event == SDL_WINDOWEVENT_EXPOSED)) {
    /* a new size, or another monitor's pixel density */
    if (nv_window_sync_size(&v->win)) st_glyphs_set_dpr(v->glyphs, v->win.dpr);
    st_app_resize(v->app, (float)v->win.w, (float)v->win.h, v->win.dpr); /* and redraw */
  } else {
    nv_input_event(&v->in, v->app, e);
  }
}

static void run(view *v, const st_native_opts *o) {
  SDL_StopTextInput(); /* typing goes to the search box only while it is open */
  int quit = 0, busy = 1;
  while (!quit) {
    SDL_Event e;
    /* wait while idle; poll while keys are held (motion by elapsed time) */
    if (busy ? SDL_PollEvent(&e) : SDL_WaitEventTimeout(&e, 250)) {
      handle(v, &e, &quit);
      while (!quit && SDL_PollEvent(&e)) handle(v, &e, &quit);
      if (st_app_ui(v->app)) nv_cursor_set(&v->cursor, st_ui_cursor(st_app_ui(v->app)));
    }
    const st_drawlist *dl = st_app_frame(v->app);
    busy = dl != NULL; /* held keys keep producing frames */
    if (dl) {
      draw(v, dl);
      nv_window_swap(&v->win);
      st_app_frame_done(v->app);
    }
    /* the panels follow the state even when nothing is redrawn (a tool, ?) */
    if (!dl && !v->changed) continue;
    if ((v->changed & ST_UI_HELP) && st_app_ui(v->app) && st_ui_help_visible(st_app_ui(v->app)))
      nv_help_print();
    v->changed = 0;
    update_title(v, o->name);
  }
}

int st_native_view(const char *const *files, int n, const st_native_opts *o) {
  view v;
  char err[512] = "";
  memset(&v, 0, sizeof v);
  int w = o->width > 0 ? o->width : 1280, h = o->height > 0 ? o->height : 800;
  st_app_desc d = {.platform = {.ud = &v,
                                .now_ms = now_ms,
                                .ui_changed = ui_changed,
                                .glyphs_full = glyphs_full},
                   .css_w = (float)w,
                   .css_h = (float)h,
                   .dpr = 1};
  v.app = st_app_create(&d);
  if (!v.app) {
    fprintf(stderr, "strata: view: out of memory\n");
    return 1;
  }
  if (!o->load(o->load_ud, v.app, files, n)) {
    st_app_destroy(v.app);
    return 1;
  }
  for (int i = 0; i < o->note_count; i++)
    st_app_note_add(v.app, o->note_t0_us[i], o->note_t1_us[i], o->note_text[i]);
  int ok = nv_window_open(&v.win, o->name, w, h, o->screenshot != NULL, err, sizeof err);
  if (ok) {
    v.renderer = st_gl_renderer_create();
    st_glyph_source font = nv_glyph_source();
    v.glyphs = st_glyphs_create(LABEL_FONT_PX, v.win.dpr, &font);
    ok = v.renderer && v.glyphs;
    if (!ok) snprintf(err, sizeof err, "the GL ES 3 renderer could not be set up");
  }
  if (ok) {
    st_app_set_font(v.app, st_glyphs_font(v.glyphs));
    st_app_resize(v.app, (float)v.win.w, (float)v.win.h, v.win.dpr);
    if (o->side_by_side) st_app_set_side_by_side(v.app, 1);
    if (o->has_view) st_app_view_set(v.app, o->view_t0_us, o->view_t1_us);
    if (o->has_sel) st_app_select(v.app, o->sel_row, o->sel_index, 0);
    if (o->screenshot)
      ok = screenshot(&v, o, err, sizeof err);
    else
      run(&v, o);
  }
  nv_cursor_free(&v.cursor);
  st_app_destroy(v.app); /* before the font it points to */
  st_glyphs_destroy(v.glyphs);
  st_gl_renderer_destroy(v.renderer);
  if (v.win.win) nv_window_close(&v.win);
  if (!ok) fprintf(stderr, "strata: view: %s\n", err);
  return ok ? 0 : 1;
}
