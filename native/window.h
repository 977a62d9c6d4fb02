/* window.h: the native window and its OpenGL ES 3.0 context (SDL2).
 *
 * Sizes: the window is measured in points, which play the part of the
 * page's CSS px (the core's units); the drawing buffer is in device px, and
 * dpr = drawable width / window width (2 on a HiDPI display).
 *
 *   nv_window w;
 *   if (!nv_window_open(&w, "strata", 1280, 800, 0, err, sizeof err)) ...
 *   ... draw with GL ...; nv_window_swap(&w);
 *   nv_window_close(&w);
 */
#ifndef STRATA_NATIVE_WINDOW_H
#define STRATA_NATIVE_WINDOW_H

#include <SDL.h>
#include <stddef.h>

typedef struct nv_window {
  SDL_Window *win;
  SDL_GLContext gl;
  int w, h;       /* window size, points (= CSS px) */
  int fb_w, fb_h; /* drawing buffer, device px */
  float dpr;
} nv_window;

/* Creates the window (hidden: not shown on screen, for screenshots) and a
 * current GL ES 3.0 context. 0 on failure with one line in err: no display
 * (or, when shown, only SDL's headless drivers), no GL ES 3 driver. */
int nv_window_open(nv_window *w, const char *title, int width, int height, int hidden, char *err,
                   size_t cap);
/* Re-reads the window and drawing buffer sizes; 1 if they changed. */
int nv_window_sync_size(nv_window *w);
void nv_window_swap(nv_window *w);
void nv_window_close(nv_window *w);

#endif
