/* argsrc.c: per-trace args sources and the on-demand args query (see
 * argsrc.h; the formats' decoders: argsrc_internal.h).
 *
 * Contents
 *   1. the source: create, destroy, size
 *   2. recording (the importers' calls)
 *   3. the query dialogue (each format's step: argsrc_internal.h)
 */
#include "argsrc_internal.h"

#include "bisect.h"
#include "chrome_args.h"

#include <stdlib.h>
#include <string.h>

/* ==== 1. the source ====================================================== */

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
  return st_grow32(a, p, cap, (size_t)n + 1, sz, 16);
}

/* Keeps text; 0 when out of memory, *t = {0, 0} past the cap. */
static int keep_text(st_argsrc *as, const uint8_t *s, size_t n, txt *t) {
  t->off = t->len = 0;
  if (n > ST_ARGSRC_TEXT_MAX - as->ntext) {
    as->capped = 1;
    return 1;
  }
  void *v = as->text;
  int ok = st_grow_upto(&as->alloc, &v, &as->captext, as->ntext + n, 1, 4096, ST_ARGSRC_TEXT_MAX);
  as->text = v;
  if (!ok) return 0;
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

/* ==== 3. the query ====================================================== */

/* The first range to read for the event at src ([*at, *at + *want));
 * ST_OK, ST_ERR_ARG or ST_ERR_LIMIT. *plane: the XPlane, or for Perfetto
 * the ftrace bundle + 1 that holds src (0: none, a TracePacket at src). */
static st_code first_read(const st_argsrc *as, uint64_t src, uint32_t *plane, uint64_t *want,
                          uint64_t *at, st_error *err) {
  *plane = 0;
  *want = ST_ARGS_FIRST_READ;
  *at = src;
  if (as->kind == ST_ARGS_PERFETTO && as->nbundles) {
    /* the first bundle ending after src (bundles ascend) */
    uint32_t lo = (uint32_t)st_first_range_ending_after(
        as->bundles, as->nbundles, sizeof *as->bundles, offsetof(pf_range, off),
        offsetof(pf_range, len), src);
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
    /* the first plane ending after src (planes ascend) */
    uint32_t lo = (uint32_t)st_first_range_ending_after(as->planes, as->nplanes, sizeof *as->planes,
                                                        offsetof(xp_plane, off),
                                                        offsetof(xp_plane, len), src);
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
  q->out.o = (st_jout){.grow = 1, .alloc = &q->alloc};
  q->first.o = (st_jout){.grow = 1, .alloc = &q->alloc};
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
  st_free(&a, q->out.o.buf);
  st_free(&a, q->first.o.buf);
  st_free(&a, q);
}

const char *st_args_query_result(const st_args_query *q, size_t *len, int *truncated) {
  int ok = q && q->done && q->out.o.buf;
  if (len) *len = ok ? q->out.o.len : 2;
  if (truncated) *truncated = ok ? q->out.truncated : 0;
  return ok ? q->out.o.buf : "{}";
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
  q->out.o = (st_jout){.grow = 1, .alloc = &q->alloc};
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
  size_t nb = q->first.o.buf ? q->first.o.len : 0, ne = q->out.o.buf ? q->out.o.len : 0;
  const char *b = nb ? q->first.o.buf : "{}", *e = ne ? q->out.o.buf : "{}";
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
  st_free(&q->alloc, q->out.o.buf);
  q->out.o.buf = out;
  q->out.o.len = n;
  q->out.o.cap = cap;
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
  case ST_ARGS_JSON: c = argsrc_step_json(q, data, len, more, read, err); break;
  case ST_ARGS_XPLANE: c = argsrc_step_xplane(q, data, len, more, read, err); break;
  case ST_ARGS_PERFETTO: c = argsrc_step_perfetto(q, data, len, more, read, err); break;
  default: c = st_error_set(err, ST_ERR_ARG, q->src, "no args source"); break;
  }
  if (c == ST_OK && !*more && q->end_src != UINT64_MAX)
    c = q->phase == 0 ? next_event(q, more, read, err) : merge_results(q, err);
  if (c != ST_OK) {
    *more = 0;
    q->out.o.len = 0;
    q->done = 0;
  }
  return c;
}
