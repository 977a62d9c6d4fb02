/* window.c: the SDL2 window and its OpenGL ES 3.0 context (see window.h).
 *
 * The renderer (core/render/gl_renderer.c) and its shaders are GLSL ES 3.00, so
 * the context asked for is OpenGL ES 3.0, as the page's WebGL2. On X11,
 * SDL is told to create it through EGL (SDL_HINT_VIDEO_X11_FORCE_EGL):
 * Mesa answers an EGL request for GL ES 3 under Xvfb as on a desktop
 * (llvmpipe here: "OpenGL ES 3.2 Mesa 22.3.6"). Tried: SDL's default GLX
 * path gives the same context on Mesa (GLX_EXT_create_context_es2_profile),
 * but EGL is what every Mesa, Wayland and the NVIDIA driver offer alike,
 * so it is the one asked for. Without a display SDL falls back to its
 * "offscreen" driver (EGL pbuffers): good for a screenshot, useless for a
 * window somebody should see, so a shown window refuses it.
 */
#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(char *err, size_t cap, const char *what) {
  snprintf(err, cap, "%s: %s", what, SDL_GetError());
}

int nv_window_open(nv_window *w, const char *title, int width, int height, int hidden, char *err,
                   size_t cap) {
  memset(w, 0, sizeof *w);
  SDL_SetHint(SDL_HINT_VIDEO_X11_FORCE_EGL, "1");
#if defined(__unix__) && !defined(__APPLE__) && !defined(__ANDROID__)
  /* no X11 or Wayland display: straight to the offscreen driver (probing
   * Wayland without one prints its own complaints) or a clear refusal */
  if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER")) {
    if (!hidden) {
      snprintf(err, cap, "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)");
      return 0;
    }
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
  }
#endif
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    say(err, cap, "no display (SDL video)");
    return 0;
  }
  const char *driver = SDL_GetCurrentVideoDriver();
  int fallback = driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy"));
  if (!hidden && fallback && getenv("DISPLAY")) {
    /* DISPLAY is set but SDL's probe fell through to offscreen (seen under
     * load on Xvfb): ask for x11 by name, once, so that it is used or its
     * own error is the one reported */
    SDL_Quit();
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "x11");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
      say(err, cap, "no display (SDL's x11 driver on DISPLAY)");
      return 0;
    }
    driver = SDL_GetCurrentVideoDriver();
  }
  if (!hidden && driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy"))) {
    snprintf(err, cap, "no display (SDL found only its '%s' video driver; is DISPLAY set?)",
             driver);
    SDL_Quit();
    return 0;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_RED_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_GREEN_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_BLUE_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_ALLOW_HIGHDPI |
                 (hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_RESIZABLE);
  w->win =
      SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height, flags);
  if (!w->win) {
    say(err, cap, "cannot create the window");
    SDL_Quit();
    return 0;
  }
  w->gl = SDL_GL_CreateContext(w->win);
  if (!w->gl) {
    say(err, cap, "no OpenGL ES 3.0 context (a GL ES 3 driver is needed, e.g. Mesa)");
    nv_window_close(w);
    return 0;
  }
  SDL_GL_MakeCurrent(w->win, w->gl);
  SDL_GL_SetSwapInterval(1);
  nv_window_sync_size(w);
  return 1;
}

int nv_window_sync_size(nv_window *w) {
  int ww, wh, fw, fh;
  SDL_GetWindowSize(w->win, &ww, &wh);
  SDL_GL_GetDrawableSize(w->win, &fw, &fh);
  if (ww < 1) ww = 1;
  if (wh < 1) wh = 1;
  if (fw < 1) fw = ww;
  if (fh < 1) fh = wh;
  int changed = ww != w->w || wh != w->h || fw != w->fb_w || fh != w->fb_h;
  w->w = ww;
  w->h = wh;
  w->fb_w = fw;
  w->fb_h = fh;
  w->dpr = (float)fw / (float)ww;
  return changed;
}

void nv_window_swap(nv_window *w) { SDL_GL_SwapWindow(w->win); }

void nv_window_close(nv_window *w) {
  if (w->gl) SDL_GL_DeleteContext(w->gl);
  if (w->win) SDL_DestroyWindow(w->win);
  SDL_Quit();
  memset(w, 0, sizeof *w);
}
