/* strtab.c: string interning with open addressing (see strtab.h).
 *
 * Bytes live in large blocks that never move (so returned pointers stay
 * valid); an id indexes an (offset-pointer, length) array; the hash table
 * maps FNV-1a hashes to ids and doubles at 50% load. */
#include "strtab.h"
#include "slots.h"

#include <string.h>

#include "scan_simd.h"

#define BLOCK_MIN (64u * 1024u)

typedef struct entry {
  const char *s;
  uint32_t len;
  uint32_t hash;
} entry;

typedef struct block {
  struct block *next;
  size_t used, cap;
  char data[];
} block;

struct st_strtab {
  st_alloc alloc;
  entry *entries; /* by id */
  uint32_t count, cap;
  uint32_t *slots;   /* id + 1, 0 = empty */
  uint32_t slot_cap; /* power of two */
  block *blocks;
  size_t bytes;
};

/* 8 bytes per step (a multiply-xorshift mix per word, the shape of
 * wyhash/rapidhash's inner loop, simplified): names are interned once per
 * event, and byte-at-a-time FNV was ~7% of a whole import. Byte order does
 * not matter: the hash only places slots, ids come from insertion order. */
static uint64_t load64(const char *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  return v;
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return x;
}

static uint32_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) h = mix64(h ^ load64(s + i)) * 0x9fb21c651e98df25ull;
  if (i < n) {
    uint64_t tail = 0;
    memcpy(&tail, s + i, n - i);
    h = mix64(h ^ tail) * 0x9fb21c651e98df25ull;
  }
  h = mix64(h);
  return (uint32_t)(h ^ h >> 32);
}

static char *store(st_strtab *t, const char *s, size_t len) {
  size_t need;
  if (!st_add_size(len, 1, &need)) return NULL;
  block *b = t->blocks;
  if (!b || b->cap - b->used < need) {
    size_t cap = need > BLOCK_MIN ? need : BLOCK_MIN, total;
    if (!st_add_size(sizeof(block), cap, &total)) return NULL;
    block *nb = st_malloc(&t->alloc, total);
    if (!nb) return NULL;
    nb->used = 0;
    nb->cap = cap;
    t->bytes += total;
    /* keep the current (partly free) block in front if the new one is a
     * one-off for a big string, so small strings keep filling it */
    if (b && need > BLOCK_MIN) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      t->blocks = nb;
    }
    b = nb;
  }
  char *p = b->data + b->used;
  if (len) memcpy(p, s, len);
  p[len] = 0;
  b->used += need;
  return p;
}

static uint32_t entry_hash_of(const void *ctx, uint32_t id) {
  return ((const st_strtab *)ctx)->entries[id].hash;
}

static int grow_slots(st_strtab *t) {
  uint32_t before = t->slot_cap;
  if (!st_slots_make_room(&t->alloc, &t->slots, &t->slot_cap, t->count, 1024, entry_hash_of, t))
    return 0;
  t->bytes += (size_t)(t->slot_cap - before) * sizeof *t->slots;
  return 1;
}

st_strtab *st_strtab_create(const st_alloc *a) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_strtab *t = st_calloc(&al, 1, sizeof *t);
  if (!t) return NULL;
  t->alloc = al;
  if (st_strtab_intern(t, "", 0) != ST_STR_EMPTY) {
    st_strtab_destroy(t);
    return NULL;
  }
  return t;
}

void st_strtab_destroy(st_strtab *t) {
  if (!t) return;
  st_alloc a = t->alloc;
  for (block *b = t->blocks, *n; b; b = n) {
    n = b->next;
    st_free(&a, b);
  }
  st_free(&a, t->entries);
  st_free(&a, t->slots);
  st_free(&a, t);
}

uint32_t st_strtab_intern(st_strtab *t, const char *s, size_t len) {
  if (!t || len > UINT32_MAX - 1 || (!s && len)) return ST_STR_NONE;
  uint32_t h = hash_bytes(s, len);
  if (t->slot_cap) {
    uint32_t i = h & (t->slot_cap - 1);
    for (uint32_t id1; (id1 = t->slots[i]) != 0; i = (i + 1) & (t->slot_cap - 1)) {
      const entry *e = &t->entries[id1 - 1];
      if (e->hash == h && e->len == len && st_scan_equal(e->s, s, len)) return id1 - 1;
    }
  }
  if (t->count >= UINT32_MAX - 2) return ST_STR_NONE;
  if ((uint64_t)(t->count + 1) * 2 > t->slot_cap && !grow_slots(t)) return ST_STR_NONE;
  if (t->count == t->cap) {
    uint32_t old = t->cap;
    void *ne = t->entries;
    if (!st_grow32(&t->alloc, &ne, &t->cap, (size_t)t->count + 1, sizeof *t->entries, 1024))
      return ST_STR_NONE;
    t->bytes += (size_t)(t->cap - old) * sizeof *t->entries;
    t->entries = ne;
  }
  char *p = store(t, s, len);
  if (!p) return ST_STR_NONE;
  uint32_t id = t->count++;
  t->entries[id] = (entry){p, (uint32_t)len, h};
  uint32_t i = h & (t->slot_cap - 1);
  while (t->slots[i]) i = (i + 1) & (t->slot_cap - 1);
  t->slots[i] = id + 1;
  return id;
}

const char *st_strtab_get(const st_strtab *t, uint32_t id, size_t *len) {
  if (!t || id >= t->count) {
    if (len) *len = 0;
    return "";
  }
  if (len) *len = t->entries[id].len;
  return t->entries[id].s;
}

uint32_t st_strtab_count(const st_strtab *t) { return t ? t->count : 0; }
size_t st_strtab_bytes(const st_strtab *t) { return t ? t->bytes + sizeof *t : 0; }
