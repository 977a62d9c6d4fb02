/* trace_flows.c: turning the flow points an importer recorded
 * (st_builder_flow; the rules are in trace.h) into the trace's arrows, in
 * three steps of st_builder_finish (see trace_internal.h):
 *   1. st_tflow_chain, before layout: the points are chained per key in
 *      (ts, src) order into (producer, consumer) pairs of point indices;
 *   2. st_tflow_bind, track by track right after layout: each point of the
 *      track is bound to an event (row, index): its own (by src), the
 *      deepest enclosing ts, or the next starting at or after ts;
 *   3. st_tflow_build, after all tracks: pairs whose two ends are bound (to
 *      different events) become st_flows, sorted by source, with an index
 *      sorted by destination; the others are counted in st_flow_info.
 * Memory while finishing: the points (32 bytes each) plus about 24 bytes per
 * point of work arrays; the trace keeps 20 bytes per bound flow.
 */
#include "trace_internal.h"

typedef int (*idx_less_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Stable bottom-up merge sort of indices; tmp holds n. */
static void sort_idx(uint32_t *v, uint32_t *tmp, size_t n, idx_less_fn less, const void *ctx) {
  size_t i = 1;
  while (i < n && !less(ctx, v[i], v[i - 1])) i++;
  if (i >= n) return;
  uint32_t *src = v, *dst = tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) dst[o++] = less(ctx, src[b], src[a]) ? src[b++] : src[a++];
      while (a < mid) dst[o++] = src[a++];
      while (b < hi) dst[o++] = src[b++];
      if (hi == n) break;
    }
    uint32_t *sw = src;
    src = dst;
    dst = sw;
  }
  if (src != v) memcpy(v, src, n * sizeof *v);
}

static int fl_key_less(const void *ctx, uint32_t a, uint32_t b) {
  const bflow *x = &((const bflow *)ctx)[a], *y = &((const bflow *)ctx)[b];
  if (x->key != y->key) return x->key < y->key;
  if (x->ts != y->ts) return x->ts < y->ts;
  if (x->src != y->src) return x->src < y->src;
  return a < b;
}

static int fl_track_less(const void *ctx, uint32_t a, uint32_t b) {
  const bflow *x = &((const bflow *)ctx)[a], *y = &((const bflow *)ctx)[b];
  if (x->track != y->track) return x->track < y->track;
  if (x->ts != y->ts) return x->ts < y->ts;
  if (x->src != y->src) return x->src < y->src;
  return a < b;
}

static void note_first(uint64_t *count, uint64_t *offset, uint64_t src) {
  if (!*count || src < *offset) *offset = src;
  ++*count;
}

/* ==== 1. chaining ======================================================== */

int st_tflow_chain(tflow *w, const st_alloc *a, const bflow *fl, size_t np, uint32_t track_count,
                   st_flow_info *info) {
  memset(w, 0, sizeof *w);
  w->alloc = a;
  w->fl = fl;
  w->np = np;
  if (!np) return 1;
  if (!(TR_ALLOC_ARRAY(a, w->idx, np) && TR_ALLOC_ARRAY(a, w->tmp, np) &&
        TR_ALLOC_ARRAY(a, w->pairs, 2 * np) && TR_ALLOC_ARRAY(a, w->res_row, np) &&
        TR_ALLOC_ARRAY(a, w->res_idx, np) &&
        TR_ALLOC_ARRAY(a, w->track_at, (size_t)track_count + 1)))
    return 0;
  /* chain the points into pairs */
  for (size_t i = 0; i < np; i++) w->idx[i] = (uint32_t)i;
  sort_idx(w->idx, w->tmp, np, fl_key_less, fl);
  uint32_t prod = UINT32_MAX;
  for (size_t k = 0; k < np; k++) {
    uint32_t i = w->idx[k];
    const bflow *f = &fl[i];
    if (k == 0 || f->key != fl[w->idx[k - 1]].key) prod = UINT32_MAX;
    if (f->role & ST_FLOW_IN) {
      if (prod != UINT32_MAX) {
        w->pairs[2 * w->npairs] = prod;
        w->pairs[2 * w->npairs + 1] = i;
        w->npairs++;
      } else if (!(f->role & ST_FLOW_OUT)) {
        note_first(&info->unmatched, &info->unmatched_offset, f->src);
      }
    }
    if (f->role & ST_FLOW_OUT) prod = i;
    if (f->role & ST_FLOW_END) prod = UINT32_MAX;
  }
  /* then order idx by (track, ts, src) for binding */
  for (size_t i = 0; i < np; i++) {
    w->idx[i] = (uint32_t)i;
    w->res_row[i] = w->res_idx[i] = UINT32_MAX;
  }
  sort_idx(w->idx, w->tmp, np, fl_track_less, fl);
  for (uint32_t t = 0, k = 0; t <= track_count; t++) {
    while (k < np && fl[w->idx[k]].track < t) k++;
    w->track_at[t] = k;
  }
  return 1;
}

/* ==== 2. binding ========================================================= */

/* First sorted event starting at or after ts. */
static size_t first_at_or_after(const bev *ev, size_t n, int64_t ts) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ev[mid].start < ts)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A point's time on the rebased axis; times before the origin map to -1
 * (nothing encloses them; the next event is the first). */
static int64_t rebase_ts(int64_t ts, int64_t origin) {
  return ts < origin ? -1 : sat_sub(ts, origin);
}

#define EVENT_SCAN_MAX 64 /* same-start events scanned for a src before the map fallback */

void st_tflow_bind(tflow *w, uint32_t bi, const bev *ev, size_t n, const uint32_t *depth,
                   const uint32_t *slot, uint32_t *stack, uint32_t row_base, int64_t origin) {
  uint32_t lo = w->track_at[bi], hi = w->track_at[bi + 1];
  if (lo == hi || n == 0) return;
  const bflow *fl = w->fl;
  size_t ptr = 0, top = 0, pending = 0;
  for (uint32_t k = lo; k < hi; k++) {
    uint32_t i = w->idx[k];
    const bflow *f = &fl[i];
    int64_t ts = rebase_ts(f->ts, origin);
    size_t e = n;
    if (f->bind == ST_FLOW_BIND_ENCLOSING) {
      /* the stack holds started events in start order; popping the ended
       * ones off the top leaves the latest-starting event open at ts */
      while (ptr < n && ev[ptr].start <= ts) stack[top++] = (uint32_t)ptr++;
      while (top && ev_end(&ev[stack[top - 1]]) < ts) top--;
      if (top) e = stack[top - 1];
    } else if (f->bind == ST_FLOW_BIND_NEXT) {
      e = first_at_or_after(ev, n, ts);
    } else {
      size_t j = first_at_or_after(ev, n, ts), scanned = 0;
      for (; j < n && ev[j].start == ts && scanned < EVENT_SCAN_MAX; j++, scanned++)
        if (EV_SRC(&ev[j]) == f->src) break;
      if (j < n && ev[j].start == ts && EV_SRC(&ev[j]) == f->src)
        e = j;
      else if (j < n && ev[j].start == ts)
        w->tmp[pending++] = i; /* many events start here: find it by src below */
    }
    if (e < n) {
      w->res_row[i] = row_base + depth[e];
      w->res_idx[i] = slot[e];
    }
  }
  if (!pending) return;
  /* fallback: one pass over the track's events with a src map (O(n)) */
  st_u64map_clear(&w->srcmap);
  for (size_t p = 0; p < pending; p++)
    if (st_u64map_get(&w->srcmap, fl[w->tmp[p]].src) == ST_U64MAP_NONE &&
        !st_u64map_put(&w->srcmap, w->alloc, fl[w->tmp[p]].src, w->tmp[p]))
      w->nomem = 1;
  for (size_t j = 0; j < n; j++) {
    uint32_t i = st_u64map_get(&w->srcmap, EV_SRC(&ev[j]));
    if (i == ST_U64MAP_NONE || ev[j].start != rebase_ts(fl[i].ts, origin)) continue;
    w->res_row[i] = row_base + depth[j];
    w->res_idx[i] = slot[j];
  }
  for (size_t p = 0; p < pending; p++) {
    uint32_t i = w->tmp[p], r = st_u64map_get(&w->srcmap, fl[i].src);
    if (r != ST_U64MAP_NONE && r != i) {
      w->res_row[i] = w->res_row[r];
      w->res_idx[i] = w->res_idx[r];
    }
  }
}

/* ==== 3. the trace's flow arrays ========================================= */

static int flow_less(const st_flow *a, const st_flow *b) {
  if (a->from_row != b->from_row) return a->from_row < b->from_row;
  if (a->from_index != b->from_index) return a->from_index < b->from_index;
  if (a->to_row != b->to_row) return a->to_row < b->to_row;
  return a->to_index < b->to_index;
}
DEFINE_MERGE_SORT(sort_flows, st_flow, flow_less)

static int flow_in_less(const void *ctx, uint32_t a, uint32_t b) {
  const st_flow *x = &((const st_flow *)ctx)[a], *y = &((const st_flow *)ctx)[b];
  if (x->to_row != y->to_row) return x->to_row < y->to_row;
  if (x->to_index != y->to_index) return x->to_index < y->to_index;
  return a < b; /* flows are sorted by source: ties keep that order */
}

int st_tflow_build(tflow *w, const st_alloc *a, st_flow **flows, uint32_t **flows_in,
                   uint32_t *count, st_flow_info *info) {
  if (w->nomem) return 0;
  size_t nf = 0;
  if (w->npairs) {
    *flows = st_calloc(a, w->npairs, sizeof **flows);
    if (!*flows) return 0;
  }
  for (size_t k = 0; k < w->npairs; k++) {
    uint32_t p = w->pairs[2 * k], c = w->pairs[2 * k + 1];
    if (w->res_row[p] == UINT32_MAX || w->res_row[c] == UINT32_MAX ||
        (w->res_row[p] == w->res_row[c] && w->res_idx[p] == w->res_idx[c])) {
      note_first(&info->unbound, &info->unbound_offset, w->fl[p].src);
      continue;
    }
    (*flows)[nf++] = (st_flow){w->res_row[p], w->res_idx[p], w->res_row[c], w->res_idx[c]};
  }
  if (nf) {
    st_flow *tmp = st_calloc(a, nf, sizeof *tmp);
    *flows_in = st_calloc(a, nf, sizeof **flows_in);
    if (!tmp || !*flows_in) {
      st_free(a, tmp);
      return 0;
    }
    sort_flows(*flows, tmp, nf);
    uint32_t *itmp = (uint32_t *)tmp; /* nf * 16 bytes >= nf * 4 */
    for (size_t i = 0; i < nf; i++) (*flows_in)[i] = (uint32_t)i;
    sort_idx(*flows_in, itmp, nf, flow_in_less, *flows);
    st_free(a, tmp);
    if (nf < w->npairs) {
      st_flow *sh = st_realloc_array(a, *flows, nf, sizeof *sh);
      if (sh) *flows = sh;
    }
  } else {
    st_free(a, *flows);
    *flows = NULL;
  }
  *count = (uint32_t)nf;
  info->bound = nf;
  return 1;
}

void st_tflow_free(tflow *w) {
  const st_alloc *a = w->alloc;
  st_free(a, w->idx);
  st_free(a, w->tmp);
  st_free(a, w->pairs);
  st_free(a, w->res_row);
  st_free(a, w->res_idx);
  st_free(a, w->track_at);
  st_u64map_free(&w->srcmap, a);
  memset(w, 0, sizeof *w);
}
