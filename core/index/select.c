/* select.c: the selection as sorted disjoint spans (see select.h).
 *
 * Spans are ordered by (row, lo); two spans of the same row never touch
 * (adjacent ones are merged), so the representation of a set is unique and
 * count is the sum of the widths. Edits shift the array: O(spans) per edit,
 * which is small next to the number of events a span stands for. */
#include "select.h"

#include "bisect.h"

#include <string.h>

struct st_selection {
  st_alloc alloc;
  st_sel_span *spans;
  uint32_t count, cap;
  uint64_t total;
};

st_selection *st_selection_create(const st_alloc *a) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_selection *s = st_calloc(&al, 1, sizeof *s);
  if (s) s->alloc = al;
  return s;
}

void st_selection_destroy(st_selection *s) {
  if (!s) return;
  st_alloc a = s->alloc;
  st_free(&a, s->spans);
  st_free(&a, s);
}

void st_selection_clear(st_selection *s) {
  if (!s) return;
  s->count = 0;
  s->total = 0;
}

static int reserve(st_selection *s, uint32_t extra) {
  if (s->count + (uint64_t)extra <= s->cap) return 1;
  if (s->count > UINT32_MAX / 2 - extra) return 0;
  void *ns = s->spans;
  if (!st_grow32(&s->alloc, &ns, &s->cap, (size_t)s->count + extra, sizeof *s->spans, 16)) return 0;
  s->spans = ns;
  return 1;
}

/* First span that is not entirely before (row, idx): row > r, or row == r
 * and hi > idx. */
typedef struct span_key {
  const st_sel_span *spans;
  uint32_t row, idx;
} span_key;

static int span_before(const void *ctx, size_t m) {
  const span_key *k = ctx;
  const st_sel_span *p = &k->spans[m];
  return p->row < k->row || (p->row == k->row && p->hi <= k->idx);
}

static uint32_t first_not_before(const st_selection *s, uint32_t row, uint32_t idx) {
  span_key k = {s->spans, row, idx};
  return (uint32_t)st_partition_point(0, s->count, span_before, &k);
}

st_code st_selection_add(st_selection *s, uint32_t row, uint32_t lo, uint32_t hi) {
  if (!s) return ST_ERR_ARG;
  if (lo >= hi) return ST_OK;
  /* spans that touch [lo, hi) (overlap or are adjacent) merge with it */
  uint32_t a = first_not_before(s, row, lo > 0 ? lo - 1 : 0);
  uint32_t b = a;
  uint32_t nlo = lo, nhi = hi;
  uint64_t removed = 0;
  while (b < s->count && s->spans[b].row == row && s->spans[b].lo <= hi) {
    if (s->spans[b].lo < nlo) nlo = s->spans[b].lo;
    if (s->spans[b].hi > nhi) nhi = s->spans[b].hi;
    removed += s->spans[b].hi - s->spans[b].lo;
    b++;
  }
  if (a == b) {
    if (!reserve(s, 1)) return ST_ERR_NOMEM;
    memmove(&s->spans[a + 1], &s->spans[a], (size_t)(s->count - a) * sizeof *s->spans);
    s->count++;
  } else if (b > a + 1) {
    memmove(&s->spans[a + 1], &s->spans[b], (size_t)(s->count - b) * sizeof *s->spans);
    s->count -= b - a - 1;
  }
  s->spans[a] = (st_sel_span){row, nlo, nhi};
  s->total = s->total - removed + (nhi - nlo);
  return ST_OK;
}

st_code st_selection_remove(st_selection *s, uint32_t row, uint32_t lo, uint32_t hi) {
  if (!s) return ST_ERR_ARG;
  if (lo >= hi) return ST_OK;
  uint32_t a = first_not_before(s, row, lo);
  if (a >= s->count || s->spans[a].row != row || s->spans[a].lo >= hi) return ST_OK;
  st_sel_span *p = &s->spans[a];
  if (p->lo < lo && p->hi > hi) { /* split in two */
    if (!reserve(s, 1)) return ST_ERR_NOMEM;
    p = &s->spans[a];
    memmove(&s->spans[a + 1], &s->spans[a], (size_t)(s->count - a) * sizeof *s->spans);
    s->count++;
    s->spans[a].hi = lo;
    s->spans[a + 1].lo = hi;
    s->total -= hi - lo;
    return ST_OK;
  }
  if (p->lo < lo) { /* trim the first span's tail */
    s->total -= p->hi - lo;
    p->hi = lo;
    a++;
  }
  uint32_t b = a;
  while (b < s->count && s->spans[b].row == row && s->spans[b].hi <= hi) {
    s->total -= s->spans[b].hi - s->spans[b].lo;
    b++;
  }
  if (b < s->count && s->spans[b].row == row && s->spans[b].lo < hi) {
    s->total -= hi - s->spans[b].lo;
    s->spans[b].lo = hi;
  }
  if (b > a) {
    memmove(&s->spans[a], &s->spans[b], (size_t)(s->count - b) * sizeof *s->spans);
    s->count -= b - a;
  }
  return ST_OK;
}

int st_selection_contains(const st_selection *s, uint32_t row, uint32_t index) {
  return st_selection_any_in(s, row, index, index + 1);
}

int st_selection_any_in(const st_selection *s, uint32_t row, uint32_t lo, uint32_t hi) {
  if (!s || lo >= hi || !s->count) return 0;
  uint32_t a = first_not_before(s, row, lo);
  return a < s->count && s->spans[a].row == row && s->spans[a].lo < hi;
}

int st_selection_toggle(st_selection *s, uint32_t row, uint32_t index) {
  if (!s || index == UINT32_MAX) return 0;
  if (st_selection_contains(s, row, index)) {
    st_selection_remove(s, row, index, index + 1);
    return st_selection_contains(s, row, index);
  }
  return st_selection_add(s, row, index, index + 1) == ST_OK;
}

uint64_t st_selection_count(const st_selection *s) { return s ? s->total : 0; }

const st_sel_span *st_selection_spans(const st_selection *s, uint32_t *count) {
  if (count) *count = s ? s->count : 0;
  return s ? s->spans : NULL;
}

st_code st_selection_copy(st_selection *dst, const st_selection *src) {
  if (!dst || !src) return ST_ERR_ARG;
  if (dst == src) return ST_OK;
  if (src->count > dst->cap) {
    st_sel_span *ns = st_realloc_array(&dst->alloc, dst->spans, src->count, sizeof *ns);
    if (!ns) return ST_ERR_NOMEM;
    dst->spans = ns;
    dst->cap = src->count;
  }
  if (src->count) memcpy(dst->spans, src->spans, (size_t)src->count * sizeof *dst->spans);
  dst->count = src->count;
  dst->total = src->total;
  return ST_OK;
}
