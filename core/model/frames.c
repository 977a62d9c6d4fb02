/* frames.c: the interned stack-frame table (see frames.h). Parallel arrays
 * grown by doubling and an open-addressing table of (parent, name) -> id. */
#include "frames.h"
#include "slots.h"

struct st_frames {
  st_alloc alloc;
  uint32_t *name, *parent, *depth;
  uint32_t count, cap;
  uint32_t *slots; /* id + 1, 0 = empty; power-of-two size, <= 50% full */
  uint32_t slot_cap;
  int sealed;
};

static uint32_t frame_hash(uint32_t parent, uint32_t name) {
  uint64_t x = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return (uint32_t)x;
}

st_frames *st_frames_create(const st_alloc *a) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_frames *f = st_calloc(&al, 1, sizeof *f);
  if (f) f->alloc = al;
  return f;
}

void st_frames_destroy(st_frames *f) {
  if (!f) return;
  st_alloc a = f->alloc;
  st_free(&a, f->name);
  st_free(&a, f->parent);
  st_free(&a, f->depth);
  st_free(&a, f->slots);
  st_free(&a, f);
}

static uint32_t frame_hash_of(const void *ctx, uint32_t i) {
  const st_frames *f = ctx;
  return frame_hash(f->parent[i], f->name[i]);
}

static int grow_slots(st_frames *f) {
  return st_slots_make_room(&f->alloc, &f->slots, &f->slot_cap, f->count, 256, frame_hash_of, f);
}

static int grow_arrays(st_frames *f) {
  if (f->count < f->cap) return 1;
  void *v[3] = {f->name, f->parent, f->depth};
  static const size_t elem[3] = {sizeof *f->name, sizeof *f->parent, sizeof *f->depth};
  size_t cap = f->cap;
  int ok = st_grow_each(&f->alloc, v, elem, 3, &cap, (size_t)f->count + 1, 256, UINT32_MAX / 2);
  f->name = v[0], f->parent = v[1], f->depth = v[2];
  f->cap = (uint32_t)cap;
  return ok;
}

uint32_t st_frames_intern(st_frames *f, uint32_t parent, uint32_t name) {
  if (!f || f->sealed) return ST_FRAME_NONE;
  if (parent != ST_FRAME_NONE) {
    if (parent >= f->count) return ST_FRAME_NONE;
    if (f->depth[parent] + 1 >= ST_FRAMES_MAX_DEPTH) return parent; /* folded */
  }
  uint32_t h = frame_hash(parent, name);
  if (f->slot_cap) {
    uint32_t m = f->slot_cap - 1;
    for (uint32_t i = h & m, v; (v = f->slots[i]) != 0; i = (i + 1) & m)
      if (f->parent[v - 1] == parent && f->name[v - 1] == name) return v - 1;
  }
  if (f->count >= UINT32_MAX - 2 || !grow_arrays(f) || !grow_slots(f)) return ST_FRAME_NONE;
  uint32_t id = f->count++;
  f->name[id] = name;
  f->parent[id] = parent;
  f->depth[id] = parent == ST_FRAME_NONE ? 0 : f->depth[parent] + 1;
  uint32_t m = f->slot_cap - 1, i = h & m;
  while (f->slots[i]) i = (i + 1) & m;
  f->slots[i] = id + 1;
  return id;
}

void st_frames_seal(st_frames *f) {
  if (!f) return;
  st_free(&f->alloc, f->slots);
  f->slots = NULL;
  f->slot_cap = 0;
  f->sealed = 1;
}

uint32_t st_frames_count(const st_frames *f) { return f ? f->count : 0; }
uint32_t st_frames_parent(const st_frames *f, uint32_t id) {
  return f && id < f->count ? f->parent[id] : ST_FRAME_NONE;
}
uint32_t st_frames_name(const st_frames *f, uint32_t id) {
  return f && id < f->count ? f->name[id] : 0;
}
uint32_t st_frames_depth(const st_frames *f, uint32_t id) {
  return f && id < f->count ? f->depth[id] : 0;
}
size_t st_frames_bytes(const st_frames *f) {
  if (!f) return 0;
  return sizeof *f + (size_t)f->cap * 3 * sizeof(uint32_t) + (size_t)f->slot_cap * sizeof(uint32_t);
}
