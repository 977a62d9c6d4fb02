/* trace_stage.c: the trace builder's staging storage and the array helpers
 * its pieces share (see trace_internal.h): byte-block chains that compact
 * records are appended to while importing, a growable-array step, and a
 * sort of index arrays (the layout's sort order, flow points by key).
 */
#include "trace_internal.h"

uint8_t *st_tstream_room(tstream *s, const st_alloc *a, uint32_t need) {
  if (s->count) {
    tblock *b = s->blk[s->count - 1];
    if (b->cap - b->used >= need) return b->data + b->used;
  }
  uint32_t cap = s->count ? s->blk[s->count - 1]->cap * 2 : TS_BLOCK_MIN;
  if (cap > TS_BLOCK_MAX) cap = TS_BLOCK_MAX;
  while (cap < need) cap *= 2;
  if (s->count == s->cap) { /* 4, 8, 16, ... block pointers: many small tracks stay small */
    void *p = s->blk;
    if (!st_grow32(a, &p, &s->cap, (size_t)s->count + 1, sizeof *s->blk, 4)) return NULL;
    s->blk = p;
  }
  tblock *b = st_malloc(a, sizeof *b + cap);
  if (!b) return NULL;
  b->used = 0;
  b->cap = cap;
  s->blk[s->count++] = b;
  return b->data;
}

void st_tstream_free(tstream *s, const st_alloc *a) {
  for (uint32_t k = 0; k < s->count; k++) st_free(a, s->blk[k]);
  st_free(a, s->blk);
  memset(s, 0, sizeof *s);
}

/* st_tsort_idx: merge_sort.h's sort with the caller's comparison of two
 * indices as its context */
typedef struct tidx_by {
  st_tidx_less less;
  const void *ctx;
} tidx_by;
static inline int tidx_less(const tidx_by *by, const uint32_t *a, const uint32_t *b) {
  return by->less(by->ctx, *a, *b);
}
ST_DEFINE_MERGE_SORT_CTX(sort_tidx, uint32_t, const tidx_by *, tidx_less)

void st_tsort_idx(uint32_t *v, uint32_t *tmp, size_t n, st_tidx_less less, const void *ctx) {
  sort_tidx(&(tidx_by){less, ctx}, v, tmp, n);
}
