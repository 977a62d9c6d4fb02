/* seen.h: a growable set of small indices (a byte each), for the importers'
 * "first time this process / thread is seen" counts: indices are the
 * builder's dense process and track numbers.
 *
 *   st_seen s = {0};
 *   if (!st_seen_test_set(&alloc, &s, i, &nomem)) count++;
 *   st_seen_free(&alloc, &s);
 */
#ifndef STRATA_SEEN_H
#define STRATA_SEEN_H

#include "base.h"

typedef struct st_seen {
  uint8_t *v;
  size_t n;
} st_seen;

/* 1 if i was in the set already, else adds it and returns 0. If the set
 * cannot grow, sets *nomem to 1 and returns 1 (nothing is counted twice). */
int st_seen_test_set(const st_alloc *a, st_seen *s, uint32_t i, int *nomem);
void st_seen_free(const st_alloc *a, st_seen *s);

#endif
