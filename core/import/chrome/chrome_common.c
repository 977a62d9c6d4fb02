/* chrome_common.c: what the Chrome JSON importer's semantics and samples
 * share (see chrome_internal.h for the call order): the three-word hash
 * map, growing arrays, interning of JSON strings that need decoding, and
 * the processes and threads met so far with their builder tracks (the map
 * lookup, plain interning and known tracks are inline in chrome_internal.h:
 * calls per event). A pid or tid that is a string and not an integer is
 * interned and keyed ST_CHROME_STRING_KEY + id (import_chrome.h); its
 * string names the process or thread.
 *
 * Contents
 *   1. maps, arrays, interning
 *   2. processes and threads
 */
#include "chrome_internal.h"

#include "import_chrome.h" /* ST_CHROME_STRING_KEY */

#include <string.h>

/* ==== 1. maps, arrays, interning ========================================== */

static void map_set_slot(map *m, mkey k, uint32_t v) {
  uint32_t mask = m->cap - 1, i = st_chrome_hash_key(k) & mask;
  while (m->vals[i] != UINT32_MAX) {
    if (m->keys[i].a == k.a && m->keys[i].b == k.b && m->keys[i].c == k.c) {
      m->vals[i] = v;
      return;
    }
    i = (i + 1) & mask;
  }
  m->keys[i] = k;
  m->vals[i] = v;
  m->count++;
}

/* Insert or overwrite. 0 on allocation failure. */
int st_chrome_map_put(st_chrome_sem *sem, map *m, mkey k, uint32_t v) {
  if ((uint64_t)(m->count + 1) * 2 > m->cap) {
    uint32_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap < m->cap) return 0;
    mkey *nk = st_malloc(&sem->alloc, (size_t)ncap * sizeof *nk);
    uint32_t *nv = st_malloc(&sem->alloc, (size_t)ncap * sizeof *nv);
    if (!nk || !nv) {
      st_free(&sem->alloc, nk);
      st_free(&sem->alloc, nv);
      return 0;
    }
    memset(nv, 0xFF, (size_t)ncap * sizeof *nv);
    map old = *m;
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    m->count = 0;
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.vals[i] != UINT32_MAX) map_set_slot(m, old.keys[i], old.vals[i]);
    st_free(&sem->alloc, old.keys);
    st_free(&sem->alloc, old.vals);
  }
  map_set_slot(m, k, v);
  return 1;
}

void st_chrome_map_free(st_chrome_sem *sem, map *m) {
  st_free(&sem->alloc, m->keys);
  st_free(&sem->alloc, m->vals);
}

/* Grows an array so index `count` is valid. 0 on failure. */
int st_chrome_sem_grow(st_chrome_sem *sem, void **p, uint32_t *cap, uint32_t count, size_t elem) {
  return st_grow32(&sem->alloc, p, cap, (size_t)count + 1, elem, 16);
}

/* A string value that has escapes or is not plain UTF-8: decoded into the
 * scratch buffer (JSON escapes, invalid UTF-8 -> U+FFFD), then interned. */
uint32_t st_chrome_sem_intern_decoded(st_chrome_sem *sem, st_json_str s) {
  size_t need;
  if (!st_mul_size(s.n, 3, &need) || !st_add_size(need, 8, &need)) {
    sem->nomem = 1;
    return st_chrome_sem_intern_bytes(sem, "", 0);
  }
  if (need > sem->scratch_cap) {
    char *p = st_realloc(&sem->alloc, sem->scratch, need);
    if (!p) {
      sem->nomem = 1;
      return st_chrome_sem_intern_bytes(sem, "", 0);
    }
    sem->scratch = p;
    sem->scratch_cap = need;
  }
  size_t n = st_json_unescape(s.p, s.n, sem->scratch);
  return st_chrome_sem_intern_bytes(sem, sem->scratch, n);
}

/* ==== 2. processes and threads ============================================ */

/* pid/tid value -> key; string non-integers are interned (name_out set). */
static int64_t key_of(st_chrome_sem *sem, const st_chrome_id *v, uint32_t *name_out) {
  *name_out = ST_STR_EMPTY;
  if (v->kind == ST_CHROME_ID_NUM) return v->num;
  if (v->kind == ST_CHROME_ID_STR) {
    int64_t k;
    if (!v->s.esc && st_json_int_key(v->s.p, v->s.n, &k)) return k;
    uint32_t id = st_chrome_sem_intern(sem, v->s);
    *name_out = id;
    return ST_CHROME_STRING_KEY + (int64_t)id;
  }
  return 0;
}

static uint32_t proc_by_key(st_chrome_sem *sem, int64_t pid) {
  mkey k = {(uint64_t)pid, 0, 0};
  uint32_t i = st_chrome_map_get(&sem->proc_map, k);
  if (i != UINT32_MAX) return i;
  uint32_t bidx = st_builder_process(sem->b, pid);
  if (bidx == UINT32_MAX ||
      !st_chrome_sem_grow(sem, (void **)&sem->procs, &sem->cprocs, sem->nprocs, sizeof(proc))) {
    sem->nomem = 1;
    return UINT32_MAX;
  }
  i = sem->nprocs;
  if (!st_chrome_map_put(sem, &sem->proc_map, k, i)) {
    sem->nomem = 1;
    return UINT32_MAX;
  }
  sem->procs[i] = (proc){pid, bidx, UINT32_MAX, 0, 0};
  sem->nprocs++;
  return i;
}

uint32_t st_chrome_sem_proc_by_key(st_chrome_sem *sem, int64_t pid) {
  return proc_by_key(sem, pid);
}

/* The event's process (pid 0 if absent); counts it as seen. */
uint32_t st_chrome_sem_proc(st_chrome_sem *sem, const st_chrome_ev *e) {
  uint32_t name;
  int64_t pid = key_of(sem, &e->pid, &name);
  uint32_t i = proc_by_key(sem, pid);
  if (i == UINT32_MAX) return i;
  proc *p = &sem->procs[i];
  if (!p->counted) {
    p->counted = 1;
    sem->stats->processes++;
  }
  if (name != ST_STR_EMPTY && !p->named) {
    p->named = 1;
    st_builder_process_name(sem->b, p->bidx, name);
  }
  return i;
}

/* The event's thread (tid = pid if absent). count: it carries a non-M event. */
uint32_t st_chrome_sem_thread(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi, int count) {
  uint32_t tname = ST_STR_EMPTY;
  int64_t tid = e->tid.kind ? key_of(sem, &e->tid, &tname) : sem->procs[pi].pid;
  int64_t pid = sem->procs[pi].pid;
  uint32_t i;
  if (sem->last_thread != UINT32_MAX && sem->last_pid == pid && sem->last_tid == tid) {
    i = sem->last_thread;
  } else {
    mkey k = {pi, (uint64_t)tid, 1};
    i = st_chrome_map_get(&sem->thread_map, k);
    if (i == UINT32_MAX) {
      if (!st_chrome_sem_grow(sem, (void **)&sem->threads, &sem->cthreads, sem->nthreads,
                              sizeof(thread))) {
        sem->nomem = 1;
        return UINT32_MAX;
      }
      i = sem->nthreads;
      if (!st_chrome_map_put(sem, &sem->thread_map, k, i)) {
        sem->nomem = 1;
        return UINT32_MAX;
      }
      sem->threads[i] = (thread){.proc = pi,
                                 .tid = tid,
                                 .slices = UINT32_MAX,
                                 .instants = UINT32_MAX,
                                 .samples = UINT32_MAX};
      sem->nthreads++;
    }
    sem->last_thread = i;
    sem->last_pid = pid;
    sem->last_tid = tid;
  }
  thread *t = &sem->threads[i];
  if (tname != ST_STR_EMPTY && !t->has_name) {
    t->has_name = 1;
    t->name = tname;
    if (t->slices != UINT32_MAX) st_builder_track_name(sem->b, t->slices, tname);
    if (t->instants != UINT32_MAX) st_builder_track_name(sem->b, t->instants, tname);
  }
  if (count && !t->counted) {
    t->counted = 1;
    sem->stats->threads++;
  }
  return i;
}

uint32_t st_chrome_sem_track_make(st_chrome_sem *sem, thread *t, st_track_kind kind,
                                  uint32_t *slot) {
  uint32_t tr = st_builder_track(sem->b, sem->procs[t->proc].bidx, kind, t->tid, t->name);
  if (tr == UINT32_MAX) {
    sem->nomem = 1;
    return tr;
  }
  if (t->has_sort) st_builder_track_sort(sem->b, tr, t->sort);
  *slot = tr;
  return tr;
}

uint32_t st_chrome_sem_samples_track(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  uint32_t ti = st_chrome_sem_thread(sem, e, pi, 1);
  if (ti == UINT32_MAX) return UINT32_MAX;
  thread *t = &sem->threads[ti];
  if (t->samples == UINT32_MAX && st_chrome_sem_thread_track(sem, t, ST_TRACK_SLICES) == UINT32_MAX)
    return UINT32_MAX;
  return st_chrome_sem_thread_track(sem, t, ST_TRACK_SAMPLES);
}
