/* glyphs.c: st_font backed by a lazily filled glyph atlas (see glyphs.h).
 *
 * Contents:
 *   cache     open-addressing map code point -> st_glyph (+ a direct table for ASCII)
 *   atlas     shelf packer over one R8 texture, uploads with glTexSubImage2D
 *   st_font   the glyph() callback st_draw_frame calls
 */
#include "glyphs.h"

#include <GLES3/gl3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 2048^2 R8 = 4 MiB of texture. A 12 px label font at dpr 3 needs cells of
 * about 40 x 48 device px, so the atlas holds ~2000 distinct glyphs even
 * then: far more than one frame shows. */
#define ATLAS_SIZE 2048
#define GLYPH_CAP 128 /* largest glyph bitmap side, device px */

typedef struct entry {
  uint32_t cp; /* 0 = empty slot (cp 0 is never cached) */
  uint8_t ok;
  st_glyph g;
} entry;

struct st_glyphs {
  st_font font;
  st_glyph_source src;
  float css_size, dpr;
  GLuint tex;
  /* shelf packer */
  int pen_x, pen_y, shelf_h;
  int overflowed;
  /* cache */
  entry ascii[128];
  uint8_t ascii_done[128];
  entry *map;
  uint32_t map_cap, map_count; /* cap is a power of two */
  uint8_t scratch[GLYPH_CAP * GLYPH_CAP];
};

/* ---- cache -------------------------------------------------------------- */

static uint32_t hash_cp(uint32_t cp) {
  cp ^= cp >> 16;
  cp *= 0x7feb352dU;
  cp ^= cp >> 15;
  return cp;
}

static entry *map_find(st_glyphs *g, uint32_t cp, int insert) {
  if (insert && (g->map_count + 1) * 4 > g->map_cap * 3) {
    uint32_t ncap = g->map_cap ? g->map_cap * 2 : 256;
    entry *n = calloc(ncap, sizeof *n);
    if (!n) return NULL;
    for (uint32_t i = 0; i < g->map_cap; i++) {
      if (!g->map[i].cp) continue;
      uint32_t j = hash_cp(g->map[i].cp) & (ncap - 1);
      while (n[j].cp) j = (j + 1) & (ncap - 1);
      n[j] = g->map[i];
    }
    free(g->map);
    g->map = n;
    g->map_cap = ncap;
  }
  if (!g->map_cap) return NULL;
  uint32_t i = hash_cp(cp) & (g->map_cap - 1);
  while (g->map[i].cp) {
    if (g->map[i].cp == cp) return &g->map[i];
    i = (i + 1) & (g->map_cap - 1);
  }
  if (!insert) return NULL;
  g->map[i].cp = cp;
  g->map_count++;
  return &g->map[i];
}

/* ---- atlas --------------------------------------------------------------- */

static int atlas_place(st_glyphs *g, int w, int h, int *x, int *y) {
  if (g->pen_x + w + 1 > ATLAS_SIZE) {
    g->pen_x = 1;
    g->pen_y += g->shelf_h + 1;
    g->shelf_h = 0;
  }
  if (g->pen_y + h + 1 > ATLAS_SIZE) return 0;
  *x = g->pen_x;
  *y = g->pen_y;
  g->pen_x += w + 1;
  if (h > g->shelf_h) g->shelf_h = h;
  return 1;
}

/* Rasterises and uploads cp; fills e. Returns 0 if it cannot be shown. */
static int rasterise(st_glyphs *g, uint32_t cp, entry *e) {
  float m[ST_GM_COUNT] = {0};
  float px = g->css_size * g->dpr;
  if (!g->src.raster(g->src.user, cp, px, g->scratch, GLYPH_CAP, m)) return 0;
  float inv = 1.0f / g->dpr;
  memset(&e->g, 0, sizeof e->g);
  e->g.advance = m[ST_GM_ADVANCE] * inv;
  int w = (int)m[ST_GM_W], h = (int)m[ST_GM_H];
  if (w <= 0 || h <= 0) return 1; /* blank: x0 == x1 */
  int ax, ay;
  if (!atlas_place(g, w, h, &ax, &ay)) {
    g->overflowed = 1;
    return -1;
  }
  glBindTexture(GL_TEXTURE_2D, g->tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexSubImage2D(GL_TEXTURE_2D, 0, ax, ay, w, h, GL_RED, GL_UNSIGNED_BYTE, g->scratch);
  e->g.x0 = m[ST_GM_LEFT] * inv;
  e->g.y0 = m[ST_GM_TOP] * inv;
  e->g.x1 = e->g.x0 + (float)w * inv;
  e->g.y1 = e->g.y0 + (float)h * inv;
  e->g.u0 = (float)ax / ATLAS_SIZE;
  e->g.v0 = (float)ay / ATLAS_SIZE;
  e->g.u1 = (float)(ax + w) / ATLAS_SIZE;
  e->g.v1 = (float)(ay + h) / ATLAS_SIZE;
  return 1;
}

/* ---- st_font ------------------------------------------------------------- */

static int glyph_fn(void *ud, uint32_t cp, st_glyph *out) {
  st_glyphs *g = ud;
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp < 128) {
    entry *e = &g->ascii[cp];
    if (!g->ascii_done[cp]) {
      int r = rasterise(g, cp, e);
      if (r < 0) return 0; /* atlas full: retry after the reset */
      e->ok = (uint8_t)r;
      g->ascii_done[cp] = 1;
    }
    if (e->ok) *out = e->g;
    return e->ok;
  }
  entry *e = map_find(g, cp, 0);
  if (!e) {
    entry tmp = {0};
    int r = rasterise(g, cp, &tmp);
    if (r < 0) return 0;
    tmp.cp = cp;
    tmp.ok = (uint8_t)r;
    e = map_find(g, cp, 1);
    if (!e) return 0;
    *e = tmp;
  }
  if (e->ok) *out = e->g;
  return e->ok;
}

/* ---- lifecycle ----------------------------------------------------------- */

void st_glyphs_reset(st_glyphs *g) {
  memset(g->ascii_done, 0, sizeof g->ascii_done);
  free(g->map);
  g->map = NULL;
  g->map_cap = g->map_count = 0;
  g->pen_x = g->pen_y = 1;
  g->shelf_h = 0;
  g->overflowed = 0;
  float a = 0, d = 0;
  g->src.metrics(g->src.user, g->css_size, &a, &d);
  g->font.ascent = a;
  g->font.descent = d;
  /* No need to clear the texture: only placed cells are ever sampled. */
}

st_glyphs *st_glyphs_create(float css_size, float dpr, const st_glyph_source *src) {
  st_glyphs *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->src = *src;
  g->css_size = css_size;
  g->dpr = dpr > 0 ? dpr : 1.0f;
  glGenTextures(1, &g->tex);
  glBindTexture(GL_TEXTURE_2D, g->tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, ATLAS_SIZE, ATLAS_SIZE, 0, GL_RED, GL_UNSIGNED_BYTE, NULL);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  if (!g->tex) {
    free(g);
    return NULL;
  }
  g->font.size = css_size;
  g->font.glyph = glyph_fn;
  g->font.ud = g;
  st_glyphs_reset(g);
  return g;
}

void st_glyphs_destroy(st_glyphs *g) {
  if (!g) return;
  glDeleteTextures(1, &g->tex);
  free(g->map);
  free(g);
}

void st_glyphs_set_dpr(st_glyphs *g, float dpr) {
  if (dpr <= 0 || fabsf(dpr - g->dpr) < 1e-4f) return;
  g->dpr = dpr;
  st_glyphs_reset(g);
}

const st_font *st_glyphs_font(const st_glyphs *g) { return &g->font; }
unsigned st_glyphs_texture(const st_glyphs *g) { return g->tex; }

int st_glyphs_end_frame(st_glyphs *g) {
  int o = g->overflowed;
  g->overflowed = 0;
  return o;
}
