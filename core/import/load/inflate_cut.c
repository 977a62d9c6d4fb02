/* inflate_cut.c: a compressed input inflated into the tasks of a split
 * import (see inflate_cut.h). */
#include "inflate_cut.h"

#include "chrome_range.h"

#include <string.h>

struct st_inflate_cut {
  st_alloc alloc;
  st_source *src;
  uint64_t tb;  /* task bytes */
  uint64_t off; /* decoded bytes so far */
  /* open tasks: cur (receives [cur.base, cur.base + tb)) and prev (its
   * slack, up to prev.base + tb + ST_RANGE_SLACK); have_* say which exist */
  st_split_task cur, prev;
  int have_cur, have_prev;
  /* complete tasks not taken yet, in order */
  st_split_task *ready;
  size_t nready, cready, first;
  int finished, nomem;
};

static int queue(st_inflate_cut *c, const st_split_task *t) {
  if (c->first && c->first == c->nready) c->first = c->nready = 0;
  if (c->nready == c->cready) {
    void *p = c->ready;
    if (!st_grow_from(&c->alloc, &p, &c->cready, c->nready + 1, sizeof *c->ready, 4)) return 0;
    c->ready = p;
  }
  c->ready[c->nready++] = *t;
  return 1;
}

/* a new task at the current offset */
static int open_task(st_inflate_cut *c) {
  size_t cap = (size_t)(c->tb + ST_RANGE_SLACK);
  uint8_t *b = st_malloc(&c->alloc, cap);
  if (!b) return 0;
  c->cur = (st_split_task){b, 0, c->off, c->off + c->tb, UINT64_MAX};
  c->have_cur = 1;
  return 1;
}

static st_code on_decoded(void *ud, const uint8_t *p, size_t n) {
  st_inflate_cut *c = ud;
  while (n) {
    if (!c->have_cur || c->off == c->cur.base + c->tb) {
      /* the filling task is full: it becomes the one taking its slack */
      if (c->have_cur) {
        if (c->have_prev && !queue(c, &c->prev)) goto nomem; /* (slack 0: tb >= slack) */
        c->prev = c->cur;
        c->have_prev = 1;
        c->have_cur = 0;
      }
      if (!open_task(c)) goto nomem;
    }
    size_t take = n;
    if (take > c->cur.base + c->tb - c->off) take = (size_t)(c->cur.base + c->tb - c->off);
    memcpy(c->cur.bytes + c->cur.len, p, take);
    c->cur.len += take;
    if (c->have_prev && c->prev.len < c->tb + ST_RANGE_SLACK) {
      size_t room = (size_t)(c->tb + ST_RANGE_SLACK - c->prev.len),
             ptake = take < room ? take : room;
      memcpy(c->prev.bytes + c->prev.len, p, ptake);
      c->prev.len += ptake;
      if (c->prev.len == c->tb + ST_RANGE_SLACK) {
        if (!queue(c, &c->prev)) goto nomem;
        c->have_prev = 0;
      }
    }
    c->off += take;
    p += take;
    n -= take;
  }
  return ST_OK;
nomem:
  c->nomem = 1;
  return ST_ERR_NOMEM;
}

st_inflate_cut *st_inflate_cut_create(const st_alloc *a, uint64_t task_bytes) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_inflate_cut *c = st_calloc(&al, 1, sizeof *c);
  if (!c) return NULL;
  c->alloc = al;
  c->tb = task_bytes > ST_RANGE_SLACK ? task_bytes : ST_RANGE_SLACK;
  if (c->tb > SIZE_MAX / 2) c->tb = SIZE_MAX / 2;
  c->src = st_source_create(&al, on_decoded, c);
  if (!c->src) {
    st_free(&al, c);
    return NULL;
  }
  return c;
}

void st_inflate_cut_destroy(st_inflate_cut *c) {
  if (!c) return;
  st_source_destroy(c->src);
  if (c->have_cur) st_free(&c->alloc, c->cur.bytes);
  if (c->have_prev) st_free(&c->alloc, c->prev.bytes);
  for (size_t i = c->first; i < c->nready; i++) st_free(&c->alloc, c->ready[i].bytes);
  st_free(&c->alloc, c->ready);
  st_alloc a = c->alloc;
  st_free(&a, c);
}

st_code st_inflate_cut_push(st_inflate_cut *c, const void *raw, size_t n, st_error *err) {
  if (!c || c->finished) return ST_ERR_ARG;
  return st_source_push(c->src, raw, n, err);
}

st_code st_inflate_cut_finish(st_inflate_cut *c, st_error *err) {
  if (!c) return ST_ERR_ARG;
  if (c->finished) return ST_OK;
  c->finished = 1;
  st_error e;
  memset(&e, 0, sizeof e);
  st_code code = st_source_finish(c->src, &e);
  if (code != ST_OK && err) *err = e;
  /* what there is: the last tasks' slack ends with the input */
  if (c->have_prev) {
    c->prev.size = c->off;
    if (!queue(c, &c->prev)) c->nomem = 1, st_free(&c->alloc, c->prev.bytes);
    c->have_prev = 0;
  }
  if (c->have_cur) {
    c->cur.size = c->off;
    if (c->cur.next > c->off) c->cur.next = c->off;
    if (!queue(c, &c->cur)) c->nomem = 1, st_free(&c->alloc, c->cur.bytes);
    c->have_cur = 0;
  }
  if (c->nomem && code == ST_OK) {
    code = ST_ERR_NOMEM;
    if (err) st_error_set(err, ST_ERR_NOMEM, c->off, "out of memory");
  }
  return code;
}

int st_inflate_cut_take(st_inflate_cut *c, st_split_task *t) {
  if (!c || c->first >= c->nready) return 0;
  *t = c->ready[c->first++];
  if (c->finished && t->size == UINT64_MAX) t->size = c->off; /* known now */
  return 1;
}

const st_source_info *st_inflate_cut_info(const st_inflate_cut *c) {
  return c ? st_source_get_info(c->src) : NULL;
}
