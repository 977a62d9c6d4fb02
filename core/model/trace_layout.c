/* trace_layout.c: the rows of one track (st_tlayout_track, called by
 * st_builder_finish for each track; see trace_internal.h): sorting its
 * events, nesting depths with a stack, overflow spill, lane packing, and
 * moving each event to its row's place, all on the track's final columns
 * (the only extra memory per event: 4 bytes, 8 for a track out of order).
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
  s->alloc = a;
  s->cap = cap;
  return TR_ALLOC_ARRAY(a, s->depth, cap);
}

void st_tlayout_free(tlayout *s) {
  const st_alloc *a = s->alloc;
  st_free(a, s->depth);
  st_free(a, s->perm);
  st_free(a, s->idx);
  st_free(a, s->stack);
  st_free(a, s->lane);
  st_free(a, s->free_);
  st_free(a, s->row_first);
  memset(s, 0, sizeof *s);
}

/* ---- sorting ---------------------------------------------------------------- */

static int cols_idx_less(const void *ctx, uint32_t a, uint32_t b) { return tcols_less(ctx, a, b); }

#define SWAP(T, x, y)                                                                              \
  do {                                                                                             \
    T t_ = (x);                                                                                    \
    (x) = (y);                                                                                     \
    (y) = t_;                                                                                      \
  } while (0)

/* Moves event i to slot dest[i] for every i, in place: each swap puts one
 * event where it belongs (dest becomes the identity). */
static void scatter_cols(tcols *c, uint32_t *dest, size_t n) {
  for (size_t i = 0; i < n; i++) {
    while (dest[i] != i) {
      uint32_t j = dest[i];
      SWAP(int64_t, c->start[i], c->start[j]);
      SWAP(int64_t, c->dur[i], c->dur[j]);
      SWAP(uint64_t, c->src[i], c->src[j]);
      SWAP(uint32_t, c->name[i], c->name[j]);
      SWAP(uint32_t, c->cat[i], c->cat[j]);
      SWAP(uint8_t, c->flags[i], c->flags[j]);
      SWAP(uint32_t, dest[i], dest[j]);
    }
  }
}

/* Layout order (tcols_less) unless the events already are in it. */
static int sort_cols(tlayout *s, tcols *c, size_t n) {
  size_t i = 1;
  while (i < n && !tcols_less(c, i, i - 1)) i++;
  if (i >= n) return 1;
  if (!s->perm && !TR_ALLOC_ARRAY(s->alloc, s->perm, s->cap)) return 0;
  for (size_t k = 0; k < n; k++) s->perm[k] = (uint32_t)k;
  st_tsort_idx(s->perm, s->depth, n, cols_idx_less, c);
  for (size_t k = 0; k < n; k++) s->depth[s->perm[k]] = (uint32_t)k; /* sorted position */
  scatter_cols(c, s->depth, n);
  return 1;
}

/* ---- nesting and lanes -------------------------------------------------------- */

static int grow_stack(tlayout *s, size_t need) {
  void *p = s->stack;
  if (!st_grow(s->alloc, &p, &s->stack_cap, need, sizeof *s->stack)) return 0;
  s->stack = p;
  return 1;
}

/* One nesting pass over the events in[0..n) (NULL: 0..n): assigns depth =
 * base + level to events that nest, lists misnested ones at the front of
 * s->idx (which may be `in`). Returns the number of misnested events, or
 * SIZE_MAX on allocation failure; *rows gets the number of levels used. */
static size_t nest_pass(const tcols *c, tlayout *s, const uint32_t *in, size_t n, uint32_t base,
                        uint32_t *rows) {
  size_t top = 0, spilled = 0;
  uint32_t used = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = in ? in[k] : (uint32_t)k;
    int64_t start = c->start[i], end = st_sat_add(start, c->dur[i]); /* rebased: may saturate */
    while (top && s->stack[top - 1] <= start) top--;
    if (top && end > s->stack[top - 1]) { /* starts inside the open slice, ends after it */
      if (spilled == s->idx_cap) {
        void *p = s->idx;
        if (!st_grow(s->alloc, &p, &s->idx_cap, spilled + 1, sizeof *s->idx)) return SIZE_MAX;
        s->idx = p;
        in = in ? s->idx : NULL; /* a later pass reads the list it writes */
      }
      s->idx[spilled++] = i;
      continue;
    }
    s->depth[i] = base + (uint32_t)top;
    if (top == s->stack_cap && !grow_stack(s, top + 1)) return SIZE_MAX;
    s->stack[top++] = end;
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
  SWAP(int64_t, s->stack[a], s->stack[b]);
  SWAP(uint32_t, s->lane[a], s->lane[b]);
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
    SWAP(uint32_t, h[i], h[(i - 1) / 2]);
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
    SWAP(uint32_t, h[i], h[m]);
    i = m;
  }
  return top;
}

/* Room for `lanes` lanes in the two heaps. */
static int grow_lanes(tlayout *s, size_t lanes) {
  if (lanes <= s->lane_cap) return 1;
  if (!grow_stack(s, lanes)) return 0;
  size_t cap = s->lane_cap, cap2 = s->lane_cap;
  void *p = s->lane, *q = s->free_;
  if (!st_grow(s->alloc, &p, &cap, lanes, sizeof *s->lane)) return 0;
  s->lane = p;
  if (!st_grow(s->alloc, &q, &cap2, lanes, sizeof *s->free_)) return 0;
  s->free_ = q;
  s->lane_cap = cap < cap2 ? cap : cap2;
  return 1;
}

/* Lowest-free-lane packing of the events in[0..n) (NULL: 0..n), in sorted
 * order, into rows base, base + 1, ...; returns the number of lanes, or
 * UINT32_MAX on allocation failure. O(n log n). */
static uint32_t pack_lanes(const tcols *c, tlayout *s, const uint32_t *in, size_t n,
                           uint32_t base) {
  size_t nbusy = 0, nfree = 0;
  uint32_t lanes = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = in ? in[k] : (uint32_t)k;
    int64_t start = c->start[i], dur = c->dur[i];
    while (nbusy && s->stack[0] <= start) {
      free_push(s->free_, &nfree, s->lane[0]);
      busy_pop(s, &nbusy);
    }
    uint32_t lane;
    if (nfree) {
      lane = free_pop(s->free_, &nfree);
    } else {
      if (!grow_lanes(s, (size_t)lanes + 1)) return UINT32_MAX;
      lane = lanes++;
    }
    s->depth[i] = base + lane;
    /* a zero-length event keeps its lane for 1 ns: markers at the same time
     * get their own lanes (see the header comment) */
    int64_t end = st_sat_add(start, dur);
    if (dur == 0 && end < INT64_MAX) end++;
    busy_push(s, &nbusy, end, lane);
  }
  return lanes;
}

int st_tlayout_track(tlayout *s, tcols *c, size_t n, uint8_t kind, uint32_t *base_rows,
                     uint32_t *total) {
  if (!sort_cols(s, c, n)) return 0;
  if (kind != ST_TRACK_SLICES) {
    uint32_t lanes = pack_lanes(c, s, NULL, n, 0);
    if (lanes == UINT32_MAX) return 0;
    *base_rows = *total = lanes;
    return 1;
  }
  uint32_t rows;
  size_t pending = nest_pass(c, s, NULL, n, 0, &rows);
  if (pending == SIZE_MAX) return 0;
  *base_rows = rows;
  uint32_t sum = rows;
  for (size_t k = 0; k < pending; k++) c->flags[s->idx[k]] |= ST_EV_OVERLAP;
  for (int pass = 1; pending && pass < OVERFLOW_PASSES; pass++) {
    pending = nest_pass(c, s, s->idx, pending, sum, &rows);
    if (pending == SIZE_MAX) return 0;
    sum += rows;
  }
  if (pending) {
    uint32_t lanes = pack_lanes(c, s, s->idx, pending, sum);
    if (lanes == UINT32_MAX) return 0;
    sum += lanes;
  }
  *total = sum;
  return 1;
}

int st_tlayout_slots(tlayout *s, size_t n, uint32_t total_rows) {
  void *p = s->row_first;
  if (!st_grow(s->alloc, &p, &s->row_cap, (size_t)total_rows + 1, sizeof *s->row_first)) return 0;
  s->row_first = p;
  uint32_t *first = s->row_first;
  memset(first, 0, ((size_t)total_rows + 1) * sizeof *first);
  for (size_t i = 0; i < n; i++) first[s->depth[i] + 1]++;
  for (uint32_t r = 0; r < total_rows; r++) first[r + 1] += first[r];
  /* first[r] is now row r's first slot; use first[r + 1] as row r's cursor
   * (it becomes row r + 1's first slot again once row r is full) */
  for (uint32_t r = total_rows; r > 0; r--) first[r] = first[r - 1];
  for (size_t i = 0; i < n; i++) s->depth[i] = first[s->depth[i] + 1]++;
  return 1;
}

void st_tlayout_apply(tlayout *s, tcols *c, size_t n) { scatter_cols(c, s->depth, n); }

/* ---- counter samples ---------------------------------------------------------- */

typedef struct samples {
  const int64_t *ts;
} samples;

static int sample_less(const void *ctx, uint32_t a, uint32_t b) {
  const int64_t *ts = ((const samples *)ctx)->ts;
  return ts[a] < ts[b] || (ts[a] == ts[b] && a < b);
}

int st_tlayout_samples(tlayout *s, int64_t *ts, double *value, size_t n) {
  size_t i = 1;
  while (i < n && ts[i] >= ts[i - 1]) i++;
  if (i >= n) return 1;
  if (!s->perm && !TR_ALLOC_ARRAY(s->alloc, s->perm, s->cap)) return 0;
  for (size_t k = 0; k < n; k++) s->perm[k] = (uint32_t)k;
  samples ctx = {ts};
  st_tsort_idx(s->perm, s->depth, n, sample_less, &ctx);
  uint32_t *dest = s->depth;
  for (size_t k = 0; k < n; k++) dest[s->perm[k]] = (uint32_t)k;
  for (size_t k = 0; k < n; k++) {
    while (dest[k] != k) {
      uint32_t j = dest[k];
      SWAP(int64_t, ts[k], ts[j]);
      SWAP(double, value[k], value[j]);
      SWAP(uint32_t, dest[k], dest[j]);
    }
  }
  return 1;
}
