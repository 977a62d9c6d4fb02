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

#define RUN 32 /* insertion-sorted run length */

void st_tsort_idx(uint32_t *v, uint32_t *tmp, size_t n, st_tidx_less less, const void *ctx) {
  size_t i = 1;
  while (i < n && !less(ctx, v[i], v[i - 1])) i++;
  if (i >= n) return;
  for (size_t lo = 0; lo < n; lo += RUN) {
    size_t hi = lo + RUN < n ? lo + RUN : n;
    for (size_t k = lo + 1; k < hi; k++) {
      uint32_t x = v[k];
      size_t j = k;
      while (j > lo && less(ctx, x, v[j - 1])) {
        v[j] = v[j - 1];
        j--;
      }
      v[j] = x;
    }
  }
  uint32_t *src = v, *dst = tmp;
  for (size_t w = RUN; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      if (mid == hi || !less(ctx, src[mid], src[mid - 1])) { /* already in order */
        memcpy(dst + lo, src + lo, (hi - lo) * sizeof *v);
        continue;
      }
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) dst[o++] = less(ctx, src[b], src[a]) ? src[b++] : src[a++];
      while (a < mid) dst[o++] = src[a++];
      while (b < hi) dst[o++] = src[b++];
    }
    uint32_t *sw = src;
    src = dst;
    dst = sw;
  }
  if (src != v) memcpy(v, src, n * sizeof *v);
}
