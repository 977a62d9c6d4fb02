/* glyphs_native.h: the native window's glyph source for the shared glyph
 * atlas (core/render/glyphs.h): stb_truetype and DejaVu Sans embedded at
 * build time (glyphs_native.c). */
#ifndef STRATA_NATIVE_GLYPHS_NATIVE_H
#define STRATA_NATIVE_GLYPHS_NATIVE_H

#include "glyphs.h"

/* The label font's rasteriser and metrics (the font is parsed on first use). */
st_glyph_source nv_glyph_source(void);

#endif
