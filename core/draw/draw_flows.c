/* draw_flows.c: flow arrows.
 *
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

#include "draw_internal.h"

#include "flow_chain.h"
#include "query.h" /* the rows' events in a window */

#include <math.h>
#include <stdio.h> /* snprintf only */

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
  dr_push_line(d, x0, y0, x1, y1, width, col);
  float len = sqrtf(dx * dx + dy * dy);
  if (x1 != hx || y1 != hy || !(len > FLOW_HEAD_PX)) return 1; /* the head is out of view */
  float ux = dx / len, uy = dy / len;
  const float c = 0.906f, s = 0.423f; /* cos / sin 25 degrees */
  for (int side = -1; side <= 1; side += 2) {
    float bx = -(ux * c - side * uy * s), by = -(uy * c + side * ux * s);
    dr_push_line(d, hx + bx * FLOW_HEAD_PX, hy + by * FLOW_HEAD_PX, hx, hy, width, col);
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

/* The flows in view, bundled, under the rows (see above). */
void dr_flows_under(dctx *d, int64_t t0, int64_t t1) {
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
  dr_push_cmd(d, ST_DRAW_LINES, l0, dl->line_count);
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
void dr_flow_labels_pass(dctx *d) {
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
    float h = font->ascent + font->descent + 2, w = dr_text_w(d, buf, m) + 4;
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
  dr_push_cmd(d, ST_DRAW_RECTS, r0, dl->rect_count);
  for (uint32_t i = 0; i < nl; i++) {
    char buf[16];
    size_t m = count_text(labels[i].count, buf, sizeof buf);
    if (dr_draw_text(d, buf, m, labels[i].x + 2, baseline_for(d, labels[i].y, labels[i].h),
                     labels[i].w - 2, COL_FLOW_LABEL) > 0)
      dl->flow_labels++;
  }
  dr_push_cmd(d, ST_DRAW_GLYPHS, g0, dl->glyph_count);
}

/* The selected events' chain, highlighted, over everything (see above). */
void dr_flows_over(dctx *d) {
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
  dr_push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
}

/* The overlay's edges (st_draw_edge), over everything. */
void dr_edges_over(dctx *d) {
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
  dr_push_cmd(d, ST_DRAW_LINES, l0, d->dl->line_count);
}
