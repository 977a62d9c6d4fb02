/* chrome_internal.h: what the pieces of the Chrome JSON importer share
 * (private to chrome_semantics.c, chrome_samples.c and chrome_common.c;
 * nothing else includes it).
 *
 *   import_chrome.c      the event window, top-level keys, the public API
 *   chrome_event.c       one event object -> st_chrome_ev
 *   chrome_semantics.c   what each phase does to the builder
 *   chrome_samples.c     CPU samples, V8 profiles, stackFrames
 *   chrome_common.c      what both of those use: the three-word hash map,
 *                        growing arrays, interning (JSON strings decoded),
 *                        processes and threads met so far and their tracks
 *
 * Call order: a file calls only the files below it, never one above.
 *
 *   import_chrome.c -> chrome_event.c, chrome_semantics.c
 *   chrome_semantics.c -> chrome_samples.c -> chrome_common.c
 *   chrome_semantics.c -> chrome_common.c
 *
 * A helper that two parts need goes into chrome_common.c, not into the part
 * that needed it first.
 */
#ifndef STRATA_CHROME_INTERNAL_H
#define STRATA_CHROME_INTERNAL_H

#include "chrome_semantics.h"

/* short names for chrome_semantics.h's map types */
typedef st_chrome_mkey mkey;
typedef st_chrome_map map;

/* ---- processes and threads ------------------------------------------------- */

typedef struct bopen { /* an open B on a thread */
  int64_t ts;
  uint64_t src;
  uint32_t name, cat;
} bopen;

typedef struct st_chrome_proc {
  int64_t pid;
  uint32_t bidx;     /* builder process */
  uint32_t instants; /* process-scope instant track, UINT32_MAX if none */
  uint8_t named;     /* name set by an M event or a string pid */
  uint8_t counted;
} proc;

typedef struct st_chrome_thread {
  uint32_t proc; /* index into procs */
  int64_t tid;
  uint32_t slices, instants; /* builder tracks, UINT32_MAX if none */
  uint32_t samples;          /* builder samples track (chrome_samples.c), UINT32_MAX if none */
  uint32_t name;
  int32_t sort;
  uint8_t has_name, has_sort, counted;
  bopen *stack;
  uint32_t depth, cap;
} thread;

/* ---- the three-word map (hot: lookups are inline) ---------------------------- */

static inline uint32_t st_chrome_hash_key(mkey k) {
  uint64_t x = k.a * 0x9e3779b97f4a7c15ull ^ (k.b + 0x7f4a7c159e3779b9ull) * 0xbf58476d1ce4e5b9ull ^
               k.c * 0x94d049bb133111ebull;
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return (uint32_t)x;
}

static inline uint32_t st_chrome_map_get(const map *m, mkey k) {
  if (!m->cap) return UINT32_MAX;
  uint32_t mask = m->cap - 1;
  for (uint32_t i = st_chrome_hash_key(k) & mask;; i = (i + 1) & mask) {
    if (m->vals[i] == UINT32_MAX) return UINT32_MAX;
    if (m->keys[i].a == k.a && m->keys[i].b == k.b && m->keys[i].c == k.c) return m->vals[i];
  }
}

/* ---- chrome_common.c --------------------------------------------------------- */

/* Insert or overwrite. 0 on allocation failure. */
int st_chrome_map_put(st_chrome_sem *sem, map *m, mkey k, uint32_t v);
void st_chrome_map_free(st_chrome_sem *sem, map *m);
/* Grows an array so index `count` is valid. 0 on failure. */
int st_chrome_sem_grow(st_chrome_sem *sem, void **p, uint32_t *cap, uint32_t count, size_t elem);
/* Interning of a string value that needs decoding (st_chrome_sem_intern). */
uint32_t st_chrome_sem_intern_decoded(st_chrome_sem *sem, st_json_str s);
/* The process of pid, made on first use (UINT32_MAX on failure). */
uint32_t st_chrome_sem_proc_by_key(st_chrome_sem *sem, int64_t pid);
/* The event's process (pid 0 if absent); counts it as seen. UINT32_MAX on
 * failure. */
uint32_t st_chrome_sem_proc(st_chrome_sem *sem, const st_chrome_ev *e);
/* The event's thread in process pi (tid = pid if absent). count: it carries
 * a non-M event. UINT32_MAX on failure. */
uint32_t st_chrome_sem_thread(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi, int count);
/* Makes the thread's builder track of that kind into *slot (st_chrome_sem_thread_track). */
uint32_t st_chrome_sem_track_make(st_chrome_sem *sem, thread *t, st_track_kind kind,
                                  uint32_t *slot);
/* The samples track of the event's thread in process pi (after the
 * thread's slice track, so it is drawn under it; UINT32_MAX on failure). */
uint32_t st_chrome_sem_samples_track(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi);

/* ---- hot paths, inline (calls per event; no LTO) ------------------------------ */

/* Interning: bytes, or a JSON string value (decoded); ST_STR_EMPTY and nomem
 * on failure. */
static inline uint32_t st_chrome_sem_intern_bytes(st_chrome_sem *sem, const char *s, size_t n) {
  uint32_t id = st_strtab_intern(sem->strs, s, n);
  if (id == ST_STR_NONE) {
    sem->nomem = 1;
    return ST_STR_EMPTY;
  }
  return id;
}

/* the replay's memo (chrome_semantics.h): direct-mapped by address */
#define ST_CHROME_MEMO_SLOTS 4096u
#define ST_CHROME_MEMO_SHORT 1024u
typedef struct st_chrome_memo {
  const char *p[ST_CHROME_MEMO_SLOTS];
  size_t n[ST_CHROME_MEMO_SLOTS];
  uint32_t id[ST_CHROME_MEMO_SLOTS];
  /* strings of at most 8 bytes (a worker stores them inline, each at its
   * own address): by content; tag = length | escapes << 4, 0 = empty slot */
  uint64_t short_key[ST_CHROME_MEMO_SHORT];
  uint8_t short_tag[ST_CHROME_MEMO_SHORT];
  uint32_t short_id[ST_CHROME_MEMO_SHORT];
} st_chrome_memo;

static inline uint32_t st_chrome_sem_intern_text(st_chrome_sem *sem, st_json_str s) {
  if (!s.esc && st_json_plain_utf8(s.p, s.n)) return st_chrome_sem_intern_bytes(sem, s.p, s.n);
  return st_chrome_sem_intern_decoded(sem, s);
}

static inline uint32_t st_chrome_sem_intern(st_chrome_sem *sem, st_json_str s) {
  if (s.n == 0) return ST_STR_EMPTY;
  if (!sem->memo_on) return st_chrome_sem_intern_text(sem, s);
  st_chrome_memo *m = sem->memo;
  if (s.n <= 8) {
    uint64_t k = 0;
    memcpy(&k, s.p, s.n);
    uint8_t tag = (uint8_t)(s.n | (s.esc ? 16 : 0));
    uint32_t h = (uint32_t)(((k ^ tag) * 0x9E3779B97F4A7C15ull) >> 54);
    if (m->short_tag[h] == tag && m->short_key[h] == k) return m->short_id[h];
    uint32_t id = st_chrome_sem_intern_text(sem, s);
    m->short_key[h] = k;
    m->short_tag[h] = tag;
    m->short_id[h] = id;
    return id;
  }
  /* the same bytes at the same address of one result: the same string */
  uint32_t h = (uint32_t)(((uint64_t)(uintptr_t)s.p * 0x9E3779B97F4A7C15ull) >> 52);
  if (m->p[h] == s.p && m->n[h] == s.n) return m->id[h];
  uint32_t id = st_chrome_sem_intern_text(sem, s);
  m->p[h] = s.p;
  m->n[h] = s.n;
  m->id[h] = id;
  return id;
}

/* The thread's builder track of that kind, made on first use. */
static inline uint32_t st_chrome_sem_thread_track(st_chrome_sem *sem, thread *t,
                                                  st_track_kind kind) {
  uint32_t *slot = kind == ST_TRACK_SLICES    ? &t->slices
                   : kind == ST_TRACK_SAMPLES ? &t->samples
                                              : &t->instants;
  return *slot != UINT32_MAX ? *slot : st_chrome_sem_track_make(sem, t, kind, slot);
}

#endif
