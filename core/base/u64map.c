/* u64map.c: linear-probing hash map, 64-bit keys -> 32-bit values (see
 * u64map.h). Doubles at 50% load; the multiplicative hash spreads
 * sequential ids (the common case) across the table. */
#include "u64map.h"

#include <string.h>

static uint32_t slot_of(uint64_t key, uint32_t mask) {
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 32) & mask;
}

static int grow(st_u64map *m, const st_alloc *a) {
  uint32_t ncap = m->cap ? m->cap * 2 : 64;
  if (ncap < m->cap || ncap > (1u << 31)) return 0;
  uint64_t *keys = st_calloc(a, ncap, sizeof *keys);
  uint32_t *vals = st_malloc(a, (size_t)ncap * sizeof *vals);
  if (!keys || !vals) {
    st_free(a, keys);
    st_free(a, vals);
    return 0;
  }
  memset(vals, 0xFF, (size_t)ncap * sizeof *vals);
  for (uint32_t i = 0; i < m->cap; i++) {
    if (m->vals[i] == ST_U64MAP_NONE) continue;
    uint32_t j = slot_of(m->keys[i], ncap - 1);
    while (vals[j] != ST_U64MAP_NONE) j = (j + 1) & (ncap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  st_free(a, m->keys);
  st_free(a, m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = ncap;
  return 1;
}

int st_u64map_put(st_u64map *m, const st_alloc *a, uint64_t key, uint32_t val) {
  if (val == ST_U64MAP_NONE) return 0;
  if ((m->count + 1) * 2 > m->cap && !grow(m, a)) return 0;
  uint32_t mask = m->cap - 1, i = slot_of(key, mask);
  while (m->vals[i] != ST_U64MAP_NONE) {
    if (m->keys[i] == key) {
      m->vals[i] = val;
      return 1;
    }
    i = (i + 1) & mask;
  }
  m->keys[i] = key;
  m->vals[i] = val;
  m->count++;
  return 1;
}

uint32_t st_u64map_get(const st_u64map *m, uint64_t key) {
  if (!m->cap) return ST_U64MAP_NONE;
  uint32_t mask = m->cap - 1, i = slot_of(key, mask);
  while (m->vals[i] != ST_U64MAP_NONE) {
    if (m->keys[i] == key) return m->vals[i];
    i = (i + 1) & mask;
  }
  return ST_U64MAP_NONE;
}

void st_u64map_clear(st_u64map *m) {
  if (m->cap) memset(m->vals, 0xFF, (size_t)m->cap * sizeof *m->vals);
  m->count = 0;
}

void st_u64map_free(st_u64map *m, const st_alloc *a) {
  st_free(a, m->keys);
  st_free(a, m->vals);
  memset(m, 0, sizeof *m);
}

size_t st_u64map_bytes(const st_u64map *m) {
  return (size_t)m->cap * (sizeof *m->keys + sizeof *m->vals);
}
