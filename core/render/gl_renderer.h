/* gl_renderer.h: draws an st_drawlist with GL ES 3.0 (WebGL2 in the page,
 * EGL in the native window). It only uploads and draws: every decision
 * about what to show was made by core/draw/ (draw.c and its parts). Three
 * instanced pipelines (rects, glyph quads, lines), one draw call per
 * st_draw_cmd, each scissored to its clip rectangle. The draw list is in
 * CSS px; the renderer scales by dpr and snaps to device pixels in the
 * vertex shaders.
 *
 *   st_gl_renderer *r = st_gl_renderer_create();   // GL context current
 *   st_gl_renderer_draw(r, &dl, atlas_tex, w_px, h_px, dpr);
 *   st_gl_renderer_destroy(r);
 */
#ifndef STRATA_RENDER_GL_RENDERER_H
#define STRATA_RENDER_GL_RENDERER_H

#include "draw.h"

typedef struct st_gl_renderer st_gl_renderer;

/* NULL if a shader fails to compile or link (the log goes to stderr). */
st_gl_renderer *st_gl_renderer_create(void);
void st_gl_renderer_destroy(st_gl_renderer *r);
/* fb_w/fb_h: drawing buffer size in device px. */
void st_gl_renderer_draw(st_gl_renderer *r, const st_drawlist *dl, unsigned atlas_tex, int fb_w,
                         int fb_h, float dpr);

#endif
