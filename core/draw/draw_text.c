/* draw_text.c: text in the draw list: UTF-8 decoded (an invalid byte shows
 * as U+FFFD), measured with the platform's glyphs (st_font), and elided
 * with U+2026 when it does not fit, never a glyph dropped at the clip
 * without saying so; the labels drawn are logged for the tests
 * (st_drawlist.label_log). */
#include "draw_internal.h"

#include "utf8.h"

#include <string.h>

static void push_glyph(dctx *d, const st_glyph_quad *q) {
  st_drawlist *dl = d->dl;
  void *p = dl->glyphs;
  if (!grow(d, &p, &dl->glyph_cap, dl->glyph_count, sizeof(st_glyph_quad), MAX_GLYPHS)) return;
  dl->glyphs = p;
  dl->glyphs[dl->glyph_count++] = *q;
}

/* Decodes one UTF-8 sequence at s[*i]; invalid or truncated input yields
 * U+FFFD and consumes one byte (so decoding always makes progress). */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *i) {
  size_t len = st_utf8_len(s + *i, n - *i);
  if (!len) { /* an invalid byte shows as U+FFFD; decoding goes on after it */
    (*i)++;
    return 0xFFFD;
  }
  uint32_t cp = len == 1 ? s[*i] : s[*i] & (0x3Fu >> (len - 1));
  for (size_t k = 1; k < len; k++) cp = cp << 6 | (s[*i + k] & 0x3Fu);
  *i += len;
  return cp;
}

static int get_glyph(const st_font *f, uint32_t cp, st_glyph *g) {
  if (cp < 0x20 || cp == 0x7F) cp = 0xFFFD; /* controls never reach the atlas */
  if (f->glyph(f->ud, cp, g)) return 1;
  if (cp != 0xFFFD && f->glyph(f->ud, 0xFFFD, g)) return 1;
  return f->glyph(f->ud, '?', g);
}

/* How far right of its pen a glyph reaches: its advance, or its ink when
 * that reaches further (an atlas cell's padding, an italic overhang). A
 * text fits a box when every glyph's ink does, so that no glyph is left out
 * at the clip (the last one of a label, silently). */
static float glyph_right(const st_glyph *g) {
  return g->x1 > g->x0 && g->x1 > g->advance ? g->x1 : g->advance;
}

/* The test hook (st_drawlist.label_log): appends the n bytes. */
static void log_bytes(dctx *d, const char *s, size_t n) {
  st_drawlist *dl = d->dl;
  if (!n || n > LABEL_LOG_MAX || dl->label_log_len > LABEL_LOG_MAX - (uint32_t)n) return;
  while (dl->label_log_len + (uint32_t)n > dl->label_log_cap) {
    void *p = dl->label_log;
    if (!grow(d, &p, &dl->label_log_cap, dl->label_log_len + (uint32_t)n - 1, 1, LABEL_LOG_MAX))
      return;
    dl->label_log = p;
  }
  memcpy(dl->label_log + dl->label_log_len, s, n);
  dl->label_log_len += (uint32_t)n;
}

/* The start of the UTF-8 sequence ending just before s[i] (i > 0). */
static size_t utf8_prev(const unsigned char *s, size_t i) {
  size_t j = i - 1;
  while (j > 0 && i - j < 4 && (s[j] & 0xC0) == 0x80) j--;
  size_t k = j;
  if (st_utf8_len(s + j, i - j) != i - j) k = i - 1; /* invalid: one byte, as utf8_next */
  return k;
}

/* Draws s in [x, x + max_w) on `baseline`: whole, or visibly cut with an
 * ellipsis when it does not fit, the end kept too (middle-cut) for a
 * templated name ("f<...>(...)": names that differ at their end). Draws
 * nothing if not even one character and the ellipsis fit, and never a part
 * of the text without saying so (no glyph is dropped at the clip). Returns
 * the width used. */
float dr_draw_text(dctx *d, const char *s, size_t n, float x, float baseline, float max_w,
                   uint32_t col) {
  const st_font *f = d->in->font;
  if (!f || !f->glyph || !(max_w > 0) || !n) return 0;
  /* the text's vertical extent must lie inside the clip */
  if (baseline - f->ascent < d->c.y0 || baseline + f->descent > d->c.y1) return 0;
  const unsigned char *u = (const unsigned char *)s;
  st_glyph gl[MAX_LABEL_CPS];
  /* glyph k is s[beg[k], end[k]) (n <= 65535 here) */
  uint16_t beg[MAX_LABEL_CPS], end[MAX_LABEL_CPS];
  if (n > 65535) n = 65535;
  size_t ng = 0, i = 0;
  float total = 0;
  while (i < n && ng < MAX_LABEL_CPS && total <= max_w) {
    size_t b = i;
    uint32_t cp = utf8_next(u, n, &i);
    if (!get_glyph(f, cp, &gl[ng])) continue;
    total += gl[ng].advance;
    beg[ng] = (uint16_t)b;
    end[ng++] = (uint16_t)i;
  }
  if (!ng) return 0;
  /* a glyph may reach left of its pen (bearing, atlas padding): start the
   * pen far enough in that the first glyph stays inside the box */
  float lead = gl[0].x1 > gl[0].x0 && gl[0].x0 < 0 ? -gl[0].x0 : 0;
  max_w -= lead;
  if (!(max_w > 0)) return 0;
  int elide = i < n || total - gl[ng - 1].advance + glyph_right(&gl[ng - 1]) > max_w;
  st_glyph ell[3], tail[MAX_LABEL_CPS];
  uint16_t tbeg[MAX_LABEL_CPS], tend[MAX_LABEL_CPS]; /* tail[k] is s[tbeg[k], tend[k]) */
  size_t ntail = 0, suf = n; /* the kept end: tail[ntail - 1 .. 0] = s[suf, n) */
  int nell = 0;
  if (elide) {
    if (f->glyph(f->ud, 0x2026, &ell[0]))
      nell = 1;
    else if (f->glyph(f->ud, '.', &ell[0]))
      ell[1] = ell[2] = ell[0], nell = 3;
    if (!nell) return 0;
    float ell_w = 0;
    for (int k = 0; k < nell - 1; k++) ell_w += ell[k].advance;
    float ell_end = ell_w + glyph_right(&ell[nell - 1]); /* the ellipsis last */
    ell_w += ell[nell - 1].advance;                      /* the ellipsis before the end */
    /* a templated name keeps up to 40% of the box for its end */
    float tail_w = 0;
    if (memchr(s, '<', n)) {
      float budget = 0.4f * (max_w - ell_w);
      size_t j = n;
      while (j > end[0] && ntail < MAX_LABEL_CPS) {
        size_t b = utf8_prev(u, j), at = b;
        uint32_t cp = utf8_next(u, n, &at);
        st_glyph g;
        if (!get_glyph(f, cp, &g)) {
          j = b;
          continue;
        }
        float r = ntail ? tail_w + g.advance : glyph_right(&g);
        if (r > budget) break;
        tail_w = r;
        tbeg[ntail] = (uint16_t)b, tend[ntail] = (uint16_t)j;
        tail[ntail++] = g;
        j = b;
      }
      if (ntail < 3) ntail = 0, tail_w = 0; /* too little of the end to say anything */
      if (ntail) suf = j;
    }
    /* keep the longest prefix that leaves room for the ellipsis (and the end) */
    float w = 0, room = ntail ? max_w - ell_w - tail_w : max_w - ell_end;
    size_t keep = 0;
    while (keep < ng && end[keep] <= suf && w + gl[keep].advance <= room) w += gl[keep++].advance;
    if (keep == 0) return 0;
    ng = keep;
  }
  /* the test hook records what the glyphs pushed spell (label_log) */
  st_drawlist *dl = d->dl;
  uint32_t g0 = dl->glyph_count, log0 = dl->label_log_len;
  int logging = dl->label_log_on;
  if (logging) log_bytes(d, d->label_kind ? &d->label_kind : "o", 1);
  float pen = x + lead, right = x + max_w + lead;
  size_t count = ng + (elide ? (size_t)nell + ntail : 0);
  for (size_t k = 0; k < count; k++) {
    size_t t = count - 1 - k; /* the tail's glyphs, last first */
    const st_glyph *g = k < ng ? &gl[k] : k < ng + (size_t)nell ? &ell[k - ng] : &tail[t];
    int shown = 1;
    if (g->x1 > g->x0 && g->y1 > g->y0) {
      st_glyph_quad q = {
          pen + g->x0, baseline + g->y0, g->x1 - g->x0, g->y1 - g->y0, g->u0, g->v0, g->u1, g->v1,
          col};
      if (!(q.x >= x && q.x + q.w <= right + 0.01f && q.x >= d->c.x0 && q.x + q.w <= d->c.x1 &&
            q.y >= d->c.y0 && q.y + q.h <= d->c.y1)) {
        dl->glyph_count = g0; /* a glyph would be left out: the label is not drawn */
        dl->label_log_len = log0;
        return 0;
      }
      uint32_t before = dl->glyph_count;
      push_glyph(d, &q);
      shown = dl->glyph_count > before;
    }
    if (logging && shown) {
      if (k < ng)
        log_bytes(d, s + beg[k], (size_t)(end[k] - beg[k]));
      else if (k < ng + (size_t)nell)
        log_bytes(d, nell == 1 ? "\xE2\x80\xA6" : ".", nell == 1 ? 3 : 1);
      else
        log_bytes(d, s + tbeg[t], (size_t)(tend[t] - tbeg[t]));
    }
    pen += g->advance;
  }
  if (logging) {
    log_bytes(d, "\x1f", 1);
    log_bytes(d, s, n);
    log_bytes(d, "\x1e", 1);
  }
  return pen - x;
}

/* The width of s[0..n) (its first MAX_LABEL_CPS code points). */
/* The width draw_text needs for the whole text: the advances, the first
 * glyph's reach left of its pen and the last one's ink right of its
 * advance included. */
float dr_text_w(const dctx *d, const char *s, size_t n) {
  const st_font *f = d->in->font;
  float w = 0, over = 0;
  for (size_t i = 0, cps = 0; i < n && cps < MAX_LABEL_CPS; cps++) {
    st_glyph g;
    if (!get_glyph(f, utf8_next((const unsigned char *)s, n, &i), &g)) continue;
    if (!cps && g.x1 > g.x0 && g.x0 < 0) w -= g.x0;
    w += g.advance;
    over = glyph_right(&g) - g.advance;
  }
  return w + over;
}
