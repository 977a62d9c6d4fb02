/* seen.c: see seen.h. */
#include "seen.h"

#include <string.h>

int st_seen_test_set(const st_alloc *a, st_seen *s, uint32_t i, int *nomem) {
  if (i >= s->n) {
    void *v = s->v;
    size_t n = s->n;
    if (!st_grow_from(a, &v, &n, (size_t)i + 1, 1, 64)) {
      *nomem = 1;
      return 1;
    }
    memset((uint8_t *)v + s->n, 0, n - s->n);
    s->v = v;
    s->n = n;
  }
  if (s->v[i]) return 1;
  s->v[i] = 1;
  return 0;
}

void st_seen_free(const st_alloc *a, st_seen *s) {
  st_free(a, s->v);
  *s = (st_seen){0};
}
