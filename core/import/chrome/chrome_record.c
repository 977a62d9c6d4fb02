/* chrome_record.c: range result records (see chrome_record.h). */
#include "chrome_record.h"

#include <string.h>

/* mask bits of an event record: which optional fields follow */
#define CF_TS (1u << 0)
#define CF_DUR (1u << 1)
#define CF_IDNUM(i) (1u << (2 + 2 * (i)))
#define CF_IDSTR(i) (1u << (3 + 2 * (i)))
#define CF_STR(j) (1u << (12 + (j)))
#define NIDS 5
#define NSTRS 7
#define STR_ESC 0x80000000u
#define STR_REF 0x40000000u
#define STR_LEN 0x3FFFFFFFu
#define SEEN_SLOTS 16384u /* strings indexed per result */

/* the flag bytes of st_chrome_ev, in this order */
#define FLAG_FIELDS(X)                                                                             \
  X(has_ph) X(has_ts) X(has_dur) X(bad_ts) X(bad_dur) X(id2_local) X(has_id2) X(flow_in) X(flow_out)

static st_chrome_id *ids_of(st_chrome_ev *e, int i) {
  st_chrome_id *v[NIDS] = {&e->pid, &e->tid, &e->id, &e->id2, &e->bind_id};
  return v[i];
}

static st_json_str *strs_of(st_chrome_ev *e, int j) {
  st_json_str *v[NSTRS] = {&e->ph,    &e->name,        &e->cat, &e->scope_s,
                           &e->scope, &e->event_stats, &e->bp};
  return v[j];
}

int st_chrome_rec_reserve(st_chrome_recbuf *rb, const st_alloc *a, size_t more) {
  size_t need;
  if (!st_add_size(rb->len, more, &need)) return 0;
  if (need <= rb->cap) return 1;
  void *np = rb->p;
  if (!st_grow_from(a, &np, &rb->cap, need, 1, 64u * 1024u)) return 0;
  rb->p = np;
  return 1;
}

static void put(st_chrome_recbuf *rb, const void *v, size_t n) {
  memcpy(rb->p + rb->len, v, n);
  rb->len += n;
}
static void put_u8(st_chrome_recbuf *rb, uint8_t v) { rb->p[rb->len++] = v; }
static void put_u32(st_chrome_recbuf *rb, uint32_t v) { put(rb, &v, 4); }
static void put_u64(st_chrome_recbuf *rb, uint64_t v) { put(rb, &v, 8); }

static size_t str_size(const st_json_str *s) { return s->p ? 4 + s->n : 0; }

/* of the length word and the first and last 8 (or 4) bytes: cheap, and
 * the names of one trace seldom share both ends and the length */
static inline uint32_t hash_str(const char *p, size_t n, uint32_t word) {
  uint64_t a, b;
  if (n >= 8) {
    memcpy(&a, p, 8);
    memcpy(&b, p + n - 8, 8);
  } else {
    uint32_t x, y;
    memcpy(&x, p, 4);
    memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  }
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + word) * 0xBF58476D1CE4E5B9ull;
  return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* A string as a back-reference to its earlier copy, or its bytes. The index
 * is direct-mapped: a string that collides with another replaces it (only
 * stored twice, then). The buffer has room for the bytes. */
static void put_str(st_chrome_recbuf *rb, const st_json_str *s) {
  uint32_t word = (uint32_t)s->n | (s->esc ? STR_ESC : 0);
  if (rb->seen && s->n >= 4 && rb->len < UINT32_MAX - 8) { /* a reference takes 8 bytes */
    uint32_t *slot = &rb->seen[hash_str(s->p, s->n, word) & (SEEN_SLOTS - 1)];
    uint32_t at = *slot, w;
    if (at) {
      memcpy(&w, rb->p + at - 1, 4);
      if (w == word && !memcmp(rb->p + at + 3, s->p, s->n)) {
        put_u32(rb, (uint32_t)s->n | STR_REF);
        put_u32(rb, at - 1);
        return;
      }
    }
    *slot = (uint32_t)rb->len + 1;
  }
  put_u32(rb, word);
  put(rb, s->p, s->n);
}

void st_chrome_rec_truncate(st_chrome_recbuf *rb, size_t len) {
  if (len >= rb->len) return;
  rb->len = len;
  if (rb->seen) memset(rb->seen, 0, SEEN_SLOTS * sizeof *rb->seen);
}

void st_chrome_rec_done(st_chrome_recbuf *rb, const st_alloc *a) {
  st_free(a, rb->seen);
  rb->seen = NULL;
}

int st_chrome_rec_needs_raw(const st_chrome_ev *e) {
  if (e->entries || !e->has_ph || e->ph.n != 1 || e->ph.esc) return 1;
  switch (e->ph.p[0]) {
  case 'X':
  case 'B':
  case 'E':
  case 'R':
  case 'b':
  case 'e':
  case 'n':
  case 's':
  case 't':
  case 'f':
  case 'S': return 0;
  case 'i':
  case 'I': /* a V8 profile, Kineto's [memory] (chrome_memory.h): their args are read */
    return (e->name.n == 10 && st_chrome_str_eq(e->name, "CpuProfile")) ||
           (e->name.n == 8 && st_chrome_str_eq(e->name, "[memory]"));
  default: return 1;
  }
}

int st_chrome_rec_event(st_chrome_recbuf *rb, const st_alloc *a, const st_chrome_ev *ce,
                        uint64_t src) {
  st_chrome_ev *e = (st_chrome_ev *)ce; /* read only: ids_of/strs_of take non-const */
  uint32_t mask = 0;
  size_t need = 1 + 8 + 4 + 4 + 2;
  if (e->ts) mask |= CF_TS, need += 8;
  if (e->dur) mask |= CF_DUR, need += 8;
  for (int i = 0; i < NIDS; i++) {
    st_chrome_id *id = ids_of(e, i);
    need += 1;
    if (id->num) mask |= CF_IDNUM(i), need += 8;
    if (id->s.p) {
      if (id->s.n > STR_LEN) return 0;
      mask |= CF_IDSTR(i), need += str_size(&id->s);
    }
  }
  for (int j = 0; j < NSTRS; j++) {
    st_json_str *s = strs_of(e, j);
    if (!s->p) continue;
    if (s->n > STR_LEN) return 0;
    mask |= CF_STR(j);
    need += str_size(s);
  }
  if (!st_chrome_rec_reserve(rb, a, need)) return 0;
  if (!rb->seen) { /* made once per result; without it strings are just copied */
    rb->seen = st_calloc(a, SEEN_SLOTS, sizeof *rb->seen);
  }
  put_u8(rb, CREC_EVENT);
  put_u64(rb, src);
  put_u32(rb, mask);
  put_u32(rb, e->nkeys);
  uint16_t flags = 0, bit = 1;
#define PUT_FLAG(f)                                                                                \
  if (e->f) flags |= bit;                                                                          \
  bit = (uint16_t)(bit << 1);
  FLAG_FIELDS(PUT_FLAG)
#undef PUT_FLAG
  put(rb, &flags, 2);
  if (mask & CF_TS) put_u64(rb, (uint64_t)e->ts);
  if (mask & CF_DUR) put_u64(rb, (uint64_t)e->dur);
  for (int i = 0; i < NIDS; i++) {
    st_chrome_id *id = ids_of(e, i);
    put_u8(rb, (uint8_t)id->kind);
    if (mask & CF_IDNUM(i)) put_u64(rb, (uint64_t)id->num);
    if (mask & CF_IDSTR(i)) put_str(rb, &id->s);
  }
  for (int j = 0; j < NSTRS; j++)
    if (mask & CF_STR(j)) put_str(rb, strs_of(e, j));
  return 1;
}

int st_chrome_rec_x_fits(const st_chrome_ev *e) {
  return e->has_ph && e->ph.n == 1 && !e->ph.esc && e->ph.p[0] == 'X' && e->nkeys && e->has_ts &&
         !e->bad_ts && e->pid.kind == ST_CHROME_ID_NUM && !e->pid.s.p &&
         e->tid.kind == ST_CHROME_ID_NUM && !e->tid.s.p && e->bind_id.kind == ST_CHROME_ID_NONE &&
         !e->entries && e->name.n <= STR_LEN && e->cat.n <= STR_LEN;
}

int st_chrome_rec_x(st_chrome_recbuf *rb, const st_alloc *a, const st_chrome_ev *e, uint64_t src) {
  if (!st_chrome_rec_reserve(rb, a, 1 + 8 + 1 + 8 * 4 + 8 + e->name.n + e->cat.n)) return 0;
  if (!rb->seen) rb->seen = st_calloc(a, SEEN_SLOTS, sizeof *rb->seen);
  put_u8(rb, CREC_X);
  put_u64(rb, src);
  put_u8(rb, (uint8_t)((e->has_dur ? 1 : 0) | (e->bad_dur ? 2 : 0)));
  put_u64(rb, (uint64_t)e->ts);
  if (e->has_dur) put_u64(rb, (uint64_t)e->dur);
  put_u64(rb, (uint64_t)e->pid.num);
  put_u64(rb, (uint64_t)e->tid.num);
  static const char none[1] = "";
  st_json_str name = e->name.p ? e->name : (st_json_str){none, 0, 0};
  st_json_str cat = e->cat.p ? e->cat : (st_json_str){none, 0, 0};
  put_str(rb, &name);
  put_str(rb, &cat);
  return 1;
}

int st_chrome_rec_raw(st_chrome_recbuf *rb, const st_alloc *a, const char *obj, size_t n,
                      uint64_t src) {
  if (n > UINT32_MAX || !st_chrome_rec_reserve(rb, a, 1 + 8 + 4 + n)) return 0;
  put_u8(rb, CREC_RAW);
  put_u64(rb, src);
  put_u32(rb, (uint32_t)n);
  put(rb, obj, n);
  return 1;
}

int st_chrome_rec_warn(st_chrome_recbuf *rb, const st_alloc *a, unsigned which, uint64_t src) {
  if (!st_chrome_rec_reserve(rb, a, 1 + 8 + 1)) return 0;
  put_u8(rb, CREC_WARN);
  put_u64(rb, src);
  put_u8(rb, (uint8_t)which);
  return 1;
}

/* ---- reading ----------------------------------------------------------------- */

static int get(st_chrome_reader *rd, void *v, size_t n) {
  if ((size_t)(rd->end - rd->p) < n) return 0;
  memcpy(v, rd->p, n);
  rd->p += n;
  return 1;
}

static int get_str(st_chrome_reader *rd, st_json_str *s) {
  uint32_t w, at;
  if (!get(rd, &w, 4)) return 0;
  size_t n = w & STR_LEN;
  if (w & STR_REF) { /* the copy before: its length word, then its bytes */
    if (!get(rd, &at, 4) || !rd->origin || at > (size_t)(rd->p - rd->origin) ||
        (size_t)(rd->end - rd->origin) - at < 4 + n)
      return 0;
    uint32_t w0;
    memcpy(&w0, rd->origin + at, 4);
    if ((w0 & (STR_LEN | STR_REF)) != n) return 0;
    s->p = (const char *)rd->origin + at + 4;
    s->n = n;
    s->esc = (w0 & STR_ESC) != 0;
    return 1;
  }
  if ((size_t)(rd->end - rd->p) < n) return 0;
  s->p = (const char *)rd->p;
  s->n = n;
  s->esc = (w & STR_ESC) != 0;
  rd->p += n;
  return 1;
}

int st_chrome_rec_next(st_chrome_reader *rd, st_chrome_rec *out) {
  if (rd->p >= rd->end) return 0;
  uint8_t kind = *rd->p++;
  out->kind = kind;
  if (!get(rd, &out->src, 8)) return -1;
  if (kind == CREC_WARN) {
    uint8_t w;
    if (!get(rd, &w, 1) || w > CREC_W_NON_OBJECT) return -1;
    out->which = w;
    return 1;
  }
  if (kind == CREC_RAW) {
    uint32_t n;
    if (!get(rd, &n, 4) || (size_t)(rd->end - rd->p) < n) return -1;
    out->raw = (const char *)rd->p;
    out->raw_end = out->raw + n;
    rd->p += n;
    return 1;
  }
  if (kind == CREC_X) {
    st_chrome_ev *x = &out->xev;
    if (!rd->xprimed) { /* set once: an X's constant fields */
      memset(x, 0, sizeof *x);
      static const char ph_x[] = "X";
      x->has_ph = x->has_ts = 1;
      x->ph = (st_json_str){ph_x, 1, 0};
      x->nkeys = 1;
      x->pid.kind = x->tid.kind = ST_CHROME_ID_NUM;
      rd->xprimed = 1;
    }
    uint8_t f;
    if (!get(rd, &f, 1) || f > 3 || !get(rd, &x->ts, 8)) return -1;
    x->has_dur = f & 1;
    x->bad_dur = (f & 2) != 0;
    x->dur = 0;
    if ((f & 1) && !get(rd, &x->dur, 8)) return -1;
    if (!get(rd, &x->pid.num, 8) || !get(rd, &x->tid.num, 8) || !get_str(rd, &x->name) ||
        !get_str(rd, &x->cat))
      return -1;
    return 1;
  }
  if (kind != CREC_EVENT) return -1;
  /* out->ev keeps what the last event record set: only the fields it had
   * and this one lacks are cleared (a whole st_chrome_ev is ~440 bytes) */
  st_chrome_ev *e = &out->ev;
  if (!rd->primed) {
    memset(e, 0, sizeof *e);
    rd->mask = 0;
    rd->primed = 1;
  }
  uint32_t mask, was = rd->mask;
  uint16_t flags;
  rd->mask = ~0u; /* until this record is read whole: a failed read leaves anything */
  if (!get(rd, &mask, 4) || !get(rd, &e->nkeys, 4) || !get(rd, &flags, 2)) return -1;
  uint16_t bit = 1;
#define GET_FLAG(f)                                                                                \
  e->f = (flags & bit) != 0;                                                                       \
  bit = (uint16_t)(bit << 1);
  FLAG_FIELDS(GET_FLAG)
#undef GET_FLAG
  if (mask & CF_TS) {
    if (!get(rd, &e->ts, 8)) return -1;
  } else if (was & CF_TS) {
    e->ts = 0;
  }
  if (mask & CF_DUR) {
    if (!get(rd, &e->dur, 8)) return -1;
  } else if (was & CF_DUR) {
    e->dur = 0;
  }
  for (int i = 0; i < NIDS; i++) {
    st_chrome_id *id = ids_of(e, i);
    uint8_t k;
    if (!get(rd, &k, 1) || k > ST_CHROME_ID_STR) return -1;
    id->kind = (st_chrome_idkind)k;
    if (mask & CF_IDNUM(i)) {
      if (!get(rd, &id->num, 8)) return -1;
    } else if (was & CF_IDNUM(i)) {
      id->num = 0;
    }
    if (mask & CF_IDSTR(i)) {
      if (!get_str(rd, &id->s)) return -1;
    } else if (was & CF_IDSTR(i)) {
      id->s = (st_json_str){0};
    }
    if (id->kind == ST_CHROME_ID_STR && !id->s.p) return -1; /* as a parse never leaves it */
  }
  for (int j = 0; j < NSTRS; j++) {
    if (mask & CF_STR(j)) {
      if (!get_str(rd, strs_of(e, j))) return -1;
    } else if (was & CF_STR(j)) {
      *strs_of(e, j) = (st_json_str){0};
    }
  }
  rd->mask = mask;
  return 1;
}
