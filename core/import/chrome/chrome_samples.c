/* chrome_samples.c: CPU samples of Chrome trace JSON (see chrome_samples.h).
 *
 * Contents
 *   1. state
 *   2. JSON helpers: array iteration, member lookup, ids as map keys
 *   3. adding samples
 *   4. V8 profiles: Profile, ProfileChunk (nodes, samples, timeDeltas)
 *   5. other P events, top-level samples and stackFrames
 *   6. end of input, set-up
 */
#include "chrome_samples.h"

#include "chrome_internal.h"

#include "frames.h"
#include "u64map.h"

#include <stdio.h>
#include <string.h>

/* ==== 1. state =========================================================== */

typedef struct profile { /* one V8 profile: (pid, id) */
  uint32_t track;        /* the sampled thread's samples track */
  uint32_t chunks;       /* chunks seen */
  int64_t t;             /* time of the last sample, ns (startTime + deltas so far) */
} profile;

typedef struct sfdef { /* one top-level stackFrames entry */
  uint32_t name;
  uint32_t frame;  /* resolved frame, ST_FRAME_NONE until resolved */
  uint64_t parent; /* key of the parent entry, UINT64_MAX: a root */
  uint8_t state;   /* 0 unresolved, 1 being resolved, 2 resolved */
} sfdef;

typedef struct pending { /* a sample naming a stackFrames entry */
  int64_t ts;
  uint64_t key; /* sf key */
  uint64_t src;
  uint32_t track;
} pending;

typedef struct cnode { /* a node of the chunk being read */
  int64_t id, parent;  /* parent -1: none given */
  uint32_t name;
  uint8_t state; /* 0 unresolved, 1 being resolved, 2 resolved */
} cnode;

typedef struct st_chrome_prof {
  st_frames *frames; /* the builder's */
  profile *profs;
  uint32_t nprofs, cprofs;
  st_u64map prof_map; /* (process << 32 | id string) -> profile */
  st_u64map node_map; /* (profile << 32 | node id) -> frame */
  sfdef *defs;
  uint32_t ndefs, cdefs;
  st_u64map def_map; /* sf key -> def */
  pending *pend;
  size_t npend, cpend;
  cnode *cn; /* the current chunk's nodes */
  uint32_t ncn, ccn;
  st_u64map cn_map; /* node id -> index in cn */
  uint32_t *stack;  /* resolution stack (ccn or ndefs entries) */
  uint32_t cstack;
  uint32_t anonymous; /* "(anonymous)" */
} prof;

static prof *state(st_chrome_sem *sem) {
  if (sem->prof) return sem->prof;
  prof *p = st_calloc(&sem->alloc, 1, sizeof *p);
  st_frames *f = st_builder_frames(sem->b);
  if (!p || !f) {
    st_free(&sem->alloc, p);
    sem->nomem = 1;
    return NULL;
  }
  p->frames = f;
  p->anonymous = st_chrome_sem_intern_bytes(sem, "(anonymous)", 11);
  sem->prof = p;
  return p;
}

/* Grows an array so index `count` is valid. 0 (and nomem) on failure. */
static int grow(st_chrome_sem *sem, void **a, uint32_t *cap, uint32_t count, size_t elem) {
  if (st_grow32(&sem->alloc, a, cap, (size_t)count + 1, elem, 64)) return 1;
  sem->nomem = 1;
  return 0;
}

static void warn(st_chrome_sem *sem, const char *kind) {
  st_stats_warn(sem->stats, kind, sem->cur_src);
}

/* ==== 2. JSON helpers ==================================================== */

typedef struct arrit {
  const char *p, *end;
} arrit;

/* The elements of the array [v, vend); none if it is not an array. */
static arrit arrit_of(const char *v, const char *vend) {
  arrit it = {vend, vend};
  if (v && v < vend && *v == '[') it = (arrit){v + 1, vend - 1};
  return it;
}

static int arrit_next(arrit *it, const char **v, const char **vend) {
  const char *p = st_json_ws(it->p, it->end), *q;
  if (p < it->end && *p == ',') p = st_json_ws(p + 1, it->end);
  if (p >= it->end) return 0;
  unsigned c = (unsigned char)*p;
  if (c == '-' || (c >= '0' && c <= '9')) { /* numbers (samples, deltas): the common case */
    q = st_json_number_end(p, it->end);
    if (q == p) return 0;
  } else if (st_json_skip_value(p, it->end, &q) != ST_JSON_OK) {
    q = st_json_number_end(p, it->end); /* a number ending at the array's end */
    if (q == p) return 0;
  }
  *v = p;
  *vend = q;
  it->p = q;
  return 1;
}

/* The value of member `name` of the object [v, vend); 0 if absent. */
static int member(const char *v, const char *vend, const char *name, const char **mv,
                  const char **mve) {
  st_chrome_objit it = st_chrome_objit_of(v, vend);
  st_json_str k;
  while (st_chrome_objit_next(&it, &k, mv, mve))
    if (st_chrome_str_eq(k, name)) return 1;
  return 0;
}

/* Several members of the object [v, vend) in one pass: mv[i] / mve[i] get
 * the value of names[i] (NULL if absent). */
static void members(const char *v, const char *vend, const char *const *names, int n,
                    const char **mv, const char **mve) {
  for (int i = 0; i < n; i++) mv[i] = mve[i] = NULL;
  st_chrome_objit it = st_chrome_objit_of(v, vend);
  st_json_str k;
  const char *a, *ae;
  while (st_chrome_objit_next(&it, &k, &a, &ae))
    for (int i = 0; i < n; i++)
      if (!mv[i] && st_chrome_str_eq(k, names[i])) {
        mv[i] = a;
        mve[i] = ae;
      }
}

static int value_int(const char *v, const char *vend, int64_t *out) {
  st_json_str s;
  if (st_chrome_value_str(v, vend, &s)) return !s.esc && st_json_int_key(s.p, s.n, out);
  return st_json_int_key(v, (size_t)(vend - v), out);
}

/* An sf / stackFrames id as a map key: integers (also as strings) by
 * value, other strings by interned id; UINT64_MAX if absent. */
#define KEY_STR (1ull << 62)
static uint64_t str_key(st_chrome_sem *sem, st_json_str s) {
  int64_t n;
  if (!s.esc && st_json_int_key(s.p, s.n, &n)) return (uint64_t)n & (KEY_STR - 1);
  return KEY_STR | st_chrome_sem_intern(sem, s);
}
static uint64_t value_key(st_chrome_sem *sem, const char *v, const char *vend) {
  st_json_str s;
  int64_t n;
  if (st_chrome_value_str(v, vend, &s)) return str_key(sem, s);
  if (st_json_int_key(v, (size_t)(vend - v), &n)) return (uint64_t)n & (KEY_STR - 1);
  return UINT64_MAX;
}

/* A function name: the string, or "(anonymous)" if empty / not a string. */
static uint32_t func_name(st_chrome_sem *sem, prof *p, const char *v, const char *vend) {
  st_json_str s;
  if (!v || !st_chrome_value_str(v, vend, &s) || s.n == 0) return p->anonymous;
  return st_chrome_sem_intern(sem, s);
}

/* ==== 3. adding samples ================================================== */

static void add_sample(st_chrome_sem *sem, prof *p, uint32_t track, int64_t ts, uint32_t frame,
                       uint64_t src) {
  if (track == UINT32_MAX || frame == ST_FRAME_NONE) return;
  st_code c = st_builder_slice(sem->b, track, ts, 0, st_frames_name(p->frames, frame), frame, src,
                               ST_EV_INSTANT);
  if (c == ST_ERR_NOMEM) {
    sem->nomem = 1;
    return;
  }
  if (c != ST_OK) {
    warn(sem, "builder_limit");
    return;
  }
  sem->stats->samples++;
  st_stats_time(sem->stats, ts, ts);
}

static void add_pending(st_chrome_sem *sem, prof *p, uint32_t track, int64_t ts, uint64_t key) {
  if (track == UINT32_MAX) return;
  if (p->npend == p->cpend) {
    void *n = p->pend;
    if (!st_grow_from(&sem->alloc, &n, &p->cpend, p->npend + 1, sizeof *p->pend, 256)) {
      sem->nomem = 1;
      return;
    }
    p->pend = n;
  }
  p->pend[p->npend++] = (pending){ts, key, sem->cur_src, track};
}

/* ==== 4. V8 profiles ===================================================== */

/* A new profile on the event's thread from its ts (UINT32_MAX on failure). */
static uint32_t new_profile(st_chrome_sem *sem, prof *p, const st_chrome_ev *e, uint32_t pi) {
  if (!grow(sem, (void **)&p->profs, &p->cprofs, p->nprofs, sizeof *p->profs)) return UINT32_MAX;
  p->profs[p->nprofs] = (profile){st_chrome_sem_samples_track(sem, e, pi), 0, e->ts};
  return p->nprofs++;
}

/* The profile of (process pi, event id), created if absent (UINT32_MAX on
 * failure or without an id). */
static uint32_t profile_of(st_chrome_sem *sem, prof *p, const st_chrome_ev *e, uint32_t pi,
                           int *created) {
  *created = 0;
  uint32_t idstr;
  if (e->id.kind == ST_CHROME_ID_STR) {
    idstr = st_chrome_sem_intern(sem, e->id.s);
  } else if (e->id.kind == ST_CHROME_ID_NUM) {
    char num[32];
    int n = snprintf(num, sizeof num, "%lld", (long long)e->id.num);
    idstr = st_chrome_sem_intern_bytes(sem, num, (size_t)n);
  } else {
    idstr = ST_STR_EMPTY; /* one anonymous profile per process */
  }
  uint64_t key = (uint64_t)pi << 32 | idstr;
  uint32_t i = st_u64map_get(&p->prof_map, key);
  if (i != ST_U64MAP_NONE) return i;
  i = new_profile(sem, p, e, pi);
  if (i != UINT32_MAX && !st_u64map_put(&p->prof_map, &sem->alloc, key, i)) {
    sem->nomem = 1;
    return UINT32_MAX;
  }
  *created = i != UINT32_MAX;
  return i;
}

static void on_profile(st_chrome_sem *sem, prof *p, const st_chrome_ev *e, uint32_t pi) {
  int created;
  uint32_t pr = profile_of(sem, p, e, pi, &created);
  if (pr == UINT32_MAX) return;
  profile *f = &p->profs[pr];
  if (!created && f->chunks) return; /* a late Profile cannot move samples already placed */
  f->track = st_chrome_sem_samples_track(sem, e, pi);
  f->t = e->ts;
  const char *d, *de, *v, *ve;
  int64_t start;
  if (member(e->args, e->args_end, "data", &d, &de) && member(d, de, "startTime", &v, &ve) &&
      st_chrome_value_ns(v, ve, &start))
    f->t = start;
}

/* Reads the chunk's nodes into p->cn (and cn_map). */
static int read_nodes(st_chrome_sem *sem, prof *p, const char *nv, const char *nve) {
  p->ncn = 0;
  st_u64map_clear(&p->cn_map);
  arrit it = arrit_of(nv, nve);
  const char *v, *ve, *m, *me, *fv, *fve;
  while (arrit_next(&it, &v, &ve)) {
    int64_t id;
    if (!member(v, ve, "id", &m, &me) || !value_int(m, me, &id)) continue;
    int64_t parent = -1;
    if (member(v, ve, "parent", &m, &me) && !value_int(m, me, &parent)) parent = -1;
    uint32_t name = p->anonymous;
    if (member(v, ve, "callFrame", &m, &me) && member(m, me, "functionName", &fv, &fve))
      name = func_name(sem, p, fv, fve);
    if (!grow(sem, (void **)&p->cn, &p->ccn, p->ncn, sizeof *p->cn)) return 0;
    if (!st_u64map_put(&p->cn_map, &sem->alloc, (uint64_t)id, p->ncn)) {
      sem->nomem = 1;
      return 0;
    }
    p->cn[p->ncn++] = (cnode){id, parent, name, 0};
  }
  /* the older form lists children instead of parents */
  it = arrit_of(nv, nve);
  while (arrit_next(&it, &v, &ve)) {
    int64_t id, child;
    if (!member(v, ve, "children", &m, &me) || !member(v, ve, "id", &fv, &fve) ||
        !value_int(fv, fve, &id))
      continue;
    arrit ci = arrit_of(m, me);
    const char *c, *ce;
    while (arrit_next(&ci, &c, &ce)) {
      if (!value_int(c, ce, &child)) continue;
      uint32_t k = st_u64map_get(&p->cn_map, (uint64_t)child);
      if (k != ST_U64MAP_NONE && p->cn[k].parent < 0) p->cn[k].parent = id;
    }
  }
  return 1;
}

/* Gives every node of the chunk a frame (parents first; a cycle or an
 * unknown parent makes a root) and records it in node_map. */
static void resolve_nodes(st_chrome_sem *sem, prof *p, uint32_t pr) {
  if (p->cstack < p->ncn) {
    uint32_t *s = st_realloc_array(&sem->alloc, p->stack, p->ncn, sizeof *s);
    if (!s) {
      sem->nomem = 1;
      return;
    }
    p->stack = s;
    p->cstack = p->ncn;
  }
  for (uint32_t i = 0; i < p->ncn; i++) {
    if (p->cn[i].state == 2) continue;
    uint32_t sp = 0;
    p->stack[sp++] = i;
    p->cn[i].state = 1;
    while (sp) {
      cnode *n = &p->cn[p->stack[sp - 1]];
      uint32_t pf = ST_FRAME_NONE;
      if (n->parent >= 0 && n->parent <= UINT32_MAX) {
        uint32_t k = st_u64map_get(&p->cn_map, (uint64_t)n->parent);
        if (k != ST_U64MAP_NONE && p->cn[k].state == 0) { /* parent first */
          p->cn[k].state = 1;
          p->stack[sp++] = k;
          continue;
        }
        pf = st_u64map_get(&p->node_map, (uint64_t)pr << 32 | (uint64_t)n->parent);
        if (pf == ST_U64MAP_NONE) {
          pf = ST_FRAME_NONE;
          warn(sem, "stack_frame_unknown_parent"); /* or a cycle: a root */
        }
      }
      uint32_t f = st_frames_intern(p->frames, pf, n->name);
      if (f == ST_FRAME_NONE) {
        sem->nomem = 1;
        return;
      }
      if (n->id >= 0 && n->id <= UINT32_MAX &&
          !st_u64map_put(&p->node_map, &sem->alloc, (uint64_t)pr << 32 | (uint64_t)n->id, f)) {
        sem->nomem = 1;
        return;
      }
      n->state = 2;
      sp--;
    }
  }
}

/* A ProfileChunk (whole = 0), or a whole profile in one event (whole = 1:
 * the older "CpuProfile" event, a profile of its own, from
 * cpuProfile.startTime). */
static void on_chunk(st_chrome_sem *sem, prof *p, const st_chrome_ev *e, uint32_t pi, int whole) {
  int created = 0;
  uint32_t pr = whole ? new_profile(sem, p, e, pi) : profile_of(sem, p, e, pi, &created);
  if (pr == UINT32_MAX) return;
  if (created) warn(sem, "profile_chunk_without_profile");
  p->profs[pr].chunks++;
  const char *d, *de;
  if (!member(e->args, e->args_end, "data", &d, &de)) return;
  static const char *const data_keys[] = {"cpuProfile", "timeDeltas"};
  static const char *const cpu_keys[] = {"nodes", "samples", "timeDeltas", "startTime"};
  const char *dv[2], *dve[2], *cv[4], *cve[4];
  members(d, de, data_keys, 2, dv, dve);
  if (!dv[0]) return;
  members(dv[0], dve[0], cpu_keys, 4, cv, cve);
  int64_t start;
  if (whole && cv[3] && st_chrome_value_ns(cv[3], cve[3], &start)) p->profs[pr].t = start;
  if (cv[0]) {
    if (!read_nodes(sem, p, cv[0], cve[0])) return;
    resolve_nodes(sem, p, pr);
    if (sem->nomem) return;
  }
  if (!cv[1]) return;
  const char *sv = cv[1], *sve = cve[1], *tv = dv[1] ? dv[1] : cv[2],
             *tve = dv[1] ? dve[1] : cve[2];
  if (!tv) {
    warn(sem, "samples_without_time");
    return;
  }
  arrit si = arrit_of(sv, sve), ti = arrit_of(tv, tve);
  const char *a, *ae, *b, *be;
  profile *f = &p->profs[pr];
  while (arrit_next(&si, &a, &ae) && arrit_next(&ti, &b, &be)) {
    int64_t node, delta;
    if (st_chrome_value_ns(b, be, &delta)) {
      int64_t t = f->t;
      f->t = delta > 0 ? (t > INT64_MAX - delta ? INT64_MAX : t + delta)
                       : (t < INT64_MIN - delta ? INT64_MIN : t + delta);
    }
    uint32_t frame = ST_U64MAP_NONE;
    if (value_int(a, ae, &node) && node >= 0 && node <= UINT32_MAX)
      frame = st_u64map_get(&p->node_map, (uint64_t)pr << 32 | (uint64_t)node);
    if (frame == ST_U64MAP_NONE) {
      warn(sem, "sample_unknown_node");
      continue;
    }
    add_sample(sem, p, f->track, f->t, frame, sem->cur_src);
    if (sem->nomem) return;
  }
}

/* ==== 5. other P events, top-level samples and stackFrames =============== */

/* One sample at e->ts on `track`: leaf sf (resolved at the end) or name. */
static void plain_sample(st_chrome_sem *sem, prof *p, const st_chrome_ev *e, uint32_t track) {
  if (!e->has_ts) {
    warn(sem, "missing_ts");
    return;
  }
  const char *sf, *sfe;
  if (member(e->obj, e->obj_end, "sf", &sf, &sfe)) {
    uint64_t key = value_key(sem, sf, sfe);
    if (key == UINT64_MAX) {
      warn(sem, "sample_unknown_frame");
      return;
    }
    add_pending(sem, p, track, e->ts, key);
    return;
  }
  uint32_t name = e->name.n ? st_chrome_sem_intern(sem, e->name) : p->anonymous;
  uint32_t f = st_frames_intern(p->frames, ST_FRAME_NONE, name);
  if (f == ST_FRAME_NONE) {
    sem->nomem = 1;
    return;
  }
  add_sample(sem, p, track, e->ts, f, sem->cur_src);
}

void st_chrome_samples_event(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  prof *p = state(sem);
  if (!p) return;
  if (st_chrome_str_eq(e->name, "Profile"))
    on_profile(sem, p, e, pi);
  else if (st_chrome_str_eq(e->name, "ProfileChunk"))
    on_chunk(sem, p, e, pi, 0);
  else if (st_chrome_str_eq(e->name, "CpuProfile"))
    on_chunk(sem, p, e, pi, 1);
  else
    plain_sample(sem, p, e, st_chrome_sem_samples_track(sem, e, pi));
}

void st_chrome_samples_global(st_chrome_sem *sem, const st_chrome_ev *e) {
  prof *p = state(sem);
  if (!p) return;
  uint32_t pi = st_chrome_sem_proc(sem, e);
  if (pi == UINT32_MAX) return;
  plain_sample(sem, p, e, st_chrome_sem_samples_track(sem, e, pi));
}

void st_chrome_samples_frame(st_chrome_sem *sem, st_json_str key, const char *v, const char *vend) {
  prof *p = state(sem);
  if (!p) return;
  uint64_t k = str_key(sem, key);
  const char *m, *me;
  uint32_t name = member(v, vend, "name", &m, &me) ? func_name(sem, p, m, me) : p->anonymous;
  uint64_t parent = member(v, vend, "parent", &m, &me) ? value_key(sem, m, me) : UINT64_MAX;
  uint32_t i = st_u64map_get(&p->def_map, k);
  if (i == ST_U64MAP_NONE) { /* a repeated id: the last definition wins */
    if (!grow(sem, (void **)&p->defs, &p->cdefs, p->ndefs, sizeof *p->defs)) return;
    if (!st_u64map_put(&p->def_map, &sem->alloc, k, p->ndefs)) {
      sem->nomem = 1;
      return;
    }
    i = p->ndefs++;
  }
  p->defs[i] = (sfdef){name, ST_FRAME_NONE, parent, 0};
}

/* ==== 6. end of input, set-up ============================================ */

/* The frame of stackFrames entry i (parents first; a cycle or an unknown
 * parent makes a root). ST_FRAME_NONE on allocation failure. */
static uint32_t resolve_def(st_chrome_sem *sem, prof *p, uint32_t i) {
  if (p->defs[i].state == 2) return p->defs[i].frame;
  if (p->cstack < p->ndefs) {
    uint32_t *s = st_realloc_array(&sem->alloc, p->stack, p->ndefs, sizeof *s);
    if (!s) {
      sem->nomem = 1;
      return ST_FRAME_NONE;
    }
    p->stack = s;
    p->cstack = p->ndefs;
  }
  uint32_t sp = 0;
  p->stack[sp++] = i;
  p->defs[i].state = 1;
  while (sp) {
    sfdef *d = &p->defs[p->stack[sp - 1]];
    uint32_t pf = ST_FRAME_NONE;
    if (d->parent != UINT64_MAX) {
      uint32_t k = st_u64map_get(&p->def_map, d->parent);
      if (k != ST_U64MAP_NONE && p->defs[k].state == 0) {
        p->defs[k].state = 1;
        p->stack[sp++] = k;
        continue;
      }
      if (k != ST_U64MAP_NONE && p->defs[k].state == 2)
        pf = p->defs[k].frame;
      else
        warn(sem, "stack_frame_unknown_parent");
    }
    d->frame = st_frames_intern(p->frames, pf, d->name);
    if (d->frame == ST_FRAME_NONE) {
      sem->nomem = 1;
      return ST_FRAME_NONE;
    }
    d->state = 2;
    sp--;
  }
  return p->defs[i].frame;
}

void st_chrome_samples_close(st_chrome_sem *sem) {
  prof *p = sem->prof;
  if (!p) return;
  for (size_t i = 0; i < p->npend && !sem->nomem; i++) {
    const pending *q = &p->pend[i];
    sem->cur_src = q->src;
    uint32_t d = st_u64map_get(&p->def_map, q->key);
    if (d == ST_U64MAP_NONE) {
      warn(sem, "sample_unknown_frame");
      continue;
    }
    uint32_t f = resolve_def(sem, p, d);
    if (f != ST_FRAME_NONE) add_sample(sem, p, q->track, q->ts, f, q->src);
  }
  p->npend = 0;
  sem->stats->stack_frames = st_frames_count(p->frames);
}

void st_chrome_samples_free(st_chrome_sem *sem) {
  prof *p = sem->prof;
  if (!p) return;
  const st_alloc *a = &sem->alloc;
  st_free(a, p->profs);
  st_u64map_free(&p->prof_map, a);
  st_u64map_free(&p->node_map, a);
  st_free(a, p->defs);
  st_u64map_free(&p->def_map, a);
  st_free(a, p->pend);
  st_free(a, p->cn);
  st_u64map_free(&p->cn_map, a);
  st_free(a, p->stack);
  st_free(a, p);
  sem->prof = NULL;
}
