/* select.h: a set of selected events, stored as sorted, disjoint, non-
 * adjacent index spans per row: a box over a million events is one span per
 * row, and a click adds or removes one index (splitting a span at most).
 *
 *   st_selection *s = st_selection_create(&alloc);
 *   st_selection_add(s, row, lo, hi);      // row[lo, hi)
 *   st_selection_toggle(s, row, i);
 *   if (st_selection_any_in(s, row, lo, hi)) ...   // O(log spans)
 *   st_selection_destroy(s);
 */
#ifndef STRATA_SELECT_H
#define STRATA_SELECT_H

#include "base.h"

typedef struct st_sel_span {
  uint32_t row, lo, hi; /* row[lo, hi), lo < hi */
} st_sel_span;

typedef struct st_selection st_selection;

st_selection *st_selection_create(const st_alloc *a);
void st_selection_destroy(st_selection *s);
void st_selection_clear(st_selection *s);
/* ST_OK or ST_ERR_NOMEM (then the set is unchanged). Empty ranges are no-ops. */
st_code st_selection_add(st_selection *s, uint32_t row, uint32_t lo, uint32_t hi);
st_code st_selection_remove(st_selection *s, uint32_t row, uint32_t lo, uint32_t hi);
/* Adds the index if absent, removes it if present; returns 1 if it is now in. */
int st_selection_toggle(st_selection *s, uint32_t row, uint32_t index);
int st_selection_contains(const st_selection *s, uint32_t row, uint32_t index);
int st_selection_any_in(const st_selection *s, uint32_t row, uint32_t lo, uint32_t hi);
uint64_t st_selection_count(const st_selection *s); /* selected events */
const st_sel_span *st_selection_spans(const st_selection *s, uint32_t *count);
/* Copies src into dst (ST_ERR_NOMEM leaves dst unchanged). */
st_code st_selection_copy(st_selection *dst, const st_selection *src);

#endif
