/* diff_internal.h: the diff's state (core/analysis/diff.h), shared by
 * diff.c, which builds it, and diff_json.c, which writes it out (and only
 * reads it). Nothing here is diff.h's contract.
 */
#ifndef STRATA_DIFF_INTERNAL_H
#define STRATA_DIFF_INTERNAL_H

#include "diff.h"

struct st_diff {
  st_alloc alloc;
  const st_trace *t[2];
  st_diff_row *rows;
  uint32_t count;
  int64_t t0[2], t1[2]; /* ranges used for events (whole: INT64_MIN .. INT64_MAX) */
  st_diff_summary sum;
  st_diff_kind *kinds;
  uint32_t nkinds;
  st_diff_headline head;
};

#endif
