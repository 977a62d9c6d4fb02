/* stream_spill.c: streaming mode's re-ordered copy (stream.h): a second
 * pass over the file that writes every event as a record into time
 * partitions through the platform's `write`, and the plan of the copy's
 * chunks a window reads.
 */
#include "stream_internal.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(srecord) == 48, "a record is 48 bytes");

#define SPILL_PARTS 1024u
#define SPILL_BUFFER (32u << 10)

struct st_stream_spill {
  st_alloc alloc;
  st_stream *s;
  st_loader *loader;
  st_builder_sink sink;
  st_stream_spill_write write;
  void *ud;
  uint64_t limit;
  uint32_t cap;   /* records per partition buffer */
  srecord *buf;   /* (parts + 1) x cap */
  uint32_t *fill; /* per partition: records buffered */
  sspill *sp;     /* what the copy becomes: the stream's at the end */
  size_t capchunks, capclast, captracks;
  st_u64map cmap; /* part << 32 | track -> index into sp->clast */
  size_t clast_max;
  spending pend; /* a slice waiting for its end src */
  st_code fail;  /* the first failure (a write, the limit, memory) */
  char why[160];
};

void st_stream_spill_free(const st_alloc *a, sspill *sp) {
  if (!sp) return;
  st_free(a, sp->part);
  st_free(a, sp->chunks);
  st_free(a, sp->tracks);
  st_free(a, sp->clast);
  st_free(a, sp);
}

static int failed(st_stream_spill *p, st_code c, const char *why) {
  if (p->fail == ST_OK) {
    p->fail = c;
    snprintf(p->why, sizeof p->why, "%s", why);
  }
  return -1;
}

/* ==== 1. writing ========================================================== */

static int flush_part(st_stream_spill *p, uint32_t k) {
  sspill *sp = p->sp;
  uint32_t n = p->fill[k];
  if (n == 0) return 0;
  size_t len = (size_t)n * sizeof(srecord);
  if (p->limit && (sp->bytes > p->limit || len > p->limit - sp->bytes))
    return failed(p, ST_ERR_LIMIT, "the re-ordered copy would pass its limit");
  if (sp->nchunks == p->capchunks) {
    void *q = sp->chunks;
    if (!st_grow_from(&p->alloc, &q, &p->capchunks, sp->nchunks + 1, sizeof *sp->chunks, 256))
      return failed(p, ST_ERR_NOMEM, "out of memory");
    sp->chunks = q;
  }
  st_code c = p->write(p->ud, sp->bytes, p->buf + (size_t)k * p->cap, len);
  if (c != ST_OK) return failed(p, c, "the re-ordered copy could not be written");
  sp->chunks[sp->nchunks++] = (schunk){sp->bytes, k, (uint32_t)len};
  sp->bytes += len;
  p->fill[k] = 0;
  return 0;
}

/* The copy's index of the pass's track (its key kept once). UINT32_MAX:
 * out of memory. */
static uint32_t track_of(st_stream_spill *p, uint32_t track) {
  sspill *sp = p->sp;
  if (track >= (1u << 24)) return UINT32_MAX;
  if (track >= sp->ntracks) {
    void *v = sp->tracks;
    int ok = st_grow_from(&p->alloc, &v, &p->captracks, (size_t)track + 1, sizeof *sp->tracks, 64);
    sp->tracks = v;
    if (!ok) return UINT32_MAX;
    for (uint32_t i = sp->ntracks; i <= track; i++) {
      st_track_kind kind = ST_TRACK_SLICES;
      strackkey *t = &sp->tracks[i];
      memset(t, 0, sizeof *t);
      st_builder_track_info(st_loader_builder(p->loader), i, &t->pid, &kind, &t->key, &t->name);
      t->kind = (uint8_t)kind;
    }
    sp->ntracks = track + 1;
  }
  return track;
}

/* The partition time t falls in (clamped to the trace's). */
static uint32_t part_of(const sspill *sp, int64_t t) {
  int64_t q = (t < sp->p0 ? 0 : t - sp->p0) / sp->pw; /* from p0: no overflow */
  return q >= (int64_t)sp->parts ? sp->parts - 1 : (uint32_t)q;
}

static int put(st_stream_spill *p, const srecord *r, int64_t end) {
  sspill *sp = p->sp;
  uint32_t k = r->kind != SREC_SLICE || end - r->start < sp->pw ? part_of(sp, r->start)
                                                                : sp->parts; /* the long events' */
  spart *pt = &sp->part[k];
  if (r->start < pt->lo) pt->lo = r->start;
  if (end > pt->hi) pt->hi = end;
  pt->records++;
  p->buf[(size_t)k * p->cap + p->fill[k]++] = *r;
  return p->fill[k] == p->cap ? flush_part(p, k) : 0;
}

/* ==== 2. the sink ========================================================= */

static int take_slice(st_stream_spill *p, uint32_t track, int64_t start, int64_t dur, uint32_t name,
                      uint32_t cat, uint64_t src, uint64_t end_src, uint8_t flags) {
  st_track_kind kind = ST_TRACK_SLICES;
  st_builder_track_info(st_loader_builder(p->loader), track, NULL, &kind, NULL, NULL);
  if (kind == ST_TRACK_SAMPLES) return 0; /* CPU samples: the summary's */
  uint32_t t = track_of(p, track);
  if (t == UINT32_MAX) return failed(p, ST_ERR_NOMEM, "out of memory");
  srecord r = {t, SREC_SLICE, flags, 0, name, cat, start, dur, src, end_src};
  int64_t end = (flags & ST_EV_UNFINISHED) ? p->s->end : dur > 0 ? st_sat_add(start, dur) : start;
  if (end < start) end = start;
  return put(p, &r, end);
}

static int settle(st_stream_spill *p) {
  if (!p->pend.on) return 0;
  p->pend.on = 0;
  spending q = p->pend;
  return take_slice(p, q.track, q.start, q.dur, q.name, q.cat, q.src, UINT64_MAX, q.flags);
}

static int sp_slice(void *ud, uint32_t track, int64_t start_ns, int64_t dur_ns, uint32_t name,
                    uint32_t cat, uint64_t *src, uint8_t flags) {
  st_stream_spill *p = ud;
  if (p->fail != ST_OK || settle(p) < 0) return 0; /* failed: the rest is dropped */
  if (flags & ST_EV_HAS_END) {
    p->pend = (spending){1, track, name, cat, flags, start_ns, dur_ns, *src};
    return 0;
  }
  take_slice(p, track, start_ns, dur_ns, name, cat, *src, UINT64_MAX, flags);
  return 0;
}

static int sp_end_src(void *ud, uint64_t *src, uint64_t *end_src) {
  st_stream_spill *p = ud;
  if (p->fail != ST_OK) return 0;
  if (!p->pend.on || p->pend.src != *src) {
    settle(p);
    return 0;
  }
  p->pend.on = 0;
  spending q = p->pend;
  take_slice(p, q.track, q.start, q.dur, q.name, q.cat, q.src, *end_src, q.flags);
  return 0;
}

/* the series' last sample in partition k */
static int note_clast(st_stream_spill *p, uint32_t k, uint32_t t, int64_t ts, double v) {
  sspill *sp = p->sp;
  uint64_t key = (uint64_t)k << 32 | t;
  uint32_t i = st_u64map_get(&p->cmap, key);
  if (i == ST_U64MAP_NONE) {
    if (sp->nclast >= p->clast_max)
      return failed(p, ST_ERR_LIMIT, "too many counter series to re-order");
    if (sp->nclast == p->capclast) {
      void *q = sp->clast;
      if (!st_grow_from(&p->alloc, &q, &p->capclast, sp->nclast + 1, sizeof *sp->clast, 64))
        return failed(p, ST_ERR_NOMEM, "out of memory");
      sp->clast = q;
    }
    if (!st_u64map_put(&p->cmap, &p->alloc, key, (uint32_t)sp->nclast))
      return failed(p, ST_ERR_NOMEM, "out of memory");
    i = (uint32_t)sp->nclast;
    sp->clast[sp->nclast++] = (spclast){k, t, INT64_MIN, 0};
  }
  spclast *e = &sp->clast[i];
  if (ts >= e->ts) {
    e->ts = ts;
    e->v = v;
  }
  return 0;
}

static int sp_counter(void *ud, uint32_t track, int64_t ts_ns, double value, uint64_t src) {
  st_stream_spill *p = ud;
  if (p->fail != ST_OK || settle(p) < 0) return 0;
  uint32_t t = track_of(p, track);
  if (t == UINT32_MAX) return failed(p, ST_ERR_NOMEM, "out of memory"), 0;
  srecord r = {t, SREC_COUNTER, 0, 0, 0, 0, ts_ns, 0, src, UINT64_MAX};
  memcpy(&r.dur, &value, sizeof value);
  if (note_clast(p, part_of(p->sp, ts_ns), t, ts_ns, value) == 0) put(p, &r, ts_ns);
  return 0;
}

static int sp_flow(void *ud, uint32_t track, int64_t ts_ns, uint64_t key, unsigned role,
                   unsigned bind, uint64_t *src) {
  st_stream_spill *p = ud;
  if (p->fail != ST_OK || settle(p) < 0) return 0;
  uint32_t t = track_of(p, track);
  if (t == UINT32_MAX) return failed(p, ST_ERR_NOMEM, "out of memory"), 0;
  srecord r = {
      t,     SREC_FLOW, (uint8_t)role, (uint16_t)bind, (uint32_t)key, (uint32_t)(key >> 32),
      ts_ns, 0,         *src,          UINT64_MAX};
  put(p, &r, ts_ns);
  return 0;
}

static st_code sp_flush(void *ud, st_builder *b) {
  (void)b;
  st_stream_spill *p = ud;
  settle(p); /* the importer's unclosed slices are in: the last pending one */
  return ST_OK;
}

/* ==== 3. public API ======================================================= */

st_stream_spill *st_stream_spill_begin(st_stream *s, const st_stream_spill_desc *desc,
                                       st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  if (!s || !s->finished || s->spill || !desc || !desc->write || s->end < s->origin) {
    st_error_set(err, ST_ERR_ARG, 0, "no finished pass to re-order, or a copy exists");
    return NULL;
  }
  st_stream_spill *p = st_calloc(&s->alloc, 1, sizeof *p);
  if (!p) goto nomem;
  p->alloc = s->alloc;
  p->s = s;
  p->write = desc->write;
  p->ud = desc->ud;
  p->limit = desc->limit_bytes;
  uint32_t parts = desc->parts ? desc->parts : SPILL_PARTS;
  if (parts > (1u << 20)) parts = 1u << 20;
  uint32_t bb = desc->buffer_bytes ? desc->buffer_bytes : SPILL_BUFFER;
  if (bb < 16 * sizeof(srecord)) bb = 16 * sizeof(srecord);
  p->cap = bb / (uint32_t)sizeof(srecord);
  p->clast_max = (size_t)parts * 512 > ((size_t)1 << 20) ? (size_t)parts * 512 : (size_t)1 << 20;
  if (!(p->sp = st_calloc(&s->alloc, 1, sizeof *p->sp))) goto nomem;
  sspill *sp = p->sp;
  sp->parts = parts;
  sp->p0 = s->origin;
  uint64_t span = (uint64_t)s->end - (uint64_t)s->origin + 1;
  sp->pw = (int64_t)(span / parts + (span % parts != 0));
  if (sp->pw < 1) sp->pw = 1;
  if (!(sp->part = st_calloc(&s->alloc, (size_t)parts + 1, sizeof *sp->part))) goto nomem;
  for (uint32_t k = 0; k <= parts; k++) sp->part[k] = (spart){INT64_MAX, INT64_MIN, 0};
  if (!(p->fill = st_calloc(&s->alloc, (size_t)parts + 1, sizeof *p->fill))) goto nomem;
  if (!(p->buf = st_calloc(&s->alloc, ((size_t)parts + 1) * p->cap, sizeof *p->buf))) goto nomem;
  p->sink = (st_builder_sink){p, sp_slice, sp_counter, sp_end_src, sp_flow, sp_flush};
  st_load_desc ld = {0};
  ld.alloc = s->alloc;
  ld.file_name = s->file_name;
  ld.strings = s->strings;
  ld.sink = &p->sink;
  ld.staging_limit = s->staging ? s->staging /* as the pass's */
                                : (uint64_t)s->max_buckets * ST_STREAM_STAGING_PER_BUCKET;
  if (!(p->loader = st_loader_create(&ld))) goto nomem;
  return p;
nomem:
  st_stream_spill_destroy(p);
  st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
  return NULL;
}

st_code st_stream_spill_push(st_stream_spill *p, const void *data, size_t len) {
  if (!p || !p->loader) return ST_ERR_ARG;
  st_code c = st_loader_push(p->loader, data, len);
  return p->fail != ST_OK ? p->fail : c;
}

uint64_t st_stream_spill_written(const st_stream_spill *p) { return p && p->sp ? p->sp->bytes : 0; }

st_code st_stream_spill_finish(st_stream_spill *p, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  if (!p || !p->loader) {
    st_error_set(err, ST_ERR_ARG, 0, "no re-ordering pass");
    return ST_ERR_ARG;
  }
  st_error lerr;
  memset(&lerr, 0, sizeof lerr);
  st_trace *t = st_loader_finish(p->loader, &lerr); /* the events went to the copy */
  st_trace_destroy(t);
  const st_stats *now = st_loader_stats(p->loader);
  const st_stats *then = st_stream_stats_of(p->s);
  for (uint32_t k = 0; k <= p->sp->parts && p->fail == ST_OK; k++) flush_part(p, k);
  if (p->fail != ST_OK) {
    st_error_set(err, p->fail, p->sp->bytes, "%s", p->why);
    return p->fail;
  }
  if (lerr.code == ST_ERR_NOMEM) {
    st_error_set(err, ST_ERR_NOMEM, lerr.offset, "out of memory while re-ordering (%s)", lerr.msg);
    return ST_ERR_NOMEM;
  }
  if (!t || !now || !then || now->events != then->events) {
    /* the file's events are not the pass's: it changed since */
    st_error_set(err, lerr.code != ST_OK ? lerr.code : ST_ERR_FORMAT, lerr.offset,
                 "the file no longer reads as it did (changed since it was opened?)%s%s",
                 lerr.msg[0] ? ": " : "", lerr.msg);
    return err->code;
  }
  p->s->spill = p->sp;
  p->sp = NULL;
  return ST_OK;
}

void st_stream_spill_drop(st_stream *s) {
  if (!s || !s->spill) return;
  st_stream_spill_free(&s->alloc, s->spill);
  s->spill = NULL;
}

void st_stream_spill_destroy(st_stream_spill *p) {
  if (!p) return;
  st_alloc a = p->alloc;
  st_loader_destroy(p->loader);
  st_stream_spill_free(&a, p->sp);
  st_free(&a, p->buf);
  st_free(&a, p->fill);
  st_u64map_free(&p->cmap, &a);
  st_free(&a, p);
}

/* ==== 4. the plan of a window ================================================ */

uint32_t st_stream_spill_plan(const st_stream *s, int64_t a0, int64_t a1, st_stream_range *out,
                              uint32_t cap, uint64_t *bytes) {
  const sspill *sp = s->spill;
  uint32_t n = 0;
  uint64_t total = 0, last_end = UINT64_MAX;
  for (size_t i = 0; i < sp->nchunks; i++) {
    const schunk *c = &sp->chunks[i];
    const spart *pt = &sp->part[c->part];
    if (!(pt->lo <= a1 && pt->hi >= a0)) continue;
    if (n > 0 && last_end == c->offset) {
      if (n <= cap) out[n - 1].length += c->len;
    } else {
      if (n < cap) out[n] = (st_stream_range){c->offset, c->len};
      if (n < UINT32_MAX) n++;
    }
    last_end = c->offset + c->len;
    total += c->len;
  }
  if (bytes) *bytes = total;
  return n;
}
