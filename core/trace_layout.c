/* trace_layout.c: the rows of one track (st_tlayout_track, called by
 * st_builder_finish for each track; see trace_internal.h): sorting its
 * events, nesting depths with a stack, overflow spill, lane packing.
 *
 * Layout rules (what st_builder_finish guarantees):
 *   - ST_TRACK_SLICES: events sorted by (start asc, dur desc, src asc) are
 *     nested with a stack of open slices. An event that starts inside the
 *     innermost open slice but ends after it is misnested; it is flagged
 *     ST_EV_OVERLAP and moved to an overflow track (same process, kind and
 *     key, overflow = 1, same name) placed right after its base track. The
 *     overflow events are nested the same way, pass after pass, each pass's
 *     rows stacked below the previous one's. After OVERFLOW_PASSES passes the
 *     rest is lane-packed (below), which bounds the work at O(n log n) even
 *     for hostile staircases of partially overlapping slices.
 *   - ST_TRACK_ASYNC / ST_TRACK_INSTANTS: greedy packing in start order into
 *     the lowest-numbered lane that is free (its last event ended at or
 *     before the start). A lane holding a zero-length event counts as busy
 *     until 1 ns after it, so two markers at the same timestamp get separate
 *     lanes (both stay visible and hittable) while markers at increasing
 *     timestamps share lane 0. This uses the minimum number of lanes.
 *   - Every row satisfies start[i] + dur[i] <= start[i + 1]; nothing is
 *     dropped.
 */
#include "trace_internal.h"

#define OVERFLOW_PASSES 8

int st_tlayout_init(tlayout *s, const st_alloc *a, size_t cap) {
  memset(s, 0, sizeof *s);
  return TR_ALLOC_ARRAY(a, s->depth, cap) && TR_ALLOC_ARRAY(a, s->idx, cap) &&
         TR_ALLOC_ARRAY(a, s->stack, cap) && TR_ALLOC_ARRAY(a, s->lane, cap) &&
         TR_ALLOC_ARRAY(a, s->free_, cap) &&
         (s->tmp = st_realloc_array(a, NULL, cap, sizeof *s->tmp)) != NULL;
}

void st_tlayout_free(tlayout *s, const st_alloc *a) {
  st_free(a, s->depth);
  st_free(a, s->idx);
  st_free(a, s->stack);
  st_free(a, s->lane);
  st_free(a, s->free_);
  st_free(a, s->tmp);
  memset(s, 0, sizeof *s);
}

static int bev_less(const bev *a, const bev *b) {
  if (a->start != b->start) return a->start < b->start;
  if (a->dur != b->dur) return a->dur > b->dur;
  if (a->sf != b->sf) return a->sf < b->sf;         /* src, then flags */
  if (a->name != b->name) return a->name < b->name; /* total order: same result everywhere */
  return a->cat < b->cat;
}
DEFINE_MERGE_SORT(sort_events, bev, bev_less)

/* One nesting pass over idx[0..n): assigns depth = base + level to events
 * that nest, compacts misnested ones to the front of idx. Returns the number
 * of misnested events; *rows gets the number of levels used. */
static size_t nest_pass(const bev *ev, tlayout *s, size_t n, uint32_t base, uint32_t *rows) {
  size_t top = 0, spilled = 0;
  uint32_t used = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = s->idx[k];
    const bev *e = &ev[i];
    while (top && s->stack[top - 1] <= e->start) top--;
    if (top && ev_end(e) > s->stack[top - 1]) {
      s->idx[spilled++] = i; /* starts inside the open slice, ends after it */
      continue;
    }
    s->depth[i] = base + (uint32_t)top;
    s->stack[top++] = ev_end(e);
    if (top > used) used = (uint32_t)top;
  }
  *rows = used;
  return spilled;
}

/* Busy-lane heap entries (end, lane), ordered by end then lane. */
static int busy_less(const tlayout *s, size_t a, size_t b) {
  if (s->stack[a] != s->stack[b]) return s->stack[a] < s->stack[b];
  return s->lane[a] < s->lane[b];
}
static void busy_swap(tlayout *s, size_t a, size_t b) {
  int64_t e = s->stack[a];
  s->stack[a] = s->stack[b];
  s->stack[b] = e;
  uint32_t l = s->lane[a];
  s->lane[a] = s->lane[b];
  s->lane[b] = l;
}
static void busy_push(tlayout *s, size_t *n, int64_t end, uint32_t lane) {
  size_t i = (*n)++;
  s->stack[i] = end;
  s->lane[i] = lane;
  while (i && busy_less(s, i, (i - 1) / 2)) {
    busy_swap(s, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}
static void busy_pop(tlayout *s, size_t *n) {
  busy_swap(s, 0, --*n);
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && busy_less(s, l, m)) m = l;
    if (r < *n && busy_less(s, r, m)) m = r;
    if (m == i) break;
    busy_swap(s, i, m);
    i = m;
  }
}
static void free_push(uint32_t *h, size_t *n, uint32_t v) {
  size_t i = (*n)++;
  h[i] = v;
  while (i && h[i] < h[(i - 1) / 2]) {
    uint32_t t = h[i];
    h[i] = h[(i - 1) / 2];
    h[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}
static uint32_t free_pop(uint32_t *h, size_t *n) {
  uint32_t top = h[0];
  h[0] = h[--*n];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && h[l] < h[m]) m = l;
    if (r < *n && h[r] < h[m]) m = r;
    if (m == i) break;
    uint32_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return top;
}

/* Lowest-free-lane packing of idx[0..n) (in sorted order) into rows
 * base, base + 1, ...; returns the number of lanes. O(n log n). */
static uint32_t pack_lanes(const bev *ev, tlayout *s, size_t n, uint32_t base) {
  size_t nbusy = 0, nfree = 0;
  uint32_t lanes = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = s->idx[k];
    const bev *e = &ev[i];
    while (nbusy && s->stack[0] <= e->start) {
      free_push(s->free_, &nfree, s->lane[0]);
      busy_pop(s, &nbusy);
    }
    uint32_t lane = nfree ? free_pop(s->free_, &nfree) : lanes++;
    s->depth[i] = base + lane;
    /* a zero-length event keeps its lane for 1 ns: markers at the same time
     * get their own lanes (see the header comment) */
    int64_t end = ev_end(e);
    if (e->dur == 0 && end < INT64_MAX) end++;
    busy_push(s, &nbusy, end, lane);
  }
  return lanes;
}

uint32_t st_tlayout_track(tlayout *s, bev *ev, size_t n, uint8_t kind, uint32_t *base_rows) {
  sort_events(ev, s->tmp, n);
  for (size_t i = 0; i < n; i++) s->idx[i] = (uint32_t)i;
  if (kind != ST_TRACK_SLICES) {
    *base_rows = pack_lanes(ev, s, n, 0);
    return *base_rows;
  }
  uint32_t rows;
  size_t pending = nest_pass(ev, s, n, 0, &rows);
  *base_rows = rows;
  uint32_t total = rows;
  for (size_t k = 0; k < pending; k++) ev[s->idx[k]].sf |= ST_EV_OVERLAP;
  for (int pass = 1; pending && pass < OVERFLOW_PASSES; pass++) {
    pending = nest_pass(ev, s, pending, total, &rows);
    total += rows;
  }
  if (pending) total += pack_lanes(ev, s, pending, total);
  return total;
}
