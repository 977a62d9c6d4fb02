/* slots.h: the growth of an open-addressing table of indexes, the hash
 * tables of the string table, the builder's processes and tracks and the
 * flame graph's frames. A slot holds an entry's index + 1 (0: empty); the
 * table is a power of two, probed linearly, and keeps at most half its slots
 * full. It has no keys of its own: growing it re-inserts each entry by the
 * hash its owner computes from the entry (hash_of(ctx, i)). Lookups and
 * inserts stay with the owner, who compares its own keys. */
#ifndef ST_SLOTS_H
#define ST_SLOTS_H

#include "base.h"

#include <stdint.h>

typedef uint32_t (*st_slot_hash_fn)(const void *ctx, uint32_t i);

/* Makes room for entry `count` (entries [0, count) are in the table): when
 * count + 1 entries would fill more than half of *cap slots, a table doubled
 * from *cap (from `first`, a power of two, when 0) takes entries [0, count)
 * again. 1 when there is room; 0 on failure or past 2^31 slots, the table
 * intact. */
int st_slots_make_room(const st_alloc *a, uint32_t **slots, uint32_t *cap, uint32_t count,
                       uint32_t first, st_slot_hash_fn hash_of, const void *ctx);

#endif
