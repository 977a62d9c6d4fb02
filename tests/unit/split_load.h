/* split_load.h: a one-thread reference of the split import
 * (core/import/chrome/chrome_range.h), for the unit test and the fuzz
 * target: data cut into tasks of task_bytes, every task parsed with
 * st_chrome_range_parse (last task first: the order of parsing does not
 * matter, only the order of applying), the results applied in task order
 * with st_loader_apply, then finished like a pushed load.
 *
 *   st_trace *t = sl_load_split(data, n, task_bytes, name, &err, &stats, &split);
 *   // split: bytes whose events came from results (0: all fell back)
 */
#ifndef STRATA_SPLIT_LOAD_H
#define STRATA_SPLIT_LOAD_H

#include "chrome_range.h"
#include "load.h"

#include <stdlib.h>
#include <string.h>

static inline st_trace *sl_load_split(const uint8_t *data, size_t n, uint64_t tb, const char *name,
                                      st_error *err, st_stats *stats, uint64_t *split) {
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
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
  st_trace *t = st_loader_finish(l, err);
  *stats = *st_loader_stats(l);
  if (split) *split = st_loader_split_bytes(l);
  st_loader_destroy(l);
  return t;
}

#endif
