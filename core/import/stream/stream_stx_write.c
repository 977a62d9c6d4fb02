/* stream_stx_write.c: st_stream_save (stream_stx.h): a finished stream's
 * index and summary written as a `.stx` file, in order, through the
 * caller's writer (64 KiB at a time), every section measured first so its
 * length precedes it, the file's SHA-256 last.
 */
#include "sha256.h"
#include "stream_internal.h"
#include "stream_stx.h"

#include <stdlib.h>
#include <string.h>

/* ==== 1. the writer ======================================================== */

#define WBUF ((size_t)1 << 16)

typedef struct wr {
  st_stx_write_fn fn;
  void *ud;
  uint8_t *buf;
  size_t n;
  st_sha256_ctx sha;
  st_code code;
  int measure; /* 1: count the bytes only (a section's length) */
  uint64_t count;
} wr;

static void flush(wr *w) {
  if (w->code == ST_OK && w->n) w->code = w->fn(w->ud, w->buf, w->n);
  w->n = 0;
}

static void put(wr *w, const void *data, size_t n) {
  if (w->code != ST_OK) return;
  if (w->measure) {
    w->count += n;
    return;
  }
  st_sha256_update(&w->sha, data, n);
  const uint8_t *p = data;
  while (n) {
    size_t k = WBUF - w->n < n ? WBUF - w->n : n;
    memcpy(w->buf + w->n, p, k);
    w->n += k;
    p += k;
    n -= k;
    if (w->n == WBUF) flush(w);
  }
}

static void put_le(wr *w, uint64_t v, int bytes) {
  uint8_t b[8];
  for (int i = 0; i < bytes; i++) b[i] = (uint8_t)(v >> (8 * i));
  put(w, b, (size_t)bytes);
}
static void put_u8(wr *w, unsigned v) { put_le(w, v, 1); }
static void put_u32(wr *w, uint32_t v) { put_le(w, v, 4); }
static void put_u64(wr *w, uint64_t v) { put_le(w, v, 8); }
static void put_i64(wr *w, int64_t v) { put_le(w, (uint64_t)v, 8); }
static void put_f64(wr *w, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  put_le(w, u, 8);
}

/* ==== 2. strings: the ids used, numbered in ascending id order ============== */

typedef struct ctx {
  const st_stream *s;
  const st_trace *t;
  st_alloc alloc;
  st_u64map ids; /* string id -> index in the file */
  uint32_t *list;
  size_t nlist, caplist;
  int nomem;
  uint32_t *tmap; /* summary track -> the file's track (UINT32_MAX: none) */
  int chrome;     /* Chrome JSON: async and counter tracks are keyed by their name's id */
  const ssample *samples;
  uint32_t nsamples;
  uint8_t **packed; /* the gzip points' windows, deflated (st_gzwin_pack) */
  size_t *npacked;
} ctx;

static void use(ctx *c, uint32_t id) {
  if (c->nomem || st_u64map_get(&c->ids, id) != ST_U64MAP_NONE) return;
  if (c->nlist == c->caplist) {
    void *p = c->list;
    if (!st_grow_from(&c->alloc, &p, &c->caplist, c->nlist + 1, sizeof *c->list, 256)) {
      c->nomem = 1;
      return;
    }
    c->list = p;
  }
  if (!st_u64map_put(&c->ids, &c->alloc, id, 0)) {
    c->nomem = 1;
    return;
  }
  c->list[c->nlist++] = id;
}

static uint32_t sid(const ctx *c, uint32_t id) { return st_u64map_get(&c->ids, id); }

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int is_samples(const st_track *ts, uint32_t nt, uint32_t track) {
  return track < nt && ts[track].kind == ST_TRACK_SAMPLES;
}

/* Every string the index refers to; numbered in id order, so the builder's
 * ties broken by name id (trace_internal.h tcols_less) break the same way. */
static int collect(ctx *c) {
  const st_stream *s = c->s;
  use(c, ST_STR_EMPTY);
  if (s->own_strings) /* the whole table: the same ids when opened (so the same keys) */
    for (uint32_t i = 1; i < st_strtab_count(s->strings); i++) use(c, i);
  for (size_t i = 0; i < s->nexact; i++) {
    use(c, s->exact[i].name);
    use(c, s->exact[i].cat);
    use(c, s->exact[i].track_name);
  }
  uint32_t np, nt, nr;
  const st_process *ps = st_trace_processes(c->t, &np);
  const st_track *ts = st_trace_tracks(c->t, &nt);
  const st_row *rs = st_trace_rows(c->t, &nr);
  for (uint32_t i = 0; i < np; i++) use(c, ps[i].name), use(c, ps[i].labels);
  for (uint32_t i = 0; i < nt; i++) use(c, ts[i].name), use(c, ts[i].unit);
  for (uint32_t r = 0; r < nr; r++) {
    int smp = is_samples(ts, nt, rs[r].track);
    for (uint32_t i = 0; i < rs[r].count; i++) {
      use(c, rs[r].name[i]);
      if (!smp) use(c, rs[r].cat[i]);
    }
  }
  const st_frames *fr = st_trace_frames(c->t);
  for (uint32_t i = 0; i < st_frames_count(fr); i++) use(c, st_frames_name(fr, i));
  if (c->nomem) return 0;
  qsort(c->list, c->nlist, sizeof *c->list, cmp_u32);
  st_u64map_clear(&c->ids);
  for (size_t i = 0; i < c->nlist; i++)
    if (!st_u64map_put(&c->ids, &c->alloc, c->list[i], (uint32_t)i)) return 0;
  return 1;
}

/* The file's track of each summary track: the non-overflow ones in order;
 * an overflow lane set is its base track's (the one before it with the
 * same process, kind and key). */
static int map_tracks(ctx *c) {
  uint32_t nt;
  const st_track *ts = st_trace_tracks(c->t, &nt);
  c->tmap = st_calloc(&c->alloc, nt ? nt : 1, sizeof *c->tmap);
  if (!c->tmap) return 0;
  uint32_t k = 0;
  for (uint32_t i = 0; i < nt; i++) {
    c->tmap[i] = UINT32_MAX;
    if (!ts[i].overflow) {
      c->tmap[i] = k++;
      continue;
    }
    for (uint32_t j = i; j-- > 0;)
      if (!ts[j].overflow && ts[j].process == ts[i].process && ts[j].kind == ts[i].kind &&
          ts[j].key == ts[i].key) {
        c->tmap[i] = c->tmap[j];
        break;
      }
  }
  return 1;
}

/* The restart points' windows, packed once (the GZIX section is written
 * twice: measured, then written). */
static int pack_windows(ctx *c) {
  uint32_t n = st_gzindex_points(c->s->gz);
  if (!n) return 1;
  c->packed = st_calloc(&c->alloc, n, sizeof *c->packed);
  c->npacked = st_calloc(&c->alloc, n, sizeof *c->npacked);
  if (!c->packed || !c->npacked) return 0;
  for (uint32_t i = 0; i < n; i++) {
    st_gzpoint p;
    st_gzindex_point(c->s->gz, i, &p);
    if (p.win_len && !(c->npacked[i] = st_gzwin_pack(&c->alloc, p.win, p.win_len, &c->packed[i])))
      return 0;
  }
  return 1;
}

static void free_windows(ctx *c) {
  for (uint32_t i = 0; c->packed && i < st_gzindex_points(c->s->gz); i++)
    st_free(&c->alloc, c->packed[i]);
  st_free(&c->alloc, c->packed);
  st_free(&c->alloc, c->npacked);
}

/* ==== 3. the sections ====================================================== */

static void put_bytes32(wr *w, const void *p, size_t n) {
  put_u32(w, (uint32_t)n);
  put(w, p, n);
}

/* A track keyed by its name's string id (the Chrome importer's async groups
 * and counter series): the key is written as the string, so a window's
 * import, interning into another table, finds the same track. */
static int string_key(const ctx *c, unsigned kind, int64_t key, uint32_t name) {
  return c->chrome && (kind == ST_TRACK_ASYNC || kind == ST_TRACK_COUNTER) && key == (int64_t)name;
}

static void sec_idnt(wr *w, const ctx *c) {
  const st_stream *s = c->s;
  const st_stats *st = st_stream_stats(s);
  const char *fmt = st && st->format ? st->format : "unknown";
  put_u64(w, s->raw_bytes);
  put_u64(w, s->bytes_decoded);
  put_u8(w, st && st->compressed);
  size_t fl = strlen(fmt);
  put_u8(w, (unsigned)(fl > 255 ? 255 : fl));
  put(w, fmt, fl > 255 ? 255 : fl);
  put_u32(w, c->nsamples);
  for (uint32_t k = 0; k < c->nsamples; k++) {
    put_u64(w, c->samples[k].offset);
    put_u64(w, c->samples[k].length);
    put(w, c->samples[k].sha, 32);
  }
}

static void sec_strs(wr *w, const ctx *c) {
  put_u32(w, (uint32_t)c->nlist);
  for (size_t i = 0; i < c->nlist; i++) {
    size_t n = 0;
    const char *p = st_strtab_get(c->s->strings, c->list[i], &n);
    put_bytes32(w, p, n);
  }
}

static void sec_stat(wr *w, const ctx *c) {
  const st_stats *st = st_stream_stats(c->s);
  st_stats z;
  if (!st) {
    memset(&z, 0, sizeof z);
    st = &z;
  }
  put_u64(w, st->bytes_in);
  put_u64(w, st->bytes_decoded);
  put_u64(w, st->events);
  for (int i = 0; i < 129; i++) put_u64(w, st->phases[i]);
  put_u64(w, st->phases_other);
  put_u64(w, st->slices);
  put_u64(w, st->instants);
  put_u64(w, st->counter_samples);
  put_u64(w, st->async_slices);
  put_u64(w, st->flows);
  put_u64(w, st->samples);
  put_u64(w, st->stack_frames);
  put_u64(w, st->processes);
  put_u64(w, st->threads);
  put_u8(w, st->has_ts != 0);
  put_i64(w, st->ts_min_ns);
  put_i64(w, st->ts_max_ns);
  uint32_t nw =
      st->warning_count < ST_STATS_MAX_WARNINGS ? st->warning_count : ST_STATS_MAX_WARNINGS;
  put_u32(w, nw);
  for (uint32_t i = 0; i < nw; i++) {
    const char *k = st->warnings[i].kind ? st->warnings[i].kind : "";
    put_bytes32(w, k, strlen(k));
    put_u64(w, st->warnings[i].count);
    put_u64(w, st->warnings[i].first_offset);
  }
  const char *meta = st_stream_metadata_json(c->s);
  size_t ml = meta ? strlen(meta) : 0;
  put_u64(w, ml);
  put(w, meta, ml);
}

static void sec_strm(wr *w, const ctx *c) {
  const st_stream *s = c->s;
  st_stream_info info;
  st_stream_info_get(s, &info);
  put_u64(w, s->block_bytes);
  put_u32(w, s->max_buckets);
  put_i64(w, s->w);
  put_i64(w, s->base);
  put_u64(w, info.buckets);
  put_u64(w, s->summary_events);
  put_u64(w, s->events_end);
  put_u64(w, s->bytes_decoded);
  put_i64(w, s->origin);
  put_i64(w, s->end);
  put_u8(w, s->windows != 0);
}

static void sec_blks(wr *w, const ctx *c) {
  const st_stream *s = c->s;
  put_u64(w, s->nblocks);
  for (size_t i = 0; i < s->nblocks; i++) {
    const sblock *b = &s->blocks[i];
    put_u64(w, b->first_src);
    put_u64(w, b->last_src);
    put_i64(w, b->lo);
    put_i64(w, b->hi);
    put_u64(w, b->events);
  }
}

static void sec_exct(wr *w, const ctx *c) {
  const st_stream *s = c->s;
  put_u64(w, s->nexact);
  for (size_t i = 0; i < s->nexact; i++) {
    const sexact *e = &s->exact[i];
    int skey = string_key(c, e->kind, e->key, e->track_name);
    put_i64(w, e->pid);
    put_i64(w, skey ? (int64_t)sid(c, e->track_name) : e->key);
    put_u32(w, sid(c, e->track_name));
    put_u8(w, e->kind | (skey ? ST_STX_KEY_STRING : 0));
    put_u8(w, e->flags);
    put_i64(w, e->start);
    put_i64(w, e->dur);
    put_u32(w, sid(c, e->name));
    put_u32(w, sid(c, e->cat));
    put_u64(w, e->src);
    put_u64(w, e->end_src);
  }
}

/* CLST: per (block, counter series) its last sample (a window's counters
 * start at their value before it) */
static void sec_clst(wr *w, const ctx *c) {
  const st_stream *s = c->s;
  put_u64(w, s->nclast);
  for (size_t i = 0; i < s->nclast; i++) {
    const sclast *e = &s->clast[i];
    int skey = string_key(c, ST_TRACK_COUNTER, e->key, e->name);
    put_u64(w, e->block);
    put_u32(w, e->track);
    put_i64(w, e->pid);
    put_i64(w, skey ? (int64_t)sid(c, e->name) : e->key);
    put_u8(w, skey ? ST_STX_KEY_STRING : 0);
    put_u32(w, sid(c, e->name));
    put_i64(w, e->ts);
    put_f64(w, e->v);
  }
}

static void sec_gzix(wr *w, const ctx *c) {
  const st_gzindex *gz = c->s->gz;
  put_u8(w, gz != NULL);
  if (!gz) return;
  uint32_t n = st_gzindex_points(gz);
  put_u8(w, (unsigned)st_gzindex_is_gzip(gz));
  put_u64(w, st_gzindex_span(gz));
  put_u64(w, st_gzindex_decoded(gz));
  put_u32(w, n);
  for (uint32_t i = 0; i < n; i++) {
    st_gzpoint p;
    st_gzindex_point(gz, i, &p);
    put_u64(w, p.in);
    put_u64(w, p.out);
    put_u8(w, p.bits);
    put_u8(w, p.head);
    put_u32(w, p.win_len);
    put_bytes32(w, c->packed[i], c->npacked[i]);
  }
}

int st_stx_has_units(const st_trace *t) {
  uint32_t nt = 0;
  const st_track *ts = st_trace_tracks(t, &nt);
  for (uint32_t i = 0; i < nt; i++)
    if (ts[i].unit != ST_STR_EMPTY) return 1;
  return 0;
}

static void sec_summ(wr *w, const ctx *c) {
  const st_trace *t = c->t;
  int units = st_stx_has_units(t);
  int64_t origin = st_trace_origin_ns(t);
  put_i64(w, c->s->origin);
  put_i64(w, c->s->end);
  uint32_t np, nt, nr, nc;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *ts = st_trace_tracks(t, &nt);
  const st_row *rs = st_trace_rows(t, &nr);
  const st_counter *cs = st_trace_counters(t, &nc);
  put_u32(w, np);
  for (uint32_t i = 0; i < np; i++) {
    put_i64(w, ps[i].pid);
    put_u32(w, sid(c, ps[i].name));
    put_u32(w, sid(c, ps[i].labels));
    put_u32(w, (uint32_t)ps[i].sort_index);
  }
  uint32_t own = 0;
  for (uint32_t i = 0; i < nt; i++) own += !ts[i].overflow;
  put_u32(w, own);
  for (uint32_t i = 0; i < nt; i++) {
    if (ts[i].overflow) continue;
    int skey = string_key(c, ts[i].kind, ts[i].key, ts[i].name);
    put_u32(w, ts[i].process);
    put_u8(w, ts[i].kind | (skey ? ST_STX_KEY_STRING : 0));
    put_u8(w, ts[i].indent);
    put_i64(w, skey ? (int64_t)sid(c, ts[i].name) : ts[i].key);
    put_u32(w, sid(c, ts[i].name));
    put_u32(w, (uint32_t)ts[i].sort_index);
    if (units) put_u32(w, sid(c, ts[i].unit));
  }
  const st_frames *fr = st_trace_frames(t);
  uint32_t nf = st_frames_count(fr);
  put_u32(w, nf);
  for (uint32_t i = 0; i < nf; i++) {
    put_u32(w, st_frames_parent(fr, i));
    put_u32(w, sid(c, st_frames_name(fr, i)));
  }
  uint64_t nev = 0;
  for (uint32_t r = 0; r < nr; r++)
    if (rs[r].track < nt && c->tmap[rs[r].track] != UINT32_MAX) nev += rs[r].count;
  put_u64(w, nev);
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t tk = rs[r].track < nt ? c->tmap[rs[r].track] : UINT32_MAX;
    if (tk == UINT32_MAX) continue;
    int smp = is_samples(ts, nt, rs[r].track);
    for (uint32_t i = 0; i < rs[r].count; i++) {
      put_u32(w, tk);
      put_i64(w, st_sat_add(origin, rs[r].start[i]));
      put_i64(w, rs[r].dur[i]);
      put_u32(w, sid(c, rs[r].name[i]));
      put_u32(w, smp ? rs[r].cat[i] : sid(c, rs[r].cat[i])); /* a sample's cat: its frame */
      put_u64(w, rs[r].src[i]);
      put_u8(w, rs[r].flags[i] & (uint8_t)~ST_EV_OVERLAP); /* the layout sets it again */
    }
  }
  uint64_t nsm = 0;
  for (uint32_t i = 0; i < nc; i++)
    if (cs[i].track < nt && c->tmap[cs[i].track] != UINT32_MAX) nsm += cs[i].count;
  put_u64(w, nsm);
  for (uint32_t i = 0; i < nc; i++) {
    uint32_t tk = cs[i].track < nt ? c->tmap[cs[i].track] : UINT32_MAX;
    if (tk == UINT32_MAX) continue;
    for (uint32_t j = 0; j < cs[i].count; j++) {
      put_u32(w, tk);
      put_i64(w, st_sat_add(origin, cs[i].ts[j]));
      put_f64(w, cs[i].value[j]);
    }
  }
  size_t ne = 0;
  const st_end_src *es = st_trace_end_srcs(t, &ne);
  put_u64(w, ne);
  for (size_t i = 0; i < ne; i++) {
    put_u64(w, es[i].src);
    put_u64(w, es[i].end_src);
  }
}

/* A section: its tag, its length (measured by writing it once uncounted),
 * then its bytes. */
static void section(wr *w, const char tag[4], void (*fn)(wr *, const ctx *), const ctx *c) {
  w->measure = 1;
  w->count = 0;
  fn(w, c);
  w->measure = 0;
  put(w, tag, 4);
  put_u64(w, w->count);
  fn(w, c);
}

/* ==== 4. the save ========================================================== */

st_code st_stream_save(const st_stream *s, const st_trace *summary, const uint8_t *const *samples,
                       uint32_t nsamples, st_stx_write_fn write, void *ud, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  st_stream_range plan[ST_STX_SAMPLES];
  uint32_t np = st_stream_identity_plan(s, plan);
  if (!s || !s->finished || !summary || !write)
    return st_error_set(err, ST_ERR_ARG, 0, "index: no finished stream to save");
  if (st_trace_strings(summary) != s->strings)
    return st_error_set(err, ST_ERR_ARG, 0, "index: the summary is not this stream's");
  if (nsamples != np || (np && !samples))
    return st_error_set(err, ST_ERR_ARG, 0, "index: %u sampled blocks of the trace needed", np);
  ssample smp[ST_STX_SAMPLES];
  for (uint32_t k = 0; k < np; k++) {
    if (!samples[k]) return st_error_set(err, ST_ERR_ARG, 0, "index: sampled block %u missing", k);
    smp[k].offset = plan[k].offset;
    smp[k].length = plan[k].length;
    st_sha256(samples[k], (size_t)plan[k].length, smp[k].sha);
  }
  ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.t = summary;
  c.alloc = s->alloc;
  c.samples = smp;
  c.nsamples = np;
  const st_stats *st = st_stream_stats(s);
  c.chrome = st && st->format && !strcmp(st->format, "chrome-json");
  wr w;
  memset(&w, 0, sizeof w);
  w.fn = write;
  w.ud = ud;
  w.buf = st_malloc(&s->alloc, WBUF);
  st_sha256_init(&w.sha);
  if (!w.buf || !collect(&c) || !map_tracks(&c) || !pack_windows(&c)) {
    w.code = ST_ERR_NOMEM;
  } else {
    uint32_t features = 0;
    if (s->windows) features |= ST_STX_F_WINDOWS;
    if (s->gz) features |= ST_STX_F_GZIP;
    if (st_frames_count(st_trace_frames(summary))) features |= ST_STX_F_FRAMES;
    if (st_stx_has_units(summary)) features |= ST_STX_F_UNITS;
    put(&w, ST_STX_MAGIC "\0\0\0", 12);
    put_u32(&w, ST_STX_VERSION);
    put_u32(&w, features);
    section(&w, "IDNT", sec_idnt, &c);
    section(&w, "STRS", sec_strs, &c);
    section(&w, "STAT", sec_stat, &c);
    section(&w, "STRM", sec_strm, &c);
    section(&w, "BLKS", sec_blks, &c);
    section(&w, "EXCT", sec_exct, &c);
    section(&w, "CLST", sec_clst, &c);
    section(&w, "GZIX", sec_gzix, &c);
    section(&w, "SUMM", sec_summ, &c);
    uint8_t h[32];
    st_sha256_final(&w.sha, h);
    w.measure = 0;
    put(&w, h, 32); /* (hashed into a context no longer used) */
    flush(&w);
  }
  st_code code = w.code;
  st_free(&s->alloc, w.buf);
  st_free(&s->alloc, c.list);
  st_free(&s->alloc, c.tmap);
  st_u64map_free(&c.ids, &s->alloc);
  free_windows(&c);
  if (code == ST_ERR_NOMEM) return st_error_set(err, code, 0, "index: out of memory");
  if (code != ST_OK) return st_error_set(err, code, 0, "index: the writer failed");
  return ST_OK;
}
