/* glyphs.h: the st_font the draw list asks for text metrics, backed by one
 * GL glyph atlas texture (single channel, coverage in R).
 *
 * Glyphs are rasterised on demand, one code point at a time, by the page
 * (js_bridge.c: the system UI font drawn into an offscreen 2D canvas at the
 * device pixel ratio), uploaded into the atlas with glTexSubImage2D and cached
 * per code point, so any Unicode name renders and text stays crisp at any
 * dpr. A dpr change clears the cache. If the atlas fills up during a frame,
 * st_glyphs_end_frame() reports it: the caller resets and redraws once.
 *
 *   st_glyphs *g = st_glyphs_create(12.0f, 2.0f);   // GL context current
 *   st_draw_input in = {..., st_glyphs_font(g)};
 *   ... draw ...; glBindTexture(GL_TEXTURE_2D, st_glyphs_texture(g));
 *   if (st_glyphs_end_frame(g)) { st_glyphs_reset(g); redraw(); }
 */
#ifndef STRATA_WASM_GLYPHS_H
#define STRATA_WASM_GLYPHS_H

#include "draw.h"

typedef struct st_glyphs st_glyphs;

/* css_size: font size in CSS px. NULL if the texture cannot be created. */
st_glyphs *st_glyphs_create(float css_size, float dpr);
void st_glyphs_destroy(st_glyphs *g);
/* Changes the raster scale; clears the cache if it differs. */
void st_glyphs_set_dpr(st_glyphs *g, float dpr);
const st_font *st_glyphs_font(const st_glyphs *g);
unsigned st_glyphs_texture(const st_glyphs *g);
/* Returns 1 if the atlas overflowed since the last call (some glyphs of
 * this frame were missing), and clears the flag. */
int st_glyphs_end_frame(st_glyphs *g);
/* Empties the cache and the atlas. */
void st_glyphs_reset(st_glyphs *g);

#endif
