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
 * Memory: while importing, a point is a compact record of its track (~8
 * bytes, trace_internal.h). Chaining decodes them all (33 bytes per point,
 * before any column of the model exists); from then on until the end a
 * point costs 8 bytes (its binding) and a pair 16 (becoming the flow); one
 * track's points are decoded again for binding. The trace keeps 20 bytes
 * per bound flow.
 */
#include "trace_internal.h"

#include "bisect.h"

static void note_first(uint64_t *count, uint64_t *offset, uint64_t src) {
  if (!*count || src < *offset) *offset = src;
  ++*count;
}

/* ==== 1. chaining ======================================================== */

typedef struct chain_ctx {
  const uint64_t *key, *src;
  const int64_t *ts;
} chain_ctx;

static int key_less(const void *ctx, uint32_t a, uint32_t b) {
  const chain_ctx *c = ctx;
  if (c->key[a] != c->key[b]) return c->key[a] < c->key[b];
  if (c->ts[a] != c->ts[b]) return c->ts[a] < c->ts[b];
  if (c->src[a] != c->src[b]) return c->src[a] < c->src[b];
  return a < b;
}

/* One walk of the points in key order: counts the pairs, or (info !=
 * NULL) writes them and counts the unmatched ends into info. */
static size_t walk_chain(const uint32_t *idx, size_t np, const chain_ctx *c, const uint8_t *role,
                         tpair *pairs, st_flow_info *info) {
  uint32_t prod = UINT32_MAX;
  size_t n = 0;
  for (size_t k = 0; k < np; k++) {
    uint32_t i = idx[k];
    if (k == 0 || c->key[i] != c->key[idx[k - 1]]) prod = UINT32_MAX;
    if (role[i] & ST_FLOW_IN) {
      if (prod != UINT32_MAX) {
        if (info) pairs[n] = (tpair){c->src[prod], prod, i};
        n++;
      } else if (!(role[i] & ST_FLOW_OUT) && info) {
        note_first(&info->unmatched, &info->unmatched_offset, c->src[i]);
      }
    }
    if (role[i] & ST_FLOW_OUT) prod = i;
    if (role[i] & ST_FLOW_END) prod = UINT32_MAX;
  }
  return n;
}

int st_tflow_chain(tflow *w, const st_alloc *a, tpoints *const *pts, uint32_t track_count,
                   size_t np, st_flow_info *info) {
  memset(w, 0, sizeof *w);
  w->alloc = a;
  w->np = np;
  if (!np) return 1;
  uint64_t *key = NULL, *src = NULL;
  int64_t *ts = NULL;
  uint8_t *role = NULL;
  uint32_t *idx = NULL, *tmp = NULL;
  int ok = TR_ALLOC_ARRAY(a, key, np) && TR_ALLOC_ARRAY(a, src, np) && TR_ALLOC_ARRAY(a, ts, np) &&
           TR_ALLOC_ARRAY(a, role, np) && TR_ALLOC_ARRAY(a, idx, np) && TR_ALLOC_ARRAY(a, tmp, np);
  if (ok) {
    for (uint32_t t = 0; t < track_count; t++) {
      const tpoints *tp = pts[t];
      if (!tp) continue;
      tpoint e = {0};
      for (uint32_t q = 0; q < tp->s.count; q++) {
        const tblock *blk = tp->s.blk[q];
        for (const uint8_t *p = blk->data, *end = p + blk->used; p < end;) {
          p = tpt_get(p, &e);
          key[e.id] = e.key;
          src[e.id] = e.src;
          ts[e.id] = (int64_t)e.ts;
          role[e.id] = e.role;
        }
      }
    }
    for (size_t i = 0; i < np; i++) idx[i] = (uint32_t)i;
    chain_ctx c = {key, src, ts};
    st_tsort_idx(idx, tmp, np, key_less, &c);
    w->npairs = walk_chain(idx, np, &c, role, NULL, NULL);
    ok = TR_ALLOC_ARRAY(a, w->pairs, w->npairs);
    if (ok) walk_chain(idx, np, &c, role, w->pairs, info);
  }
  st_free(a, key);
  st_free(a, src);
  st_free(a, ts);
  st_free(a, role);
  st_free(a, idx);
  st_free(a, tmp);
  if (!ok || !TR_ALLOC_ARRAY(a, w->res_row, np) || !TR_ALLOC_ARRAY(a, w->res_idx, np)) return 0;
  memset(w->res_row, 0xFF, np * sizeof *w->res_row);
  memset(w->res_idx, 0xFF, np * sizeof *w->res_idx);
  return 1;
}

/* ==== 2. binding ========================================================= */

/* One track's points, decoded for binding. */
typedef struct bind_pts {
  int64_t *ts;
  uint64_t *src;
  uint32_t *id;
  uint8_t *bind;
} bind_pts;

static int bind_less(const void *ctx, uint32_t a, uint32_t b) {
  const bind_pts *p = ctx;
  if (p->ts[a] != p->ts[b]) return p->ts[a] < p->ts[b];
  if (p->src[a] != p->src[b]) return p->src[a] < p->src[b];
  return p->id[a] < p->id[b];
}

/* A point's time on the rebased axis; times before the origin map to -1
 * (nothing encloses them; the next event is the first). */
static int64_t rebase_ts(int64_t ts, int64_t origin) {
  return ts < origin ? -1 : sat_sub(ts, origin);
}

/* Where sorted event e ended up: its row (relative to the track's first)
 * and index in it. */
static void locate(const uint32_t *dest, const uint32_t *row_first, uint32_t rows, size_t e,
                   uint32_t *row, uint32_t *index) {
  uint32_t d = dest[e]; /* the last row whose first slot is <= d */
  uint32_t lo = (uint32_t)st_upper_bound_u32(row_first, rows, d);
  lo = lo ? lo - 1 : 0;
  *row = lo;
  *index = d - row_first[lo];
}

#define EVENT_SCAN_MAX 64 /* same-start events scanned for a src before the map fallback */

int st_tflow_bind(tflow *w, tpoints *pts, const tcols *c, size_t n, const uint32_t *dest,
                  const uint32_t *row_first, uint32_t rows, uint32_t row_base, int64_t origin) {
  const st_alloc *a = w->alloc;
  size_t np = pts->count;
  if (np == 0) return 1;
  bind_pts bp = {0};
  uint32_t *order = NULL, *tmp = NULL, *stack = NULL;
  size_t stack_cap = 0;
  int ok = TR_ALLOC_ARRAY(a, bp.ts, np) && TR_ALLOC_ARRAY(a, bp.src, np) &&
           TR_ALLOC_ARRAY(a, bp.id, np) && TR_ALLOC_ARRAY(a, bp.bind, np) &&
           TR_ALLOC_ARRAY(a, order, np) && TR_ALLOC_ARRAY(a, tmp, np);
  if (ok) {
    tpoint e = {0};
    size_t k = 0;
    for (uint32_t q = 0; q < pts->s.count; q++) {
      const tblock *blk = pts->s.blk[q];
      for (const uint8_t *p = blk->data, *end = p + blk->used; p < end; k++) {
        p = tpt_get(p, &e);
        bp.ts[k] = (int64_t)e.ts;
        bp.src[k] = e.src;
        bp.id[k] = e.id;
        bp.bind[k] = e.bind;
        order[k] = (uint32_t)k;
      }
    }
    st_tstream_free(&pts->s, a);
    st_tsort_idx(order, tmp, np, bind_less, &bp);
  }
  size_t ptr = 0, top = 0, pending = 0;
  for (size_t k = 0; ok && n && k < np; k++) {
    uint32_t i = order[k];
    int64_t ts = rebase_ts(bp.ts[i], origin);
    size_t e = n;
    if (bp.bind[i] == ST_FLOW_BIND_ENCLOSING) {
      /* the stack holds started events in start order; popping the ended
       * ones off the top leaves the latest-starting event open at ts */
      while (ptr < n && c->start[ptr] <= ts) {
        if (top == stack_cap) {
          void *sp = stack;
          if (!st_grow(a, &sp, &stack_cap, top + 1, sizeof *stack)) {
            ok = 0;
            break;
          }
          stack = sp;
        }
        stack[top++] = (uint32_t)ptr++;
      }
      if (!ok) break;
      while (top && st_sat_add(c->start[stack[top - 1]], c->dur[stack[top - 1]]) < ts) top--;
      if (top) e = stack[top - 1];
    } else if (bp.bind[i] == ST_FLOW_BIND_NEXT) {
      e = st_lower_bound_i64(c->start, n, ts); /* the first starting at or after ts */
    } else {
      size_t j = st_lower_bound_i64(c->start, n, ts), scanned = 0;
      for (; j < n && c->start[j] == ts && scanned < EVENT_SCAN_MAX; j++, scanned++)
        if (c->src[j] == bp.src[i]) break;
      if (j < n && c->start[j] == ts && c->src[j] == bp.src[i])
        e = j;
      else if (j < n && c->start[j] == ts)
        tmp[pending++] = i; /* many events start here: find it by src below */
    }
    if (e < n) {
      uint32_t r, x;
      locate(dest, row_first, rows, e, &r, &x);
      w->res_row[bp.id[i]] = row_base + r;
      w->res_idx[bp.id[i]] = x;
    }
  }
  if (ok && pending) {
    /* fallback: one pass over the track's events with a src map (O(n)) */
    st_u64map_clear(&w->srcmap);
    for (size_t p = 0; ok && p < pending; p++)
      if (st_u64map_get(&w->srcmap, bp.src[tmp[p]]) == ST_U64MAP_NONE &&
          !st_u64map_put(&w->srcmap, a, bp.src[tmp[p]], tmp[p]))
        ok = 0;
    for (size_t j = 0; ok && j < n; j++) {
      uint32_t i = st_u64map_get(&w->srcmap, c->src[j]);
      if (i == ST_U64MAP_NONE || c->start[j] != rebase_ts(bp.ts[i], origin)) continue;
      uint32_t r, x;
      locate(dest, row_first, rows, j, &r, &x);
      w->res_row[bp.id[i]] = row_base + r;
      w->res_idx[bp.id[i]] = x;
    }
    for (size_t p = 0; ok && p < pending; p++) {
      uint32_t i = tmp[p], f = st_u64map_get(&w->srcmap, bp.src[i]);
      if (f != ST_U64MAP_NONE && f != i) {
        w->res_row[bp.id[i]] = w->res_row[bp.id[f]];
        w->res_idx[bp.id[i]] = w->res_idx[bp.id[f]];
      }
    }
  }
  st_free(a, bp.ts);
  st_free(a, bp.src);
  st_free(a, bp.id);
  st_free(a, bp.bind);
  st_free(a, order);
  st_free(a, tmp);
  st_free(a, stack);
  if (!ok) w->nomem = 1;
  return ok;
}

/* ==== 3. the trace's flow arrays ========================================= */

static int flow_less(const st_flow *a, const st_flow *b) {
  if (a->from_row != b->from_row) return a->from_row < b->from_row;
  if (a->from_index != b->from_index) return a->from_index < b->from_index;
  if (a->to_row != b->to_row) return a->to_row < b->to_row;
  return a->to_index < b->to_index;
}
ST_DEFINE_MERGE_SORT(sort_flows, st_flow, flow_less)

static int flow_in_less(const void *ctx, uint32_t a, uint32_t b) {
  const st_flow *x = &((const st_flow *)ctx)[a], *y = &((const st_flow *)ctx)[b];
  if (x->to_row != y->to_row) return x->to_row < y->to_row;
  if (x->to_index != y->to_index) return x->to_index < y->to_index;
  return a < b; /* flows are sorted by source: ties keep that order */
}

int st_tflow_build(tflow *w, const st_alloc *a, st_flow **flows, uint32_t **flows_in,
                   uint32_t *count, st_flow_info *info) {
  if (w->nomem) return 0;
  /* the pairs become the flows in place (the same size; flow nf <= pair k) */
  st_flow *f = (st_flow *)(void *)w->pairs;
  size_t nf = 0;
  for (size_t k = 0; k < w->npairs; k++) {
    tpair p = w->pairs[k];
    if (w->res_row[p.prod] == UINT32_MAX || w->res_row[p.cons] == UINT32_MAX ||
        (w->res_row[p.prod] == w->res_row[p.cons] && w->res_idx[p.prod] == w->res_idx[p.cons])) {
      note_first(&info->unbound, &info->unbound_offset, p.prod_src);
      continue;
    }
    f[nf++] =
        (st_flow){w->res_row[p.prod], w->res_idx[p.prod], w->res_row[p.cons], w->res_idx[p.cons]};
  }
  st_free(w->alloc, w->res_row);
  st_free(w->alloc, w->res_idx);
  w->res_row = w->res_idx = NULL;
  size_t npairs = w->npairs;
  w->pairs = NULL;
  w->npairs = 0;
  if (!nf) {
    st_free(a, f);
    *flows = NULL;
  } else {
    if (nf < npairs) {
      st_flow *sh = st_realloc_array(a, f, nf, sizeof *sh);
      if (sh) f = sh;
    }
    *flows = f;
    st_flow *tmp = st_calloc(a, nf, sizeof *tmp);
    *flows_in = st_calloc(a, nf, sizeof **flows_in);
    if (!tmp || !*flows_in) {
      st_free(a, tmp);
      return 0;
    }
    sort_flows(f, tmp, nf);
    uint32_t *itmp = (uint32_t *)(void *)tmp; /* nf * 16 bytes >= nf * 4 */
    for (size_t i = 0; i < nf; i++) (*flows_in)[i] = (uint32_t)i;
    st_tsort_idx(*flows_in, itmp, nf, flow_in_less, f);
    st_free(a, tmp);
  }
  *count = (uint32_t)nf;
  info->bound = nf;
  return 1;
}

void st_tflow_free(tflow *w) {
  const st_alloc *a = w->alloc;
  st_free(a, w->pairs);
  st_free(a, w->res_row);
  st_free(a, w->res_idx);
  st_u64map_free(&w->srcmap, a);
  memset(w, 0, sizeof *w);
}
