/* main.c: the platform layer of the page app: SDL2 brings up the WebGL2
 * context on the page's <canvas id="canvas">, and the browser's animation
 * frame drives st_app_frame(), which draws only when something changed.
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
#include <stdio.h>

#include "app.h"
#include "input.h"
#include "platform.h"

static SDL_Window *g_window;
static SDL_GLContext g_gl;

void st_platform_canvas_size(int w_px, int h_px) {
  if (w_px < 1) w_px = 1;
  if (h_px < 1) h_px = 1;
  emscripten_set_canvas_element_size("#canvas", w_px, h_px);
}

double st_platform_now_ms(void) { return emscripten_get_now(); }

uint64_t st_platform_heap_bytes(void) { return (uint64_t)emscripten_get_heap_size(); }

int st_platform_gl_ready(void) { return g_gl != NULL; }

static void frame(void) {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    /* drained only; input comes from input.c */
  }
  st_app_frame(st_app_get());
}

int main(void) {
  st_app *app = st_app_get();
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
  g_window = SDL_CreateWindow("strata", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                              (int)css_w, (int)css_h, SDL_WINDOW_OPENGL);
  if (!g_window) {
    fprintf(stderr, "strata: SDL_CreateWindow failed: %s\n", SDL_GetError());
    return 1;
  }
  g_gl = SDL_GL_CreateContext(g_window);
  if (!g_gl) {
    fprintf(stderr, "strata: WebGL2 is not available: %s\n", SDL_GetError());
    return 1;
  }
  SDL_GL_MakeCurrent(g_window, g_gl);
  st_app_resize(app, (float)css_w, (float)css_h, dpr);
  if (!st_app_init_gfx(app)) {
    fprintf(stderr, "strata: renderer setup failed\n");
    return 1;
  }
  st_input_install(app);
  /* The page loads the demo (or ?url=) once the module is ready, through
   * the same exported entry points a user's file takes. */
  emscripten_set_main_loop(frame, 0, 0);
  return 0;
}
