/* hit.c: hit testing (see hit.h). */
#include "hit.h"

#include "bisect.h"

#include <math.h>

#include "query.h"

#define INSTANT_SLOP_PX 6.0f /* instants are diamonds about 12 px wide */

uint32_t st_layout_item_at(const st_layout *l, float cy) {
  uint32_t n;
  const st_layout_item *items = st_layout_items(l, &n);
  if (!items || !(cy >= 0)) return UINT32_MAX;
  uint32_t i = st_layout_first_at(l, cy);
  if (i >= n || items[i].y > cy) return UINT32_MAX; /* in a gap after a track */
  return i;
}

/* A memory blocks track (st_track.block_span): the block drawn under the
 * point, f the fraction of the band's height from its top (draw.c
 * on_block: y / span of it, at least 1 px high, at least 1 px wide): the
 * smallest block there, looked for in each lane at time t (its lanes'
 * events do not overlap: O(lanes x log n)). */
static void block_hit(const st_trace *t, const st_track *tr, double f, double tns, double nspp,
                      st_hit *h) {
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  double span = (double)tr->block_span, px = span / (ST_VIEW_BLOCKS_H - 2), at = f * span;
  int64_t ti = tns < -9.2e18 ? INT64_MIN + 1 : tns > 9.2e18 ? INT64_MAX - 1 : (int64_t)floor(tns);
  uint64_t best = UINT64_MAX;
  for (uint32_t k = 0; k < tr->row_count && tr->first_row + k < nr; k++) {
    uint32_t row = tr->first_row + k;
    const st_row *r = &rows[row];
    uint32_t i = st_row_first_end_gt(r, ti);
    /* the event ending after t, or (drawn 1 px wide) the one before within a pixel */
    for (int c = 0; c < 2; c++) {
      uint32_t j = c == 0 ? i : i - 1;
      if ((c == 0 && j >= r->count) || (c == 1 && i == 0)) continue;
      double s = (double)r->start[j], e = s + (double)r->dur[j];
      if (tns < s || tns > (e > s + nspp ? e : s + nspp)) continue;
      const st_block *b = st_trace_block(t, row, j);
      if (!b) continue;
      double y0 = (double)b->y, y1 = y0 + ((double)b->size > px ? (double)b->size : px);
      if (at < y0 || at >= y1 || b->size >= best) continue;
      best = b->size;
      h->kind = ST_HIT_EVENT;
      h->row = row;
      h->index = j;
    }
  }
}

static st_hit none(double t) {
  return (st_hit){ST_HIT_NONE, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, t, NAN};
}

st_hit st_hit_test(const st_trace *t, const st_layout *l, const st_view *v, float x, float y,
                   float slop_px) {
  if (!v || !(x >= 0) || !(y >= 0) || x >= v->width || y >= v->height) return none(0);
  double tns = st_view_time_at(v, x);
  st_hit h = none(tns);
  int in_timeline = x >= ST_VIEW_GUTTER_W;
  if (y < ST_VIEW_AXIS_H) {
    if (in_timeline) h.kind = ST_HIT_AXIS;
    return h;
  }
  if (!t || !l) return h;
  uint32_t it = st_layout_item_at(l, st_layout_content_y(l, v, y));
  if (it == UINT32_MAX) return h;
  const st_layout_item *item = &st_layout_items(l, NULL)[it];
  h.item = it;
  h.process = item->process;
  h.track = item->track;
  if (item->kind == ST_LAYOUT_SECTION) {
    h.kind = ST_HIT_SECTION;
    return h;
  }
  if (item->kind == ST_LAYOUT_GROUP) {
    h.kind = ST_HIT_GROUP;
    h.row = item->row;
    return h;
  }
  h.row = item->row;
  if (!in_timeline) {
    /* the pin target: on a track's labelled (first) row */
    h.kind =
        item->first_of_track && x >= ST_VIEW_GUTTER_W - ST_VIEW_PIN_W ? ST_HIT_PIN : ST_HIT_GUTTER;
    return h;
  }
  if (item->kind == ST_LAYOUT_COUNTER) {
    uint32_t nc;
    const st_counter *cs = st_trace_counters(t, &nc);
    h.kind = ST_HIT_COUNTER;
    if (item->row >= nc) return h;
    const st_counter *c = &cs[item->row];
    /* last sample at or before t */
    uint32_t lo = (uint32_t)st_upper_bound_i64_f(c->ts, c->count, tns);
    if (lo > 0) {
      h.index = lo - 1;
      h.value = c->value[lo - 1];
    }
    return h;
  }
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  h.kind = ST_HIT_ROW;
  if (item->row >= nr) return h;
  const st_row *r = &rows[item->row];
  const st_track *tr = &st_trace_tracks(t, NULL)[r->track];
  double nspp = v->ns_per_px > 0 ? v->ns_per_px : 1;
  if (!(slop_px >= 0)) slop_px = 0;
  int64_t ti = tns < -9.2e18 ? INT64_MIN + 1 : tns > 9.2e18 ? INT64_MAX - 1 : (int64_t)floor(tns);
  if (tr->block_span) {
    block_hit(t, tr, (st_layout_content_y(l, v, y) - item->y - 1) / (ST_VIEW_BLOCKS_H - 2), tns,
              nspp, &h);
    return h;
  }
  uint32_t i = st_row_first_end_gt(r, ti);
  double best = INFINITY;
  uint32_t pick = UINT32_MAX;
  for (int k = 0; k < 2; k++) {
    uint32_t j = k == 0 ? i : i - 1;
    if ((k == 0 && j >= r->count) || (k == 1 && i == 0)) continue;
    double s = (double)r->start[j], e = s + (double)r->dur[j];
    /* drawn at least 1 px wide from its start */
    double e_px = e > s + nspp ? e : s + nspp;
    double d = tns < s ? (s - tns) / nspp : tns > e_px ? (tns - e_px) / nspp : 0;
    float slop = slop_px;
    if ((tr->kind == ST_TRACK_INSTANTS || (r->flags[j] & ST_EV_INSTANT)) && slop < INSTANT_SLOP_PX)
      slop = INSTANT_SLOP_PX;
    if (d <= slop && d < best) {
      best = d;
      pick = j;
    }
  }
  if (pick != UINT32_MAX) {
    h.kind = ST_HIT_EVENT;
    h.index = pick;
  }
  return h;
}
