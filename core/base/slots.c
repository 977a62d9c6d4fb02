/* slots.c: the growth of an open-addressing table of indexes (slots.h). */
#include "slots.h"

int st_slots_make_room(const st_alloc *a, uint32_t **slots, uint32_t *cap, uint32_t count,
                       uint32_t first, st_slot_hash_fn hash_of, const void *ctx) {
  if (((uint64_t)count + 1) * 2 <= *cap) return 1;
  uint64_t ncap = *cap ? *cap : first ? first : 16;
  while (((uint64_t)count + 1) * 2 > ncap) ncap *= 2;
  if (ncap > (uint64_t)1 << 31) return 0;
  uint32_t *ns = st_calloc(a, (size_t)ncap, sizeof *ns);
  if (!ns) return 0;
  uint32_t m = (uint32_t)ncap - 1;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t h = hash_of(ctx, i) & m;
    while (ns[h]) h = (h + 1) & m;
    ns[h] = i + 1;
  }
  st_free(a, *slots);
  *slots = ns;
  *cap = (uint32_t)ncap;
  return 1;
}
