/* argsrc.c: per-trace args sources and on-demand args decoding (see
 * argsrc.h).
 *
 * Contents
 *   1. state: planes (XSpace), sequences and interned text (Perfetto)
 *   2. recording
 *   3. JSON text writer (growing, capped, UTF-8 safe)
 *   4. XSpace stats -> JSON
 *   5. Perfetto debug annotations -> JSON
 *   6. the query dialogue
 */
#include "argsrc.h"

#include "args.h"
#include "pb_wire.h"
#include "perfetto_states.h"
#include "u64map.h"
#include "utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ==== 1. state =========================================================== */

typedef struct txt {
  uint32_t off, len; /* into st_argsrc.text */
} txt;

typedef struct xp_ev {
  uint64_t off, len;
} xp_ev;

typedef struct xp_plane {
  uint64_t off, len;
  st_u64map stats; /* stat metadata id -> index into xstats */
  st_u64map evs;   /* event metadata id -> index into xevs */
} xp_plane;

typedef struct pf_gen {
  uint64_t offset; /* packet that started it (0: before any clear) */
  uint32_t g;
} pf_gen;

typedef struct pf_seq {
  pf_gen *gens; /* ascending offsets */
  uint32_t n, cap;
} pf_seq;

typedef struct pf_range { /* an FtraceEventBundle record */
  uint64_t off, len;
} pf_range;

typedef struct pf_thr { /* a thread, for scheduling details */
  int64_t tid, pid;
  txt tname, pname;
} pf_thr;

/* interned key: table (1 bit) | generation (31 bits) | iid (32 bits) */
#define PF_GEN_MAX 0x7FFFFFFFu

struct st_argsrc {
  st_alloc alloc;
  st_args_kind kind;
  char *text; /* resident names, capped at ST_ARGSRC_TEXT_MAX */
  size_t ntext, captext;
  int capped;
  /* XSpace */
  xp_plane *planes;
  uint32_t nplanes, cap_planes;
  txt *xstats;
  uint32_t nxstats, cap_xstats;
  xp_ev *xevs;
  uint32_t nxevs, cap_xevs;
  /* Perfetto */
  pf_seq *seqs;
  uint32_t nseqs, cap_seqs;
  st_u64map seq_map;
  uint32_t next_gen;
  st_u64map interned; /* key -> index into ptxt */
  txt *ptxt;
  uint32_t nptxt, cap_ptxt;
  pf_range *bundles; /* ascending offsets */
  uint32_t nbundles, cap_bundles;
  pf_thr *thr;
  uint32_t nthr, cap_thr;
  st_u64map thr_map; /* tid -> index */
};

st_argsrc *st_argsrc_create(const st_alloc *a, st_args_kind kind) {
  st_argsrc *as = st_calloc(a, 1, sizeof *as);
  if (!as) return NULL;
  as->alloc = a ? *a : (st_alloc){0};
  as->kind = kind;
  return as;
}

void st_argsrc_destroy(st_argsrc *as) {
  if (!as) return;
  st_alloc a = as->alloc;
  for (uint32_t i = 0; i < as->nplanes; i++) {
    st_u64map_free(&as->planes[i].stats, &a);
    st_u64map_free(&as->planes[i].evs, &a);
  }
  for (uint32_t i = 0; i < as->nseqs; i++) st_free(&a, as->seqs[i].gens);
  st_free(&a, as->planes);
  st_free(&a, as->xstats);
  st_free(&a, as->xevs);
  st_free(&a, as->seqs);
  st_u64map_free(&as->seq_map, &a);
  st_u64map_free(&as->interned, &a);
  st_free(&a, as->ptxt);
  st_free(&a, as->bundles);
  st_free(&a, as->thr);
  st_u64map_free(&as->thr_map, &a);
  st_free(&a, as->text);
  st_free(&a, as);
}

st_args_kind st_argsrc_kind(const st_argsrc *as) { return as ? as->kind : ST_ARGS_NONE; }

const char *st_argsrc_kind_name(st_args_kind kind) {
  switch (kind) {
  case ST_ARGS_JSON: return "json";
  case ST_ARGS_XPLANE: return "xplane";
  case ST_ARGS_PERFETTO: return "perfetto";
  default: return "none";
  }
}

size_t st_argsrc_bytes(const st_argsrc *as) {
  if (!as) return 0;
  size_t n = sizeof *as + as->captext + (size_t)as->cap_planes * sizeof(xp_plane) +
             (size_t)as->cap_xstats * sizeof(txt) + (size_t)as->cap_xevs * sizeof(xp_ev) +
             (size_t)as->cap_seqs * sizeof(pf_seq) + (size_t)as->cap_ptxt * sizeof(txt) +
             st_u64map_bytes(&as->seq_map) + st_u64map_bytes(&as->interned);
  for (uint32_t i = 0; i < as->nplanes; i++)
    n += st_u64map_bytes(&as->planes[i].stats) + st_u64map_bytes(&as->planes[i].evs);
  for (uint32_t i = 0; i < as->nseqs; i++) n += (size_t)as->seqs[i].cap * sizeof(pf_gen);
  n += (size_t)as->cap_bundles * sizeof(pf_range) + (size_t)as->cap_thr * sizeof(pf_thr) +
       st_u64map_bytes(&as->thr_map);
  return n;
}

int st_argsrc_capped(const st_argsrc *as) { return as && as->capped; }

/* ==== 2. recording ======================================================= */

/* Grows *p (elements of size sz) so that index n fits. */
static int grow(const st_alloc *a, void **p, uint32_t *cap, uint32_t n, size_t sz) {
  if (n < *cap) return 1;
  if (*cap >= UINT32_MAX / 2) return 0;
  uint32_t c = *cap ? *cap * 2 : 16;
  void *q = st_realloc_array(a, *p, c, sz);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

/* Keeps text; 0 when out of memory, *t = {0, 0} past the cap. */
static int keep_text(st_argsrc *as, const uint8_t *s, size_t n, txt *t) {
  t->off = t->len = 0;
  if (n > ST_ARGSRC_TEXT_MAX - as->ntext) {
    as->capped = 1;
    return 1;
  }
  if (as->ntext + n > as->captext) {
    size_t c = as->captext ? as->captext : 4096;
    while (c < as->ntext + n) c *= 2;
    if (c > ST_ARGSRC_TEXT_MAX) c = ST_ARGSRC_TEXT_MAX;
    char *p = st_realloc(&as->alloc, as->text, c);
    if (!p) return 0;
    as->text = p;
    as->captext = c;
  }
  if (n) memcpy(as->text + as->ntext, s, n);
  t->off = (uint32_t)as->ntext;
  t->len = (uint32_t)n;
  as->ntext += n;
  return 1;
}

st_code st_argsrc_xplane_plane(st_argsrc *as, uint64_t offset, uint64_t length) {
  if (!as || as->kind != ST_ARGS_XPLANE) return ST_OK;
  if (!grow(&as->alloc, (void **)&as->planes, &as->cap_planes, as->nplanes, sizeof(xp_plane)))
    return ST_ERR_NOMEM;
  xp_plane *p = &as->planes[as->nplanes++];
  memset(p, 0, sizeof *p);
  p->off = offset;
  p->len = length;
  return ST_OK;
}

st_code st_argsrc_xplane_stat(st_argsrc *as, uint64_t id, const uint8_t *name, size_t len) {
  if (!as || as->kind != ST_ARGS_XPLANE || !as->nplanes) return ST_OK;
  if (!grow(&as->alloc, (void **)&as->xstats, &as->cap_xstats, as->nxstats, sizeof(txt)))
    return ST_ERR_NOMEM;
  if (!keep_text(as, name, len, &as->xstats[as->nxstats])) return ST_ERR_NOMEM;
  if (!st_u64map_put(&as->planes[as->nplanes - 1].stats, &as->alloc, id, as->nxstats))
    return ST_ERR_NOMEM;
  as->nxstats++;
  return ST_OK;
}

st_code st_argsrc_xplane_event_meta(st_argsrc *as, uint64_t id, uint64_t offset, uint64_t length) {
  if (!as || as->kind != ST_ARGS_XPLANE || !as->nplanes) return ST_OK;
  if (!grow(&as->alloc, (void **)&as->xevs, &as->cap_xevs, as->nxevs, sizeof(xp_ev)))
    return ST_ERR_NOMEM;
  as->xevs[as->nxevs] = (xp_ev){offset, length};
  if (!st_u64map_put(&as->planes[as->nplanes - 1].evs, &as->alloc, id, as->nxevs))
    return ST_ERR_NOMEM;
  as->nxevs++;
  return ST_OK;
}

/* The sequence's record, created with its first generation (offset 0). */
static pf_seq *pf_seq_get(st_argsrc *as, uint64_t seq, int create) {
  uint32_t i = st_u64map_get(&as->seq_map, seq);
  if (i != ST_U64MAP_NONE) return &as->seqs[i];
  if (!create) return NULL;
  if (as->next_gen >= PF_GEN_MAX) return NULL;
  if (!grow(&as->alloc, (void **)&as->seqs, &as->cap_seqs, as->nseqs, sizeof(pf_seq))) return NULL;
  pf_seq *s = &as->seqs[as->nseqs];
  memset(s, 0, sizeof *s);
  if (!grow(&as->alloc, (void **)&s->gens, &s->cap, 0, sizeof(pf_gen))) return NULL;
  s->gens[s->n++] = (pf_gen){0, as->next_gen++};
  if (!st_u64map_put(&as->seq_map, &as->alloc, seq, as->nseqs)) {
    st_free(&as->alloc, s->gens);
    return NULL;
  }
  as->nseqs++;
  return s;
}

st_code st_argsrc_perfetto_clear(st_argsrc *as, uint64_t seq, uint64_t offset) {
  if (!as || as->kind != ST_ARGS_PERFETTO) return ST_OK;
  pf_seq *s = pf_seq_get(as, seq, 1);
  if (!s) return as->next_gen >= PF_GEN_MAX ? (as->capped = 1, ST_OK) : ST_ERR_NOMEM;
  if (s->gens[s->n - 1].offset >= offset && s->n > 1) {
    s->gens[s->n - 1].g = as->next_gen++; /* same packet (compressed blob) */
    return ST_OK;
  }
  if (as->next_gen >= PF_GEN_MAX) {
    as->capped = 1;
    return ST_OK;
  }
  if (!grow(&as->alloc, (void **)&s->gens, &s->cap, s->n, sizeof(pf_gen))) return ST_ERR_NOMEM;
  s->gens[s->n++] = (pf_gen){offset, as->next_gen++};
  return ST_OK;
}

static uint64_t pf_key(int table, uint32_t g, uint64_t iid) {
  return ((uint64_t)(table & 1) << 63) | ((uint64_t)g << 32) | (iid & 0xFFFFFFFFu);
}

st_code st_argsrc_perfetto_intern(st_argsrc *as, uint64_t seq, int table, uint64_t iid,
                                  const uint8_t *text, size_t len) {
  if (!as || as->kind != ST_ARGS_PERFETTO || iid > 0xFFFFFFFFu) return ST_OK;
  pf_seq *s = pf_seq_get(as, seq, 1);
  if (!s) return as->next_gen >= PF_GEN_MAX ? ST_OK : ST_ERR_NOMEM;
  if (!grow(&as->alloc, (void **)&as->ptxt, &as->cap_ptxt, as->nptxt, sizeof(txt)))
    return ST_ERR_NOMEM;
  txt t;
  if (!keep_text(as, text, len, &t)) return ST_ERR_NOMEM;
  if (len && !t.len) return ST_OK; /* capped: not kept */
  as->ptxt[as->nptxt] = t;
  if (!st_u64map_put(&as->interned, &as->alloc, pf_key(table, s->gens[s->n - 1].g, iid), as->nptxt))
    return ST_ERR_NOMEM;
  as->nptxt++;
  return ST_OK;
}

st_code st_argsrc_perfetto_bundle(st_argsrc *as, uint64_t offset, uint64_t length) {
  if (!as || as->kind != ST_ARGS_PERFETTO) return ST_OK;
  if (as->nbundles &&
      as->bundles[as->nbundles - 1].off + as->bundles[as->nbundles - 1].len > offset)
    return ST_OK; /* not after the last one: offsets must ascend */
  if (!grow(&as->alloc, (void **)&as->bundles, &as->cap_bundles, as->nbundles, sizeof(pf_range)))
    return ST_ERR_NOMEM;
  as->bundles[as->nbundles++] = (pf_range){offset, length};
  return ST_OK;
}

st_code st_argsrc_perfetto_thread(st_argsrc *as, int64_t tid, int64_t pid, const uint8_t *tname,
                                  size_t tlen, const uint8_t *pname, size_t plen) {
  if (!as || as->kind != ST_ARGS_PERFETTO) return ST_OK;
  uint32_t i = st_u64map_get(&as->thr_map, (uint64_t)tid);
  if (i == ST_U64MAP_NONE) {
    if (!grow(&as->alloc, (void **)&as->thr, &as->cap_thr, as->nthr, sizeof(pf_thr)))
      return ST_ERR_NOMEM;
    i = as->nthr;
    if (!st_u64map_put(&as->thr_map, &as->alloc, (uint64_t)tid, i)) return ST_ERR_NOMEM;
    as->nthr++;
  }
  pf_thr *t = &as->thr[i];
  t->tid = tid;
  t->pid = pid;
  if (!keep_text(as, tname, tlen, &t->tname) || !keep_text(as, pname, plen, &t->pname))
    return ST_ERR_NOMEM;
  return ST_OK;
}

/* ==== 3. JSON text writer ================================================ */

#define STR_MAX ((size_t)1u << 20) /* one string value is cut past this */
#define ELLIPSIS "\xE2\x80\xA6"

typedef struct jb {
  const st_alloc *alloc;
  char *p;
  size_t n, cap;
  int nomem, truncated, stop;
} jb;

static void jput(jb *b, const char *s, size_t n) {
  if (b->nomem) return;
  if (n + 1 > b->cap - b->n || !b->p) {
    size_t c = b->cap ? b->cap : 256;
    while (c - b->n < n + 1) {
      if (c > SIZE_MAX / 2) {
        b->nomem = 1;
        return;
      }
      c *= 2;
    }
    char *q = st_realloc(b->alloc, b->p, c);
    if (!q) {
      b->nomem = 1;
      return;
    }
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void jlit(jb *b, const char *s) { jput(b, s, strlen(s)); }

/* A JSON string: control characters escaped, invalid UTF-8 -> U+FFFD, cut
 * with an ellipsis past STR_MAX bytes of input. */
static void jstr(jb *b, const uint8_t *s, size_t n) {
  int cut = n > STR_MAX;
  if (cut) n = STR_MAX;
  jput(b, "\"", 1);
  size_t i = 0, run = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      i++, run++;
      continue;
    }
    if (run) jput(b, (const char *)s + i - run, run);
    run = 0;
    if (c < 0x80) {
      char esc[8];
      if (c == '"' || c == '\\') {
        esc[0] = '\\', esc[1] = (char)c;
        jput(b, esc, 2);
      } else {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        jput(b, esc, 6);
      }
      i++;
      continue;
    }
    size_t k = st_utf8_len(s + i, n - i);
    if (k) {
      jput(b, (const char *)s + i, k);
      i += k;
    } else {
      jput(b, "\xEF\xBF\xBD", 3);
      i++;
    }
  }
  if (run) jput(b, (const char *)s + i - run, run);
  if (cut) jput(b, ELLIPSIS, 3);
  jput(b, "\"", 1);
}

static void jcstr(jb *b, const char *s) { jstr(b, (const uint8_t *)s, strlen(s)); }

/* Starts a member or element: 0 (and stop) once the result is over the cap. */
static int jsep(jb *b, int *first) {
  if (b->stop) return 0;
  if (b->n > ST_ARGS_RESULT_MAX) {
    b->stop = b->truncated = 1;
    return 0;
  }
  if (!*first) jput(b, ", ", 2);
  *first = 0;
  return 1;
}

/* The shortest %g that reads back the same double. */
static void fmt_double(char *buf, size_t cap, double v) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* ==== 4. XSpace stats -> JSON ============================================ */

static const txt *xp_stat_name(const st_argsrc *as, const xp_plane *p, uint64_t id) {
  uint32_t i = st_u64map_get(&p->stats, id);
  return i == ST_U64MAP_NONE ? NULL : &as->xstats[i];
}

/* compressed_str_value: gzip/zlib text, inflated up to STR_MAX bytes. */
static void xp_inflated(jb *b, const uint8_t *data, size_t len) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  uint8_t *out = st_malloc(b->alloc, STR_MAX);
  if (!out || inflateInit2(&zs, 15 + 32) != Z_OK) {
    st_free(b->alloc, out);
    jcstr(b, "<compressed text>");
    return;
  }
  zs.next_in = (Bytef *)(uintptr_t)data;
  zs.avail_in = len > 1u << 30 ? 1u << 30 : (uInt)len;
  zs.next_out = out;
  zs.avail_out = (uInt)STR_MAX;
  int r = inflate(&zs, Z_FINISH);
  size_t got = STR_MAX - zs.avail_out;
  inflateEnd(&zs);
  if (r == Z_STREAM_END || (r == Z_BUF_ERROR && zs.avail_out == 0)) {
    jstr(b, out, got);
  } else {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "<%zu bytes compressed>", len);
    jcstr(b, tmp);
  }
  st_free(b->alloc, out);
}

/* One XStat (payload in r) as "name": "value". */
static st_code xp_stat(const st_argsrc *as, const xp_plane *p, st_pb_reader *r, jb *b, int *first,
                       st_error *err) {
  st_pb_field f, val;
  uint64_t mid = 0;
  int has = 0, k;
  memset(&val, 0, sizeof val);
  while ((k = st_pb_next(r, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT)
      mid = f.u;
    else if (f.num >= 2 && f.num <= 8)
      val = f, has = 1;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!has) return ST_OK;
  const txt *nm = xp_stat_name(as, p, mid);
  if (nm && nm->len && as->text[nm->off] == '_') return ST_OK; /* internal */
  if (!jsep(b, first)) return ST_OK;
  char num[48];
  if (nm) {
    jstr(b, (const uint8_t *)as->text + nm->off, nm->len);
  } else {
    snprintf(num, sizeof num, "stat %llu", (unsigned long long)mid);
    jcstr(b, num);
  }
  jput(b, ": ", 2);
  switch (val.num) {
  case 2: fmt_double(num, sizeof num, st_pb_double(val.u)); break;
  case 3: snprintf(num, sizeof num, "%llu", (unsigned long long)val.u); break;
  case 4: snprintf(num, sizeof num, "%lld", (long long)st_pb_i64(val.u)); break;
  case 5:
    if (val.wire != ST_PB_LEN) break;
    jstr(b, val.data, val.len);
    return ST_OK;
  case 7: {
    const txt *ref = xp_stat_name(as, p, val.u);
    jstr(b, ref ? (const uint8_t *)as->text + ref->off : (const uint8_t *)"", ref ? ref->len : 0);
    return ST_OK;
  }
  case 8:
    if (val.wire != ST_PB_LEN) break;
    xp_inflated(b, val.data, val.len);
    return ST_OK;
  default: snprintf(num, sizeof num, "<%zu bytes>", val.len); break;
  }
  if (val.num >= 2 && val.num <= 4 && val.wire == (val.num == 2 ? ST_PB_I64 : ST_PB_VARINT))
    jcstr(b, num);
  else if (val.num == 6)
    jcstr(b, num);
  else
    jcstr(b, "<malformed>");
  return ST_OK;
}

/* Every stat (field `num`) of a message. */
static st_code xp_stats(const st_argsrc *as, const xp_plane *p, st_pb_reader r, uint32_t num, jb *b,
                        int *first, st_error *err) {
  st_pb_field f;
  st_pb_reader sr;
  int k;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != num || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&r, &f, &sr, err) != ST_OK) return err->code;
    st_code c = xp_stat(as, p, &sr, b, first, err);
    if (c != ST_OK) return c;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

/* ==== 5. Perfetto debug annotations -> JSON ============================== */

#define PF_MAX_DEPTH 16

static const txt *pf_lookup(const st_argsrc *as, int table, uint32_t g, uint64_t iid) {
  if (g == UINT32_MAX || iid > 0xFFFFFFFFu) return NULL;
  uint32_t i = st_u64map_get(&as->interned, pf_key(table, g, iid));
  return i == ST_U64MAP_NONE ? NULL : &as->ptxt[i];
}

static void jint(jb *b, int64_t v, int is_unsigned, uint64_t u) {
  char num[32];
  int exact = is_unsigned ? u <= (1ull << 53) : (v <= (1ll << 53) && v >= -(1ll << 53));
  if (is_unsigned)
    snprintf(num, sizeof num, "%llu", (unsigned long long)u);
  else
    snprintf(num, sizeof num, "%lld", (long long)v);
  if (exact)
    jlit(b, num);
  else
    jcstr(b, num);
}

/* One DebugAnnotation (payload in r): "name": value if named, else value. */
static st_code pf_annot(const st_argsrc *as, uint32_t g, st_pb_reader r, int named, int depth,
                        jb *b, int *first, st_error *err) {
  st_pb_field f, val, nm;
  int k, has_val = 0, has_nm = 0, dict = 0, arr = 0;
  uint64_t name_iid = 0;
  memset(&val, 0, sizeof val);
  memset(&nm, 0, sizeof nm);
  st_pb_reader r0 = r;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    switch (f.num) {
    case 10:
      if (f.wire == ST_PB_LEN) nm = f, has_nm = 1;
      break;
    case 1: name_iid = f.u; break;
    case 11: dict = 1; break;
    case 12: arr = 1; break;
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 14:
    case 17: val = f, has_val = 1; break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!jsep(b, first)) return ST_OK;
  if (named) {
    if (has_nm) {
      jstr(b, nm.data, nm.len);
    } else {
      const txt *t = name_iid ? pf_lookup(as, 0, g, name_iid) : NULL;
      char tmp[48];
      if (t)
        jstr(b, (const uint8_t *)as->text + t->off, t->len);
      else if (name_iid)
        snprintf(tmp, sizeof tmp, "name_iid:%llu", (unsigned long long)name_iid), jcstr(b, tmp);
      else
        jcstr(b, "(unnamed)");
    }
    jput(b, ": ", 2);
  }
  if ((dict || arr) && depth >= PF_MAX_DEPTH) {
    jcstr(b, ELLIPSIS);
    b->truncated = 1;
    return ST_OK;
  }
  if (dict || arr) {
    jput(b, dict ? "{" : "[", 1);
    int sub_first = 1;
    st_pb_reader sr;
    r = r0;
    while ((k = st_pb_next(&r, &f, err)) > 0) {
      if (f.num != (dict ? 11u : 12u) || f.wire != ST_PB_LEN) continue;
      if (st_pb_enter(&r, &f, &sr, err) != ST_OK) return err->code;
      st_code c = pf_annot(as, g, sr, dict, depth + 1, b, &sub_first, err);
      if (c != ST_OK) return c;
    }
    if (k < 0) return ST_ERR_PROTO;
    jput(b, dict ? "}" : "]", 1);
    return ST_OK;
  }
  if (!has_val) {
    jlit(b, "null");
    return ST_OK;
  }
  char tmp[48];
  int len_ok = val.wire == ST_PB_LEN, var_ok = val.wire == ST_PB_VARINT;
  switch (val.num) {
  case 2:
    if (var_ok)
      jlit(b, val.u ? "true" : "false");
    else
      jlit(b, "null");
    break;
  case 3:
    if (var_ok)
      jint(b, 0, 1, val.u);
    else
      jlit(b, "null");
    break;
  case 4:
    if (var_ok)
      jint(b, st_pb_i64(val.u), 0, 0);
    else
      jlit(b, "null");
    break;
  case 5: {
    double d = st_pb_double(val.u);
    if (val.wire != ST_PB_I64)
      jlit(b, "null");
    else if (isnan(d))
      jcstr(b, "NaN");
    else if (isinf(d))
      jcstr(b, d > 0 ? "Infinity" : "-Infinity");
    else
      fmt_double(tmp, sizeof tmp, d), jlit(b, tmp);
    break;
  }
  case 6:
  case 9:
    if (len_ok)
      jstr(b, val.data, val.len);
    else
      jlit(b, "null");
    break;
  case 7:
    snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)val.u);
    jcstr(b, tmp);
    break;
  case 17: {
    const txt *t = pf_lookup(as, 1, g, val.u);
    if (t) {
      jstr(b, (const uint8_t *)as->text + t->off, t->len);
    } else {
      snprintf(tmp, sizeof tmp, "string_iid:%llu", (unsigned long long)val.u);
      jcstr(b, tmp);
    }
    break;
  }
  default:
    snprintf(tmp, sizeof tmp, "<%s, %zu bytes>", val.num == 14 ? "proto" : "nested value", val.len);
    jcstr(b, tmp);
    break;
  }
  return ST_OK;
}

/* The generation of sequence seq in force at offset src. */
static uint32_t pf_generation(const st_argsrc *as, uint64_t seq, uint64_t src) {
  uint32_t i = st_u64map_get(&as->seq_map, seq);
  if (i == ST_U64MAP_NONE) return UINT32_MAX;
  const pf_seq *s = &as->seqs[i];
  uint32_t lo = 0, hi = s->n; /* last gen with offset <= src */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->gens[mid].offset <= src)
      lo = mid;
    else
      hi = mid;
  }
  return s->gens[lo].g;
}

/* ==== 6. the query ======================================================= */

struct st_args_query {
  const st_argsrc *as;
  st_alloc alloc;
  uint64_t src, want, want_off; /* the range asked for last */
  int steps, state, done;
  uint32_t plane;
  uint8_t *ev; /* XSpace: the XEvent payload, kept while its metadata is read */
  size_t nev;
  uint64_t ev_origin;
  jb out;
  /* a B/E slice: the end event is decoded after the first (phase 1), then
   * the two results are merged */
  uint64_t end_src; /* UINT64_MAX: none */
  int phase;
  jb first; /* the first event's result, while the end's is decoded */
};

/* The first range to read for the event at src ([*at, *at + *want));
 * ST_OK, ST_ERR_ARG or ST_ERR_LIMIT. *plane: the XPlane, or for Perfetto
 * the ftrace bundle + 1 that holds src (0: none, a TracePacket at src). */
static st_code first_read(const st_argsrc *as, uint64_t src, uint32_t *plane, uint64_t *want,
                          uint64_t *at, st_error *err) {
  *plane = 0;
  *want = ST_ARGS_FIRST_READ;
  *at = src;
  if (as->kind == ST_ARGS_PERFETTO && as->nbundles) {
    uint32_t lo = 0, hi = as->nbundles;
    while (lo < hi) { /* first bundle ending after src (bundles ascend) */
      uint32_t mid = lo + (hi - lo) / 2;
      if (as->bundles[mid].off + as->bundles[mid].len <= src)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < as->nbundles && as->bundles[lo].off <= src) {
      if (as->bundles[lo].len > ST_ARGS_MAX_OBJECT)
        return st_error_set(err, ST_ERR_LIMIT, src,
                            "args: an ftrace bundle of %llu bytes is too large",
                            (unsigned long long)as->bundles[lo].len);
      *plane = lo + 1;
      *want = as->bundles[lo].len;
      *at = as->bundles[lo].off;
    }
  }
  if (as->kind == ST_ARGS_XPLANE) {
    uint32_t lo = 0, hi = as->nplanes;
    while (lo < hi) { /* first plane ending after src (planes ascend) */
      uint32_t mid = lo + (hi - lo) / 2;
      if (as->planes[mid].off + as->planes[mid].len <= src)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == as->nplanes || as->planes[lo].off > src)
      return st_error_set(err, ST_ERR_ARG, src, "byte %llu is not inside an XPlane",
                          (unsigned long long)src);
    *plane = lo;
    uint64_t left = as->planes[lo].off + as->planes[lo].len - src;
    if (left < *want) *want = left;
  }
  return ST_OK;
}

st_args_query *st_args_query_begin_end(const st_argsrc *as, uint64_t src, uint64_t end_src,
                                       st_args_span *read, st_error *err) {
  if (!as || as->kind == ST_ARGS_NONE || !read) {
    st_error_set(err, ST_ERR_ARG, src, "no args source for this trace");
    return NULL;
  }
  uint32_t plane;
  uint64_t want, at;
  if (first_read(as, src, &plane, &want, &at, err) != ST_OK) return NULL;
  st_args_query *q = st_calloc(&as->alloc, 1, sizeof *q);
  if (!q) {
    st_error_set(err, ST_ERR_NOMEM, src, "out of memory");
    return NULL;
  }
  q->as = as;
  q->alloc = as->alloc;
  q->out.alloc = &q->alloc;
  q->first.alloc = &q->alloc;
  q->src = src;
  q->plane = plane;
  q->want = want;
  q->want_off = at;
  q->end_src = end_src == src ? UINT64_MAX : end_src;
  read->offset = at;
  read->length = want;
  return q;
}

st_args_query *st_args_query_begin(const st_argsrc *as, uint64_t src, st_args_span *read,
                                   st_error *err) {
  return st_args_query_begin_end(as, src, UINT64_MAX, read, err);
}

void st_args_query_end(st_args_query *q) {
  if (!q) return;
  st_alloc a = q->alloc;
  st_free(&a, q->ev);
  st_free(&a, q->out.p);
  st_free(&a, q->first.p);
  st_free(&a, q);
}

const char *st_args_query_result(const st_args_query *q, size_t *len, int *truncated) {
  int ok = q && q->done && q->out.p;
  if (len) *len = ok ? q->out.n : 2;
  if (truncated) *truncated = ok ? q->out.truncated : 0;
  return ok ? q->out.p : "{}";
}

/* Asks for [offset, offset + length) next. */
static st_code ask(st_args_query *q, uint64_t offset, uint64_t length, int *more,
                   st_args_span *read, st_error *err) {
  if (q->steps >= ST_ARGS_QUERY_STEPS)
    return st_error_set(err, ST_ERR_ARG, q->src, "args: too many reads");
  if (length > ST_ARGS_MAX_OBJECT)
    return st_error_set(err, ST_ERR_LIMIT, offset, "args: a record of %llu bytes is too large",
                        (unsigned long long)length);
  q->want = length;
  q->want_off = offset;
  read->offset = offset;
  read->length = length;
  *more = 1;
  return ST_OK;
}

static st_code finish_out(st_args_query *q, int *more, st_error *err) {
  if (q->out.nomem) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  q->done = 1;
  *more = 0;
  return ST_OK;
}

/* The LEN record with tag `tag` at the start of data: its payload, or a
 * request for the whole record when it goes on past len. */
static st_code record_at(st_args_query *q, const uint8_t *data, size_t len, uint64_t tag,
                         const char *what, const uint8_t **payload, size_t *plen, int *more,
                         st_args_span *read, st_error *err) {
  uint64_t t = 0, n = 0;
  int eof = len < q->want;
  int a = st_pb_varint(data, data + len, &t);
  int b = a > 0 ? st_pb_varint(data + a, data + len, &n) : 0;
  *payload = NULL;
  if (a < 0 || b < 0 || (a > 0 && t != tag))
    return st_error_set(err, ST_ERR_PROTO, q->src, "no %s record at byte %llu", what,
                        (unsigned long long)q->src);
  if (a == 0 || b == 0)
    return eof ? st_error_set(err, ST_ERR_TRUNCATED, q->src, "the input ends inside the %s", what)
               : st_error_set(err, ST_ERR_PROTO, q->src, "no %s record at byte %llu", what,
                              (unsigned long long)q->src);
  uint64_t head = (uint64_t)a + (uint64_t)b;
  if (n > ST_ARGS_MAX_OBJECT)
    return st_error_set(err, ST_ERR_LIMIT, q->src, "args: a %s of %llu bytes is too large", what,
                        (unsigned long long)n);
  if (head + n > len) {
    if (eof)
      return st_error_set(err, ST_ERR_TRUNCATED, q->src, "the input ends inside the %s", what);
    return ask(q, q->src, head + n, more, read, err);
  }
  *payload = data + head;
  *plen = (size_t)n;
  return ST_OK;
}

static st_code step_json(st_args_query *q, const uint8_t *data, size_t len, int *more,
                         st_args_span *read, st_error *err) {
  size_t cap = len > (SIZE_MAX - 4096) / 2 ? SIZE_MAX : len * 2 + 4096;
  if (cap > ST_ARGS_RESULT_MAX + 4096) cap = ST_ARGS_RESULT_MAX + 4096;
  char *out = st_malloc(&q->alloc, cap);
  if (!out) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  size_t used = 0;
  int cut = 0;
  st_code c = st_args_extract((const char *)data, len, out, cap, &used, &cut, err);
  if (c == ST_ERR_TRUNCATED && len >= q->want && q->want < ST_ARGS_MAX_OBJECT) {
    st_free(&q->alloc, out);
    uint64_t next = q->want * 16 < ST_ARGS_MAX_OBJECT ? q->want * 16 : ST_ARGS_MAX_OBJECT;
    return ask(q, q->src, next, more, read, err);
  }
  if (c == ST_OK) {
    jput(&q->out, out, used);
    q->out.truncated = cut;
  }
  st_free(&q->alloc, out);
  return c == ST_OK ? finish_out(q, more, err) : c;
}

static st_code xp_output(st_args_query *q, const uint8_t *meta, size_t mlen, uint64_t meta_origin,
                         st_error *err) {
  const xp_plane *p = &q->as->planes[q->plane];
  jb *b = &q->out;
  int first = 1;
  st_pb_reader r;
  jput(b, "{", 1);
  if (meta) {
    st_pb_field f, name, disp;
    int k;
    memset(&name, 0, sizeof name);
    memset(&disp, 0, sizeof disp);
    st_pb_reader_init(&r, meta, mlen, meta_origin);
    r.depth = 3;
    st_pb_reader r0 = r;
    while ((k = st_pb_next(&r, &f, err)) > 0) {
      if (f.num == 2 && f.wire == ST_PB_LEN) name = f;
      if (f.num == 4 && f.wire == ST_PB_LEN) disp = f;
    }
    if (k < 0) return ST_ERR_PROTO;
    if (disp.len && jsep(b, &first)) {
      jcstr(b, "long_name");
      jput(b, ": ", 2);
      jstr(b, name.data, name.len);
    }
    st_code c = xp_stats(q->as, p, r0, 5, b, &first, err);
    if (c != ST_OK) return c;
  }
  st_pb_reader_init(&r, q->ev, q->nev, q->ev_origin);
  r.depth = 3;
  st_code c = xp_stats(q->as, p, r, 4, b, &first, err);
  if (c != ST_OK) return c;
  jput(b, "}", 1);
  return ST_OK;
}

static st_code step_xplane(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_args_span *read, st_error *err) {
  const xp_plane *p = &q->as->planes[q->plane];
  if (q->state == 1) { /* the metadata record */
    if (len < q->want)
      return st_error_set(err, ST_ERR_TRUNCATED, q->want_off,
                          "the input ends inside the XEventMetadata");
    st_code c = xp_output(q, data, (size_t)q->want, q->want_off, err);
    return c == ST_OK ? finish_out(q, more, err) : c;
  }
  const uint8_t *pl;
  size_t n = 0;
  st_code c = record_at(q, data, len, (4u << 3) | 2u, "XEvent", &pl, &n, more, read, err);
  if (c != ST_OK || !pl) return c;
  uint64_t origin = q->src + (uint64_t)(pl - data);
  if (origin + n > p->off + p->len)
    return st_error_set(err, ST_ERR_PROTO, q->src, "the XEvent at byte %llu runs past its plane",
                        (unsigned long long)q->src);
  q->ev = st_malloc(&q->alloc, n ? n : 1);
  if (!q->ev) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  if (n) memcpy(q->ev, pl, n);
  q->nev = n;
  q->ev_origin = origin;
  st_pb_reader r;
  st_pb_field f;
  int k;
  uint64_t mid = 0;
  st_pb_reader_init(&r, q->ev, n, origin);
  r.depth = 3;
  while ((k = st_pb_next(&r, &f, err)) > 0)
    if (f.num == 1 && f.wire == ST_PB_VARINT) mid = f.u;
  if (k < 0) return ST_ERR_PROTO;
  uint32_t mi = st_u64map_get(&p->evs, mid);
  if (mi != ST_U64MAP_NONE) {
    q->state = 1;
    return ask(q, q->as->xevs[mi].off, q->as->xevs[mi].len, more, read, err);
  }
  c = xp_output(q, NULL, 0, 0, err);
  return c == ST_OK ? finish_out(q, more, err) : c;
}

static st_code step_ftrace(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_error *err);

static st_code step_perfetto(st_args_query *q, const uint8_t *data, size_t len, int *more,
                             st_args_span *read, st_error *err) {
  if (q->plane) return step_ftrace(q, data, len, more, err);
  const uint8_t *pl;
  size_t n = 0;
  st_code c = record_at(q, data, len, (1u << 3) | 2u, "TracePacket", &pl, &n, more, read, err);
  if (c != ST_OK || !pl) return c;
  st_pb_reader r, er;
  st_pb_field f, ev;
  int k, has_ev = 0, compressed = 0;
  uint64_t seq = 0;
  st_pb_reader_init(&r, pl, n, q->src + (uint64_t)(pl - data));
  r.depth = 1;
  st_pb_reader r0 = r;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num == 10 && f.wire == ST_PB_VARINT) seq = f.u;
    if (f.num == 11 && f.wire == ST_PB_LEN) ev = f, has_ev = 1;
    if (f.num == 50 && f.wire == ST_PB_LEN) compressed = 1;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (compressed && !has_ev)
    return st_error_set(err, ST_ERR_FORMAT, q->src,
                        "args of events inside compressed_packets are not available");
  jb *b = &q->out;
  jput(b, "{", 1);
  if (has_ev) {
    uint32_t g = pf_generation(q->as, seq, q->src);
    int first = 1;
    if (st_pb_enter(&r0, &ev, &er, err) != ST_OK) return err->code;
    st_pb_reader ar;
    while ((k = st_pb_next(&er, &f, err)) > 0) {
      if (f.num != 4 || f.wire != ST_PB_LEN) continue;
      if (st_pb_enter(&er, &f, &ar, err) != ST_OK) return err->code;
      c = pf_annot(q->as, g, ar, 1, 0, b, &first, err);
      if (c != ST_OK) return c;
    }
    if (k < 0) return ST_ERR_PROTO;
  }
  jput(b, "}", 1);
  return finish_out(q, more, err);
}

/* ---- Perfetto scheduling details (st_argsrc_perfetto_bundle) ---- */

enum { ROLE_NONE = 0, ROLE_NEXT, ROLE_PREV, ROLE_WAKING };

typedef struct sched_rec { /* one scheduling record, from either encoding */
  int role;
  int has_comm, has_prev_comm, has_prio, has_state, has_cpu;
  const uint8_t *comm, *prev_comm;
  size_t comm_len, prev_comm_len;
  int64_t tid, prev_tid, prio, state, cpu;
} sched_rec;

static const pf_thr *pf_thread_of(const st_argsrc *as, int64_t tid) {
  uint32_t i = st_u64map_get(&as->thr_map, (uint64_t)tid);
  return i == ST_U64MAP_NONE ? NULL : &as->thr[i];
}

static void jkey(jb *b, int *first, const char *k) {
  jsep(b, first);
  jcstr(b, k);
  jput(b, ": ", 2);
}

/* "thread", "tid", "process", "pid" of thread tid (comm: the record's name
 * for it, else the trace's) */
static void who(const st_argsrc *as, jb *b, int *first, int64_t tid, const uint8_t *comm,
                size_t n) {
  const pf_thr *t = pf_thread_of(as, tid);
  if (!n && t) comm = (const uint8_t *)as->text + t->tname.off, n = t->tname.len;
  if (n) {
    jkey(b, first, "thread");
    jstr(b, comm, n);
  }
  jkey(b, first, "tid");
  jint(b, tid, 0, 0);
  if (t) {
    if (t->pname.len) {
      jkey(b, first, "process");
      jstr(b, (const uint8_t *)as->text + t->pname.off, t->pname.len);
    }
    jkey(b, first, "pid");
    jint(b, t->pid, 0, 0);
  }
}

/* A FtraceEvent (payload in r) holding src: its scheduling record. */
static st_code sched_plain(st_pb_reader r, uint64_t src, sched_rec *x, st_error *err) {
  st_pb_field f, g, body;
  int k, has_body = 0;
  while ((k = st_pb_next(&r, &f, err)) > 0)
    if (f.wire == ST_PB_LEN && f.num >= 3 && !has_body) body = f, has_body = 1;
  if (k < 0) return ST_ERR_PROTO;
  if (!has_body || (body.num != 4 && body.num != 17 && body.num != 20 && body.num != 114))
    return ST_OK;
  st_pb_reader e;
  if (st_pb_enter(&r, &body, &e, err) != ST_OK) return err->code;
  int sw = body.num == 4;
  while ((k = st_pb_next(&e, &g, err)) > 0) {
    if (sw && g.offset == src && g.num == 6) x->role = ROLE_NEXT;
    if (sw && g.offset == src && (g.num == 4 || g.num == 2)) x->role = ROLE_PREV;
    if (!sw && g.offset == src && g.num == 2) x->role = ROLE_WAKING;
    if (g.wire == ST_PB_LEN && g.num == (sw ? 5u : 1u))
      x->comm = g.data, x->comm_len = g.len, x->has_comm = 1;
    if (sw && g.wire == ST_PB_LEN && g.num == 1)
      x->prev_comm = g.data, x->prev_comm_len = g.len, x->has_prev_comm = 1;
    if (g.wire != ST_PB_VARINT) continue;
    int64_t v = (int64_t)(int32_t)(uint32_t)g.u;
    if (g.num == (sw ? 6u : 2u)) x->tid = v;
    if (g.num == (sw ? 7u : 3u)) x->prio = v, x->has_prio = 1;
    if (sw && g.num == 2) x->prev_tid = v;
    if (sw && g.num == 4) x->state = st_pb_i64(g.u), x->has_state = 1;
    if (!sw && g.num == 5) x->cpu = v, x->has_cpu = 1;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

/* A CompactSched (payload in r) holding src: the element at src and the
 * other columns' elements of the same index. */
static st_code sched_compact(st_pb_reader r, uint64_t src, sched_rec *x, st_error *err) {
  st_pb_field f, col[13];
  int has[13] = {0}, k;
  st_pb_reader r0 = r;
  while ((k = st_pb_next(&r, &f, err)) > 0)
    if (f.num <= 12 && f.num != 5 && f.wire == ST_PB_LEN && !has[f.num])
      col[f.num] = f, has[f.num] = 1;
  if (k < 0) return ST_ERR_PROTO;
  /* which column and index */
  int which = 0;
  uint64_t index = 0;
  static const int probe[3] = {3, 2, 8};
  for (int p = 0; p < 3 && !which; p++) {
    int c = probe[p];
    if (!has[c]) continue;
    st_pb_reader e;
    uint64_t v, i = 0;
    if (st_pb_packed_init(&r0, &col[c], &e, err) != ST_OK) return err->code;
    for (;;) {
      uint64_t at = st_pb_offset(&e, e.p);
      if (at == src) {
        which = c, index = i;
        break;
      }
      int a = st_pb_packed_next(&e, ST_PB_VARINT, &v, err);
      if (a < 0) return ST_ERR_PROTO;
      if (a == 0 || at > src) break;
      i++;
    }
  }
  if (!which) return ST_OK;
  int waking = which == 8;
  x->role = which == 3 ? ROLE_NEXT : which == 2 ? ROLE_PREV : ROLE_WAKING;
  /* the element at index in column c */
  uint64_t val[13] = {0};
  int got[13] = {0};
  const int cols_sw[4] = {2, 3, 4, 6}, cols_wk[4] = {8, 9, 10, 11};
  const int *cols = waking ? cols_wk : cols_sw;
  for (int j = 0; j < 4; j++) {
    int c = cols[j];
    if (!has[c]) continue;
    st_pb_reader e;
    if (st_pb_packed_init(&r0, &col[c], &e, err) != ST_OK) return err->code;
    for (uint64_t i = 0; i <= index; i++) {
      int a = st_pb_packed_next(&e, ST_PB_VARINT, &val[c], err);
      if (a < 0) return ST_ERR_PROTO;
      if (a == 0) break;
      if (i == index) got[c] = 1;
    }
  }
  uint64_t comm = waking ? val[11] : val[6];
  int has_comm = waking ? got[11] : got[6];
  if (has_comm) { /* the intern table */
    st_pb_reader t = r0;
    uint64_t i = 0;
    while ((k = st_pb_next(&t, &f, err)) > 0)
      if (f.num == 5 && f.wire == ST_PB_LEN && i++ == comm) {
        x->comm = f.data, x->comm_len = f.len, x->has_comm = 1;
        break;
      }
    if (k < 0) return ST_ERR_PROTO;
  }
  int cpid = waking ? 8 : 3, cprio = waking ? 10 : 4;
  if (got[cpid]) x->tid = (int64_t)(int32_t)(uint32_t)val[cpid];
  if (got[cprio]) x->prio = (int64_t)(int32_t)(uint32_t)val[cprio], x->has_prio = 1;
  if (!waking && got[2]) x->state = st_pb_i64(val[2]), x->has_state = 1;
  if (waking && got[9]) x->cpu = (int64_t)(int32_t)(uint32_t)val[9], x->has_cpu = 1;
  x->prev_tid = -1;
  return ST_OK;
}

/* The bundle holding src is in data: find src's record, write its details. */
static st_code step_ftrace(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_error *err) {
  const st_argsrc *as = q->as;
  if (len < q->want)
    return st_error_set(err, ST_ERR_TRUNCATED, q->want_off,
                        "the input ends inside the ftrace bundle");
  uint64_t tag = 0, n = 0, src = q->src;
  int a = st_pb_varint(data, data + len, &tag);
  int b = a > 0 ? st_pb_varint(data + a, data + len, &n) : 0;
  if (a <= 0 || b <= 0 || tag != ((1u << 3) | 2u) || (uint64_t)a + b + n > len)
    return st_error_set(err, ST_ERR_PROTO, q->want_off, "no ftrace bundle at byte %llu",
                        (unsigned long long)q->want_off);
  st_pb_reader r;
  st_pb_field f;
  int k;
  st_pb_reader_init(&r, data + a + b, (size_t)n, q->want_off + (uint64_t)a + (uint64_t)b);
  r.depth = 2;
  sched_rec x;
  memset(&x, 0, sizeof x);
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if ((f.num != 2 && f.num != 4) || f.wire != ST_PB_LEN) continue;
    uint64_t start = f.offset, end = st_pb_offset(&r, f.data) + f.len;
    if (src < start || src >= end) continue;
    st_pb_reader e;
    if (st_pb_enter(&r, &f, &e, err) != ST_OK) return err->code;
    st_code c = f.num == 2 ? sched_plain(e, src, &x, err) : sched_compact(e, src, &x, err);
    if (c != ST_OK) return c;
    break;
  }
  if (k < 0) return ST_ERR_PROTO;
  jb *o = &q->out;
  int first = 1;
  jput(o, "{", 1);
  if (x.role == ROLE_NEXT && q->phase == 1) { /* the end of a CPU slice */
    if (x.has_state) {
      jkey(o, &first, "end_state");
      jcstr(o, pf_state_name(pf_state_from_prev(x.state)));
    }
  } else if (x.role == ROLE_NEXT || x.role == ROLE_WAKING) {
    who(as, o, &first, x.tid, x.comm, x.comm_len);
    if (x.has_prio) {
      jkey(o, &first, "priority");
      jint(o, x.prio, 0, 0);
    }
    if (x.role == ROLE_WAKING && x.has_cpu) {
      jkey(o, &first, "woken_on_cpu");
      jint(o, x.cpu, 0, 0);
    }
  } else if (x.role == ROLE_PREV) {
    if (x.prev_tid >= 0 && (x.has_prev_comm || x.prev_tid > 0))
      who(as, o, &first, x.prev_tid, x.prev_comm, x.prev_comm_len);
    if (x.has_state) {
      jkey(o, &first, "state");
      jcstr(o, pf_state_name(pf_state_from_prev(x.state)));
    }
  }
  jput(o, "}", 1);
  return finish_out(q, more, err);
}

/* A B/E slice, its first event decoded: keep that result, start on the end
 * event (its reads count on their own). */
static st_code next_event(st_args_query *q, int *more, st_args_span *read, st_error *err) {
  uint32_t plane;
  uint64_t want, at;
  st_code c = first_read(q->as, q->end_src, &plane, &want, &at, err);
  if (c != ST_OK) return c;
  q->first = q->out;
  memset(&q->out, 0, sizeof q->out);
  q->out.alloc = &q->alloc;
  st_free(&q->alloc, q->ev);
  q->ev = NULL;
  q->nev = 0;
  q->phase = 1;
  q->src = q->end_src;
  q->plane = plane;
  q->steps = q->state = q->done = 0;
  q->want = want;
  q->want_off = at;
  read->offset = at;
  read->length = want;
  *more = 1;
  return ST_OK;
}

/* Both events decoded: the result is the first's args merged with the end's. */
static st_code merge_results(st_args_query *q, st_error *err) {
  size_t nb = q->first.p ? q->first.n : 0, ne = q->out.p ? q->out.n : 0;
  const char *b = nb ? q->first.p : "{}", *e = ne ? q->out.p : "{}";
  if (!nb) nb = 2;
  if (!ne) ne = 2;
  size_t cap = nb + ne + 64; /* each is capped near ST_ARGS_RESULT_MAX: no overflow */
  if (cap > ST_ARGS_RESULT_MAX + 4096) cap = ST_ARGS_RESULT_MAX + 4096;
  char *out = st_malloc(&q->alloc, cap);
  if (!out) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  size_t n = 0;
  int cut = 0;
  st_code c = st_args_merge(&q->alloc, b, nb, e, ne, out, cap, &n, &cut, err);
  if (c != ST_OK) {
    st_free(&q->alloc, out);
    return c;
  }
  int was_cut = q->first.truncated || q->out.truncated;
  st_free(&q->alloc, q->out.p);
  q->out.p = out;
  q->out.n = n;
  q->out.cap = cap;
  q->out.truncated = cut || was_cut;
  return ST_OK;
}

st_code st_args_query_push(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_args_span *read, st_error *err) {
  int m = 0;
  st_args_span sp = {0, 0};
  if (!more) more = &m;
  if (!read) read = &sp;
  *more = 0;
  if (!q || (!data && len) || q->done)
    return st_error_set(err, ST_ERR_ARG, 0, "args: no read in progress");
  if (len > q->want) len = (size_t)q->want;
  q->steps++;
  /* on errors the result stays "{}" */
  st_code c;
  switch (q->as->kind) {
  case ST_ARGS_JSON: c = step_json(q, data, len, more, read, err); break;
  case ST_ARGS_XPLANE: c = step_xplane(q, data, len, more, read, err); break;
  case ST_ARGS_PERFETTO: c = step_perfetto(q, data, len, more, read, err); break;
  default: c = st_error_set(err, ST_ERR_ARG, q->src, "no args source"); break;
  }
  if (c == ST_OK && !*more && q->end_src != UINT64_MAX)
    c = q->phase == 0 ? next_event(q, more, read, err) : merge_results(q, err);
  if (c != ST_OK) {
    *more = 0;
    q->out.n = 0;
    q->done = 0;
  }
  return c;
}
