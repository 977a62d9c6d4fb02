/* import_chrome.c: Chrome Trace Event JSON -> st_builder (see import_chrome.h).
 *
 * Contents
 *   1. state: window, container state machine, lookup tables
 *   2. small helpers: errors with line/column, hash maps, interning
 *   3. processes and threads
 *   4. the event parser (one object from contiguous memory, no side effects)
 *   5. event semantics per phase (B/E, X, instants, counters, metadata,
 *      async, legacy async, flows)
 *   6. the container state machine (array/object form, top-level keys)
 *   7. public API
 */
#include "import_chrome.h"

#include "json_scan.h"
#include "scan_simd.h"

#include <stdio.h>
#include <string.h>

/* ==== 1. state =========================================================== */

typedef enum tstate {
  T_START,     /* before the first value: BOM/whitespace, then '{' or '[' */
  T_OBJ_KEY,   /* object form: expect a key or '}' */
  T_OBJ_COLON, /* after a key */
  T_OBJ_VALUE, /* dispatch the value of the current key */
  T_OBJ_SKIP,  /* the resumable skipper runs over a big value */
  T_OBJ_NEXT,  /* expect ',' or '}' */
  T_LIST,      /* inside the event list */
  T_DONE,      /* the top-level value ended; only whitespace may follow */
  T_FAILED
} tstate;

typedef enum topkey {
  K_OTHER,
  K_TRACE_EVENTS,
  K_SYSTEM_TRACE_EVENTS,
  K_STACK_FRAMES,
  K_SAMPLES
} topkey;

typedef struct mkey {
  uint64_t a, b, c;
} mkey;

typedef struct map {
  mkey *keys;
  uint32_t *vals; /* UINT32_MAX = empty slot */
  uint32_t cap, count;
} map;

typedef struct bopen { /* an open B on a thread */
  int64_t ts;
  uint64_t src;
  uint32_t name, cat;
} bopen;

typedef struct proc {
  int64_t pid;
  uint32_t bidx;     /* builder process */
  uint32_t instants; /* process-scope instant track, UINT32_MAX if none */
  uint8_t named;     /* name set by an M event or a string pid */
  uint8_t counted;
} proc;

typedef struct thread {
  uint32_t proc; /* index into procs */
  int64_t tid;
  uint32_t slices, instants; /* builder tracks, UINT32_MAX if none */
  uint32_t name;
  int32_t sort;
  uint8_t has_name, has_sort, counted;
  bopen *stack;
  uint32_t depth, cap;
} thread;

typedef struct aopen { /* an open nestable async b */
  int64_t ts;
  uint64_t src;
  uint32_t name, cat, track;
} aopen;

typedef struct aident { /* one nestable async identity */
  aopen *stack;
  uint32_t depth, cap;
} aident;

typedef struct lopen { /* an open legacy async S */
  int64_t ts, last_ts, step_ts;
  uint64_t src, step_src;
  uint32_t name, cat, track, step_name;
  uint8_t open, has_step;
} lopen;

/* The fields of one event that strata uses (byte ranges into the window). */
typedef enum idkind { ID_NONE = 0, ID_NUM, ID_STR } idkind;
typedef struct idval {
  idkind kind;
  int64_t num;
  st_json_str s;
} idval;

typedef struct ev {
  uint32_t nkeys;
  uint8_t has_ph, has_ts, has_dur, bad_ts, bad_dur, id2_local, has_id2;
  uint8_t flow_in, flow_out;
  st_json_str ph, name, cat, scope_s, scope, event_stats, bp;
  int64_t ts, dur;
  idval pid, tid, id, id2, bind_id;
  const char *args, *args_end;
  const char *entries, *entries_end;
} ev;

struct st_chrome_importer {
  st_alloc alloc;
  st_builder *b;
  st_strtab *strs;
  st_stats *stats;

  /* window: buf[0, len) holds decoded bytes from absolute offset base */
  char *buf;
  size_t len, cap, pos;
  uint64_t base;
  uint64_t need_abs; /* do not re-parse before the input reaches this offset */

  /* line/column: lines counted up to lc_pos (absolute) */
  uint64_t lc_pos, lc_line_start;
  uint32_t lc_line;

  tstate state;
  int form; /* 0 unknown, 1 array, 2 object */
  int saw_event_list, expect_value, after_comma, final;
  topkey key;
  int capture; /* the skipped value is copied into meta */
  st_json_skipper sk;

  /* metadata text */
  char *meta;
  size_t meta_len, meta_cap, meta_value_start, meta_key_start;
  int meta_overflow;

  /* model lookups */
  proc *procs;
  uint32_t nprocs, cprocs;
  thread *threads;
  uint32_t nthreads, cthreads;
  aident *aids;
  uint32_t naids, caids;
  lopen *lopens;
  uint32_t nlopens, clopens;
  uint32_t nflows; /* flow identities (keys of flow_map) */
  map proc_map, thread_map, counter_map, series_map, async_map, legacy_map, flow_map;
  uint32_t last_thread;
  int64_t last_pid, last_tid;
  uint32_t global_proc;

  char *scratch;
  size_t scratch_cap;

  uint64_t cur_src;
  int nomem;
  st_code code;
  st_error error;
};

/* ==== 2. helpers ========================================================= */

static void count_lines(st_chrome_importer *im, uint64_t upto) {
  if (upto <= im->lc_pos) return;
  const char *p = im->buf + (im->lc_pos - im->base), *e = im->buf + (upto - im->base);
  const char *last = st_scan_last_byte(p, e, '\n');
  if (last) {
    im->lc_line += (uint32_t)st_scan_count(p, last + 1, '\n');
    im->lc_line_start = im->base + (uint64_t)(last - im->buf) + 1;
  }
  im->lc_pos = upto;
}

static st_code set_error(st_chrome_importer *im, st_code code, uint64_t at, const char *fmt,
                         const char *arg) {
  if (im->code != ST_OK) return im->code;
  char msg[160];
  snprintf(msg, sizeof msg, fmt, arg ? arg : "");
  st_error_set(&im->error, code, at, "%s", msg);
  if (at >= im->lc_pos && at <= im->base + im->len && im->lc_pos >= im->base) {
    count_lines(im, at);
    im->error.line = im->lc_line + 1;
    uint64_t col = at - im->lc_line_start + 1;
    im->error.column = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
  }
  im->code = code;
  im->state = T_FAILED;
  return code;
}

static uint64_t abs_of(const st_chrome_importer *im, const char *p) {
  return im->base + (uint64_t)(p - im->buf);
}

static uint32_t hash_key(mkey k) {
  uint64_t x = k.a * 0x9e3779b97f4a7c15ull ^ (k.b + 0x7f4a7c159e3779b9ull) * 0xbf58476d1ce4e5b9ull ^
               k.c * 0x94d049bb133111ebull;
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return (uint32_t)x;
}

static uint32_t map_get(const map *m, mkey k) {
  if (!m->cap) return UINT32_MAX;
  uint32_t mask = m->cap - 1;
  for (uint32_t i = hash_key(k) & mask;; i = (i + 1) & mask) {
    if (m->vals[i] == UINT32_MAX) return UINT32_MAX;
    if (m->keys[i].a == k.a && m->keys[i].b == k.b && m->keys[i].c == k.c) return m->vals[i];
  }
}

static void map_set_slot(map *m, mkey k, uint32_t v) {
  uint32_t mask = m->cap - 1, i = hash_key(k) & mask;
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
static int map_put(st_chrome_importer *im, map *m, mkey k, uint32_t v) {
  if ((uint64_t)(m->count + 1) * 2 > m->cap) {
    uint32_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap < m->cap) return 0;
    mkey *nk = st_malloc(&im->alloc, (size_t)ncap * sizeof *nk);
    uint32_t *nv = st_malloc(&im->alloc, (size_t)ncap * sizeof *nv);
    if (!nk || !nv) {
      st_free(&im->alloc, nk);
      st_free(&im->alloc, nv);
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
    st_free(&im->alloc, old.keys);
    st_free(&im->alloc, old.vals);
  }
  map_set_slot(m, k, v);
  return 1;
}

static void map_free(st_chrome_importer *im, map *m) {
  st_free(&im->alloc, m->keys);
  st_free(&im->alloc, m->vals);
}

/* Grows an array so index `count` is valid. 0 on failure. */
static int grow(st_chrome_importer *im, void **p, uint32_t *cap, uint32_t count, size_t elem) {
  if (count < *cap) return 1;
  uint32_t ncap = *cap ? *cap * 2 : 16;
  if (ncap <= count) return 0;
  void *np = st_realloc_array(&im->alloc, *p, ncap, elem);
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

static uint32_t intern_bytes(st_chrome_importer *im, const char *s, size_t n) {
  uint32_t id = st_strtab_intern(im->strs, s, n);
  if (id == ST_STR_NONE) {
    im->nomem = 1;
    return ST_STR_EMPTY;
  }
  return id;
}

/* Decodes a string value into the scratch buffer; returns its length. */
static const char *decode(st_chrome_importer *im, st_json_str s, size_t *n) {
  if (!s.esc && st_json_plain_utf8(s.p, s.n)) {
    *n = s.n;
    return s.p;
  }
  size_t need;
  if (!st_mul_size(s.n, 3, &need) || !st_add_size(need, 8, &need)) {
    im->nomem = 1;
    *n = 0;
    return "";
  }
  if (need > im->scratch_cap) {
    char *p = st_realloc(&im->alloc, im->scratch, need);
    if (!p) {
      im->nomem = 1;
      *n = 0;
      return "";
    }
    im->scratch = p;
    im->scratch_cap = need;
  }
  *n = st_json_unescape(s.p, s.n, im->scratch);
  return im->scratch;
}

static uint32_t intern(st_chrome_importer *im, st_json_str s) {
  if (s.n == 0) return ST_STR_EMPTY;
  size_t n;
  const char *p = decode(im, s, &n);
  return intern_bytes(im, p, n);
}

static uint32_t intern_join(st_chrome_importer *im, uint32_t a, const char *sep, uint32_t bid,
                            const char *suffix) {
  size_t na, nb, ns = strlen(sep), nx = strlen(suffix), total;
  const char *sa = st_strtab_get(im->strs, a, &na);
  const char *sb = st_strtab_get(im->strs, bid, &nb);
  if (!st_add_size(na, nb, &total) || !st_add_size(total, ns + nx, &total)) {
    im->nomem = 1;
    return ST_STR_EMPTY;
  }
  if (total > im->scratch_cap) {
    char *p = st_realloc(&im->alloc, im->scratch, total);
    if (!p) {
      im->nomem = 1;
      return ST_STR_EMPTY;
    }
    im->scratch = p;
    im->scratch_cap = total;
  }
  char *o = im->scratch;
  memcpy(o, sa, na);
  memcpy(o + na, sep, ns);
  memcpy(o + na + ns, sb, nb);
  memcpy(o + na + ns + nb, suffix, nx);
  return intern_bytes(im, im->scratch, total);
}

static void warn(st_chrome_importer *im, const char *kind) {
  st_stats_warn(im->stats, kind, im->cur_src);
}

static int str_eq(st_json_str s, const char *lit) {
  size_t n = strlen(lit);
  return s.n == n && !s.esc && memcmp(s.p, lit, n) == 0;
}

/* ---- iterating a complete object's members ------------------------------ */
typedef struct objit {
  const char *p, *end;
} objit;

/* Next member: key string, value range. 0 at the end or on malformed text. */
static int objit_next(objit *it, st_json_str *key, const char **v, const char **vend) {
  const char *p = st_json_ws(it->p, it->end), *q;
  if (p >= it->end) return 0;
  if (*p == ',') p = st_json_ws(p + 1, it->end);
  if (p >= it->end || *p != '"') return 0;
  if (st_json_string(p + 1, it->end, &q, &key->esc) != ST_JSON_OK) return 0;
  key->p = p + 1;
  key->n = (size_t)(q - key->p);
  p = st_json_ws(q + 1, it->end);
  if (p >= it->end || *p != ':') return 0;
  p = st_json_ws(p + 1, it->end);
  if (st_json_skip_value(p, it->end, &q) != ST_JSON_OK) {
    /* a number ending exactly at the object's end is complete */
    q = st_json_number_end(p, it->end);
    if (q == p) return 0;
  }
  *v = p;
  *vend = q;
  it->p = q;
  return 1;
}

static objit objit_of(const char *v, const char *vend) {
  objit it = {vend, vend};
  if (v && v < vend && *v == '{') it = (objit){v + 1, vend - 1};
  return it;
}

/* A value as a string (quoted) -> st_json_str; 0 if not a string. */
static int value_str(const char *v, const char *vend, st_json_str *out) {
  if (vend - v < 2 || *v != '"' || vend[-1] != '"') return 0;
  out->p = v + 1;
  out->n = (size_t)(vend - v - 2);
  out->esc = st_scan_contains(out->p, out->p + out->n, '\\');
  return 1;
}

/* Number or numeric string -> double. */
static int value_double(const char *v, const char *vend, double *out) {
  st_json_str s;
  if (value_str(v, vend, &s)) return !s.esc && st_json_double(s.p, s.n, out);
  return st_json_double(v, (size_t)(vend - v), out);
}

/* Number or numeric string of microseconds -> ns. */
static int value_ns(const char *v, const char *vend, int64_t *out) {
  st_json_str s;
  if (value_str(v, vend, &s)) return !s.esc && st_json_decimal_scaled(s.p, s.n, 3, out);
  return st_json_decimal_scaled(v, (size_t)(vend - v), 3, out);
}

/* ==== 3. processes and threads =========================================== */

/* pid/tid value -> key; string non-integers are interned (name_out set). */
static int64_t key_of(st_chrome_importer *im, const idval *v, uint32_t *name_out) {
  *name_out = ST_STR_EMPTY;
  if (v->kind == ID_NUM) return v->num;
  if (v->kind == ID_STR) {
    int64_t k;
    if (!v->s.esc && st_json_int_key(v->s.p, v->s.n, &k)) return k;
    uint32_t id = intern(im, v->s);
    *name_out = id;
    return ST_CHROME_STRING_KEY + (int64_t)id;
  }
  return 0;
}

static uint32_t proc_by_key(st_chrome_importer *im, int64_t pid) {
  mkey k = {(uint64_t)pid, 0, 0};
  uint32_t i = map_get(&im->proc_map, k);
  if (i != UINT32_MAX) return i;
  uint32_t bidx = st_builder_process(im->b, pid);
  if (bidx == UINT32_MAX || !grow(im, (void **)&im->procs, &im->cprocs, im->nprocs, sizeof(proc))) {
    im->nomem = 1;
    return UINT32_MAX;
  }
  i = im->nprocs;
  if (!map_put(im, &im->proc_map, k, i)) {
    im->nomem = 1;
    return UINT32_MAX;
  }
  im->procs[i] = (proc){pid, bidx, UINT32_MAX, 0, 0};
  im->nprocs++;
  return i;
}

/* The event's process (pid 0 if absent); counts it as seen. */
static uint32_t event_proc(st_chrome_importer *im, const ev *e) {
  uint32_t name;
  int64_t pid = key_of(im, &e->pid, &name);
  uint32_t i = proc_by_key(im, pid);
  if (i == UINT32_MAX) return i;
  proc *p = &im->procs[i];
  if (!p->counted) {
    p->counted = 1;
    im->stats->processes++;
  }
  if (name != ST_STR_EMPTY && !p->named) {
    p->named = 1;
    st_builder_process_name(im->b, p->bidx, name);
  }
  return i;
}

/* The event's thread (tid = pid if absent). count: it carries a non-M event. */
static uint32_t event_thread(st_chrome_importer *im, const ev *e, uint32_t pi, int count) {
  uint32_t tname = ST_STR_EMPTY;
  int64_t tid = e->tid.kind ? key_of(im, &e->tid, &tname) : im->procs[pi].pid;
  int64_t pid = im->procs[pi].pid;
  uint32_t i;
  if (im->last_thread != UINT32_MAX && im->last_pid == pid && im->last_tid == tid) {
    i = im->last_thread;
  } else {
    mkey k = {pi, (uint64_t)tid, 1};
    i = map_get(&im->thread_map, k);
    if (i == UINT32_MAX) {
      if (!grow(im, (void **)&im->threads, &im->cthreads, im->nthreads, sizeof(thread))) {
        im->nomem = 1;
        return UINT32_MAX;
      }
      i = im->nthreads;
      if (!map_put(im, &im->thread_map, k, i)) {
        im->nomem = 1;
        return UINT32_MAX;
      }
      im->threads[i] =
          (thread){.proc = pi, .tid = tid, .slices = UINT32_MAX, .instants = UINT32_MAX};
      im->nthreads++;
    }
    im->last_thread = i;
    im->last_pid = pid;
    im->last_tid = tid;
  }
  thread *t = &im->threads[i];
  if (tname != ST_STR_EMPTY && !t->has_name) {
    t->has_name = 1;
    t->name = tname;
    if (t->slices != UINT32_MAX) st_builder_track_name(im->b, t->slices, tname);
    if (t->instants != UINT32_MAX) st_builder_track_name(im->b, t->instants, tname);
  }
  if (count && !t->counted) {
    t->counted = 1;
    im->stats->threads++;
  }
  return i;
}

static uint32_t thread_track(st_chrome_importer *im, thread *t, st_track_kind kind) {
  uint32_t *slot = kind == ST_TRACK_SLICES ? &t->slices : &t->instants;
  if (*slot != UINT32_MAX) return *slot;
  uint32_t tr = st_builder_track(im->b, im->procs[t->proc].bidx, kind, t->tid, t->name);
  if (tr == UINT32_MAX) {
    im->nomem = 1;
    return tr;
  }
  if (t->has_sort) st_builder_track_sort(im->b, tr, t->sort);
  *slot = tr;
  return tr;
}

/* ==== 4. the event parser ================================================= */

/* Result of parsing one value. */
#define PV_OK 0
#define PV_MORE 1
#define PV_BAD 2

/* A value we only need to skip. */
static int pv_skip(const char **pp, const char *end, const char **bad) {
  const char *q;
  st_json_status s = st_json_skip_value(*pp, end, &q);
  if (s == ST_JSON_OK) {
    *pp = q;
    return PV_OK;
  }
  if (s == ST_JSON_INCOMPLETE) return PV_MORE;
  *bad = q;
  return PV_BAD;
}

static int pv_string(const char **pp, const char *end, st_json_str *out, const char **bad) {
  const char *p = *pp, *q;
  if (*p != '"') return pv_skip(pp, end, bad); /* not a string: ignored */
  int esc;
  if (st_json_string(p + 1, end, &q, &esc) != ST_JSON_OK) return PV_MORE;
  out->p = p + 1;
  out->n = (size_t)(q - p - 1);
  out->esc = esc;
  *pp = q + 1;
  return PV_OK;
}

/* ts/dur: number or numeric string of microseconds -> ns. */
static int pv_time(const char **pp, const char *end, int64_t *out, uint8_t *has, uint8_t *badv,
                   const char **bad) {
  const char *p = *pp;
  unsigned c = (unsigned char)*p;
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = st_json_number_end(p, end);
    if (q >= end) return PV_MORE;
    if (st_json_decimal_scaled(p, (size_t)(q - p), 3, out))
      *has = 1;
    else
      *badv = 1;
    *pp = q;
    return PV_OK;
  }
  if (c == '"') {
    st_json_str s;
    int r = pv_string(pp, end, &s, bad);
    if (r != PV_OK) return r;
    if (!s.esc && st_json_decimal_scaled(s.p, s.n, 3, out))
      *has = 1;
    else
      *badv = 1;
    return PV_OK;
  }
  *badv = 1;
  return pv_skip(pp, end, bad);
}

/* pid/tid/id/bind_id: number or string. */
static int pv_id(const char **pp, const char *end, idval *out, const char **bad) {
  const char *p = *pp;
  unsigned c = (unsigned char)*p;
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = st_json_number_end(p, end);
    if (q >= end) return PV_MORE;
    if (st_json_int_key(p, (size_t)(q - p), &out->num)) out->kind = ID_NUM;
    *pp = q;
    return PV_OK;
  }
  if (c == '"') {
    int r = pv_string(pp, end, &out->s, bad);
    if (r == PV_OK) out->kind = ID_STR;
    return r;
  }
  return pv_skip(pp, end, bad);
}

static int pv_range(const char **pp, const char *end, const char **v, const char **vend,
                    const char **bad) {
  const char *start = *pp;
  int r = pv_skip(pp, end, bad);
  if (r == PV_OK) {
    *v = start;
    *vend = *pp;
  }
  return r;
}

static int pv_bool(const char **pp, const char *end, uint8_t *out, const char **bad) {
  const char *p = *pp;
  int r = pv_skip(pp, end, bad);
  if (r == PV_OK) *out = *p == 't' || (*p >= '1' && *p <= '9');
  return r;
}

/* id2: {"local": x} or {"global": x} */
static void parse_id2(ev *e, const char *v, const char *vend) {
  objit it = objit_of(v, vend);
  st_json_str k;
  const char *a, *ae;
  while (objit_next(&it, &k, &a, &ae)) {
    int local = str_eq(k, "local");
    if (!local && !str_eq(k, "global")) continue;
    st_json_str s;
    if (value_str(a, ae, &s)) {
      e->id2.kind = ID_STR;
      e->id2.s = s;
    } else if (st_json_int_key(a, (size_t)(ae - a), &e->id2.num)) {
      e->id2.kind = ID_NUM;
    } else {
      continue;
    }
    e->has_id2 = 1;
    e->id2_local = (uint8_t)local;
  }
}

/* k[0..n) == lit for a short literal key. Not memcmp: with n constant this
 * unrolls to a few byte compares, where wasm would call musl's byte-wise
 * memcmp for every key of every event. */
static inline int key_is(const char *k, const char *lit, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (k[i] != lit[i]) return 0;
  return 1;
}

/* Parses the event object at p ('{'). No side effects on the importer. */
static st_json_status parse_event(const char *p, const char *end, ev *e, const char **out,
                                  const char **bad, const char **why) {
  memset(e, 0, sizeof *e);
  p = st_json_ws(p + 1, end);
  if (p >= end) return ST_JSON_INCOMPLETE;
  if (*p == '}') {
    *out = p + 1;
    return ST_JSON_OK;
  }
  for (;;) {
    if (*p != '"') {
      *bad = p;
      *why = "expected a key string in an event";
      return ST_JSON_BAD;
    }
    const char *k = p + 1, *q = k;
    while (q < end && *q != '"' && *q != '\\') q++;
    if (q >= end) return ST_JSON_INCOMPLETE;
    size_t kn = (size_t)(q - k);
    int kesc = 0;
    if (*q == '\\') { /* escaped key: rare; compare its decoded form */
      if (st_json_string(k, end, &q, &kesc) != ST_JSON_OK) return ST_JSON_INCOMPLETE;
      kn = (size_t)(q - k);
    }
    char kbuf[80];
    if (kesc) { /* none of our keys is longer than 11 bytes once decoded */
      kn = kn <= 24 ? st_json_unescape(k, kn, kbuf) : 0;
      k = kbuf;
    }
    p = st_json_ws(q + 1, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    if (*p != ':') {
      *bad = p;
      *why = "expected ':' after a key in an event";
      return ST_JSON_BAD;
    }
    p = st_json_ws(p + 1, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    e->nkeys++;
    int r = -1;
    switch (kn) {
    case 1:
      if (k[0] == 's') r = pv_string(&p, end, &e->scope_s, bad);
      break;
    case 2:
      if (k[0] == 'p' && k[1] == 'h') {
        r = pv_string(&p, end, &e->ph, bad);
        e->has_ph = 1;
      } else if (k[0] == 't' && k[1] == 's') {
        r = pv_time(&p, end, &e->ts, &e->has_ts, &e->bad_ts, bad);
      } else if (k[0] == 'i' && k[1] == 'd') {
        r = pv_id(&p, end, &e->id, bad);
      } else if (k[0] == 'b' && k[1] == 'p') {
        r = pv_string(&p, end, &e->bp, bad);
      }
      break;
    case 3:
      if (key_is(k, "pid", 3))
        r = pv_id(&p, end, &e->pid, bad);
      else if (key_is(k, "tid", 3))
        r = pv_id(&p, end, &e->tid, bad);
      else if (key_is(k, "cat", 3))
        r = pv_string(&p, end, &e->cat, bad);
      else if (key_is(k, "dur", 3))
        r = pv_time(&p, end, &e->dur, &e->has_dur, &e->bad_dur, bad);
      else if (key_is(k, "id2", 3)) {
        const char *v = NULL, *ve = NULL;
        r = pv_range(&p, end, &v, &ve, bad);
        if (r == PV_OK) parse_id2(e, v, ve);
      }
      break;
    case 4:
      if (key_is(k, "name", 4))
        r = pv_string(&p, end, &e->name, bad);
      else if (key_is(k, "args", 4))
        r = pv_range(&p, end, &e->args, &e->args_end, bad);
      break;
    case 5:
      if (key_is(k, "scope", 5)) r = pv_string(&p, end, &e->scope, bad);
      break;
    case 7:
      if (key_is(k, "bind_id", 7))
        r = pv_id(&p, end, &e->bind_id, bad);
      else if (key_is(k, "entries", 7))
        r = pv_range(&p, end, &e->entries, &e->entries_end, bad);
      else if (key_is(k, "flow_in", 7))
        r = pv_bool(&p, end, &e->flow_in, bad);
      break;
    case 8:
      if (key_is(k, "flow_out", 8)) r = pv_bool(&p, end, &e->flow_out, bad);
      break;
    case 11:
      if (key_is(k, "event_stats", 11)) r = pv_string(&p, end, &e->event_stats, bad);
      break;
    default: break;
    }
    if (r < 0) r = pv_skip(&p, end, bad);
    if (r == PV_MORE) return ST_JSON_INCOMPLETE;
    if (r == PV_BAD) {
      *why = "invalid value in an event";
      return ST_JSON_BAD;
    }
    p = st_json_ws(p, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    if (*p == ',') {
      p = st_json_ws(p + 1, end);
      if (p >= end) return ST_JSON_INCOMPLETE;
      continue;
    }
    if (*p == '}') {
      *out = p + 1;
      return ST_JSON_OK;
    }
    *bad = p;
    *why = "expected ',' or '}' in an event";
    return ST_JSON_BAD;
  }
}

/* ==== 5. event semantics ================================================== */

static void emit(st_chrome_importer *im, uint32_t track, int64_t ts, int64_t dur, uint32_t name,
                 uint32_t cat, uint64_t src, uint8_t flags) {
  if (track == UINT32_MAX) return;
  st_code c = st_builder_slice(im->b, track, ts, dur, name, cat, src, flags);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    warn(im, "builder_limit");
}

static void on_complete(st_chrome_importer *im, const ev *e, uint32_t pi) {
  uint32_t ti = event_thread(im, e, pi, 1);
  if (ti == UINT32_MAX) return;
  uint32_t tr = thread_track(im, &im->threads[ti], ST_TRACK_SLICES);
  uint32_t name = intern(im, e->name), cat = intern(im, e->cat);
  int64_t dur = e->dur;
  uint8_t flags = 0;
  if (!e->has_dur) {
    warn(im, "missing_dur");
    flags = ST_EV_UNFINISHED;
    dur = 0;
  } else if (dur < 0) {
    warn(im, "negative_duration");
    dur = 0;
  }
  int64_t endt = e->ts > INT64_MAX - dur ? INT64_MAX : e->ts + dur;
  st_stats_time(im->stats, e->ts, endt);
  emit(im, tr, e->ts, dur, name, cat, im->cur_src, flags);
  im->stats->slices++;
}

static void on_begin(st_chrome_importer *im, const ev *e, uint32_t pi) {
  uint32_t ti = event_thread(im, e, pi, 1);
  if (ti == UINT32_MAX) return;
  thread *t = &im->threads[ti];
  if (!grow(im, (void **)&t->stack, &t->cap, t->depth, sizeof(bopen))) {
    im->nomem = 1;
    return;
  }
  thread_track(im, t, ST_TRACK_SLICES);
  t->stack[t->depth++] = (bopen){e->ts, im->cur_src, intern(im, e->name), intern(im, e->cat)};
  st_stats_time(im->stats, e->ts, e->ts);
}

static void on_end(st_chrome_importer *im, const ev *e, uint32_t pi) {
  uint32_t ti = event_thread(im, e, pi, 1);
  if (ti == UINT32_MAX) return;
  thread *t = &im->threads[ti];
  st_stats_time(im->stats, e->ts, e->ts);
  if (t->depth == 0) {
    warn(im, "unmatched_end");
    return;
  }
  bopen b = t->stack[--t->depth];
  if (e->name.n && intern(im, e->name) != b.name) warn(im, "end_name_mismatch");
  int64_t dur = e->ts - b.ts;
  if (e->ts < b.ts) {
    warn(im, "negative_duration");
    dur = 0;
  }
  emit(im, thread_track(im, t, ST_TRACK_SLICES), b.ts, dur, b.name, b.cat, b.src, ST_EV_HAS_END);
  im->stats->slices++;
}

static void on_instant(st_chrome_importer *im, const ev *e, uint32_t pi) {
  char scope = e->scope_s.n ? e->scope_s.p[0] : 't';
  uint32_t tr;
  if (scope == 'g') {
    if (im->global_proc == UINT32_MAX) {
      im->global_proc = proc_by_key(im, ST_CHROME_GLOBAL_PID);
      if (im->global_proc == UINT32_MAX) return;
      proc *g = &im->procs[im->global_proc];
      g->named = 1;
      st_builder_process_name(im->b, g->bidx, intern_bytes(im, "Global", 6));
      st_builder_process_sort(im->b, g->bidx, INT32_MIN);
    }
    pi = im->global_proc;
  }
  if (scope == 'g' || scope == 'p') {
    proc *p = &im->procs[pi];
    if (p->instants == UINT32_MAX) {
      p->instants = st_builder_track(im->b, p->bidx, ST_TRACK_INSTANTS, -1, ST_STR_EMPTY);
      if (p->instants == UINT32_MAX) {
        im->nomem = 1;
        return;
      }
    }
    tr = p->instants;
  } else {
    uint32_t ti = event_thread(im, e, pi, 1);
    if (ti == UINT32_MAX) return;
    tr = thread_track(im, &im->threads[ti], ST_TRACK_INSTANTS);
  }
  st_stats_time(im->stats, e->ts, e->ts);
  emit(im, tr, e->ts, 0, intern(im, e->name), intern(im, e->cat), im->cur_src, ST_EV_INSTANT);
  im->stats->instants++;
}

/* One counter series track: (process, series name). */
static uint32_t counter_track(st_chrome_importer *im, uint32_t pi, uint32_t series) {
  mkey k = {pi, series, 2};
  uint32_t tr = map_get(&im->series_map, k);
  if (tr != UINT32_MAX) return tr;
  tr = st_builder_track(im->b, im->procs[pi].bidx, ST_TRACK_COUNTER, series, series);
  if (tr == UINT32_MAX || !map_put(im, &im->series_map, k, tr)) {
    im->nomem = 1;
    return UINT32_MAX;
  }
  return tr;
}

static void add_sample(st_chrome_importer *im, uint32_t tr, int64_t ts, double v) {
  if (tr == UINT32_MAX) return;
  if (st_builder_counter(im->b, tr, ts, v) == ST_ERR_NOMEM) im->nomem = 1;
  im->stats->counter_samples++;
}

static uint32_t counter_group_name(st_chrome_importer *im, const ev *e) {
  uint32_t name = intern(im, e->name);
  if (e->id.kind == ID_NONE) return name;
  uint32_t id;
  if (e->id.kind == ID_STR) {
    id = intern(im, e->id.s);
  } else {
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)e->id.num);
    id = intern_bytes(im, num, strlen(num));
  }
  return intern_join(im, name, "[", id, "]");
}

static void on_counter_entries(st_chrome_importer *im, const ev *e, uint32_t pi, uint32_t group) {
  /* XProf: entries: [[ts_us, v1, v2, ...], ...]; one series per value column,
   * named like the counter (or event_stats) if there is one column, else
   * "<name> <column>" */
  enum { MAX_COLS = 16 };
  const char *p = e->entries + 1, *end = e->entries_end - 1, *q;
  uint32_t base_name = e->event_stats.n ? intern(im, e->event_stats) : group;
  uint32_t tracks[MAX_COLS];
  for (int i = 0; i < MAX_COLS; i++) tracks[i] = UINT32_MAX;
  if (e->entries_end - e->entries < 2 || *e->entries != '[') {
    warn(im, "counter_without_values");
    return;
  }
  for (;;) {
    p = st_json_ws(p, end);
    if (p < end && *p == ',') p = st_json_ws(p + 1, end);
    if (p >= end || *p != '[') break;
    if (st_json_skip_value(p, end, &q) != ST_JSON_OK) break;
    const char *r = p + 1, *rend = q - 1, *col_v[MAX_COLS + 1], *col_e[MAX_COLS + 1];
    int ncol = 0;
    p = q;
    while (ncol <= MAX_COLS) {
      r = st_json_ws(r, rend);
      if (r < rend && *r == ',') r = st_json_ws(r + 1, rend);
      if (r >= rend) break;
      const char *ve;
      if (st_json_skip_value(r, rend, &ve) != ST_JSON_OK) ve = st_json_number_end(r, rend);
      if (ve == r) break;
      col_v[ncol] = r;
      col_e[ncol++] = ve;
      r = ve;
    }
    int64_t ts;
    if (ncol < 2) continue;
    if (!value_ns(col_v[0], col_e[0], &ts)) {
      warn(im, "bad_timestamp");
      continue;
    }
    st_stats_time(im->stats, ts, ts);
    for (int c = 1; c < ncol && c <= MAX_COLS; c++) {
      double v;
      if (!value_double(col_v[c], col_e[c], &v)) {
        warn(im, "bad_counter_value");
        continue;
      }
      if (tracks[c - 1] == UINT32_MAX) {
        uint32_t series = base_name;
        if (ncol > 2) {
          char num[16];
          snprintf(num, sizeof num, "%d", c - 1);
          series = intern_join(im, base_name, " ", intern_bytes(im, num, strlen(num)), "");
        }
        tracks[c - 1] = counter_track(im, pi, series);
      }
      add_sample(im, tracks[c - 1], ts, v);
    }
  }
}

static void on_counter(st_chrome_importer *im, const ev *e, uint32_t pi) {
  if (e->tid.kind) event_thread(im, e, pi, 1);
  uint32_t group = counter_group_name(im, e);
  if (e->entries) {
    on_counter_entries(im, e, pi, group);
    return;
  }
  if (!e->has_ts) {
    warn(im, "missing_ts");
    return;
  }
  st_stats_time(im->stats, e->ts, e->ts);
  /* series naming is decided by the group's first sample: one key -> the
   * counter's name alone, several -> "<name> <key>" */
  mkey gk = {pi, group, 3};
  uint32_t mode = map_get(&im->counter_map, gk);
  objit it = objit_of(e->args, e->args_end);
  st_json_str key;
  const char *v, *ve;
  if (mode == UINT32_MAX) {
    uint32_t n = 0;
    while (objit_next(&it, &key, &v, &ve)) n++;
    mode = n == 1 ? 1 : 2;
    if (!map_put(im, &im->counter_map, gk, mode)) {
      im->nomem = 1;
      return;
    }
    it = objit_of(e->args, e->args_end);
  }
  int any = 0;
  while (objit_next(&it, &key, &v, &ve)) {
    double x;
    any = 1;
    if (!value_double(v, ve, &x)) {
      warn(im, "bad_counter_value");
      continue;
    }
    uint32_t series = group;
    if (mode == 2) {
      /* cache (group, key) -> track */
      uint32_t kid = intern(im, key);
      mkey sk = {pi, ((uint64_t)group << 32) | kid, 4};
      uint32_t tr = map_get(&im->series_map, sk);
      if (tr == UINT32_MAX) {
        series = intern_join(im, group, " ", kid, "");
        tr = counter_track(im, pi, series);
        if (tr == UINT32_MAX || !map_put(im, &im->series_map, sk, tr)) {
          im->nomem = 1;
          return;
        }
      }
      add_sample(im, tr, e->ts, x);
    } else {
      add_sample(im, counter_track(im, pi, series), e->ts, x);
    }
  }
  if (!any) warn(im, "counter_without_values");
}

static void on_metadata(st_chrome_importer *im, const ev *e, uint32_t pi) {
  objit it = objit_of(e->args, e->args_end);
  st_json_str key, s;
  const char *v, *ve;
  int what = 0; /* 1 process_name 2 process_labels 3 process_sort 4 thread_name 5 thread_sort */
  if (str_eq(e->name, "process_name"))
    what = 1;
  else if (str_eq(e->name, "process_labels"))
    what = 2;
  else if (str_eq(e->name, "process_sort_index"))
    what = 3;
  else if (str_eq(e->name, "thread_name"))
    what = 4;
  else if (str_eq(e->name, "thread_sort_index"))
    what = 5;
  if (!what) return;
  const char *want = what == 2 ? "labels" : (what == 3 || what == 5) ? "sort_index" : "name";
  while (objit_next(&it, &key, &v, &ve)) {
    if (!str_eq(key, want)) continue;
    proc *p = &im->procs[pi];
    if (what == 1 || what == 2 || what == 4) {
      if (!value_str(v, ve, &s)) continue;
      uint32_t id = intern(im, s);
      if (what == 1) {
        p->named = 1;
        st_builder_process_name(im->b, p->bidx, id);
      } else if (what == 2) {
        st_builder_process_labels(im->b, p->bidx, id);
      } else {
        uint32_t ti = event_thread(im, e, pi, 0);
        if (ti == UINT32_MAX) return;
        thread *t = &im->threads[ti];
        t->name = id;
        t->has_name = 1;
        if (t->slices != UINT32_MAX) st_builder_track_name(im->b, t->slices, id);
        if (t->instants != UINT32_MAX) st_builder_track_name(im->b, t->instants, id);
      }
    } else {
      double d;
      if (!value_double(v, ve, &d) || d != d) continue;
      int32_t si = d < INT32_MIN ? INT32_MIN : d > INT32_MAX ? INT32_MAX : (int32_t)d;
      if (what == 3) {
        st_builder_process_sort(im->b, p->bidx, si);
      } else {
        uint32_t ti = event_thread(im, e, pi, 0);
        if (ti == UINT32_MAX) return;
        thread *t = &im->threads[ti];
        t->sort = si;
        t->has_sort = 1;
        if (t->slices != UINT32_MAX) st_builder_track_sort(im->b, t->slices, si);
        if (t->instants != UINT32_MAX) st_builder_track_sort(im->b, t->instants, si);
      }
    }
    return;
  }
}

/* An id as map words: (tag, value). Strings are compared as strings. */
static void id_words(st_chrome_importer *im, const idval *v, uint64_t *tag, uint64_t *val) {
  if (v->kind == ID_STR) {
    *tag = 2;
    *val = intern(im, v->s);
  } else {
    *tag = v->kind == ID_NUM ? 1 : 0;
    *val = (uint64_t)v->num;
  }
}

static uint32_t async_track(st_chrome_importer *im, uint32_t pi, uint32_t name, uint32_t cat) {
  uint32_t group = cat != ST_STR_EMPTY ? cat : name;
  uint32_t tr = st_builder_track(im->b, im->procs[pi].bidx, ST_TRACK_ASYNC, group, group);
  if (tr == UINT32_MAX) im->nomem = 1;
  return tr;
}

static void on_async(st_chrome_importer *im, const ev *e, uint32_t pi, char ph) {
  const idval *id = e->has_id2 ? &e->id2 : &e->id;
  if (id->kind == ID_NONE) {
    warn(im, "async_without_id");
    return;
  }
  if (e->tid.kind) event_thread(im, e, pi, 1);
  uint32_t name = intern(im, e->name), cat = intern(im, e->cat);
  uint64_t tag, val;
  id_words(im, id, &tag, &val);
  int local = e->has_id2 && e->id2_local;
  mkey k = {((uint64_t)cat << 32) | intern(im, e->scope),
            tag | (local ? (uint64_t)(pi + 1) << 8 : 0), val};
  uint32_t tr = async_track(im, pi, name, cat);
  st_stats_time(im->stats, e->ts, e->ts);
  if (ph == 'n') {
    emit(im, tr, e->ts, 0, name, cat, im->cur_src, ST_EV_INSTANT);
    im->stats->instants++;
    return;
  }
  uint32_t ai = map_get(&im->async_map, k);
  if (ai == UINT32_MAX) {
    if (ph == 'e') {
      warn(im, "unmatched_async_end");
      return;
    }
    if (!grow(im, (void **)&im->aids, &im->caids, im->naids, sizeof(aident)) ||
        !map_put(im, &im->async_map, k, im->naids)) {
      im->nomem = 1;
      return;
    }
    ai = im->naids++;
    im->aids[ai] = (aident){0};
  }
  aident *a = &im->aids[ai];
  if (ph == 'b') {
    if (!grow(im, (void **)&a->stack, &a->cap, a->depth, sizeof(aopen))) {
      im->nomem = 1;
      return;
    }
    a->stack[a->depth++] = (aopen){e->ts, im->cur_src, name, cat, tr};
    return;
  }
  /* e: close the nearest open b with the same name (any, if e has no name) */
  uint32_t i = a->depth;
  while (i > 0 && e->name.n && a->stack[i - 1].name != name) i--;
  if (i == 0) {
    warn(im, "unmatched_async_end");
    return;
  }
  while (a->depth > i) { /* b's opened above the match end here, unfinished */
    aopen o = a->stack[--a->depth];
    warn(im, "async_unclosed");
    emit(im, o.track, o.ts, e->ts - o.ts, o.name, o.cat, o.src, 0);
    im->stats->async_slices++;
  }
  aopen o = a->stack[--a->depth];
  if (e->ts < o.ts) warn(im, "negative_duration");
  emit(im, o.track, o.ts, e->ts - o.ts, o.name, o.cat, o.src, ST_EV_HAS_END);
  im->stats->async_slices++;
}

static void on_legacy_async(st_chrome_importer *im, const ev *e, uint32_t pi, char ph) {
  if (e->id.kind == ID_NONE) {
    warn(im, "async_without_id");
    return;
  }
  if (e->tid.kind) event_thread(im, e, pi, 1);
  uint32_t name = intern(im, e->name), cat = intern(im, e->cat);
  uint64_t tag, val;
  id_words(im, &e->id, &tag, &val);
  mkey k = {name, tag, val};
  st_stats_time(im->stats, e->ts, e->ts);
  uint32_t li = map_get(&im->legacy_map, k);
  lopen *o = li != UINT32_MAX ? &im->lopens[li] : NULL;
  if (ph == 'S') {
    if (o && o->open) {
      warn(im, "async_unclosed");
      emit(im, o->track, o->ts, 0, o->name, o->cat, o->src, ST_EV_UNFINISHED);
      im->stats->async_slices++;
    }
    if (!o) {
      if (!grow(im, (void **)&im->lopens, &im->clopens, im->nlopens, sizeof(lopen)) ||
          !map_put(im, &im->legacy_map, k, im->nlopens)) {
        im->nomem = 1;
        return;
      }
      o = &im->lopens[im->nlopens++];
    }
    *o = (lopen){.ts = e->ts,
                 .last_ts = e->ts,
                 .src = im->cur_src,
                 .name = name,
                 .cat = cat,
                 .track = async_track(im, pi, name, cat),
                 .open = 1};
    return;
  }
  if (!o || !o->open) {
    warn(im, ph == 'F' ? "unmatched_async_end" : "unmatched_async_step");
    return;
  }
  /* the step name: args.step, else the slice's name */
  uint32_t step = o->name;
  objit it = objit_of(e->args, e->args_end);
  st_json_str key, s;
  const char *v, *ve;
  while (objit_next(&it, &key, &v, &ve))
    if (str_eq(key, "step") && value_str(v, ve, &s)) step = intern(im, s);
  if (o->has_step) { /* a T step runs until this event */
    emit(im, o->track, o->step_ts, e->ts - o->step_ts, o->step_name, o->cat, o->step_src, 0);
    im->stats->async_slices++;
    o->has_step = 0;
  }
  if (ph == 'T') {
    o->has_step = 1;
    o->step_ts = e->ts;
    o->step_name = step;
    o->step_src = im->cur_src;
  } else if (ph == 'p') {
    emit(im, o->track, o->last_ts, e->ts - o->last_ts, step, o->cat, im->cur_src, 0);
    im->stats->async_slices++;
  } else { /* F */
    emit(im, o->track, o->ts, e->ts - o->ts, o->name, o->cat, o->src, ST_EV_HAS_END);
    im->stats->async_slices++;
    o->open = 0;
  }
  o->last_ts = e->ts;
}

/* Flows: each flow event becomes a point of the builder, keyed by its
 * identity; st_builder_finish chains the points of an identity in time
 * order (writers do not sort) and binds them to slices (trace.h). */
static void flow_point(st_chrome_importer *im, mkey k, unsigned role, st_flow_bind bind,
                       uint32_t track, int64_t ts) {
  if (track == UINT32_MAX) return;
  uint32_t fi = map_get(&im->flow_map, k);
  if (fi == UINT32_MAX) {
    if (!map_put(im, &im->flow_map, k, im->nflows)) {
      im->nomem = 1;
      return;
    }
    fi = im->nflows++;
  }
  st_code c = st_builder_flow(im->b, fi, role, bind, track, ts, im->cur_src);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    warn(im, "builder_limit");
}

/* True if s contains the bytes of w (raw, escapes not decoded). */
static int str_has(st_json_str s, const char *w) {
  size_t n = strlen(w);
  for (size_t i = 0; i + n <= s.n; i++)
    if (!memcmp(s.p + i, w, n)) return 1;
  return 0;
}

/* v1: s and t bind to the slice enclosing ts on their thread; f to the
 * next slice starting there at/after ts, or (bp "e", or a cat with "input"
 * or "ipc.flow", as catapult does) the enclosing one. */
static void on_flow_v1(st_chrome_importer *im, const ev *e, uint32_t pi, char ph) {
  /* a flow without tid is placed on tid = pid but does not count a thread */
  uint32_t ti = event_thread(im, e, pi, e->tid.kind ? 1 : 0);
  if (e->has_ts) st_stats_time(im->stats, e->ts, e->ts);
  if (e->id.kind == ID_NONE) {
    warn(im, "flow_without_id");
    return;
  }
  if (!e->has_ts) {
    warn(im, "missing_ts");
    return;
  }
  if (ti == UINT32_MAX) return;
  uint64_t tag, val;
  id_words(im, &e->id, &tag, &val);
  mkey k = {((uint64_t)intern(im, e->cat) << 32) | intern(im, e->name), tag, val};
  st_flow_bind bind = ST_FLOW_BIND_ENCLOSING;
  unsigned role = ph == 's'   ? ST_FLOW_OUT
                  : ph == 't' ? ST_FLOW_IN | ST_FLOW_OUT
                              : ST_FLOW_IN | ST_FLOW_END;
  if (ph == 'f' && !str_eq(e->bp, "e") && !str_has(e->cat, "input") && !str_has(e->cat, "ipc.flow"))
    bind = ST_FLOW_BIND_NEXT;
  flow_point(im, k, role, bind, thread_track(im, &im->threads[ti], ST_TRACK_SLICES), e->ts);
}

/* v2: the event's own slice (X or B on its thread; b or n on its async
 * track) is the end point. */
static void on_flow_v2(st_chrome_importer *im, const ev *e, uint32_t pi, unsigned char ph) {
  if (!e->flow_in && !e->flow_out) {
    warn(im, "flow_without_direction");
    return;
  }
  uint32_t track = UINT32_MAX;
  if (!e->has_ts) return; /* the event itself is dropped (missing_ts) */
  if (ph == 'X' || ph == 'B') {
    uint32_t ti = event_thread(im, e, pi, 1);
    if (ti != UINT32_MAX) track = thread_track(im, &im->threads[ti], ST_TRACK_SLICES);
  } else if (ph == 'b' || ph == 'n') {
    track = async_track(im, pi, intern(im, e->name), intern(im, e->cat));
  } else {
    warn(im, "flow_unbound"); /* no slice of its own to bind to */
    return;
  }
  uint64_t tag, val;
  id_words(im, &e->bind_id, &tag, &val);
  mkey k = {UINT64_MAX, tag | 0x100, val};
  unsigned role = (e->flow_in ? ST_FLOW_IN : 0) | (e->flow_out ? ST_FLOW_OUT : 0);
  flow_point(im, k, role, ST_FLOW_BIND_EVENT, track, e->ts);
}

static void handle_event(st_chrome_importer *im, const ev *e) {
  st_stats *st = im->stats;
  st->events++;
  unsigned char c = 0;
  if (!e->has_ph || e->ph.n == 0) {
    st->phases[128]++;
  } else {
    char one[48];
    const char *php = e->ph.p;
    size_t phn = e->ph.n;
    if (e->ph.esc) { /* decode a prefix: only the first character and the length matter */
      size_t n = phn < 12 ? phn : 12;
      php = one;
      phn = st_json_unescape(e->ph.p, n, one);
      if (e->ph.n > 12 && phn < 2) phn = 2;
    }
    c = (unsigned char)php[0];
    if (phn == 1 && c < 128)
      st->phases[c]++;
    else
      st->phases_other++;
  }
  if (e->nkeys == 0) return; /* the {} sentinel */
  if (!e->has_ph || e->ph.n == 0) {
    warn(im, "missing_ph");
    if (e->pid.kind) event_proc(im, e);
    return;
  }
  uint32_t pi = event_proc(im, e);
  if (pi == UINT32_MAX) return;
  if (c != 'M' && e->has_ts == 0 && e->bad_ts) warn(im, "bad_timestamp");
  if (e->bad_dur) warn(im, "bad_duration");
  if (e->bind_id.kind) on_flow_v2(im, e, pi, c);
  if (c == 'M') {
    on_metadata(im, e, pi);
    return;
  }
  int needs_ts = c != 'C' && c != 's' && c != 't' && c != 'f';
  if (needs_ts && !e->has_ts) {
    if (!e->bad_ts) warn(im, "missing_ts");
    if (e->tid.kind) event_thread(im, e, pi, 1);
    return;
  }
  switch (c) {
  case 'X': on_complete(im, e, pi); break;
  case 'B': on_begin(im, e, pi); break;
  case 'E': on_end(im, e, pi); break;
  case 'i':
  case 'I':
  case 'R': on_instant(im, e, pi); break;
  case 'C': on_counter(im, e, pi); break;
  case 'b':
  case 'e':
  case 'n': on_async(im, e, pi, (char)c); break;
  case 'S':
  case 'T':
  case 'p':
  case 'F': on_legacy_async(im, e, pi, (char)c); break;
  case 's':
  case 't':
  case 'f': on_flow_v1(im, e, pi, (char)c); break;
  case 'O':
  case 'N':
  case 'D':
  case 'P':
  case 'c':
  case 'V':
  case 'v':
  case '(':
  case ')':
    if (e->tid.kind) event_thread(im, e, pi, 1);
    st_stats_time(st, e->ts, e->ts);
    warn(im, "skipped_phase");
    break;
  default:
    if (e->tid.kind) event_thread(im, e, pi, 1);
    st_stats_time(st, e->ts, e->ts);
    warn(im, "unknown_phase");
    break;
  }
}

/* Closes everything still open at the end of input. */
static void close_open(st_chrome_importer *im) {
  for (uint32_t i = 0; i < im->nthreads; i++) {
    thread *t = &im->threads[i];
    while (t->depth > 0) {
      bopen b = t->stack[--t->depth];
      im->cur_src = b.src;
      warn(im, "unclosed_begin");
      emit(im, thread_track(im, t, ST_TRACK_SLICES), b.ts, 0, b.name, b.cat, b.src,
           ST_EV_UNFINISHED);
      im->stats->slices++;
    }
  }
  for (uint32_t i = 0; i < im->naids; i++) {
    aident *a = &im->aids[i];
    while (a->depth > 0) {
      aopen o = a->stack[--a->depth];
      im->cur_src = o.src;
      warn(im, "unclosed_async_begin");
      emit(im, o.track, o.ts, 0, o.name, o.cat, o.src, ST_EV_UNFINISHED);
      im->stats->async_slices++;
    }
  }
  for (uint32_t i = 0; i < im->nlopens; i++) {
    lopen *o = &im->lopens[i];
    if (!o->open) continue;
    im->cur_src = o->src;
    warn(im, "unclosed_async_begin");
    emit(im, o->track, o->ts, 0, o->name, o->cat, o->src, ST_EV_UNFINISHED);
    im->stats->async_slices++;
    o->open = 0;
  }
}

/* ==== 6. the container state machine ===================================== */

static int meta_append(st_chrome_importer *im, const char *p, size_t n) {
  size_t need;
  if (!st_add_size(im->meta_len, n, &need) || !st_add_size(need, 1, &need)) return 0;
  if (need > im->meta_cap) {
    size_t ncap = im->meta_cap ? im->meta_cap : 256;
    while (ncap < need) ncap *= 2;
    char *m = st_realloc(&im->alloc, im->meta, ncap);
    if (!m) return 0;
    im->meta = m;
    im->meta_cap = ncap;
  }
  memcpy(im->meta + im->meta_len, p, n);
  im->meta_len += n;
  im->meta[im->meta_len] = 0;
  return 1;
}

/* Copies skipped value bytes into the metadata text, within the cap. */
static void capture(st_chrome_importer *im, const char *p, size_t n) {
  if (!im->capture || im->meta_overflow) return;
  if (im->meta_len - im->meta_value_start + n > ST_CHROME_META_VALUE_MAX) {
    static const char msg[] = "\"(not kept: larger than 65536 bytes)\"";
    im->meta_len = im->meta_value_start;
    im->meta_overflow = 1;
    if (!meta_append(im, msg, sizeof msg - 1)) im->nomem = 1;
    return;
  }
  if (!meta_append(im, p, n)) im->nomem = 1;
}

static topkey classify_key(st_json_str k) {
  if (str_eq(k, "traceEvents")) return K_TRACE_EVENTS;
  if (str_eq(k, "systemTraceEvents")) return K_SYSTEM_TRACE_EVENTS;
  if (str_eq(k, "stackFrames")) return K_STACK_FRAMES;
  if (str_eq(k, "samples")) return K_SAMPLES;
  return K_OTHER;
}

/* Waits for the window to grow well past the token that did not fit. */
static void wait_for(st_chrome_importer *im, const char *tok) {
  uint64_t start = abs_of(im, tok), pending = im->base + im->len - start;
  uint64_t grow_to = pending * 2 > pending + 4096 ? pending * 2 : pending + 4096;
  im->need_abs = start + grow_to;
  im->pos = (size_t)(tok - im->buf);
}

/* The event list: parse every complete element in the window. */
static int run_list(st_chrome_importer *im, const char **pp, const char *end) {
  const char *p = *pp;
  for (;;) {
    p = st_json_ws(p, end);
    if (p >= end) {
      *pp = p;
      return 0;
    }
    char c = *p;
    if (c == '{') {
      if (!im->expect_value) warn(im, "missing_comma");
      ev e;
      const char *q, *bad = p, *why = "";
      st_json_status s = parse_event(p, end, &e, &q, &bad, &why);
      if (s == ST_JSON_INCOMPLETE) {
        if ((size_t)(end - p) > ST_CHROME_EVENT_MAX) {
          set_error(im, ST_ERR_LIMIT, abs_of(im, p), "an event is larger than %s bytes",
                    "536870912");
          return -1;
        }
        *pp = p;
        return 1;
      }
      if (s == ST_JSON_BAD) {
        set_error(im, ST_ERR_JSON, abs_of(im, bad), "JSON syntax error: %s", why);
        return -1;
      }
      im->cur_src = abs_of(im, p);
      handle_event(im, &e);
      if (im->nomem) {
        set_error(im, ST_ERR_NOMEM, im->cur_src, "out of memory%s", "");
        return -1;
      }
      im->expect_value = 0;
      im->after_comma = 0;
      p = q;
    } else if (c == ',') {
      if (im->expect_value) {
        set_error(im, ST_ERR_JSON, abs_of(im, p), "JSON syntax error: unexpected ','%s", "");
        return -1;
      }
      im->expect_value = 1;
      im->after_comma = 1;
      p++;
    } else if (c == ']') {
      if (im->after_comma) warn(im, "trailing_comma");
      p++;
      *pp = p;
      im->state = im->form == 1 ? T_DONE : T_OBJ_NEXT;
      return 2;
    } else {
      const char *q;
      st_json_status s = st_json_skip_value(p, end, &q);
      if (s == ST_JSON_INCOMPLETE) {
        *pp = p;
        return 1;
      }
      if (s == ST_JSON_BAD) {
        set_error(im, ST_ERR_JSON, abs_of(im, q),
                  "JSON syntax error: unexpected character in the event list%s", "");
        return -1;
      }
      im->cur_src = abs_of(im, p);
      warn(im, "non_object_event");
      im->expect_value = 0;
      im->after_comma = 0;
      p = q;
    }
  }
}

/* Runs the state machine over the window. Returns ST_OK (maybe waiting for
 * more input) or the error. */
static st_code run(st_chrome_importer *im) {
  const char *p = im->buf + im->pos, *end = im->buf + im->len;
  for (;;) {
    if (im->state == T_FAILED) return im->code;
    if (im->state != T_OBJ_SKIP) p = st_json_ws(p, end);
    if (p >= end && im->state != T_OBJ_SKIP) break;
    switch (im->state) {
    case T_START:
      if (im->base == 0 && p == im->buf && end - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
        p += 3; /* UTF-8 byte order mark; whitespace may follow */
        break;
      }
      if (*p == '\xEF' && im->base == 0 && p == im->buf && end - p < 3 && !im->final) {
        im->pos = (size_t)(p - im->buf);
        return ST_OK; /* maybe a BOM: wait */
      }
      if (*p == '[') {
        im->form = 1;
        im->saw_event_list = 1;
        im->state = T_LIST;
        im->expect_value = 1;
      } else if (*p == '{') {
        im->form = 2;
        im->state = T_OBJ_KEY;
      } else {
        char found[48];
        snprintf(found, sizeof found, "0x%02X", (unsigned char)*p);
        return set_error(im, ST_ERR_FORMAT, abs_of(im, p),
                         "not a trace: expected '{' or '[' (found %s)", found);
      }
      p++;
      break;
    case T_OBJ_KEY: {
      if (*p == '}') {
        im->state = T_DONE;
        p++;
        break;
      }
      if (*p != '"')
        return set_error(im, ST_ERR_JSON, abs_of(im, p),
                         "JSON syntax error: expected a key in the top-level object%s", "");
      const char *q;
      int esc;
      if (st_json_string(p + 1, end, &q, &esc) != ST_JSON_OK) {
        wait_for(im, p);
        return ST_OK;
      }
      st_json_str k = {p + 1, (size_t)(q - p - 1), esc};
      im->key = classify_key(k);
      im->capture = 0;
      if (im->key == K_OTHER && !im->nomem) {
        im->meta_overflow = 0;
        im->meta_key_start = im->meta_len;
        if (!meta_append(im, im->meta_len > 1 ? "," : "", im->meta_len > 1 ? 1 : 0) ||
            !meta_append(im, p, (size_t)(q + 1 - p)) || !meta_append(im, ":", 1)) {
          return set_error(im, ST_ERR_NOMEM, abs_of(im, p), "out of memory%s", "");
        }
        im->meta_value_start = im->meta_len;
        im->capture = 1;
      }
      im->state = T_OBJ_COLON;
      p = q + 1;
      break;
    }
    case T_OBJ_COLON:
      if (*p != ':')
        return set_error(im, ST_ERR_JSON, abs_of(im, p),
                         "JSON syntax error: expected ':' in the top-level object%s", "");
      p++;
      im->state = T_OBJ_VALUE;
      break;
    case T_OBJ_VALUE: {
      im->cur_src = abs_of(im, p);
      if (im->key == K_TRACE_EVENTS && *p == '[') {
        im->saw_event_list = 1;
        im->expect_value = 1;
        im->after_comma = 0;
        im->state = T_LIST;
        p++;
        break;
      }
      if (im->key == K_TRACE_EVENTS)
        warn(im, "trace_events_not_a_list");
      else if (im->key == K_SYSTEM_TRACE_EVENTS)
        warn(im, "system_trace_events_ignored");
      else if (im->key == K_STACK_FRAMES)
        warn(im, "stack_frames_skipped");
      else if (im->key == K_SAMPLES)
        warn(im, "samples_skipped");
      if (*p == '"' || *p == '[' || *p == '{') {
        im->sk = (st_json_skipper){0};
        im->state = T_OBJ_SKIP;
        break;
      }
      const char *q;
      st_json_status s = st_json_skip_value(p, end, &q);
      if (s == ST_JSON_INCOMPLETE && !im->final) {
        wait_for(im, p);
        return ST_OK;
      }
      if (s == ST_JSON_INCOMPLETE) q = st_json_number_end(p, end); /* a number at the very end */
      if (s == ST_JSON_BAD || q == p)
        return set_error(im, ST_ERR_JSON, abs_of(im, s == ST_JSON_BAD ? q : p),
                         "JSON syntax error: invalid value in the top-level object%s", "");
      capture(im, p, (size_t)(q - p));
      p = q;
      im->state = T_OBJ_NEXT;
      break;
    }
    case T_OBJ_SKIP: {
      const char *q;
      st_json_status s = st_json_skipper_run(&im->sk, p, end, &q);
      if (s == ST_JSON_BAD)
        return set_error(im, ST_ERR_JSON, abs_of(im, q),
                         "JSON syntax error: unbalanced brackets in the top-level object%s", "");
      capture(im, p, (size_t)(q - p));
      p = q;
      if (s == ST_JSON_INCOMPLETE) {
        im->pos = (size_t)(p - im->buf);
        im->need_abs = 0;
        if (im->nomem) return set_error(im, ST_ERR_NOMEM, abs_of(im, p), "out of memory%s", "");
        return ST_OK;
      }
      im->state = T_OBJ_NEXT;
      break;
    }
    case T_OBJ_NEXT:
      if (im->nomem) return set_error(im, ST_ERR_NOMEM, abs_of(im, p), "out of memory%s", "");
      if (*p == ',')
        im->state = T_OBJ_KEY;
      else if (*p == '}')
        im->state = T_DONE;
      else
        return set_error(im, ST_ERR_JSON, abs_of(im, p),
                         "JSON syntax error: expected ',' or '}' in the top-level object%s", "");
      p++;
      break;
    case T_LIST: {
      int r = run_list(im, &p, end);
      if (r < 0) return im->code;
      if (r == 1) {
        if (!im->final)
          wait_for(im, p);
        else
          im->pos = (size_t)(p - im->buf);
        return ST_OK;
      }
      break;
    }
    case T_DONE:
      im->cur_src = abs_of(im, p);
      warn(im, "trailing_data");
      p = end; /* ignore the rest */
      break;
    case T_FAILED: return im->code;
    }
  }
  im->pos = (size_t)(p - im->buf);
  im->need_abs = 0;
  return ST_OK;
}

/* ==== 7. public API ====================================================== */

st_chrome_importer *st_chrome_create(const st_alloc *a, st_builder *b, st_stats *stats) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!b || !stats) return NULL;
  st_chrome_importer *im = st_calloc(&al, 1, sizeof *im);
  if (!im) return NULL;
  im->alloc = al;
  im->b = b;
  im->strs = st_builder_strings(b);
  im->stats = stats;
  im->last_thread = UINT32_MAX;
  im->global_proc = UINT32_MAX;
  if (!meta_append(im, "{", 1)) {
    st_chrome_destroy(im);
    return NULL;
  }
  return im;
}

void st_chrome_destroy(st_chrome_importer *im) {
  if (!im) return;
  for (uint32_t i = 0; i < im->nthreads; i++) st_free(&im->alloc, im->threads[i].stack);
  for (uint32_t i = 0; i < im->naids; i++) st_free(&im->alloc, im->aids[i].stack);
  map *maps[] = {&im->proc_map,  &im->thread_map, &im->counter_map, &im->series_map,
                 &im->async_map, &im->legacy_map, &im->flow_map};
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) map_free(im, maps[i]);
  st_free(&im->alloc, im->threads);
  st_free(&im->alloc, im->procs);
  st_free(&im->alloc, im->aids);
  st_free(&im->alloc, im->lopens);
  st_free(&im->alloc, im->scratch);
  st_free(&im->alloc, im->meta);
  st_free(&im->alloc, im->buf);
  st_alloc a = im->alloc;
  st_free(&a, im);
}

st_code st_chrome_push(st_chrome_importer *im, const uint8_t *data, size_t len, st_error *err) {
  if (!im) return ST_ERR_ARG;
  if (im->code != ST_OK) {
    if (err) *err = im->error;
    return im->code;
  }
  if (len == 0) return ST_OK;
  if (im->state == T_DONE) { /* only whitespace may follow: do not keep it */
    size_t i = 0;
    while (i < len && st_json_is_ws(data[i])) i++;
    if (i < len) {
      im->cur_src = im->base + im->len + i;
      warn(im, "trailing_data");
    }
    im->base += len;
    return ST_OK;
  }
  if (im->state == T_OBJ_SKIP && im->pos == im->len) {
    /* the skipper keeps no bytes: run it straight over the chunk */
    count_lines(im, im->base + im->len);
    im->base += im->len;
    im->len = im->pos = 0;
  }
  if (len > im->cap - im->len) {
    /* make room: drop consumed bytes, then grow */
    count_lines(im, im->base + im->pos);
    if (im->pos) memmove(im->buf, im->buf + im->pos, im->len - im->pos);
    im->len -= im->pos;
    im->base += im->pos;
    im->pos = 0;
    if (len > im->cap - im->len) {
      size_t need, ncap = im->cap ? im->cap : 64u * 1024u;
      if (!st_add_size(im->len, len, &need)) {
        set_error(im, ST_ERR_NOMEM, im->base, "input chunk too large%s", "");
        if (err) *err = im->error;
        return im->code;
      }
      while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
      char *nb = st_realloc(&im->alloc, im->buf, ncap);
      if (!nb) {
        set_error(im, ST_ERR_NOMEM, im->base, "out of memory (window of %s bytes)", "many");
        if (err) *err = im->error;
        return im->code;
      }
      im->buf = nb;
      im->cap = ncap;
    }
  }
  memcpy(im->buf + im->len, data, len);
  im->len += len;
  if (im->base + im->len < im->need_abs) return ST_OK;
  st_code c = run(im);
  if (c != ST_OK && err) *err = im->error;
  return c;
}

st_code st_chrome_finish(st_chrome_importer *im, st_error *err) {
  if (!im) return ST_ERR_ARG;
  if (!im->buf) { /* no bytes at all: give the window a body so offsets are defined */
    im->buf = st_malloc(&im->alloc, 16);
    im->cap = im->buf ? 16 : 0;
    if (!im->buf) set_error(im, ST_ERR_NOMEM, 0, "out of memory%s", "");
  }
  if (im->code == ST_OK) {
    im->final = 1;
    im->need_abs = 0;
    run(im);
  }
  if (im->code == ST_OK) {
    const char *p = st_json_ws(im->buf + im->pos, im->buf + im->len);
    uint64_t at = abs_of(im, p);
    switch (im->state) {
    case T_START:
      set_error(im, im->base + im->len == 0 ? ST_ERR_EMPTY : ST_ERR_FORMAT, at,
                im->base + im->len == 0 ? "empty input%s" : "not a trace: no JSON value%s", "");
      break;
    case T_LIST:
      im->cur_src = at;
      warn(im, "truncated");
      if (im->form == 2)
        set_error(im, ST_ERR_TRUNCATED, at, "truncated: input ended inside the traceEvents list%s",
                  p < im->buf + im->len ? " (in the middle of an event)" : "");
      break;
    case T_DONE: break;
    default:
      if (im->capture) im->meta_len = im->meta_key_start; /* drop the cut value */
      im->cur_src = at;
      warn(im, "truncated");
      set_error(im, ST_ERR_TRUNCATED, at, "truncated: input ended inside the top-level object%s",
                "");
      break;
    }
  }
  if (im->code == ST_OK && im->form == 2 && !im->saw_event_list)
    set_error(im, ST_ERR_FORMAT, 0, "not a trace: the JSON object has no traceEvents list%s", "");
  close_open(im);
  if (im->nomem && im->code == ST_OK) set_error(im, ST_ERR_NOMEM, 0, "out of memory%s", "");
  if (!meta_append(im, "}", 1) && im->code == ST_OK)
    set_error(im, ST_ERR_NOMEM, 0, "out of memory%s", "");
  if (err) *err = im->error;
  return im->code;
}

int st_chrome_has_trace(const st_chrome_importer *im) {
  if (!im || !im->saw_event_list) return 0;
  if (im->code == ST_ERR_NOMEM || im->code == ST_ERR_FORMAT || im->code == ST_ERR_EMPTY) return 0;
  if (im->code != ST_OK && im->stats->events == 0) return 0;
  return 1;
}

const char *st_chrome_metadata_json(const st_chrome_importer *im) {
  if (!im || !im->meta || im->meta_len == 0 || im->meta[im->meta_len - 1] != '}') return "{}";
  return im->meta;
}
