/* main.c: the platform layer of the page app: SDL2 brings up the WebGL2
 * context on the page's <canvas id="canvas">, the one st_app (core/app/app.h)
 * is made here with this platform's hooks (the clock, the heap size, the
 * page's notifications, the glyph atlas), and the browser's animation frame
 * draws the app's frame when it has one (st_web_frame).
 *
 * The canvas's CSS size is the page's business (web/style.css); the page
 * reports it with st_wasm_resize() and this file sizes the drawing buffer
 * to CSS size x devicePixelRatio so text and edges are crisp.
 *
 * The SDL window is created without SDL_WINDOW_RESIZABLE so SDL's own resize
 * handler leaves the canvas alone, and SDL's keyboard listener is limited to
 * the canvas so it never swallows keys typed elsewhere on the page. Input
 * is read from DOM events directly (input.c): SDL's wheel events lose the
 * ctrl/shift state and the sub-step deltas that zooming needs.
 */
#include <SDL.h>
#include <emscripten.h>
#include <emscripten/heap.h>
#include <emscripten/html5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "input.h"
#include "js_bridge.h"
#include "web.h"

#define LABEL_FONT_PX 12.0f

/* The page's platform state. One static: a page has one canvas, one GL
 * context and one app, and the browser calls in from places that carry no
 * context of ours (the exports JavaScript calls, the main loop's callback),
 * so they find the app here. Everything else is in the st_app it points to. */
static struct {
  st_app *app;
  SDL_Window *window;
  SDL_GLContext gl;
  st_gl_renderer *renderer;
  st_glyphs *glyphs;
  st_input input;
  st_heap_budget budget;
  double test_clock_ms; /* st_wasm_test_clock: the clock pinned there (>= 0), or the real one */
} g_web = {.test_clock_ms = -1};

/* ---- the app's platform hooks ------------------------------------------------------- */

static double now_ms(void *ud) {
  return g_web.test_clock_ms >= 0 ? g_web.test_clock_ms : emscripten_get_now();
}

/* Test-only: pins the app's clock at ms (>= 0), or gives the real one back
 * (< 0). Held keys (W/S/A/D) move by the clock's time between frames, so a
 * test steps this clock and checks where the view went: no wall time. */
EMSCRIPTEN_KEEPALIVE void st_wasm_test_clock(double ms) { g_web.test_clock_ms = ms >= 0 ? ms : -1; }
static uint64_t heap_bytes(void *ud) { return (uint64_t)emscripten_get_heap_size(); }
static void ui_changed(void *ud, unsigned bits) { st_js_ui_changed(bits); }
static void loaded(void *ud) { st_js_notify_loaded(); }
static void view_begins(void *ud) { st_heap_budget_view_begins(&g_web.budget); }

/* The page's glyph source for the atlas (core/render/glyphs.h): the
 * browser's canvas draws the glyphs (js_bridge.c). */
static int glyph_raster(void *user, uint32_t cp, float px, uint8_t *out, int cap, float *metrics) {
  return st_js_glyph_raster(cp, px, out, cap, metrics);
}
static void font_metrics(void *user, float px, float *ascent, float *descent) {
  st_js_font_metrics(px, ascent, descent);
}

/* The atlas filled up during the frame: it starts over, the app builds the
 * frame once more. */
static int glyphs_full(void *ud) {
  if (!g_web.glyphs || !st_glyphs_end_frame(g_web.glyphs)) return 0;
  st_glyphs_reset(g_web.glyphs);
  return 1;
}

st_app *st_web_app(void) {
  if (!g_web.app) {
    st_app_desc d = {0};
    st_heap_budget_install(&g_web.budget, &d.alloc); /* counted: import peaks */
    d.platform =
        (st_app_platform){NULL, now_ms, heap_bytes, ui_changed, loaded, view_begins, glyphs_full};
    g_web.app = st_app_create(&d);
    if (!g_web.app) {
      fprintf(stderr, "strata: out of memory starting the app\n");
      abort();
    }
  }
  return g_web.app;
}

st_gl_renderer *st_web_renderer(void) { return g_web.renderer; }
st_glyphs *st_web_glyphs(void) { return g_web.glyphs; }
st_heap_budget *st_web_heap_budget(void) { return &g_web.budget; }

void st_web_resize(float css_w, float css_h, float dpr) {
  st_app *app = st_web_app();
  st_app_resize(app, css_w, css_h, dpr);
  st_app_canvas(app, &css_w, &css_h, &dpr); /* as the app took them */
  int w = (int)lroundf(css_w * dpr), h = (int)lroundf(css_h * dpr);
  emscripten_set_canvas_element_size("#canvas", w < 1 ? 1 : w, h < 1 ? 1 : h);
  if (g_web.glyphs) st_glyphs_set_dpr(g_web.glyphs, dpr);
}

void st_web_frame(void) {
  if (!g_web.app || !g_web.renderer || !g_web.glyphs) return;
  const st_drawlist *dl = st_app_frame(g_web.app);
  if (!dl) return;
  float css_w, css_h, dpr;
  st_app_canvas(g_web.app, &css_w, &css_h, &dpr);
  int fb_w = (int)lroundf(css_w * dpr), fb_h = (int)lroundf(css_h * dpr);
  st_gl_renderer_draw(g_web.renderer, dl, st_glyphs_texture(g_web.glyphs), fb_w, fb_h, dpr);
  st_app_frame_done(g_web.app);
}

static void frame(void) {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    /* drained only; input comes from input.c */
  }
  st_web_frame();
}

int main(void) {
  st_app *app = st_web_app();
  SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, "#canvas");
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fprintf(stderr, "strata: SDL_Init failed: %s\n", SDL_GetError());
    return 1;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, 0);

  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  if (css_w < 1) css_w = 800;
  if (css_h < 1) css_h = 600;
  float dpr = (float)emscripten_get_device_pixel_ratio();
  g_web.window = SDL_CreateWindow("strata", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                  (int)css_w, (int)css_h, SDL_WINDOW_OPENGL);
  if (!g_web.window) {
    fprintf(stderr, "strata: SDL_CreateWindow failed: %s\n", SDL_GetError());
    return 1;
  }
  g_web.gl = SDL_GL_CreateContext(g_web.window);
  if (!g_web.gl) {
    fprintf(stderr, "strata: WebGL2 is not available: %s\n", SDL_GetError());
    return 1;
  }
  SDL_GL_MakeCurrent(g_web.window, g_web.gl);
  st_web_resize((float)css_w, (float)css_h, dpr);
  st_app_canvas(app, NULL, NULL, &dpr);
  g_web.renderer = st_gl_renderer_create();
  st_glyph_source font = {glyph_raster, font_metrics, NULL};
  g_web.glyphs = st_glyphs_create(LABEL_FONT_PX, dpr, &font);
  if (!g_web.renderer || !g_web.glyphs) {
    fprintf(stderr, "strata: renderer setup failed\n");
    return 1;
  }
  st_app_set_font(app, st_glyphs_font(g_web.glyphs));
  st_input_install(&g_web.input, app);
  /* The page loads the demo (or ?url=) once the module is ready, through
   * the same exported entry points a user's file takes. */
  emscripten_set_main_loop(frame, 0, 0);
  return 0;
}
