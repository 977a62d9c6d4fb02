/* glyphs_native.c: the label font of the native window. The glyph atlas
 * and st_font (core/render/glyphs.c, shared with the page) ask their glyph
 * source (st_glyph_source) for one code point at a time at the device
 * pixel size; in the page the browser's canvas answers (wasm/js_bridge.c),
 * here stb_truetype (Debian's libstb-dev) does, from DejaVu Sans embedded
 * into the binary at build time (generated/font_ttf.h,
 * tools/scripts/embed_file.cmake), so `strata view`
 * needs no font installed at run time. The bitmaps follow the page's
 * protocol: coverage bytes, the bitmap starting at or right of the pen
 * (ink left of it is cropped: draw.c keeps quads that start inside their
 * label's box), one pixel of padding above for anti-aliased fringes, and
 * metrics in device px. Code points the font lacks are refused (0), so
 * the draw list falls back to U+FFFD or '?' as in the page.
 */
#include "glyphs_native.h"

#include <stdint.h>
#include <string.h>

#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "stb_truetype.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "font_ttf.h"

/* The parsed font, once per process (the platform layer's own state). */
static stbtt_fontinfo g_font;
static int g_font_state; /* 0 not yet, 1 ready, -1 unusable */

static const stbtt_fontinfo *font(void) {
  if (!g_font_state)
    g_font_state =
        stbtt_InitFont(&g_font, st_font_ttf, stbtt_GetFontOffsetForIndex(st_font_ttf, 0)) ? 1 : -1;
  return g_font_state > 0 ? &g_font : NULL;
}

static int font_raster(void *user, uint32_t cp, float px, uint8_t *out, int cap, float *metrics) {
  const stbtt_fontinfo *f = font();
  if (!f || cp > 0x10FFFF || !stbtt_FindGlyphIndex(f, (int)cp)) return 0;
  float scale = stbtt_ScaleForMappingEmToPixels(f, px); /* px is the em size, as CSS's */
  int adv, lsb, x0, y0, x1, y1;
  stbtt_GetCodepointHMetrics(f, (int)cp, &adv, &lsb);
  stbtt_GetCodepointBitmapBox(f, (int)cp, scale, scale, &x0, &y0, &x1, &y1);
  metrics[ST_GM_ADVANCE] = (float)adv * scale;
  int left = x0 < 0 ? 0 : x0; /* cropped at the pen */
  if (x1 <= left || y1 <= y0) {
    metrics[ST_GM_LEFT] = metrics[ST_GM_TOP] = metrics[ST_GM_W] = metrics[ST_GM_H] = 0;
    return 1; /* blank (space) */
  }
  int w = x1 - x0, h = y1 - y0 + 1; /* + the padding row above */
  if (w > cap) w = cap;
  if (h > cap) h = cap;
  memset(out, 0, (size_t)cap * (size_t)cap);
  /* drawn from its own left edge x0 one row down, then moved left by the
   * cropped columns */
  stbtt_MakeCodepointBitmap(f, out + cap, w, h - 1, cap, scale, scale, (int)cp);
  int crop = left - x0, ow = w - crop;
  for (int r = 0; r < h; r++)
    memmove(out + (size_t)r * (size_t)ow, out + (size_t)r * cap + crop, (size_t)ow);
  metrics[ST_GM_LEFT] = (float)left;
  metrics[ST_GM_TOP] = (float)(y0 - 1);
  metrics[ST_GM_W] = (float)ow;
  metrics[ST_GM_H] = (float)h;
  return 1;
}

static void font_metrics(void *user, float px, float *ascent, float *descent) {
  const stbtt_fontinfo *f = font();
  if (!f) {
    *ascent = px * 0.8f;
    *descent = px * 0.2f;
    return;
  }
  int a, d, gap;
  stbtt_GetFontVMetrics(f, &a, &d, &gap);
  float scale = stbtt_ScaleForMappingEmToPixels(f, px);
  *ascent = (float)a * scale;
  *descent = (float)-d * scale;
}

st_glyph_source nv_glyph_source(void) { return (st_glyph_source){font_raster, font_metrics, NULL}; }
