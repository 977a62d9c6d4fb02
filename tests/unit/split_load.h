/* split_load.h: a one-thread reference of the split import
 * (core/import/chrome/chrome_range.h), for the unit test and the fuzz
 * target: data cut into tasks of task_bytes, every task parsed with
 * st_chrome_range_parse (last task first: the order of parsing does not
 * matter, only the order of applying), the results applied in task order
 * with st_loader_apply, then finished like a pushed load.
 *
 *   st_trace *t = sl_load_split(data, n, task_bytes, name, &err, &stats, &split);
 *   // split: bytes whose events came from results (0: all fell back)
 *   t = sl_load_split_gz(raw, n, task_bytes, name, &err, &stats, &split, &splittable);
 *   // compressed input inflated with st_source first (st_loader_set_inflated)
 */
#ifndef STRATA_SPLIT_LOAD_H
#define STRATA_SPLIT_LOAD_H

#include "chrome_range.h"
#include "inflate_cut.h"
#include "load.h"
#include "source.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl_inflated { /* the raw side of a compressed input */
  st_source_info info;
  st_code code;
  st_error err;
} sl_inflated;

/* At most this many tasks per split (a fuzz target bounds its work with it:
 * each task's cut may scan ST_RANGE_SCAN bytes, so a large decoded input
 * split into 1-byte tasks would cost its size x 64 KiB); the task size
 * grows to keep under it. Unbounded by default. */
#ifndef SL_MAX_TASKS
#define SL_MAX_TASKS UINT64_MAX
#endif

static inline st_trace *sl_load_split_from(const uint8_t *data, size_t n, uint64_t tb,
                                           const char *name, const sl_inflated *inf, st_error *err,
                                           st_stats *stats, uint64_t *split) {
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
  if (tb && (n + tb - 1) / tb > SL_MAX_TASKS) tb = (n + SL_MAX_TASKS - 1) / SL_MAX_TASKS;
  uint64_t ntask = tb ? (n + tb - 1) / tb : 0;
  uint8_t **res = calloc(ntask ? ntask : 1, sizeof *res);
  size_t *rlen = calloc(ntask ? ntask : 1, sizeof *rlen);
  for (uint64_t k = ntask; k-- > 0;) {
    uint64_t a = k * tb, next = a + tb < n ? a + tb : n;
    uint64_t end = next + ST_RANGE_SLACK < n ? next + ST_RANGE_SLACK : n;
    res[k] = st_chrome_range_parse(NULL, data + a, (size_t)(end - a), a, next, n, &rlen[k]);
  }
  for (uint64_t k = 0; k < ntask; k++) {
    uint64_t a = k * tb, next = a + tb < n ? a + tb : n;
    uint64_t end = next + ST_RANGE_SLACK < n ? next + ST_RANGE_SLACK : n;
    /* the bytes only when the loader says it needs them (as the page does) */
    int need = st_loader_apply_needs_bytes(l, res[k], rlen[k]);
    if (st_loader_apply(l, res[k], rlen[k], need ? data + a : NULL, need ? (size_t)(end - a) : 0) !=
        ST_OK)
      break;
  }
  for (uint64_t k = 0; k < ntask; k++) free(res[k]);
  free(res);
  free(rlen);
  if (inf) st_loader_set_inflated(l, &inf->info, inf->code, &inf->err);
  st_trace *t = st_loader_finish(l, err);
  *stats = *st_loader_stats(l);
  if (split) *split = st_loader_split_bytes(l);
  st_loader_destroy(l);
  return t;
}

static inline st_trace *sl_load_split(const uint8_t *data, size_t n, uint64_t tb, const char *name,
                                      st_error *err, st_stats *stats, uint64_t *split) {
  return sl_load_split_from(data, n, tb, name, NULL, err, stats, split);
}

typedef struct sl_buf {
  uint8_t *p;
  size_t n, cap;
} sl_buf;

static inline st_code sl_sink(void *ud, const uint8_t *data, size_t len) {
  sl_buf *b = ud;
  if (b->n + len > b->cap) {
    size_t cap = (b->n + len) * 2 + 4096;
    uint8_t *p = realloc(b->p, cap);
    if (!p) return ST_ERR_NOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, len);
  b->n += len;
  return ST_OK;
}

/* Compressed input: inflated here with st_source (in 64 KiB pushes, as a
 * front end's inflating thread would), the decoded bytes split. Returns
 * NULL with *splittable = 0 if the decoded head is not splittable. */
static inline st_trace *sl_load_split_gz(const uint8_t *raw, size_t n, uint64_t tb,
                                         const char *name, st_error *err, st_stats *stats,
                                         uint64_t *split, int *splittable) {
  sl_buf b = {0};
  sl_inflated inf;
  memset(&inf, 0, sizeof inf);
  st_source *src = st_source_create(NULL, sl_sink, &b);
  for (size_t i = 0; i < n && inf.code == ST_OK; i += 65536)
    inf.code = st_source_push(src, raw + i, n - i < 65536 ? n - i : 65536, &inf.err);
  if (inf.code == ST_OK) inf.code = st_source_finish(src, &inf.err);
  inf.info = *st_source_get_info(src);
  st_source_destroy(src);
  *splittable = st_load_splittable(b.p, b.n < 64 ? b.n : 64);
  st_trace *t = NULL;
  if (*splittable) t = sl_load_split_from(b.p, b.n, tb, name, &inf, err, stats, split);
  free(b.p);
  return t;
}

/* Compressed input through the cutter a front end's inflating thread
 * uses (inflate_cut.h): raw bytes pushed in 64 KiB pieces, each complete
 * task parsed and applied in order as it comes. Returns NULL with
 * *splittable = 0 if the decoded head is not splittable JSON. */
static inline st_trace *sl_load_split_cut(const uint8_t *raw, size_t n, uint64_t tb,
                                          const char *name, st_error *err, st_stats *stats,
                                          uint64_t *split, int *splittable) {
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
  st_inflate_cut *c = st_inflate_cut_create(NULL, tb);
  sl_inflated inf;
  memset(&inf, 0, sizeof inf);
  int first = 1, stop = 0;
  *splittable = 1;
  for (size_t i = 0; i <= n && !stop; i += 65536) {
    if (i < n && inf.code == ST_OK)
      inf.code = st_inflate_cut_push(c, raw + i, n - i < 65536 ? n - i : 65536, &inf.err);
    if (i + 65536 > n || inf.code != ST_OK) { /* the end (or the damage): what was decoded */
      st_error fe;
      memset(&fe, 0, sizeof fe);
      st_code fc = st_inflate_cut_finish(c, &fe);
      if (inf.code == ST_OK) inf.code = fc, inf.err = fe;
      stop = 1;
    }
    st_split_task t;
    while (st_inflate_cut_take(c, &t)) {
      if (first && !st_load_splittable(t.bytes, t.len < 64 ? t.len : 64)) *splittable = 0;
      first = 0;
      size_t rlen = 0;
      uint8_t *r = *splittable
                       ? st_chrome_range_parse(NULL, t.bytes, t.len, t.base, t.next, t.size, &rlen)
                       : NULL;
      if (r) {
        int need = st_loader_apply_needs_bytes(l, r, rlen);
        st_loader_apply(l, r, rlen, need ? t.bytes : NULL, need ? t.len : 0);
      }
      free(r);
      free(t.bytes);
    }
  }
  inf.info = *st_inflate_cut_info(c);
  st_inflate_cut_destroy(c);
  if (first) *splittable = 0; /* nothing decoded */
  st_trace *t = NULL;
  if (*splittable) {
    st_loader_set_inflated(l, &inf.info, inf.code, &inf.err);
    t = st_loader_finish(l, err);
    *stats = *st_loader_stats(l);
    if (split) *split = st_loader_split_bytes(l);
  }
  st_loader_destroy(l);
  return t;
}

#endif
