/* screenshot.h: the bound GL framebuffer saved as a PNG (8-bit RGB,
 * top row first), written with zlib. For `strata view --screenshot`. */
#ifndef STRATA_NATIVE_SCREENSHOT_H
#define STRATA_NATIVE_SCREENSHOT_H

#include <stddef.h>

/* An offscreen colour buffer (RGBA8) the frame to save is drawn into, so
 * the pixels read back are the frame's whatever the window system does
 * with a hidden window's own buffer. */
typedef struct nv_offscreen {
  unsigned fbo, rb;
} nv_offscreen;
/* Creates and binds it (fb_w x fb_h device px); 0 if GL refuses. */
int nv_offscreen_begin(nv_offscreen *o, int fb_w, int fb_h);
/* Unbinds (back to the window's buffer) and deletes it. */
void nv_offscreen_end(nv_offscreen *o);

/* Reads fb_w x fb_h device px of the bound framebuffer (glReadPixels) and
 * writes them to path. 0 on failure with one line in err. */
int nv_screenshot_png(const char *path, int fb_w, int fb_h, char *err, size_t cap);

#endif
