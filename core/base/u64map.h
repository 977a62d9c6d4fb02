/* u64map.h: an open-addressing hash map from 64-bit keys to 32-bit values
 * (indices), for importers that look up ids (metadata ids, track uuids,
 * interning ids, flow ids). A plain struct, embeddable; zeroed = empty.
 * UINT32_MAX is reserved (means "absent").
 *
 *   st_u64map m = {0};
 *   if (!st_u64map_put(&m, &alloc, key, index)) ... out of memory
 *   uint32_t v = st_u64map_get(&m, key);   // UINT32_MAX if absent
 *   st_u64map_clear(&m);                   // empty, keeps its memory
 *   st_u64map_free(&m, &alloc);
 */
#ifndef STRATA_U64MAP_H
#define STRATA_U64MAP_H

#include "base.h"

#define ST_U64MAP_NONE UINT32_MAX

typedef struct st_u64map {
  uint64_t *keys;
  uint32_t *vals; /* ST_U64MAP_NONE = empty slot */
  uint32_t cap;   /* power of two (or 0) */
  uint32_t count;
} st_u64map;

/* Inserts or overwrites. Returns 1, or 0 on allocation failure / full. */
int st_u64map_put(st_u64map *m, const st_alloc *a, uint64_t key, uint32_t val);
uint32_t st_u64map_get(const st_u64map *m, uint64_t key);
void st_u64map_clear(st_u64map *m);
void st_u64map_free(st_u64map *m, const st_alloc *a);
size_t st_u64map_bytes(const st_u64map *m);

#endif
