/* draw_internal.h: what draw.c and its parts share (draw-private; the
 * module's contract is draw.h).
 *
 * The frame's context (dctx: the draw list being filled, the input, the
 * current clip, the row being drawn), the palette, the per-frame caps and
 * the pushes every pass makes. The hot ones (a rect, a name's colour, an
 * item's x, a text's baseline) are static inline, so the lod's per-item
 * callbacks inline them in each file as before the split.
 *
 *   draw.c         the passes (timeline, gutter, axis) and st_draw_frame
 *   draw_list.c    the draw list's lines and commands
 *   draw_text.c    text: UTF-8 decoding, measuring, eliding with U+2026
 *   draw_blocks.c  memory blocks tracks (st_track.block_span > 0)
 *   draw_flows.c   flow arrows: bundled under the rows, the chain on top
 *   draw_format.c  colours for names, numbers, times, axis steps (draw.h)
 *
 * Calls go one way: draw.c to its parts, the parts to draw_text.c and
 * draw_list.c (tools/file_loops.py: no loop). */
#ifndef STRATA_DRAW_INTERNAL_H
#define STRATA_DRAW_INTERNAL_H

#include "draw.h"

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

static inline uint32_t rgba(unsigned r, unsigned g, unsigned b, unsigned a) {
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

/* ==== the frame's context ================================================ */

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

static inline uint32_t name_color(dctx *d, uint32_t id) {
  if (id < d->ncolors && d->colors[id]) return d->colors[id];
  size_t len;
  const char *s = st_strtab_get(d->strs, id, &len);
  uint32_t c = st_color_for_name(s, len); /* alpha 255: never 0 */
  if (id < d->ncolors) d->colors[id] = c;
  return c;
}

static inline int grow(dctx *d, void **p, uint32_t *cap, uint32_t count, size_t elem,
                       uint32_t max) {
  if (count < *cap) return 1;
  if (count >= max) return 0; /* per-frame cap: drop silently */
  size_t c = *cap;
  if (!st_grow_upto(d->a, p, &c, (size_t)count + 1, elem, 1024, max)) {
    d->err = ST_ERR_NOMEM;
    return 0;
  }
  *cap = (uint32_t)c;
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

static inline float baseline_for(const dctx *d, float top, float h) {
  const st_font *f = d->in->font;
  if (!f) return top + h / 2;
  return top + (h + f->ascent - f->descent) / 2;
}

/* ---- draw_list.c ---- */
void dr_push_line(dctx *d, float x0, float y0, float x1, float y1, float width, uint32_t col);
/* What was pushed of `kind` in [first, end), as one command in the current clip. */
void dr_push_cmd(dctx *d, st_draw_kind kind, uint32_t first, uint32_t end);

/* ---- draw_text.c ---- */
/* Draws s in [x, x + max_w) on `baseline`: whole, or visibly cut with an
 * ellipsis when it does not fit (middle-cut for a templated name); nothing
 * if not even one character and the ellipsis fit. Returns the width used. */
float dr_draw_text(dctx *d, const char *s, size_t n, float x, float baseline, float max_w,
                   uint32_t col);
/* The width dr_draw_text needs for the whole of s[0, n). */
float dr_text_w(const dctx *d, const char *s, size_t n);

/* ---- draw_blocks.c ---- */
/* A blocks track's band at screen y sy over [t0, t1), its selected blocks outlined. */
void dr_draw_blocks(dctx *d, uint32_t track, float sy, int64_t t0, int64_t t1);
/* The scale of a blocks track, at its top left: its address space's bytes. */
void dr_block_scale(dctx *d, uint64_t span, float sy);
void dr_block_index_free(struct st_block_index *x, const st_alloc *a);

/* ---- draw_flows.c ---- */
/* The flows in view, bundled, under the rows (ov->flows). */
void dr_flows_under(dctx *d, int64_t t0, int64_t t1);
/* The bundles' counts, over the rows where they cover nothing. */
void dr_flow_labels_pass(dctx *d);
/* The selected events' chain, highlighted, over everything. */
void dr_flows_over(dctx *d);
/* The overlay's edges (st_draw_edge), over everything. */
void dr_edges_over(dctx *d);

#endif
