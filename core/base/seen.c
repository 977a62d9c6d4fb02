/* seen.c: see seen.h. */
#include "seen.h"

#include <string.h>

int st_seen_test_set(const st_alloc *a, st_seen *s, uint32_t i, int *nomem) {
  if (i >= s->n) {
    size_t n = s->n ? s->n : 64;
    while (n <= i && n <= SIZE_MAX / 2) n *= 2;
    uint8_t *v = n > i ? st_realloc(a, s->v, n) : NULL; /* (a 32-bit size_t) */
    if (!v) {
      *nomem = 1;
      return 1;
    }
    memset(v + s->n, 0, n - s->n);
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
