/* glyphs.h: the st_font the draw list asks for text metrics, backed by one
 * GL glyph atlas texture (single channel, coverage in R).
 *
 * Glyphs are rasterised on demand, one code point at a time, by the
 * platform's glyph source (st_glyph_source: in the page wasm/js_bridge.c,
 * the system UI font drawn into an offscreen 2D canvas; in the window
 * native/glyphs_native.c, stb_truetype), at the device pixel ratio,
 * uploaded into the atlas with glTexSubImage2D and cached per code point,
 * so any Unicode name renders and text stays crisp at any dpr. The source
 * is asked only on a cache miss. A dpr change clears the cache. If the
 * atlas fills up during a frame, st_glyphs_end_frame() reports it: the
 * caller resets and redraws once.
 *
 *   st_glyph_source src = {my_raster, my_metrics, my_font};
 *   st_glyphs *g = st_glyphs_create(12.0f, 2.0f, &src);   // GL context current
 *   st_draw_input in = {..., st_glyphs_font(g)};
 *   ... draw ...; glBindTexture(GL_TEXTURE_2D, st_glyphs_texture(g));
 *   if (st_glyphs_end_frame(g)) { st_glyphs_reset(g); redraw(); }
 */
#ifndef STRATA_RENDER_GLYPHS_H
#define STRATA_RENDER_GLYPHS_H

#include <stdint.h>

#include "draw.h"

/* Indices into the metrics array a glyph source's raster fills (device px). */
enum {
  ST_GM_ADVANCE = 0, /* pen advance */
  ST_GM_LEFT = 1,    /* bitmap left edge relative to the pen */
  ST_GM_TOP = 2,     /* bitmap top edge relative to the baseline (negative: above) */
  ST_GM_W = 3,       /* bitmap size; 0 x 0 for blank glyphs (space) */
  ST_GM_H = 4,
  ST_GM_COUNT = 5
};

/* The platform's font, handed in at creation. raster draws code point cp
 * at px device pixels (the em size) into out (coverage, one byte per pixel,
 * rows of metrics[ST_GM_W] bytes, at most cap x cap; the bitmap starts at
 * or right of the pen, one pixel of padding above) and fills
 * metrics[ST_GM_COUNT]; returns 1, or 0 if the font cannot draw cp (the
 * draw list then falls back to U+FFFD or '?'). metrics gives the font's
 * ascent and descent at px CSS px. Both get user. */
typedef struct st_glyph_source {
  int (*raster)(void *user, uint32_t cp, float px, uint8_t *out, int cap, float *metrics);
  void (*metrics)(void *user, float px, float *ascent, float *descent);
  void *user;
} st_glyph_source;

typedef struct st_glyphs st_glyphs;

/* css_size: font size in CSS px; src is copied (its user must outlive the
 * atlas). NULL if the texture cannot be created. */
st_glyphs *st_glyphs_create(float css_size, float dpr, const st_glyph_source *src);
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
