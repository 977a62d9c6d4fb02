/* draw.c: builds one frame's draw list from (trace, lod, layout, view, font)
 * (see draw.h).
 *
 * Contents
 *   1. colours, time formatting, axis steps
 *   2. draw-list buffers (growable, capped per frame) and clipped pushes
 *   3. text: UTF-8 decoding, measuring, eliding with U+2026
 *   4. timeline pass: grid, flow arrows in view (bundled, under the rows),
 *      rows via the lod, instants, counters, labels, the selected event's
 *      flow chain and the overlay's edges (a critical path's, on top)
 *   5. gutter pass: section headers and track labels
 *   6. axis pass: ticks and time labels
 *   7. st_draw_frame
 *
 * Cost per frame: only layout items inside the vertical window are visited
 * (found with st_layout_first_at), and each visible row asks the lod for
 * [t0, t1), which yields O(pixel columns) items; nothing here is O(events).
 * Everything pushed is clamped to its command's clip rectangle (glyphs that
 * would cross it are dropped), so no primitive draws outside its area even
 * without the renderer's scissor.
 */
#include "draw.h"

#include "bisect.h"
#include "merge_sort.h"
#include "utf8.h"

#include <math.h>

#include "flow_chain.h"
#include "query.h" /* st_format_dur */
#include <stdio.h> /* snprintf only */
#include <string.h>

/* Per-frame caps: a 4K canvas at 1 px per item needs far fewer; they only
 * bound memory if something upstream misbehaves. */
#define MAX_RECTS (1u << 21)
#define MAX_GLYPHS (1u << 19)
#define MAX_LINES (1u << 19)
#define MAX_CMDS 64u
#define MAX_TICKS 512
#define MAX_LABEL_CPS 256        /* code points considered per label */
#define LABEL_LOG_MAX (1u << 24) /* bytes of st_drawlist.label_log per frame */

#define PAD 4.0f
#define INDENT_PX 12.0f /* per nesting level of a track label */
#define TICK_MIN_PX 90.0
#define MIN_LABEL_PX 14.0f
#define SLICE_GAP_MIN_PX 3.0f /* slices this wide keep a 1 px boundary at their end */

static uint32_t rgba(unsigned r, unsigned g, unsigned b, unsigned a) {
  return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (uint32_t)a << 24;
}

#define COL_BG rgba(250, 250, 251, 255)
#define COL_GUTTER rgba(242, 243, 246, 255)
#define COL_SECTION rgba(226, 229, 235, 255)
#define COL_SECTION_TEXT rgba(24, 26, 32, 255)
#define COL_GROUP rgba(52, 58, 74, 255) /* a merged trace's file header */
#define COL_GROUP_TEXT rgba(255, 255, 255, 255)
#define COL_TRACK_TEXT rgba(62, 66, 76, 255)
#define COL_AXIS rgba(255, 255, 255, 255)
#define COL_AXIS_TEXT rgba(62, 66, 76, 255)
#define COL_TICK rgba(150, 152, 160, 255)
#define COL_GRID rgba(0, 0, 0, 18)
#define COL_SEPARATOR rgba(208, 211, 218, 255)
#define COL_DARK_TEXT rgba(20, 20, 24, 255)
#define COL_LIGHT_TEXT rgba(255, 255, 255, 255)
#define COL_SEL_EDGE rgba(13, 13, 20, 255)
#define COL_MARK_BAND rgba(66, 133, 244, 40)
#define COL_MARK_EDGE rgba(40, 100, 220, 255)
#define COL_MARK_TEXT rgba(255, 255, 255, 255)
#define COL_BOX_FILL rgba(66, 133, 244, 36)
#define COL_BOX_EDGE rgba(40, 100, 220, 230)
#define COL_RANGE_FILL rgba(20, 20, 30, 40)
#define COL_FLOW rgba(70, 74, 90, 150)
#define COL_BAND rgba(240, 120, 0, 72)
#define COL_NOTE ST_DRAW_NOTE_RGBA
#define COL_NOTE_BAND rgba(170, 60, 200, 28)
#define NOTE_FLAG_MAX_PX 160.0f
#define COL_FLOW_FOCUS rgba(230, 110, 0, 255)
#define FLOW_HEAD_PX 7.0f
#define COL_PIN rgba(40, 100, 220, 255)
#define COL_PIN_EDGE rgba(120, 126, 140, 255)

/* ==== 1. colours, time formatting, axis steps ============================ */

static float hue_to(float p, float q, float t) {
  if (t < 0) t += 1;
  if (t > 1) t -= 1;
  if (t < 1.0f / 6) return p + (q - p) * 6 * t;
  if (t < 0.5f) return q;
  if (t < 2.0f / 3) return p + (q - p) * (2.0f / 3 - t) * 6;
  return p;
}

uint32_t st_color_for_name(const char *s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; s && i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  h ^= h >> 15; /* FNV's low bits are weak for short strings */
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  float hue = (float)(h % 360u) / 360.0f;
  float sat = 0.42f + (float)((h >> 9) % 24u) / 100.0f;    /* 0.42 .. 0.65 */
  float light = 0.56f + (float)((h >> 17) % 14u) / 100.0f; /* 0.56 .. 0.69 */
  float q = light < 0.5f ? light * (1 + sat) : light + sat - light * sat;
  float p = 2 * light - q;
  float r = hue_to(p, q, hue + 1.0f / 3), g = hue_to(p, q, hue), b = hue_to(p, q, hue - 1.0f / 3);
  return rgba((unsigned)(r * 255 + 0.5f), (unsigned)(g * 255 + 0.5f), (unsigned)(b * 255 + 0.5f),
              255);
}

static uint32_t text_color_on(uint32_t bg) {
  float r = (float)(bg & 255), g = (float)(bg >> 8 & 255), b = (float)(bg >> 16 & 255);
  float lum = (0.299f * r + 0.587f * g + 0.114f * b) / 255.0f;
  return lum > 0.55f ? COL_DARK_TEXT : COL_LIGHT_TEXT;
}

size_t st_format_value(double v, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  static const struct {
    double scale;
    const char *suffix;
  } si[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  double a = fabs(v);
  int n = -1;
  for (size_t k = 0; k < sizeof si / sizeof si[0] && n < 0; k++) {
    if (!(a >= si[k].scale) || a >= 1e18) continue;
    double x = v / si[k].scale, ax = fabs(x);
    /* three significant digits; 999.5 k rounds up to the next unit's 1.00 */
    if (ax >= 999.5 && k > 0) x /= 1000, ax /= 1000, k--;
    n = snprintf(buf, cap,
                 ax >= 99.95   ? "%.0f %s"
                 : ax >= 9.995 ? "%.1f %s"
                               : "%.2f %s",
                 x, si[k].suffix);
  }
  if (n < 0) n = snprintf(buf, cap, "%.4g", v);
  return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t st_format_quantity(double v, const char *unit, size_t unit_len, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  if (!unit || !unit_len) return st_format_value(v, buf, cap);
  if (unit_len == 2 && !memcmp(unit, "ns", 2) && isfinite(v)) return st_format_dur(v, buf, cap);
  size_t n = st_format_value(v, buf, cap);
  /* "1.80 M" + "B"; a bare number gets a space: "950 B" */
  int si = n > 0 && buf[n - 1] >= 'A' && buf[n - 1] <= 'z' && n >= 2 && buf[n - 2] == ' ';
  if (!si && n + 1 < cap) buf[n++] = ' ';
  size_t k = unit_len < cap - 1 - n ? unit_len : cap - 1 - n;
  while (k < unit_len && k > 0 && ((unsigned char)unit[k] & 0xC0) == 0x80) k--; /* whole UTF-8 */
  memcpy(buf + n, unit, k);
  buf[n + k] = 0;
  return n + k;
}

double st_axis_tick_step(double ns_per_px, double min_px) {
  double raw = ns_per_px * min_px;
  if (!(raw > 0) || !isfinite(raw)) return 1;
  double p = pow(10.0, floor(log10(raw)));
  static const double mult[] = {1, 2, 5, 10};
  for (int i = 0; i < 4; i++)
    if (mult[i] * p >= raw * (1 - 1e-9)) return mult[i] * p;
  return 10 * p;
}

size_t st_format_time(double t_ns, double step_ns, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  if (!isfinite(t_ns)) t_ns = 0;
  if (!(step_ns > 0) || !isfinite(step_ns)) step_ns = 1;
  /* snap to the step so 2.9999999 prints as 3 */
  double snapped = round(t_ns / step_ns) * step_ns;
  if (fabs(snapped - t_ns) < step_ns * 1e-6) t_ns = snapped;
  if (fabs(t_ns) < step_ns * 1e-6) {
    int n = snprintf(buf, cap, "0");
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
  }
  double m = fabs(t_ns) > step_ns ? fabs(t_ns) : step_ns;
  double unit;
  const char *name;
  if (m >= 1e9)
    unit = 1e9, name = "s";
  else if (m >= 1e6)
    unit = 1e6, name = "ms";
  else if (m >= 1e3)
    unit = 1e3, name = "us";
  else
    unit = 1, name = "ns";
  int dec = (int)ceil(-log10(step_ns / unit) - 1e-9);
  if (dec < 0) dec = 0;
  if (dec > 9) dec = 9;
  char num[64];
  snprintf(num, sizeof num, "%.*f", dec, t_ns / unit);
  if (dec > 0) { /* trim trailing zeros: 3.20 -> 3.2, 3.00 -> 3 */
    size_t n = strlen(num);
    while (n > 1 && num[n - 1] == '0') num[--n] = 0;
    if (n > 1 && num[n - 1] == '.') num[--n] = 0;
  }
  if (!strcmp(num, "-0")) strcpy(num, "0");
  int n = snprintf(buf, cap, "%s %s", num, name);
  if (n < 0) return 0;
  return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* ==== 2. draw-list buffers =============================================== */

typedef struct clip {
  float x0, y0, x1, y1;
} clip;

typedef struct dctx {
  st_drawlist *dl;
  const st_alloc *a;
  const st_draw_input *in;
  const st_view *v;
  const st_strtab *strs;
  st_code err;
  clip c;
  /* per visible row */
  float row_y;
  uint8_t row_kind;
  uint32_t row;
  const st_draw_overlay *ov;
  /* counters */
  float plot_top, plot_bot;
  double lo, hi;
  uint32_t series_rgba;
  float prev_y;
  int have_prev;
  /* name id -> colour (0: not computed yet), in dl->color_cache, kept from
   * frame to frame while the trace is the same: a zoomed-out frame of a big
   * trace shows thousands of distinct names, and hashing a name and the HSL
   * conversion cost more than the rect */
  uint32_t *colors;
  uint32_t ncolors;
  double px_per_ns; /* 1 / ns_per_px: item_x multiplies (a zoomed-out row yields ~1 item per px) */
  /* translucent slices' backings are collected (flow arrows under the rows) */
  int backing;
  uint32_t backing_count;
  char label_kind; /* the kind draw_text logs (st_drawlist.label_log): 's' a slice's label */
} dctx;

/* st_view_x_of for the lod's items, without its division (two per item) */
static inline float item_x(const dctx *d, int64_t t) {
  return (float)(ST_VIEW_GUTTER_W + ((double)t - d->v->t0_ns) * d->px_per_ns);
}

static uint32_t name_color(dctx *d, uint32_t id) {
  if (id < d->ncolors && d->colors[id]) return d->colors[id];
  size_t len;
  const char *s = st_strtab_get(d->strs, id, &len);
  uint32_t c = st_color_for_name(s, len); /* alpha 255: never 0 */
  if (id < d->ncolors) d->colors[id] = c;
  return c;
}

/* The colour cache of dl for this trace, one entry per string: reset when
 * the trace changes (the key mixes its address with its shape, so a new
 * trace at a freed one's address is not taken for it). NULL (no caching)
 * if it cannot be had. */
static uint32_t *color_cache(st_drawlist *dl, const st_trace *t, const st_alloc *a,
                             uint32_t *count) {
  *count = 0;
  if (!t) return NULL;
  uint32_t np, nt, ns = st_strtab_count(st_trace_strings(t));
  st_trace_processes(t, &np);
  st_trace_tracks(t, &nt);
  uint64_t key = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull;
  key ^= (uint64_t)st_trace_origin_ns(t) + 0x632be59bd9b4e019ull * st_trace_event_count(t);
  key ^= ((uint64_t)st_trace_duration_ns(t) << 7) ^ ((uint64_t)np << 40) ^ ((uint64_t)nt << 20);
  key ^= (uint64_t)ns * 0xc2b2ae3d27d4eb4full;
  if (key == 0) key = 1;
  if (dl->color_key != key || dl->color_cap < ns) {
    if (dl->color_cap < ns) {
      uint32_t *c = st_realloc_array(a, dl->color_cache, ns, sizeof *c);
      if (!c) return NULL;
      dl->color_cache = c;
      dl->color_cap = ns;
    }
    memset(dl->color_cache, 0, (size_t)ns * sizeof *dl->color_cache);
    dl->color_key = key;
  }
  *count = ns;
  return dl->color_cache;
}

static int grow(dctx *d, void **p, uint32_t *cap, uint32_t count, size_t elem, uint32_t max) {
  if (count < *cap) return 1;
  if (count >= max) return 0; /* per-frame cap: drop silently */
  uint32_t ncap = *cap ? *cap * 2 : 1024;
  if (ncap > max) ncap = max;
  void *np = st_realloc_array(d->a, *p, ncap, elem);
  if (!np) {
    d->err = ST_ERR_NOMEM;
    return 0;
  }
  *p = np;
  *cap = ncap;
  return 1;
}

/* Appends the rect, clipped, to *arr (*count of *cap), unless it is empty. */
static inline void push_rect_to(dctx *d, st_rect **arr, uint32_t *count, uint32_t *cap, st_rect r) {
  float x0 = r.x > d->c.x0 ? r.x : d->c.x0, y0 = r.y > d->c.y0 ? r.y : d->c.y0;
  float x1 = r.x + r.w < d->c.x1 ? r.x + r.w : d->c.x1;
  float y1 = r.y + r.h < d->c.y1 ? r.y + r.h : d->c.y1;
  if (!(x1 > x0) || !(y1 > y0)) return;
  void *p = *arr;
  if (!grow(d, &p, cap, *count, sizeof(st_rect), MAX_RECTS)) return;
  *arr = p;
  (*arr)[(*count)++] = (st_rect){x0, y0, x1 - x0, y1 - y0, r.rgba, r.flags};
}

static inline void push_rect(dctx *d, float x, float y, float w, float h, uint32_t col,
                             uint32_t flags) {
  st_drawlist *dl = d->dl;
  push_rect_to(d, &dl->rects, &dl->rect_count, &dl->rect_cap, (st_rect){x, y, w, h, col, flags});
}

/* A backing rect (COL_BG) for the backings pass of the rows (timeline_pass):
 * kept aside in dl->backing. */
static void push_backing(dctx *d, float x, float y, float w, float h) {
  st_drawlist *dl = d->dl;
  push_rect_to(d, &dl->backing, &d->backing_count, &dl->backing_cap,
               (st_rect){x, y, w, h, COL_BG, 0});
}

static void push_line(dctx *d, float x0, float y0, float x1, float y1, float width, uint32_t col) {
  /* axis-aligned lines are clamped; others must lie inside (diamonds) */
  float hw = width / 2;
  if (y0 == y1) {
    if (x0 > x1) {
      float t = x0;
      x0 = x1;
      x1 = t;
    }
    if (x0 < d->c.x0) x0 = d->c.x0;
    if (x1 > d->c.x1) x1 = d->c.x1;
    if (!(x1 > x0) || y0 - hw < d->c.y0 || y0 + hw > d->c.y1) return;
  } else if (x0 == x1) {
    if (y0 > y1) {
      float t = y0;
      y0 = y1;
      y1 = t;
    }
    if (y0 < d->c.y0) y0 = d->c.y0;
    if (y1 > d->c.y1) y1 = d->c.y1;
    if (!(y1 > y0) || x0 - hw < d->c.x0 || x0 + hw > d->c.x1) return;
  } else {
    float ext = width / 2; /* the quad extends at most width / 2 across the segment */
    float lx = x0 < x1 ? x0 : x1, hx = x0 < x1 ? x1 : x0;
    float ly = y0 < y1 ? y0 : y1, hy = y0 < y1 ? y1 : y0;
    if (lx - ext < d->c.x0 || hx + ext > d->c.x1 || ly - ext < d->c.y0 || hy + ext > d->c.y1)
      return;
  }
  st_drawlist *dl = d->dl;
  void *p = dl->lines;
  if (!grow(d, &p, &dl->line_cap, dl->line_count, sizeof(st_line), MAX_LINES)) return;
  dl->lines = p;
  dl->lines[dl->line_count++] = (st_line){x0, y0, x1, y1, width, col};
}

static void push_glyph(dctx *d, const st_glyph_quad *q) {
  st_drawlist *dl = d->dl;
  void *p = dl->glyphs;
  if (!grow(d, &p, &dl->glyph_cap, dl->glyph_count, sizeof(st_glyph_quad), MAX_GLYPHS)) return;
  dl->glyphs = p;
  dl->glyphs[dl->glyph_count++] = *q;
}

static void push_cmd(dctx *d, st_draw_kind kind, uint32_t first, uint32_t end) {
  if (end <= first) return;
  st_drawlist *dl = d->dl;
  void *p = dl->cmds;
  if (!grow(d, &p, &dl->cmd_cap, dl->cmd_count, sizeof(st_draw_cmd), MAX_CMDS)) return;
  dl->cmds = p;
  dl->cmds[dl->cmd_count++] = (st_draw_cmd){
      (uint32_t)kind, first, end - first, d->c.x0, d->c.y0, d->c.x1 - d->c.x0, d->c.y1 - d->c.y0};
}

/* ==== 3. text ============================================================ */

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
static float draw_text(dctx *d, const char *s, size_t n, float x, float baseline, float max_w,
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

static float baseline_for(const dctx *d, float top, float h) {
  const st_font *f = d->in->font;
  if (!f) return top + h / 2;
  return top + (h + f->ascent - f->descent) / 2;
}

/* ==== 4. timeline pass =================================================== */

static void diamond(dctx *d, float x, float yc, float half, uint32_t col) {
  /* a square rotated 45 degrees: a diagonal segment as wide as it is long */
  push_line(d, x - half / 2, yc - half / 2, x + half / 2, yc + half / 2, half * 1.41421356f, col);
}

static void on_item(void *ud, const st_lod_item *it) {
  dctx *d = ud;
  float x0 = item_x(d, it->start), x1 = item_x(d, it->end);
  uint32_t col = name_color(d, it->name); /* the string only on a cache miss or for a label */
  float y = d->row_y + 1, h = ST_VIEW_ROW_H - 2;
  int instant_row = d->row_kind == ST_TRACK_INSTANTS || d->row_kind == ST_TRACK_SAMPLES;
  uint32_t flags = 0;
  const st_draw_overlay *ov = d->ov;
  if (ov) {
    uint32_t cnt = it->count ? it->count : 1;
    if (ov->matches && !ov->matches(ov->ud, d->row, it->index, cnt)) flags |= ST_RECT_DIMMED;
    if (ov->selected && ov->selected(ov->ud, d->row, it->index, cnt)) flags |= ST_RECT_SELECTED;
  }
  if ((instant_row || (it->flags & ST_EV_INSTANT)) && it->count == 1) {
    if (flags & ST_RECT_SELECTED) diamond(d, x0, d->row_y + ST_VIEW_ROW_H / 2, 9.0f, COL_SEL_EDGE);
    if (flags & ST_RECT_DIMMED) col = (col & 0x00FFFFFFu) | 0x4Cu << 24;
    diamond(d, x0, d->row_y + ST_VIEW_ROW_H / 2, 6.0f, col);
    return;
  }
  if (it->merged && it->count > 1) {
    float busy = it->busy < 0 ? 0 : it->busy > 1 ? 1 : it->busy;
    unsigned density = (unsigned)(busy * 255 + 0.5f);
    flags |= ST_RECT_MERGED | density << 8;
    col = (col & 0x00FFFFFFu) | (uint32_t)(110 + (unsigned)(145 * busy)) << 24;
  }
  if (it->flags & ST_EV_UNFINISHED) flags |= ST_RECT_UNFINISHED;
  if (x1 - x0 < 1) x1 = x0 + 1; /* nothing that exists disappears */
  /* a slice 3 px wide or more ends 1 px early: back-to-back slices (of one
   * name, one colour) keep a boundary instead of melting into one bar */
  if (!it->merged && x1 - x0 >= SLICE_GAP_MIN_PX) x1 -= 1;
  /* over flow arrows (drawn under the rows), a slice the renderer makes
   * translucent gets an opaque backing: no arrow shows through a slice */
  if (d->backing && (flags & (ST_RECT_MERGED | ST_RECT_DIMMED | ST_RECT_UNFINISHED)))
    push_backing(d, x0, y, x1 - x0, h);
  push_rect(d, x0, y, x1 - x0, h, col, flags);
  if (it->merged) return;
  /* label inside the visible part of the slice */
  float vx0 = x0 > d->c.x0 ? x0 : d->c.x0, vx1 = x1 < d->c.x1 ? x1 : d->c.x1;
  if (vx1 - vx0 < MIN_LABEL_PX) return;
  size_t len;
  const char *name = st_strtab_get(d->strs, it->name, &len);
  uint32_t tc = text_color_on(col);
  if (flags & ST_RECT_DIMMED) tc = (tc & 0x00FFFFFFu) | 0x60u << 24;
  d->label_kind = 's';
  draw_text(d, name, len, vx0 + PAD, baseline_for(d, d->row_y, ST_VIEW_ROW_H), vx1 - vx0 - 2 * PAD,
            tc);
  d->label_kind = 0;
}

/* ---- memory blocks tracks (st_track.block_span > 0) ----------------------
 * A blocks track's lanes all lie in one band ST_VIEW_BLOCKS_H high: its
 * BLOCK_ROWS pixel rows (1 px inside its top and bottom) each stand for
 * span / BLOCK_ROWS bytes of its address space. A block covers the pixel
 * rows from floor(y) to ceil(y + size) (at least one: nothing that exists
 * disappears). The index (built on the first frame that draws the trace's
 * blocks, kept in the drawlist while the trace and its parts' offsets stay
 * the same): per pixel row the union of the time ranges of the blocks
 * covering it, as disjoint intervals sorted by start, each named after the
 * first block in it (its colour: the block's top frame). A frame draws per
 * pixel row the intervals in its window, those under a pixel folded into a
 * 1 px rect (one binary search per rect): at most about two rects per
 * pixel column per pixel row, whatever the number of blocks or lanes. */
enum { BLOCK_ROWS = 158 }; /* ST_VIEW_BLOCKS_H - 2 */
_Static_assert(BLOCK_ROWS == (int)ST_VIEW_BLOCKS_H - 2, "a pixel row each");
#define BLOCK_SEL_MAX 4096u /* selected blocks outlined per frame */

typedef struct bix_iv {
  int64_t start, end;
  uint32_t name, prow; /* prow: the pixel row (while building) */
} bix_iv;

typedef struct bix_track {
  uint32_t track;
  size_t first[BLOCK_ROWS + 1]; /* pixel row p's intervals: [first[p], first[p + 1]) */
} bix_track;

typedef struct st_block_index st_block_index;
struct st_block_index {
  bix_track *tr;
  uint32_t ntr;
  bix_iv *iv;
  size_t niv;
};

static void block_index_free(st_block_index *x, const st_alloc *a) {
  if (!x) return;
  st_free(a, x->tr);
  st_free(a, x->iv);
  st_free(a, x);
}

static int iv_less(const bix_iv *x, const bix_iv *y) {
  return x->prow != y->prow ? x->prow < y->prow : x->start < y->start;
}
ST_DEFINE_MERGE_SORT(sort_iv, bix_iv, iv_less)

/* The pixel rows [*p0, *p1) of a block in a track of span bytes. */
static void block_rows(const st_block *b, double span, uint32_t *p0, uint32_t *p1) {
  double k = BLOCK_ROWS / span, y0 = (double)b->y * k, y1 = ((double)b->y + (double)b->size) * k;
  uint32_t a = y0 >= BLOCK_ROWS ? BLOCK_ROWS - 1 : y0 > 0 ? (uint32_t)y0 : 0;
  double c = ceil(y1);
  uint32_t e = c >= BLOCK_ROWS ? BLOCK_ROWS : c > 0 ? (uint32_t)c : 0;
  *p0 = a;
  *p1 = e > a ? e : a + 1;
}

static uint64_t block_index_key(const st_trace *t) {
  uint64_t key = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull ^ st_trace_event_count(t);
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(t, &np);
  for (uint32_t k = 0; k < np; k++) /* moved files: their events' times moved */
    key = (key ^ (uint64_t)parts[k].offset_ns) * 0x100000001b3ull;
  key ^= (uint64_t)st_trace_shift_ns(t) * 0xc2b2ae3d27d4eb4full;
  return key ? key : 1;
}

static st_block_index *block_index_build(const st_trace *t, const st_alloc *a) {
  uint32_t nt, nr;
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_row *rows = st_trace_rows(t, &nr);
  st_block_index *x = st_calloc(a, 1, sizeof *x);
  if (!x) return NULL;
  size_t n = 0, cap = 0;
  uint32_t ntr = 0;
  for (uint32_t ti = 0; ti < nt; ti++)
    if (tracks[ti].block_span) ntr++;
  x->tr = ntr ? st_calloc(a, ntr, sizeof *x->tr) : NULL;
  if (ntr && !x->tr) goto fail;
  for (uint32_t ti = 0; ti < nt; ti++) {
    const st_track *tr = &tracks[ti];
    if (!tr->block_span) continue;
    size_t n0 = n;
    double span = (double)tr->block_span;
    for (uint32_t r = tr->first_row; r < tr->first_row + tr->row_count && r < nr; r++)
      for (uint32_t j = 0; j < rows[r].count; j++) {
        const st_block *b = st_trace_block(t, r, j);
        if (!b) continue;
        uint32_t p0, p1;
        block_rows(b, span, &p0, &p1);
        if (!st_grow(a, (void **)&x->iv, &cap, n + (p1 - p0), sizeof *x->iv)) goto fail;
        int64_t s = rows[r].start[j], e = st_sat_add(s, rows[r].dur[j]);
        for (uint32_t p = p0; p < p1; p++) x->iv[n++] = (bix_iv){s, e, rows[r].name[j], p};
      }
    bix_iv *tmp = n > n0 ? st_malloc(a, (n - n0) * sizeof *tmp) : NULL;
    if (n > n0 && !tmp) goto fail;
    sort_iv(x->iv + n0, tmp, n - n0);
    st_free(a, tmp);
    /* the union per pixel row: overlapping intervals merged into the first */
    bix_track *bt = &x->tr[x->ntr++];
    bt->track = ti;
    size_t w = n0;
    uint32_t p = 0;
    for (size_t i = n0; i < n; i++) {
      bix_iv v = x->iv[i];
      while (p <= v.prow) bt->first[p++] = w;
      if (w > bt->first[v.prow] && v.start < x->iv[w - 1].end) {
        if (v.end > x->iv[w - 1].end) x->iv[w - 1].end = v.end;
      } else
        x->iv[w++] = v;
    }
    while (p <= BLOCK_ROWS) bt->first[p++] = w;
    n = w;
  }
  x->niv = n;
  return x;
fail:
  block_index_free(x, a);
  return NULL;
}

/* The drawlist's index for this trace (built on a miss), NULL if none. */
static const st_block_index *block_index(dctx *d) {
  st_drawlist *dl = d->dl;
  uint64_t key = block_index_key(d->in->trace);
  if (dl->blocks_ix && dl->blocks_key == key) return dl->blocks_ix;
  block_index_free(dl->blocks_ix, d->a);
  dl->blocks_ix = block_index_build(d->in->trace, d->a);
  dl->blocks_key = dl->blocks_ix ? key : 0;
  if (!dl->blocks_ix) d->err = ST_ERR_NOMEM;
  return dl->blocks_ix;
}

/* A blocks track's band at screen y sy over [t0, t1). */
static void draw_blocks(dctx *d, uint32_t track, float sy, int64_t t0, int64_t t1) {
  const st_block_index *x = block_index(d);
  if (!x) return;
  const bix_track *bt = NULL;
  for (uint32_t k = 0; k < x->ntr && !bt; k++)
    if (x->tr[k].track == track) bt = &x->tr[k];
  if (!bt) return;
  double nspp = d->v->ns_per_px > 0 ? d->v->ns_per_px : 1;
  float top = sy + 1;
  for (uint32_t p = 0; p < BLOCK_ROWS; p++) {
    float y = top + (float)p;
    if (y + 1 <= d->c.y0 || y >= d->c.y1) continue;
    const bix_iv *iv = x->iv;
    size_t lo = bt->first[p], end = bt->first[p + 1];
    /* the first ending after t0 */
    size_t i =
        lo + st_bound_i64_at(iv + lo, end - lo, sizeof *iv, offsetof(bix_iv, end), t0, ST_UPPER);
    while (i < end && iv[i].start < t1) {
      float x0 = item_x(d, iv[i].start), x1 = item_x(d, iv[i].end);
      uint32_t col = name_color(d, iv[i].name);
      if (x1 - x0 >= 1) {
        push_rect(d, x0, y, x1 - x0, 1, col, 0);
        i++;
        continue;
      }
      /* under a pixel: this pixel's intervals folded in, on to the first ending after it */
      double pe = (double)iv[i].start + nspp;
      size_t a = i + 1 +
                 st_bound((st_bound_key){(const char *)(iv + i + 1),
                                         sizeof *iv,
                                         offsetof(bix_iv, end),
                                         ST_KEY_I64_F,
                                         ST_UPPER,
                                         {.f = pe}},
                          end - i - 1);
      push_rect(d, x0, y, 1, 1, col, 0);
      i = a > i + 1 ? a : i + 1;
    }
  }
  /* the selected blocks: outlined at their own place and size */
  const st_selection *sel = d->ov ? d->ov->sel : NULL;
  if (!sel) return;
  const st_track *tr = &st_trace_tracks(d->in->trace, NULL)[track];
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(sel, &ns);
  size_t lo =
      st_bound_u32_at(sp, ns, sizeof *sp, offsetof(st_sel_span, row), tr->first_row, ST_LOWER);
  const st_row *rows = st_trace_rows(d->in->trace, NULL);
  uint32_t drawn = 0;
  for (size_t k = lo; k < ns && sp[k].row < tr->first_row + tr->row_count; k++)
    for (uint32_t j = sp[k].lo; j < sp[k].hi && drawn < BLOCK_SEL_MAX; j++, drawn++) {
      const st_block *b = st_trace_block(d->in->trace, sp[k].row, j);
      const st_row *r = &rows[sp[k].row];
      if (!b || r->start[j] >= t1 || st_sat_add(r->start[j], r->dur[j]) < t0) continue;
      uint32_t p0, p1;
      block_rows(b, (double)tr->block_span, &p0, &p1);
      float x0 = item_x(d, r->start[j]), x1 = item_x(d, st_sat_add(r->start[j], r->dur[j]));
      if (x1 - x0 < 1) x1 = x0 + 1;
      push_rect(d, x0, top + (float)p0, x1 - x0, (float)(p1 - p0), name_color(d, r->name[j]),
                ST_RECT_SELECTED);
    }
}

/* The scale of a blocks track, at its top left: its address space's bytes. */
static void block_scale(dctx *d, uint64_t span, float sy) {
  if (!d->in->font) return;
  char q[48], buf[80];
  st_format_quantity((double)span, "B", 1, q, sizeof q);
  int n = snprintf(buf, sizeof buf, "0 .. %s of addresses", q);
  if (n > 0)
    draw_text(d, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, d->c.x0 + PAD,
              sy + 2 + d->in->font->ascent, 200, COL_TRACK_TEXT);
}

static float value_y(const dctx *d, double v) {
  double f = (v - d->lo) / (d->hi - d->lo);
  if (f < 0) f = 0;
  if (f > 1) f = 1;
  return d->plot_bot - (float)f * (d->plot_bot - d->plot_top);
}

static void on_sample(void *ud, const st_lod_sample *s) {
  dctx *d = ud;
  if (s->last != s->last || s->min != s->min) return; /* NaN */
  float xs = st_view_x_of(d->v, (double)s->start), xe = st_view_x_of(d->v, (double)s->end);
  if (xe < xs) xe = xs;
  float yl = value_y(d, s->last), yb = value_y(d, d->lo <= 0 && d->hi >= 0 ? 0 : d->lo);
  float ymax = value_y(d, s->max), ymin = value_y(d, s->min);
  uint32_t fill = (d->series_rgba & 0x00FFFFFFu) | 0x55u << 24;
  push_rect(d, xs, yl < yb ? yl : yb, xe - xs, fabsf(yb - yl), fill, 0);
  float bh = ymin - ymax;
  push_rect(d, xs, ymax - (bh < 1 ? 0.5f : 0), 1, bh < 1 ? 1 : bh, d->series_rgba, 0);
  if (d->have_prev && d->prev_y != ymax) push_line(d, xs, d->prev_y, xs, yl, 1, d->series_rgba);
  push_line(d, xs, yl, xe, yl, 1, d->series_rgba);
  d->prev_y = yl;
  d->have_prev = 1;
}

static void draw_counter(dctx *d, const st_layout_item *it, float sy, int64_t t0, int64_t t1) {
  uint32_t nc;
  const st_counter *cs = st_trace_counters(d->in->trace, &nc);
  const st_track *tracks = st_trace_tracks(d->in->trace, NULL);
  if (it->row >= nc) return;
  const st_counter *c = &cs[it->row];
  size_t len;
  const char *name = st_strtab_get(d->strs, tracks[it->track].name, &len);
  d->series_rgba = st_color_for_name(name, len);
  d->lo = c->min < 0 ? c->min : 0;
  d->hi = c->max;
  if (!(d->hi > d->lo)) d->hi = d->lo + 1;
  d->plot_top = sy + 4;
  d->plot_bot = sy + ST_VIEW_COUNTER_H - 2;
  d->have_prev = 0;
  st_lod_query_counter(d->in->lod, it->row, t0, t1, d->v->ns_per_px, on_sample, d);
  /* the scale: max value at the top left */
  char buf[64];
  size_t ul;
  const char *unit = st_strtab_get(d->strs, tracks[it->track].unit, &ul);
  int n = (int)st_format_quantity(c->max, unit, ul, buf, sizeof buf);
  if (n > 0 && d->in->font)
    draw_text(d, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, d->c.x0 + PAD,
              sy + 2 + d->in->font->ascent, 120, COL_TRACK_TEXT);
}

/* Clamps a time's x to a little beyond the clip, so huge zooms do not
 * produce float overflow. */
static float clamped_x(const dctx *d, double t) {
  float x = st_view_x_of(d->v, t);
  if (!(x > d->c.x0 - 10)) x = d->c.x0 - 10; /* also NaN */
  if (x > d->c.x1 + 10) x = d->c.x1 + 10;
  return x;
}

/* A time interval over the rows: a filled band with an edge line each side. */
static void time_band(dctx *d, double t0_ns, double t1_ns, uint32_t fill, uint32_t edge) {
  float xa = clamped_x(d, t0_ns), xb = clamped_x(d, t1_ns);
  if (xb < xa) {
    float t = xa;
    xa = xb;
    xb = t;
  }
  push_rect(d, xa, d->c.y0, xb - xa, d->c.y1 - d->c.y0, fill, 0);
  push_line(d, xa, d->c.y0, xa, d->c.y1, 1, edge);
  push_line(d, xb, d->c.y0, xb, d->c.y1, 1, edge);
}

static void pinned_edge(dctx *d);

/* The clip of one span of the layout (st_layout_spans) inside the pass's. */
static void span_clip(dctx *d, const clip *whole, const st_layout_span *sp) {
  d->c = *whole;
  d->c.y0 = fmaxf(whole->y0, sp->clip_y0);
  d->c.y1 = fminf(whole->y1, sp->clip_y1);
}

/* What was pushed since the marks, as commands in the current clip; the
 * marks move on. */
static void flush_cmds(dctx *d, uint32_t *r0, uint32_t *l0, uint32_t *g0) {
  push_cmd(d, ST_DRAW_RECTS, *r0, d->dl->rect_count);
  push_cmd(d, ST_DRAW_LINES, *l0, d->dl->line_count);
  push_cmd(d, ST_DRAW_GLYPHS, *g0, d->dl->glyph_count);
  *r0 = d->dl->rect_count, *l0 = d->dl->line_count, *g0 = d->dl->glyph_count;
}

/* The bands (st_draw_band_set) on their visible rows, inside the window. */
static void bands_pass(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  const st_layout *lay = d->in->layout;
  if (!ov->bands || !ov->band_sets || !lay) return;
  const st_view *v = d->v;
  uint32_t n;
  const st_layout_item *items = st_layout_items(lay, &n);
  double w0 = v->t0_ns, w1 = v->t0_ns + st_view_timeline_w(v) * v->ns_per_px;
  uint32_t r0 = d->dl->rect_count;
  const clip whole = d->c;
  for (uint32_t k = 0; k < ov->band_sets; k++) {
    const st_draw_band_set *b = &ov->bands[k];
    if (!b->count || !b->t0_ns || !b->t1_ns) continue;
    /* the first of the ascending disjoint intervals ending after w0 */
    uint32_t first = (uint32_t)st_upper_bound_i64_f(b->t1_ns, b->count, w0);
    if (first == b->count || (double)b->t0_ns[first] >= w1) continue;
    for (uint32_t j = 0; j < b->row_count; j++) {
      uint32_t it = st_layout_item_of_row(lay, b->rows[j]);
      if (it >= n || items[it].kind != ST_LAYOUT_ROW) continue;
      if (!st_layout_on_screen(lay, v, it)) continue;
      float sy = st_layout_screen_y(lay, v, it);
      /* a scrolled row is clipped under the pinned tracks, as in timeline_pass */
      if (it >= st_layout_pinned_items(lay))
        d->c.y0 = fmaxf(whole.y0, ST_VIEW_AXIS_H + st_layout_pinned_height(lay));
      int have = 0; /* a rect of this row was pushed: the last one */
      float last = 0;
      for (uint32_t i = first; i < b->count && (double)b->t0_ns[i] < w1; i++) {
        float xa = clamped_x(d, (double)b->t0_ns[i]), xb = clamped_x(d, (double)b->t1_ns[i]);
        if (xb - xa < 1) xb = xa + 1;
        if (have && xa <= last) { /* on the last rect's pixel: widen it */
          st_rect *r = &d->dl->rects[d->dl->rect_count - 1];
          float end = xb < d->c.x1 ? xb : d->c.x1;
          if (end > r->x + r->w) r->w = end - r->x;
          if (xb > last) last = xb;
          continue;
        }
        uint32_t before = d->dl->rect_count;
        push_rect(d, xa, sy, xb - xa, items[it].h, COL_BAND, 0);
        if (d->dl->rect_count > before) {
          d->dl->bands_drawn++;
          have = 1;
          last = xb;
        }
      }
      d->c = whole;
    }
  }
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
}

/* ---- notes (draw.h st_draw_note) ---------------------------------------- */

static int note_visible(const dctx *d, const st_draw_note *n) {
  double w0 = d->v->t0_ns, w1 = w0 + st_view_timeline_w(d->v) * d->v->ns_per_px;
  return n->t1_ns >= w0 && n->t0_ns <= w1;
}

/* Each note over the rows: a line at a time, a band over a range. */
static void notes_rows(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  for (uint32_t i = 0; ov->notes && i < ov->note_count; i++) {
    const st_draw_note *n = &ov->notes[i];
    if (!note_visible(d, n)) continue;
    if (n->t1_ns > n->t0_ns) {
      time_band(d, n->t0_ns, n->t1_ns, COL_NOTE_BAND, COL_NOTE);
    } else {
      float x = st_view_x_of(d->v, n->t0_ns);
      push_line(d, x, d->c.y0, x, d->c.y1, 1.5f, COL_NOTE);
    }
  }
}

/* Timing mark band, zoom range and selection box, over the rows. */
static void overlay_pass(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  uint32_t r0 = d->dl->rect_count, l0 = d->dl->line_count;
  if (ov->has_mark) time_band(d, ov->mark_t0_ns, ov->mark_t1_ns, COL_MARK_BAND, COL_MARK_EDGE);
  if (ov->has_range) time_band(d, ov->range_t0_ns, ov->range_t1_ns, COL_RANGE_FILL, COL_BOX_EDGE);
  notes_rows(d);
  if (ov->has_box) {
    float xa = fminf(ov->box_x0, ov->box_x1), xb = fmaxf(ov->box_x0, ov->box_x1);
    float ya = fminf(ov->box_y0, ov->box_y1), yb = fmaxf(ov->box_y0, ov->box_y1);
    push_rect(d, xa, ya, xb - xa, yb - ya, COL_BOX_FILL, 0);
    /* the outline, clamped to the clip so edges outside it still frame the part inside */
    float cx0 = fmaxf(xa, d->c.x0), cx1 = fminf(xb, d->c.x1);
    float cy0 = fmaxf(ya, d->c.y0 + 0.5f), cy1 = fminf(yb, d->c.y1 - 0.5f);
    if (cx1 > cx0 && cy1 > cy0) {
      if (ya >= d->c.y0) push_line(d, cx0, cy0, cx1, cy0, 1, COL_BOX_EDGE);
      if (yb <= d->c.y1) push_line(d, cx0, cy1, cx1, cy1, 1, COL_BOX_EDGE);
      if (xa >= d->c.x0 + 0.5f) push_line(d, xa, cy0, xa, cy1, 1, COL_BOX_EDGE);
      if (xb <= d->c.x1 - 0.5f) push_line(d, xb, cy0, xb, cy1, 1, COL_BOX_EDGE);
    }
  }
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
}

/* ---- flow arrows ----------------------------------------------------------
 * Two layers (the modes are core/ui/ui.h st_flow_mode):
 *
 * - Under the slices (ov->flows, the "all" mode): every flow with an end on
 *   a visible row inside the time window, bundled (flow_bundle.h: the flows
 *   whose ends share a ST_DRAW_FLOW_CELL_PX column on the same tracks are one
 *   arrow with a count label), 1 px, translucent, and drawn BEFORE the rows:
 *   the slices and their labels paint over them (a slice the renderer makes
 *   translucent, merged, dimmed or unfinished, gets an opaque backing, and
 *   the grid is drawn after the backings, so a slice looks the same with
 *   arrows under it or not), so
 *   an arrow shows only in the gaps between slices and rows and never
 *   covers a slice. This is the fix for Kineto's first view, where
 *   thousands of launch -> kernel arrows drawn on top made black slabs over
 *   the work: slices are the data, the arrows in bulk are context; drawn
 *   under, the context is seen where there is room for it, and bundling
 *   bounds what is drawn by the cells (one arrow per pair of columns)
 *   instead of by the flows. A bundle's count label is drawn
 *   over the rows, but only where it covers nothing (flow_labels_pass).
 * - On top of everything (ov->has_focus, every mode but "off"): the chain of
 *   the selected events (core/index/flow_chain.h; a box selection: the
 *   union of its events' chains, bounded in all), 2 px, highlighted: the
 *   user asked for these. Its cost follows the selection's spans (one per
 *   row of a box), not its events, at most ST_DRAW_MAX_CHAIN_SPANS of them.
 *
 * Bounded per frame: for each visible row, the events overlapping the time
 * window are an index range (binary search: ends ascend in a row), and the
 * flows leaving / entering that range are contiguous in the trace's sorted
 * flow arrays (binary search again). So a frame touches O(visible rows x
 * log) entries plus the flows it bundles, at most ST_DRAW_MAX_FLOW_SCAN,
 * into at most ST_DRAW_MAX_FLOWS arrows (the rest: st_drawlist.flows_capped). */

#define COL_FLOW_LABEL_BG rgba(250, 250, 251, 235)
#define COL_FLOW_LABEL rgba(44, 48, 60, 255)
#define MAX_FLOW_LABELS 512
#define LABEL_CLEAR_PX 4.0 /* a count label keeps this far from events */

/* Clips the segment to the clip rectangle (Liang-Barsky); 0 if outside. */
static int clip_segment(const clip *c, float *x0, float *y0, float *x1, float *y1) {
  double t0 = 0, t1 = 1, dx = (double)*x1 - *x0, dy = (double)*y1 - *y0;
  double p[4] = {-dx, dx, -dy, dy};
  double q[4] = {(double)*x0 - c->x0, c->x1 - (double)*x0, (double)*y0 - c->y0,
                 c->y1 - (double)*y0};
  for (int i = 0; i < 4; i++) {
    if (p[i] == 0) {
      if (q[i] < 0) return 0;
      continue;
    }
    double r = q[i] / p[i];
    if (p[i] < 0) {
      if (r > t1) return 0;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return 0;
      if (r < t1) t1 = r;
    }
  }
  float ax = (float)(*x0 + t0 * dx), ay = (float)(*y0 + t0 * dy);
  float bx = (float)(*x0 + t1 * dx), by = (float)(*y0 + t1 * dy);
  *x0 = ax, *y0 = ay, *x1 = bx, *y1 = by;
  return 1;
}

/* Screen point of an event's start (end == 0) or end (a flow: its source's
 * end, its destination's start), y at the middle of its row (or of its collapsed section's
 * header), and the layout item it is drawn on. 0 if the row is not laid
 * out. */
static int event_end_xy(const dctx *d, uint32_t row, uint32_t index, int end, float *x, float *y,
                        uint32_t *item) {
  uint32_t n, nr;
  const st_layout_item *items = st_layout_items(d->in->layout, &n);
  const st_row *rows = st_trace_rows(d->in->trace, &nr);
  uint32_t it = st_layout_item_of_row(d->in->layout, row);
  if (it >= n || row >= nr || index >= rows[row].count) return 0;
  double t = (double)rows[row].start[index] + (end ? (double)rows[row].dur[index] : 0.0);
  double fx = st_view_x_of(d->v, t);
  /* far outside: keep the direction but stay in float range (clipped later) */
  if (!(fx > -1e6)) fx = -1e6;
  if (fx > 1e6) fx = 1e6;
  *x = (float)fx;
  *y = st_layout_screen_y(d->in->layout, d->v, it) + items[it].h / 2;
  *item = it;
  return 1;
}

/* An arrow from (x0, y0) to (x1, y1), clipped; 1 if any of it is drawn. */
static int draw_segment(dctx *d, float x0, float y0, float x1, float y1, uint32_t col,
                        float width) {
  float hx = x1, hy = y1, dx = x1 - x0, dy = y1 - y0;
  clip inner = {d->c.x0 + width, d->c.y0 + width, d->c.x1 - width, d->c.y1 - width};
  if (!clip_segment(&inner, &x0, &y0, &x1, &y1)) return 0;
  if (x0 == x1 && y0 == y1) return 0;
  push_line(d, x0, y0, x1, y1, width, col);
  float len = sqrtf(dx * dx + dy * dy);
  if (x1 != hx || y1 != hy || !(len > FLOW_HEAD_PX)) return 1; /* the head is out of view */
  float ux = dx / len, uy = dy / len;
  const float c = 0.906f, s = 0.423f; /* cos / sin 25 degrees */
  for (int side = -1; side <= 1; side += 2) {
    float bx = -(ux * c - side * uy * s), by = -(uy * c + side * ux * s);
    push_line(d, hx + bx * FLOW_HEAD_PX, hy + by * FLOW_HEAD_PX, hx, hy, width, col);
  }
  return 1;
}

static void draw_arrow(dctx *d, const st_flow *f, uint32_t col, float width) {
  float x0, y0, x1, y1;
  uint32_t i0, i1;
  if (!event_end_xy(d, f->from_row, f->from_index, 1, &x0, &y0, &i0) ||
      !event_end_xy(d, f->to_row, f->to_index, 0, &x1, &y1, &i1))
    return;
  if (draw_segment(d, x0, y0, x1, y1, col, width)) d->dl->flows_drawn++;
}

/* 1 if the event's end is drawn from its own row in this frame. */
static int end_in_view(const dctx *d, uint32_t row, uint32_t index, int64_t t0, int64_t t1) {
  uint32_t n, nr;
  const st_layout_item *items = st_layout_items(d->in->layout, &n);
  const st_row *rows = st_trace_rows(d->in->trace, &nr);
  uint32_t it = st_layout_item_of_row(d->in->layout, row);
  if (it >= n || items[it].kind != ST_LAYOUT_ROW) return 0;
  if (!st_layout_on_screen(d->in->layout, d->v, it)) return 0;
  int64_t s = rows[row].start[index],
          e = s > INT64_MAX - rows[row].dur[index] ? INT64_MAX : s + rows[row].dur[index];
  return e >= t0 && s <= t1;
}

/* One flow into the frame's bundles (if any of it is in view). */
static void bundle_flow(dctx *d, const st_flow *f) {
  float x0, y0, x1, y1;
  uint32_t i0, i1;
  if (!event_end_xy(d, f->from_row, f->from_index, 1, &x0, &y0, &i0) ||
      !event_end_xy(d, f->to_row, f->to_index, 0, &x1, &y1, &i1))
    return;
  float cx0 = x0, cy0 = y0, cx1 = x1, cy1 = y1;
  if (!clip_segment(&d->c, &cx0, &cy0, &cx1, &cy1)) return;
  /* keyed by track: a thread's launches at several depths are one source */
  const st_layout_item *items = st_layout_items(d->in->layout, NULL);
  uint32_t k0 = items[i0].kind == ST_LAYOUT_ROW ? items[i0].track : 0x80000000u | i0;
  uint32_t k1 = items[i1].kind == ST_LAYOUT_ROW ? items[i1].track : 0x80000000u | i1;
  if (!st_flow_bundler_add(&d->dl->flow_bundles, k0, x0, y0, k1, x1, y1)) d->dl->flows_capped++;
}

typedef struct flow_label {
  float x, y, w, h;
  uint32_t count;
} flow_label;

static int label_overlaps(const flow_label *ls, uint32_t n, const flow_label *l) {
  for (uint32_t i = 0; i < n; i++)
    if (l->x < ls[i].x + ls[i].w && ls[i].x < l->x + l->w && l->y < ls[i].y + ls[i].h &&
        ls[i].y < l->y + l->h)
      return 1;
  return 0;
}

/* "\u00D7N" (the count label), its length. */
static size_t count_text(uint32_t count, char *buf, size_t cap) {
  int n = snprintf(buf, cap, "\xC3\x97%u", count);
  return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The width of s[0..n) (its first MAX_LABEL_CPS code points). */
/* The width draw_text needs for the whole text: the advances, the first
 * glyph's reach left of its pen and the last one's ink right of its
 * advance included. */
static float text_w(const dctx *d, const char *s, size_t n) {
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

/* The flows in view, bundled, under the rows (see above). */
static void flows_under(dctx *d, int64_t t0, int64_t t1) {
  const st_draw_overlay *ov = d->ov;
  const st_trace *tr = d->in->trace;
  const st_layout *lay = d->in->layout;
  uint32_t nflows, nr, n;
  const st_flow *fl = st_trace_flows(tr, &nflows);
  const uint32_t *fin = st_trace_flows_in(tr, NULL);
  const st_row *rows = st_trace_rows(tr, &nr);
  if (!nflows || !lay || !ov->flows) return;
  st_drawlist *dl = d->dl;
  st_code c = st_flow_bundler_begin(&dl->flow_bundles, ST_DRAW_FLOW_CELL_PX, d->c.x0,
                                    ST_DRAW_MAX_FLOWS, d->a);
  if (c != ST_OK) {
    d->err = c;
    return;
  }
  const st_layout_item *items = st_layout_items(lay, &n);
  uint32_t scan = ST_DRAW_MAX_FLOW_SCAN;
  st_layout_span sp[2];
  uint32_t ns = st_layout_spans(lay, d->v, sp);
  for (uint32_t s = 0; s < ns; s++)
    for (uint32_t i = sp[s].first; i < sp[s].end && i < n; i++) {
      if (items[i].kind != ST_LAYOUT_ROW || items[i].row >= nr) continue;
      const st_row *r = &rows[items[i].row];
      uint32_t a = st_row_first_end_ge(r, t0), b = st_row_first_start_gt(r, t1), first;
      if (a >= b) continue;
      uint32_t k = st_trace_flows_from(tr, items[i].row, a, b, &first);
      for (uint32_t j = 0; j < k; j++, scan--) {
        if (!scan) {
          dl->flows_capped += k - j;
          break;
        }
        bundle_flow(d, &fl[first + j]);
      }
      k = st_trace_flows_to(tr, items[i].row, a, b, &first);
      for (uint32_t j = 0; j < k; j++) {
        const st_flow *f = &fl[fin[first + j]];
        /* bundled from its source's row already */
        if (end_in_view(d, f->from_row, f->from_index, t0, t1)) continue;
        if (!scan) {
          dl->flows_capped++;
          continue;
        }
        scan--;
        bundle_flow(d, f);
      }
    }
  uint32_t nb;
  const st_flow_bundle *bs = st_flow_bundler_bundles(&dl->flow_bundles, &nb);
  uint32_t l0 = dl->line_count;
  for (uint32_t i = 0; i < nb; i++) {
    if (!draw_segment(d, bs[i].x0, bs[i].y0, bs[i].x1, bs[i].y1, COL_FLOW, 1)) continue;
    dl->flows_drawn++;
    if (bs[i].count < 2) continue;
    dl->flow_bundles_drawn++;
    dl->flows_bundled += bs[i].count;
  }
  push_cmd(d, ST_DRAW_LINES, l0, dl->line_count);
}

static void no_item(void *ud, const st_lod_item *it) {
  (void)ud;
  (void)it;
}

/* 1 if the canvas box [x0, x1) x [y0, y1) of the timeline shows nothing but
 * background: no section header or counter, and no event of a row within
 * LABEL_CLEAR_PX of it. */
static int box_clear(const dctx *d, float x0, float y0, float x1, float y1) {
  const st_layout *lay = d->in->layout;
  const st_view *v = d->v;
  uint32_t n;
  const st_layout_item *items = st_layout_items(lay, &n);
  float cy0 = y0 - ST_VIEW_AXIS_H + v->scroll_y, cy1 = y1 - ST_VIEW_AXIS_H + v->scroll_y;
  double ta = v->t0_ns + ((double)x0 - LABEL_CLEAR_PX - ST_VIEW_GUTTER_W) * v->ns_per_px;
  double tb = v->t0_ns + ((double)x1 + LABEL_CLEAR_PX - ST_VIEW_GUTTER_W) * v->ns_per_px;
  int64_t t0 = (int64_t)floor(ta), t1 = (int64_t)ceil(tb);
  for (uint32_t i = st_layout_first_at(lay, cy0); i < n && items[i].y < cy1; i++) {
    if (items[i].y + items[i].h <= cy0) continue;
    if (items[i].kind != ST_LAYOUT_ROW) return 0;
    if (st_lod_query_row(d->in->lod, items[i].row, t0, t1, v->ns_per_px, 1.0, no_item, NULL))
      return 0;
  }
  return 1;
}

/* The bundles' counts ("\u00D7N"), over the rows but only where the label
 * covers nothing: the first clear place along what is drawn of the arrow
 * (its middle, then a third and two thirds of the way, ...), never over an
 * earlier label. */
static void flow_labels_pass(dctx *d) {
  const st_font *font = d->in->font;
  st_drawlist *dl = d->dl;
  if (!d->ov->flows || !dl->flow_bundles_drawn || !font || !font->glyph || !d->in->lod) return;
  static const float at[] = {0.5f, 0.33f, 0.67f, 0.17f, 0.83f};
  uint32_t nb, nl = 0;
  const st_flow_bundle *bs = st_flow_bundler_bundles(&dl->flow_bundles, &nb);
  flow_label labels[MAX_FLOW_LABELS];
  for (uint32_t i = 0; i < nb && nl < MAX_FLOW_LABELS; i++) {
    float x0 = bs[i].x0, y0 = bs[i].y0, x1 = bs[i].x1, y1 = bs[i].y1;
    clip inner = {d->c.x0 + 1, d->c.y0 + 1, d->c.x1 - 1, d->c.y1 - 1};
    if (bs[i].count < 2 || !clip_segment(&inner, &x0, &y0, &x1, &y1)) continue;
    char buf[16];
    size_t m = count_text(bs[i].count, buf, sizeof buf);
    float h = font->ascent + font->descent + 2, w = text_w(d, buf, m) + 4;
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
      float mx = x0 + (x1 - x0) * at[k], my = y0 + (y1 - y0) * at[k];
      flow_label l = {mx - w / 2, my - h / 2, w, h, bs[i].count};
      if (l.x < d->c.x0 || l.x + l.w > d->c.x1 || l.y < d->c.y0 || l.y + l.h > d->c.y1) continue;
      if (label_overlaps(labels, nl, &l) || !box_clear(d, l.x, l.y, l.x + l.w, l.y + l.h)) continue;
      labels[nl++] = l;
      break;
    }
  }
  uint32_t r0 = dl->rect_count, g0 = dl->glyph_count;
  for (uint32_t i = 0; i < nl; i++)
    push_rect(d, labels[i].x, labels[i].y, labels[i].w, labels[i].h, COL_FLOW_LABEL_BG, 0);
  push_cmd(d, ST_DRAW_RECTS, r0, dl->rect_count);
  for (uint32_t i = 0; i < nl; i++) {
    char buf[16];
    size_t m = count_text(labels[i].count, buf, sizeof buf);
    if (draw_text(d, buf, m, labels[i].x + 2, baseline_for(d, labels[i].y, labels[i].h),
                  labels[i].w - 2, COL_FLOW_LABEL) > 0)
      dl->flow_labels++;
  }
  push_cmd(d, ST_DRAW_GLYPHS, g0, dl->glyph_count);
}

/* The selected events' chain, highlighted, over everything (see above). */
static void flows_over(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  const st_trace *tr = d->in->trace;
  uint32_t nflows;
  const st_flow *fl = st_trace_flows(tr, &nflows);
  if (!nflows || !d->in->layout || !ov->has_focus) return;
  uint32_t chain[ST_FLOW_CHAIN_MAX], more, nspans = 0, k;
  const st_sel_span *spans = ov->chain_sel ? st_selection_spans(ov->chain_sel, &nspans) : NULL;
  uint32_t over = nspans > ST_DRAW_MAX_CHAIN_SPANS;
  if (over) nspans = ST_DRAW_MAX_CHAIN_SPANS;
  d->dl->flows_capped += over;
  if (spans)
    k = st_flow_chain_spans(tr, spans, nspans, chain, ST_FLOW_CHAIN_MAX, &more);
  else
    k = st_flow_chain(tr, ov->focus_row, ov->focus_index, chain, ST_FLOW_CHAIN_MAX, &more);
  d->dl->flows_capped += more;
  uint32_t l0 = d->dl->line_count, before = d->dl->flows_drawn;
  for (uint32_t j = 0; j < k; j++) draw_arrow(d, &fl[chain[j]], COL_FLOW_FOCUS, 2);
  d->dl->flows_chain += d->dl->flows_drawn - before;
  push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
}

/* The overlay's edges (st_draw_edge), over everything. */
static void edges_over(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  if (!ov->edges || !ov->edge_count || !d->in->layout) return;
  uint32_t l0 = d->dl->line_count;
  for (uint32_t k = 0; k < ov->edge_count; k++) {
    const st_draw_edge *e = &ov->edges[k];
    float x0, y0, x1, y1;
    uint32_t i0, i1;
    if (!event_end_xy(d, e->row0, e->index0, e->end0, &x0, &y0, &i0) ||
        !event_end_xy(d, e->row1, e->index1, e->end1, &x1, &y1, &i1))
      continue;
    if (draw_segment(d, x0, y0, x1, y1, ST_DRAW_EDGE_RGBA, 2)) d->dl->edges_drawn++;
  }
  push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
}

static void timeline_pass(dctx *d, const double *ticks, int nticks) {
  const st_view *v = d->v;
  const st_layout *lay = d->in->layout;
  uint32_t grid0 = d->dl->line_count;
  for (int k = 0; k < nticks; k++) {
    float x = st_view_x_of(v, ticks[k]);
    push_line(d, x, d->c.y0, x, d->c.y1, 1, COL_GRID);
  }
  uint32_t grid1 = d->dl->line_count;
  if (!lay || !d->in->trace) {
    push_cmd(d, ST_DRAW_LINES, grid0, grid1);
    return;
  }

  /* the order drawn: flow arrows, translucent slices' backings, the grid,
   * the rows; so a slice looks the same whether arrows are drawn or not */
  double tw = st_view_timeline_w(v);
  double ft0 = floor(v->t0_ns), ft1 = ceil(v->t0_ns + tw * v->ns_per_px) + 1;
  int64_t t0 = ft0 < -9.2e18 ? INT64_MIN + 1 : ft0 > 9.2e18 ? INT64_MAX - 1 : (int64_t)ft0;
  int64_t t1 = ft1 > 9.2e18 ? INT64_MAX : ft1 < -9.2e18 ? INT64_MIN + 2 : (int64_t)ft1;
  if (d->ov) flows_under(d, t0, t1);
  d->backing = d->ov && d->ov->flows && d->dl->flows_drawn;
  d->backing_count = 0;

  uint32_t r0 = d->dl->rect_count, l0 = d->dl->line_count, g0 = d->dl->glyph_count;
  uint32_t n;
  const st_layout_item *items = st_layout_items(lay, &n);
  const st_track *tracks = st_trace_tracks(d->in->trace, NULL);
  /* the pinned tracks (fixed below the axis), then the scrolled ones under
   * them, each span in its own clip, and in each the order above */
  st_layout_span spans[2];
  uint32_t nspans = st_layout_spans(lay, v, spans);
  clip whole = d->c;
  for (uint32_t s = 0; s < nspans; s++) {
    span_clip(d, &whole, &spans[s]);
    d->backing_count = 0;
    for (uint32_t i = spans[s].first; i < spans[s].end && i < n; i++) {
      const st_layout_item *it = &items[i];
      float sy = it->y + spans[s].dy;
      if (it->kind == ST_LAYOUT_SECTION) {
        push_rect(d, d->c.x0, sy, d->c.x1 - d->c.x0, it->h, COL_SECTION, 0);
      } else if (it->kind == ST_LAYOUT_GROUP) {
        push_rect(d, d->c.x0, sy, d->c.x1 - d->c.x0, it->h, COL_GROUP, 0);
      } else if (it->kind == ST_LAYOUT_ROW) {
        if (!d->in->lod) continue;
        d->row_y = sy;
        d->row_kind = tracks[it->track].kind;
        d->row = it->row;
        uint64_t span = tracks[it->track].block_span;
        if (span) { /* a memory blocks track: its lanes drawn as one band, once */
          if (i + 1 >= n || items[i + 1].track != it->track) {
            draw_blocks(d, it->track, sy, t0, t1);
            block_scale(d, span, sy);
          }
        } else
          st_lod_query_row(d->in->lod, it->row, t0, t1, v->ns_per_px, 1.0, on_item, d);
      } else {
        if (d->in->lod) draw_counter(d, it, sy, t0, t1);
      }
    }
    uint32_t r1 = d->dl->rect_count;
    for (uint32_t i = 0; i < d->backing_count; i++) {
      const st_rect *b = &d->dl->backing[i];
      push_rect(d, b->x, b->y, b->w, b->h, b->rgba, 0);
    }
    push_cmd(d, ST_DRAW_RECTS, r1, d->dl->rect_count);
    push_cmd(d, ST_DRAW_LINES, grid0, grid1);
    push_cmd(d, ST_DRAW_RECTS, r0, r1);
    push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
    push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
    r0 = d->dl->rect_count, l0 = d->dl->line_count, g0 = d->dl->glyph_count;
  }
  d->backing = 0;
  d->c = whole;
  pinned_edge(d);
  if (d->ov) {
    flow_labels_pass(d);
    bands_pass(d);
    overlay_pass(d);
    flows_over(d);
    edges_over(d);
  }
}

/* ==== 5. gutter pass ===================================================== */

/* The pin mark at the right of a track's label (view.h ST_VIEW_PIN_W, the
 * click target): filled on a pinned track, an outline on the hovered one. */
static void pin_mark(dctx *d, float sy, float lh, int filled) {
  float s = 8, x = d->c.x1 - ST_VIEW_PIN_W / 2 - s / 2 - 1, y = sy + (lh - s) / 2;
  if (filled) {
    push_rect(d, x, y, s, s, COL_PIN, 0);
    return;
  }
  push_rect(d, x, y, s, 1, COL_PIN, 0);
  push_rect(d, x, y + s - 1, s, 1, COL_PIN, 0);
  push_rect(d, x, y, 1, s, COL_PIN, 0);
  push_rect(d, x + s - 1, y, 1, s, COL_PIN, 0);
}

static int pin_hovered(const dctx *d, uint32_t track) {
  return d->ov && d->ov->pin_hover &&
         d->ov->pin_hover_track == st_layout_track_head(d->in->layout, track);
}

/* The line under the pinned tracks, across the current clip's width. */
static void pinned_edge(dctx *d) {
  float h = st_layout_pinned_height(d->in->layout);
  if (!(h > 0)) return;
  uint32_t r0 = d->dl->rect_count;
  push_rect(d, d->c.x0, ST_VIEW_AXIS_H + h - 1, d->c.x1 - d->c.x0, 1, COL_PIN_EDGE, 0);
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
}

static void gutter_span(dctx *d, const st_layout_span *sp, char *buf, size_t cap);

static void gutter_pass(dctx *d) {
  const st_view *v = d->v;
  const st_layout *lay = d->in->layout;
  uint32_t r0 = d->dl->rect_count, g0 = d->dl->glyph_count;
  push_rect(d, d->c.x0, d->c.y0, d->c.x1 - d->c.x0, d->c.y1 - d->c.y0, COL_GUTTER, 0);
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  r0 = d->dl->rect_count;
  if (lay && d->in->trace) {
    char buf[320];
    st_layout_span spans[2];
    uint32_t nspans = st_layout_spans(lay, v, spans);
    clip whole = d->c;
    /* the pinned tracks, then the scrolled ones, each span in its clip */
    uint32_t l0 = d->dl->line_count;
    for (uint32_t s = 0; s < nspans; s++) {
      span_clip(d, &whole, &spans[s]);
      gutter_span(d, &spans[s], buf, sizeof buf);
      flush_cmds(d, &r0, &l0, &g0);
    }
    d->c = whole;
    pinned_edge(d);
    r0 = d->dl->rect_count;
  }
  /* the separator between gutter and timeline */
  push_rect(d, d->c.x1 - 1, d->c.y0, 1, d->c.y1 - d->c.y0, COL_SEPARATOR, 0);
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
}

/* One span of the gutter: section headers, file headers, track labels and
 * the pin marks. */
static void gutter_span(dctx *d, const st_layout_span *sp, char *buf, size_t cap) {
  const st_layout *lay = d->in->layout;
  uint32_t n, np, nt;
  const st_layout_item *items = st_layout_items(lay, &n);
  const st_process *ps = st_trace_processes(d->in->trace, &np);
  const st_track *ts = st_trace_tracks(d->in->trace, &nt);
  for (uint32_t i = sp->first; i < sp->end && i < n; i++) {
    const st_layout_item *it = &items[i];
    float sy = it->y + sp->dy;
    float x = d->c.x0 + PAD, w = d->c.x1 - d->c.x0 - 2 * PAD;
    if (it->kind == ST_LAYOUT_GROUP) {
      /* a merged trace's file: its name, and its offset when moved */
      uint32_t nparts;
      const st_trace_part *parts = st_trace_parts(d->in->trace, &nparts);
      push_rect(d, d->c.x0, sy, d->c.x1 - d->c.x0, it->h, COL_GROUP, 0);
      if (it->row >= nparts) continue;
      size_t len;
      const char *name = st_strtab_get(d->strs, parts[it->row].name, &len);
      const char *mark =
          st_layout_group_collapsed(lay, it->row) ? "\xE2\x96\xB8 " : "\xE2\x96\xBE ";
      int m =
          snprintf(buf, cap, "%s%.*s", mark, (int)(len > 200 ? 200 : len), len ? name : "trace");
      if (m > 0)
        draw_text(d, buf, (size_t)m < cap ? (size_t)m : cap - 1, x, baseline_for(d, sy, it->h), w,
                  COL_GROUP_TEXT);
      continue;
    }
    if (it->kind == ST_LAYOUT_SECTION) {
      if (it->process >= np) continue;
      const st_process *p = &ps[it->process];
      push_rect(d, d->c.x0, sy, d->c.x1 - d->c.x0, it->h, COL_SECTION, 0);
      size_t len;
      const char *name = st_strtab_get(d->strs, p->name, &len);
      /* U+25B8 / U+25BE: collapsed / expanded marker */
      const char *mark = st_layout_collapsed(lay, it->process) ? "\xE2\x96\xB8 " : "\xE2\x96\xBE ";
      /* negative pids are importers' synthetic keys (the global instants
       * row, Perfetto track trees): not the file's, so not shown */
      int m = len && p->pid < 0
                  ? snprintf(buf, cap, "%s%.*s", mark, (int)(len > 200 ? 200 : len), name)
              : len ? snprintf(buf, cap, "%s%.*s (pid %lld)", mark, (int)(len > 200 ? 200 : len),
                               name, (long long)p->pid)
                    : snprintf(buf, cap, "%spid %lld", mark, (long long)p->pid);
      size_t ln; /* the process's labels (Kineto's process_labels: "GPU 0") after it */
      const char *labels = st_strtab_get(d->strs, p->labels, &ln);
      if (m > 0 && ln && (size_t)m < cap) {
        int k =
            snprintf(buf + m, cap - (size_t)m, " \xC2\xB7 %.*s", (int)(ln > 80 ? 80 : ln), labels);
        if (k > 0) m += k;
      }
      if (m > 0)
        draw_text(d, buf, (size_t)m < cap ? (size_t)m : cap - 1, x, baseline_for(d, sy, it->h), w,
                  COL_SECTION_TEXT);
      continue;
    }
    if (!it->first_of_track || it->track >= nt) continue;
    const st_track *tr = &ts[it->track];
    size_t m = st_layout_track_label(lay, it->track, buf, cap);
    float lh = it->kind == ST_LAYOUT_COUNTER ? ST_VIEW_ROW_H : it->h;
    /* tracks nested in a tree of tracks indent by level (at most 8) */
    float in = 2 * PAD + INDENT_PX * (float)(tr->indent > 8 ? 8 : tr->indent);
    int pinned = i < st_layout_pinned_items(lay);
    float lw = w - in - (pinned || pin_hovered(d, it->track) ? ST_VIEW_PIN_W : 0);
    if (m > 0 && lw > 0) draw_text(d, buf, m, x + in, baseline_for(d, sy, lh), lw, COL_TRACK_TEXT);
    if (pinned || pin_hovered(d, it->track)) pin_mark(d, sy, lh, pinned);
  }
}

/* ==== 6. axis pass ======================================================= */

/* The timing mark on the axis: a bar over its extent with the duration
 * ("1.25 ms") centred in it, or beside it when the bar is too narrow. */
static void axis_mark(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  double t0 = fmin(ov->mark_t0_ns, ov->mark_t1_ns), t1 = fmax(ov->mark_t0_ns, ov->mark_t1_ns);
  float xa = clamped_x(d, t0), xb = clamped_x(d, t1);
  if (xb - xa < 1) xb = xa + 1;
  float y = d->c.y0 + 2, h = d->c.y1 - d->c.y0 - 4;
  push_rect(d, xa, y, xb - xa, h, COL_MARK_EDGE, 0);
  char buf[64];
  size_t n = st_format_dur(t1 - t0, buf, sizeof buf);
  const st_font *f = d->in->font;
  if (!f || !f->glyph || !n) return;
  float w = text_w(d, buf, n);
  float vx0 = fmaxf(xa, d->c.x0), vx1 = fminf(xb, d->c.x1);
  float base = baseline_for(d, y, h);
  if (vx1 - vx0 >= w + 2 * PAD) {
    draw_text(d, buf, n, (vx0 + vx1 - w) / 2, base, w + 1, COL_MARK_TEXT);
  } else { /* beside the bar, on the side with room */
    float rx = vx1 + PAD;
    if (rx + w <= d->c.x1) {
      push_rect(d, rx - 2, y, w + 4, h, COL_MARK_EDGE, 0);
      draw_text(d, buf, n, rx, base, w + 1, COL_MARK_TEXT);
    } else if (vx0 - PAD - w >= d->c.x0) {
      push_rect(d, vx0 - PAD - w - 2, y, w + 4, h, COL_MARK_EDGE, 0);
      draw_text(d, buf, n, vx0 - PAD - w, base, w + 1, COL_MARK_TEXT);
    }
  }
}

/* Each note's flag on the axis: from its start (or the axis's left edge for
 * a range that began before it), its text elided to fit before the next
 * flag and within NOTE_FLAG_MAX_PX; its own commands, over the tick labels. */
static void axis_notes(dctx *d) {
  const st_draw_overlay *ov = d->ov;
  const st_font *f = d->in->font;
  uint32_t r0 = d->dl->rect_count, g0 = d->dl->glyph_count;
  float y = d->c.y0 + 2, h = d->c.y1 - d->c.y0 - 4, base = baseline_for(d, y, h);
  for (uint32_t i = 0; ov->notes && i < ov->note_count; i++) {
    const st_draw_note *n = &ov->notes[i];
    if (!note_visible(d, n)) continue;
    float x = fmaxf(clamped_x(d, n->t0_ns), d->c.x0), room = d->c.x1 - x;
    for (uint32_t j = i + 1; j < ov->note_count; j++) /* the next flag shown */
      if (note_visible(d, &ov->notes[j])) {
        float nx = fmaxf(clamped_x(d, ov->notes[j].t0_ns), d->c.x0);
        if (nx - x - 2 < room) room = nx - x - 2;
        break;
      }
    if (room > NOTE_FLAG_MAX_PX) room = NOTE_FLAG_MAX_PX;
    float w = f && f->glyph ? text_w(d, n->text, n->len) : 0; /* the text's full width */
    if (w > room - 2 * PAD) w = room - 2 * PAD;
    if (!(w > 0)) w = 0;
    push_rect(d, x, y, w + (w > 0 ? 2 * PAD : 6), h, COL_NOTE, 0);
    if (w > 0) draw_text(d, n->text, n->len, x + PAD, base, w + 1, COL_MARK_TEXT);
  }
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
}

static void axis_pass(dctx *d, const double *ticks, int nticks, double step, double zero) {
  const st_view *v = d->v;
  uint32_t r0 = d->dl->rect_count, l0 = d->dl->line_count, g0 = d->dl->glyph_count;
  push_rect(d, d->c.x0, d->c.y0, d->c.x1 - d->c.x0, d->c.y1 - d->c.y0, COL_AXIS, 0);
  push_rect(d, d->c.x0, d->c.y1 - 1, d->c.x1 - d->c.x0, 1, COL_SEPARATOR, 0);
  char buf[64];
  for (int k = 0; k < nticks; k++) {
    float x = st_view_x_of(v, ticks[k]);
    push_line(d, x, d->c.y1 - 8, x, d->c.y1, 1, COL_TICK);
    float next = k + 1 < nticks ? st_view_x_of(v, ticks[k + 1]) : d->c.x1;
    size_t m = st_format_time(ticks[k] - zero, step, buf, sizeof buf);
    draw_text(d, buf, m, x + 3, baseline_for(d, d->c.y0, d->c.y1 - d->c.y0 - 8), next - x - 6,
              COL_AXIS_TEXT);
  }
  if (d->ov && d->ov->has_mark) axis_mark(d);
  push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
  push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
  if (d->ov && d->ov->note_count) axis_notes(d);
}

/* ==== 7. frame =========================================================== */

st_code st_draw_frame(st_drawlist *dl, const st_draw_input *in, const st_alloc *a) {
  return st_draw_frame_overlay(dl, in, NULL, a);
}

st_code st_draw_frame_overlay(st_drawlist *dl, const st_draw_input *in, const st_draw_overlay *ov,
                              const st_alloc *a) {
  if (!dl || !in || !in->view) return ST_ERR_ARG;
  dl->rect_count = dl->glyph_count = dl->line_count = dl->cmd_count = 0;
  dl->label_log_len = 0;
  dl->flows_drawn = dl->flows_capped = dl->bands_drawn = 0;
  dl->flow_bundles_drawn = dl->flows_bundled = dl->flow_labels = dl->flows_chain = 0;
  dl->edges_drawn = 0;
  dl->clear_rgba = COL_BG;
  const st_view *v = in->view;
  if (!(v->width > 0) || !(v->height > 0) || !(v->ns_per_px > 0) || !isfinite(v->t0_ns))
    return ST_OK;
  dctx d = {0};
  d.dl = dl;
  d.a = a;
  d.in = in;
  d.v = v;
  d.px_per_ns = 1.0 / v->ns_per_px;
  d.strs = in->trace ? st_trace_strings(in->trace) : NULL;
  d.colors = color_cache(dl, in->trace, a, &d.ncolors);
  d.ov = ov;

  /* ticks: round multiples of the step across the timeline */
  double step = st_axis_tick_step(v->ns_per_px, TICK_MIN_PX);
  double ticks[MAX_TICKS];
  int nticks = 0;
  double tw = st_view_timeline_w(v);
  double tend = v->t0_ns + tw * v->ns_per_px;
  double zero = ov && isfinite(ov->axis_zero_ns) ? ov->axis_zero_ns : 0;
  for (double k = ceil((v->t0_ns - zero) / step); nticks < MAX_TICKS; k += 1) {
    double t = zero + k * step;
    if (t >= tend) break;
    ticks[nticks++] = t;
  }

  float W = v->width, H = v->height, G = ST_VIEW_GUTTER_W < W ? ST_VIEW_GUTTER_W : W;
  float A = ST_VIEW_AXIS_H < H ? ST_VIEW_AXIS_H : H;
  d.c = (clip){G, A, W, H};
  if (W > G && H > A) timeline_pass(&d, ticks, nticks);
  d.c = (clip){0, A, G, H};
  if (G > 0 && H > A) gutter_pass(&d);
  d.c = (clip){0, 0, W, A};
  if (A > 0) {
    /* the corner above the gutter is plain; ticks only over the timeline */
    uint32_t r0 = dl->rect_count;
    push_rect(&d, 0, 0, G, A, COL_AXIS, 0);
    push_rect(&d, G - 1, 0, 1, A, COL_SEPARATOR, 0);
    push_cmd(&d, ST_DRAW_RECTS, r0, dl->rect_count);
    d.c = (clip){G, 0, W, A};
    if (W > G) axis_pass(&d, ticks, nticks, step, zero);
  }
  return d.err;
}

void st_drawlist_free(st_drawlist *dl, const st_alloc *a) {
  if (!dl) return;
  st_free(a, dl->rects);
  st_free(a, dl->glyphs);
  st_free(a, dl->label_log);
  st_free(a, dl->lines);
  st_free(a, dl->cmds);
  st_free(a, dl->color_cache);
  block_index_free(dl->blocks_ix, a);
  dl->blocks_ix = NULL;
  st_flow_bundler_free(&dl->flow_bundles, a);
  st_free(a, dl->backing);
  memset(dl, 0, sizeof *dl);
}

/* Makes room for n elements of elem bytes (doubling, so a list reused frame
 * to frame stops growing). */
static int reserve(const st_alloc *a, void **p, uint32_t *cap, uint32_t n, size_t elem) {
  if (n <= *cap) return 1;
  uint32_t ncap = *cap > n / 2 ? *cap * 2 : n;
  if (ncap < n) ncap = n; /* doubling overflowed */
  void *np = st_realloc_array(a, *p, ncap, elem);
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

st_code st_drawlist_append(st_drawlist *dst, const st_drawlist *src, float dx, const st_alloc *a) {
  if (!dst || !src) return ST_ERR_ARG;
  if (src->rect_count > UINT32_MAX - dst->rect_count ||
      src->glyph_count > UINT32_MAX - dst->glyph_count ||
      src->line_count > UINT32_MAX - dst->line_count ||
      src->cmd_count > UINT32_MAX - dst->cmd_count)
    return ST_ERR_LIMIT;
  uint32_t nr = dst->rect_count + src->rect_count, ng = dst->glyph_count + src->glyph_count;
  uint32_t nl = dst->line_count + src->line_count, nc = dst->cmd_count + src->cmd_count;
  void *pr = dst->rects, *pg = dst->glyphs, *pl = dst->lines, *pc = dst->cmds;
  int ok = reserve(a, &pr, &dst->rect_cap, nr, sizeof(st_rect));
  dst->rects = pr;
  ok = ok && reserve(a, &pg, &dst->glyph_cap, ng, sizeof(st_glyph_quad));
  dst->glyphs = pg;
  ok = ok && reserve(a, &pl, &dst->line_cap, nl, sizeof(st_line));
  dst->lines = pl;
  ok = ok && reserve(a, &pc, &dst->cmd_cap, nc, sizeof(st_draw_cmd));
  dst->cmds = pc;
  if (!ok) return ST_ERR_NOMEM;
  for (uint32_t i = 0; i < src->rect_count; i++) {
    st_rect r = src->rects[i];
    r.x += dx;
    dst->rects[dst->rect_count + i] = r;
  }
  for (uint32_t i = 0; i < src->glyph_count; i++) {
    st_glyph_quad q = src->glyphs[i];
    q.x += dx;
    dst->glyphs[dst->glyph_count + i] = q;
  }
  for (uint32_t i = 0; i < src->line_count; i++) {
    st_line l = src->lines[i];
    l.x0 += dx;
    l.x1 += dx;
    dst->lines[dst->line_count + i] = l;
  }
  for (uint32_t i = 0; i < src->cmd_count; i++) {
    st_draw_cmd c = src->cmds[i];
    c.first += c.kind == ST_DRAW_RECTS    ? dst->rect_count
               : c.kind == ST_DRAW_GLYPHS ? dst->glyph_count
                                          : dst->line_count;
    c.clip_x += dx;
    dst->cmds[dst->cmd_count + i] = c;
  }
  dst->rect_count = nr, dst->glyph_count = ng, dst->line_count = nl, dst->cmd_count = nc;
  dst->flows_drawn += src->flows_drawn;
  dst->flows_capped += src->flows_capped;
  dst->flow_bundles_drawn += src->flow_bundles_drawn;
  dst->flows_bundled += src->flows_bundled;
  dst->flow_labels += src->flow_labels;
  dst->flows_chain += src->flows_chain;
  dst->edges_drawn += src->edges_drawn;
  dst->bands_drawn += src->bands_drawn;
  return ST_OK;
}
