/* draw.c: builds one frame's draw list from (trace, lod, layout, view, font)
 * (see draw.h); its parts are listed in draw_internal.h.
 *
 * Contents
 *   1. colours: a label's on its slice, the cache of names' colours
 *   2. timeline pass: grid, flow arrows in view (bundled, under the rows:
 *      draw_flows.c), rows via the lod, instants, counters, memory blocks
 *      (draw_blocks.c), labels, the selected event's flow chain and the
 *      overlay's edges (a critical path's, on top), notes, marks
 *   3. gutter pass: section headers and track labels
 *   4. axis pass: ticks and time labels
 *   5. st_draw_frame
 *
 * Cost per frame: only layout items inside the vertical window are visited
 * (found with st_layout_first_at), and each visible row asks the lod for
 * [t0, t1), which yields O(pixel columns) items; nothing here is O(events).
 * Everything pushed is clamped to its command's clip rectangle (glyphs that
 * would cross it are dropped), so no primitive draws outside its area even
 * without the renderer's scissor.
 */
#include "draw_internal.h"

#include "bisect.h"
#include "query.h" /* st_format_dur */

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

/* ==== 1. colours ========================================================= */

static uint32_t text_color_on(uint32_t bg) {
  float r = (float)(bg & 255), g = (float)(bg >> 8 & 255), b = (float)(bg >> 16 & 255);
  float lum = (0.299f * r + 0.587f * g + 0.114f * b) / 255.0f;
  return lum > 0.55f ? COL_DARK_TEXT : COL_LIGHT_TEXT;
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

/* A backing rect (COL_BG) for the backings pass of the rows (timeline_pass):
 * kept aside in dl->backing. */
static void push_backing(dctx *d, float x, float y, float w, float h) {
  st_drawlist *dl = d->dl;
  push_rect_to(d, &dl->backing, &d->backing_count, &dl->backing_cap,
               (st_rect){x, y, w, h, COL_BG, 0});
}

/* ==== 2. timeline pass =================================================== */

static void diamond(dctx *d, float x, float yc, float half, uint32_t col) {
  /* a square rotated 45 degrees: a diagonal segment as wide as it is long */
  dr_push_line(d, x - half / 2, yc - half / 2, x + half / 2, yc + half / 2, half * 1.41421356f,
               col);
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
  dr_draw_text(d, name, len, vx0 + PAD, baseline_for(d, d->row_y, ST_VIEW_ROW_H),
               vx1 - vx0 - 2 * PAD, tc);
  d->label_kind = 0;
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
  if (d->have_prev && d->prev_y != ymax) dr_push_line(d, xs, d->prev_y, xs, yl, 1, d->series_rgba);
  dr_push_line(d, xs, yl, xe, yl, 1, d->series_rgba);
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
    dr_draw_text(d, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, d->c.x0 + PAD,
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
  dr_push_line(d, xa, d->c.y0, xa, d->c.y1, 1, edge);
  dr_push_line(d, xb, d->c.y0, xb, d->c.y1, 1, edge);
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
  dr_push_cmd(d, ST_DRAW_RECTS, *r0, d->dl->rect_count);
  dr_push_cmd(d, ST_DRAW_LINES, *l0, d->dl->line_count);
  dr_push_cmd(d, ST_DRAW_GLYPHS, *g0, d->dl->glyph_count);
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
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
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
      dr_push_line(d, x, d->c.y0, x, d->c.y1, 1.5f, COL_NOTE);
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
      if (ya >= d->c.y0) dr_push_line(d, cx0, cy0, cx1, cy0, 1, COL_BOX_EDGE);
      if (yb <= d->c.y1) dr_push_line(d, cx0, cy1, cx1, cy1, 1, COL_BOX_EDGE);
      if (xa >= d->c.x0 + 0.5f) dr_push_line(d, xa, cy0, xa, cy1, 1, COL_BOX_EDGE);
      if (xb <= d->c.x1 - 0.5f) dr_push_line(d, xb, cy0, xb, cy1, 1, COL_BOX_EDGE);
    }
  }
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  dr_push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
}

static void timeline_pass(dctx *d, const double *ticks, int nticks) {
  const st_view *v = d->v;
  const st_layout *lay = d->in->layout;
  uint32_t grid0 = d->dl->line_count;
  for (int k = 0; k < nticks; k++) {
    float x = st_view_x_of(v, ticks[k]);
    dr_push_line(d, x, d->c.y0, x, d->c.y1, 1, COL_GRID);
  }
  uint32_t grid1 = d->dl->line_count;
  if (!lay || !d->in->trace) {
    dr_push_cmd(d, ST_DRAW_LINES, grid0, grid1);
    return;
  }

  /* the order drawn: flow arrows, translucent slices' backings, the grid,
   * the rows; so a slice looks the same whether arrows are drawn or not */
  double tw = st_view_timeline_w(v);
  double ft0 = floor(v->t0_ns), ft1 = ceil(v->t0_ns + tw * v->ns_per_px) + 1;
  int64_t t0 = ft0 < -9.2e18 ? INT64_MIN + 1 : ft0 > 9.2e18 ? INT64_MAX - 1 : (int64_t)ft0;
  int64_t t1 = ft1 > 9.2e18 ? INT64_MAX : ft1 < -9.2e18 ? INT64_MIN + 2 : (int64_t)ft1;
  if (d->ov) dr_flows_under(d, t0, t1);
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
            dr_draw_blocks(d, it->track, sy, t0, t1);
            dr_block_scale(d, span, sy);
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
    dr_push_cmd(d, ST_DRAW_RECTS, r1, d->dl->rect_count);
    dr_push_cmd(d, ST_DRAW_LINES, grid0, grid1);
    dr_push_cmd(d, ST_DRAW_RECTS, r0, r1);
    dr_push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
    dr_push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
    r0 = d->dl->rect_count, l0 = d->dl->line_count, g0 = d->dl->glyph_count;
  }
  d->backing = 0;
  d->c = whole;
  pinned_edge(d);
  if (d->ov) {
    dr_flow_labels_pass(d);
    bands_pass(d);
    overlay_pass(d);
    dr_flows_over(d);
    dr_edges_over(d);
  }
}

/* ==== 3. gutter pass ===================================================== */

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
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
}

static void gutter_span(dctx *d, const st_layout_span *sp, char *buf, size_t cap);

static void gutter_pass(dctx *d) {
  const st_view *v = d->v;
  const st_layout *lay = d->in->layout;
  uint32_t r0 = d->dl->rect_count, g0 = d->dl->glyph_count;
  push_rect(d, d->c.x0, d->c.y0, d->c.x1 - d->c.x0, d->c.y1 - d->c.y0, COL_GUTTER, 0);
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
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
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  dr_push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
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
        dr_draw_text(d, buf, (size_t)m < cap ? (size_t)m : cap - 1, x, baseline_for(d, sy, it->h),
                     w, COL_GROUP_TEXT);
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
        dr_draw_text(d, buf, (size_t)m < cap ? (size_t)m : cap - 1, x, baseline_for(d, sy, it->h),
                     w, COL_SECTION_TEXT);
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
    if (m > 0 && lw > 0)
      dr_draw_text(d, buf, m, x + in, baseline_for(d, sy, lh), lw, COL_TRACK_TEXT);
    if (pinned || pin_hovered(d, it->track)) pin_mark(d, sy, lh, pinned);
  }
}

/* ==== 4. axis pass ======================================================= */

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
  float w = dr_text_w(d, buf, n);
  float vx0 = fmaxf(xa, d->c.x0), vx1 = fminf(xb, d->c.x1);
  float base = baseline_for(d, y, h);
  if (vx1 - vx0 >= w + 2 * PAD) {
    dr_draw_text(d, buf, n, (vx0 + vx1 - w) / 2, base, w + 1, COL_MARK_TEXT);
  } else { /* beside the bar, on the side with room */
    float rx = vx1 + PAD;
    if (rx + w <= d->c.x1) {
      push_rect(d, rx - 2, y, w + 4, h, COL_MARK_EDGE, 0);
      dr_draw_text(d, buf, n, rx, base, w + 1, COL_MARK_TEXT);
    } else if (vx0 - PAD - w >= d->c.x0) {
      push_rect(d, vx0 - PAD - w - 2, y, w + 4, h, COL_MARK_EDGE, 0);
      dr_draw_text(d, buf, n, vx0 - PAD - w, base, w + 1, COL_MARK_TEXT);
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
    float w = f && f->glyph ? dr_text_w(d, n->text, n->len) : 0; /* the text's full width */
    if (w > room - 2 * PAD) w = room - 2 * PAD;
    if (!(w > 0)) w = 0;
    push_rect(d, x, y, w + (w > 0 ? 2 * PAD : 6), h, COL_NOTE, 0);
    if (w > 0) dr_draw_text(d, n->text, n->len, x + PAD, base, w + 1, COL_MARK_TEXT);
  }
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  dr_push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
}

static void axis_pass(dctx *d, const double *ticks, int nticks, double step, double zero) {
  const st_view *v = d->v;
  uint32_t r0 = d->dl->rect_count, l0 = d->dl->line_count, g0 = d->dl->glyph_count;
  push_rect(d, d->c.x0, d->c.y0, d->c.x1 - d->c.x0, d->c.y1 - d->c.y0, COL_AXIS, 0);
  push_rect(d, d->c.x0, d->c.y1 - 1, d->c.x1 - d->c.x0, 1, COL_SEPARATOR, 0);
  char buf[64];
  for (int k = 0; k < nticks; k++) {
    float x = st_view_x_of(v, ticks[k]);
    dr_push_line(d, x, d->c.y1 - 8, x, d->c.y1, 1, COL_TICK);
    float next = k + 1 < nticks ? st_view_x_of(v, ticks[k + 1]) : d->c.x1;
    size_t m = st_format_time(ticks[k] - zero, step, buf, sizeof buf);
    dr_draw_text(d, buf, m, x + 3, baseline_for(d, d->c.y0, d->c.y1 - d->c.y0 - 8), next - x - 6,
                 COL_AXIS_TEXT);
  }
  if (d->ov && d->ov->has_mark) axis_mark(d);
  dr_push_cmd(d, ST_DRAW_RECTS, r0, d->dl->rect_count);
  dr_push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
  dr_push_cmd(d, ST_DRAW_GLYPHS, g0, d->dl->glyph_count);
  if (d->ov && d->ov->note_count) axis_notes(d);
}

/* ==== 5. frame =========================================================== */

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
    dr_push_cmd(&d, ST_DRAW_RECTS, r0, dl->rect_count);
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
  dr_block_index_free(dl->blocks_ix, a);
  dl->blocks_ix = NULL;
  st_flow_bundler_free(&dl->flow_bundles, a);
  st_free(a, dl->backing);
  memset(dl, 0, sizeof *dl);
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
  /* exact the first time, then doubling: a list reused frame to frame stops growing */
  void *pr = dst->rects, *pg = dst->glyphs, *pl = dst->lines, *pc = dst->cmds;
  int ok = st_grow32(a, &pr, &dst->rect_cap, nr, sizeof(st_rect), nr);
  dst->rects = pr;
  ok = ok && st_grow32(a, &pg, &dst->glyph_cap, ng, sizeof(st_glyph_quad), ng);
  dst->glyphs = pg;
  ok = ok && st_grow32(a, &pl, &dst->line_cap, nl, sizeof(st_line), nl);
  dst->lines = pl;
  ok = ok && st_grow32(a, &pc, &dst->cmd_cap, nc, sizeof(st_draw_cmd), nc);
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
