/* inflate_cut.h: a compressed input (gzip, zlib) inflated and cut into the
 * tasks of a split import (core/import/chrome/chrome_range.h), for a front
 * end whose inflating runs on its own thread or worker: raw bytes in,
 * decoded tasks out, in order, each with ST_RANGE_SLACK bytes of the next
 * one after it. The decoded size is not known before the end: tasks handed
 * out before it say size = UINT64_MAX (st_chrome_range_parse takes that),
 * the last ones the real size. At most two tasks are open inside (the one
 * filling and the one before, taking its slack): memory stays bounded if
 * the caller takes tasks as they come.
 *
 *   st_inflate_cut *c = st_inflate_cut_create(&alloc, 8 << 20);
 *   while (more raw) { st_inflate_cut_push(c, raw, n, &err);
 *                      while (st_inflate_cut_take(c, &t)) hand t on (t.bytes is the caller's) }
 *   st_inflate_cut_finish(c, &err); while (st_inflate_cut_take(c, &t)) ...
 *   st_loader_set_inflated(loader, st_inflate_cut_info(c), code, &err)  // after the results
 *   st_inflate_cut_destroy(c);
 */
#ifndef STRATA_INFLATE_CUT_H
#define STRATA_INFLATE_CUT_H

#include "base.h"
#include "source.h"

typedef struct st_inflate_cut st_inflate_cut;

/* one decoded task: bytes [base, base + len) (allocated with the cutter's
 * alloc: the caller frees them), a_{k+1} = next, the decoded size (or
 * UINT64_MAX while unknown) */
typedef struct st_split_task {
  uint8_t *bytes;
  size_t len;
  uint64_t base, next, size;
} st_split_task;

/* task_bytes below ST_RANGE_SLACK are raised to it (a task's slack comes
 * from the next task alone). NULL when out of memory. */
st_inflate_cut *st_inflate_cut_create(const st_alloc *a, uint64_t task_bytes);
void st_inflate_cut_destroy(st_inflate_cut *c);
/* Returns ST_OK or the first error (the source's: corrupt data, with its
 * offset; or ST_ERR_NOMEM). What was decoded before it is still handed
 * out by finish. */
st_code st_inflate_cut_push(st_inflate_cut *c, const void *raw, size_t n, st_error *err);
/* End of input: the source's finish (a stream cut short is its error) and
 * the last tasks made ready. Returns the first error of the whole input. */
st_code st_inflate_cut_finish(st_inflate_cut *c, st_error *err);
/* The next complete task, in order: 1 (ownership of t->bytes passes), 0 if
 * none is ready yet. */
int st_inflate_cut_take(st_inflate_cut *c, st_split_task *t);
/* The source's info (compression, bytes in/out, trailing garbage). */
const st_source_info *st_inflate_cut_info(const st_inflate_cut *c);

#endif
