/* stream_pass.c: streaming mode's pass (stream.h): a sink in front of the
 * model that summarises every event into bounded buckets, indexes the
 * blocks of the input by time and keeps the events a window read could not
 * rebuild, then lays the summary out in the importer's own builder.
 */
#include "stream_internal.h"

#include "bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX_LIMIT ((int64_t)1 << 39) /* bucket indices are kept in 40 bits of the key */

/* ==== 1. summary buckets ================================================== */

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static uint64_t bucket_key(uint32_t track, int64_t idx) {
  return ((uint64_t)track << 40) | ((uint64_t)(idx + IDX_LIMIT) & (((uint64_t)1 << 40) - 1));
}

/* The bucket (track, idx), created empty if absent. NULL: out of memory. */
static sbucket *bucket_at(st_stream *s, uint32_t track, int64_t idx, int counter) {
  struct tcache *tc = NULL;
  if (track < s->ntcache) {
    tc = &s->tcache[track];
    if (tc->epoch == s->epoch && tc->idx == idx) return &s->bk[tc->bucket];
  } else if (track < (1u << 24)) { /* room for this track (and more) */
    void *v = s->tcache;
    size_t c = s->ntcache;
    if (st_grow_from(&s->alloc, &v, &c, (size_t)track + 1, sizeof *s->tcache, 64)) {
      s->tcache = v;
      memset(s->tcache + s->ntcache, 0,
             (c - s->ntcache) * sizeof *s->tcache); /* epoch 0: never valid */
      s->ntcache = c;
      tc = &s->tcache[track];
    }
  }
  uint64_t key = bucket_key(track, idx);
  uint32_t i = st_u64map_get(&s->bmap, key);
  if (i != ST_U64MAP_NONE) {
    if (tc) *tc = (struct tcache){idx, i, s->epoch};
    return &s->bk[i];
  }
  if (s->nbk == s->capbk) {
    void *p = s->bk;
    if (!st_grow_from(&s->alloc, &p, &s->capbk, s->nbk + 1, sizeof *s->bk, 1024)) return NULL;
    s->bk = p;
  }
  if (s->nbk >= UINT32_MAX - 1 || !st_u64map_put(&s->bmap, &s->alloc, key, (uint32_t)s->nbk))
    return NULL;
  if (tc) *tc = (struct tcache){idx, (uint32_t)s->nbk, s->epoch};
  sbucket *b = &s->bk[s->nbk++];
  memset(b, 0, sizeof *b);
  b->track = track;
  b->idx = idx;
  b->counter = (uint8_t)(counter != 0);
  b->lo = INT64_MAX;
  b->hi = INT64_MIN;
  b->rep_dur = -1;
  return b;
}

static void fold_slice(sbucket *b, int64_t start, int64_t dur, uint32_t name, uint32_t cat,
                       uint64_t src, uint8_t flags) {
  int64_t end = start > INT64_MAX - dur ? INT64_MAX : start + dur;
  if (start < b->lo) b->lo = start;
  if (end > b->hi) b->hi = end;
  b->count++;
  if (dur > b->rep_dur) {
    b->rep_dur = dur;
    b->rep_name = name;
    b->rep_cat = cat;
    b->rep_src = src;
    b->rep_flags = flags;
  }
}

/* Merges bucket `from` (of the same track and new index) into `to`. */
static void merge_bucket(sbucket *to, const sbucket *from) {
  if (to->count == 0) {
    int64_t idx = to->idx;
    *to = *from;
    to->idx = idx;
    return;
  }
  if (from->lo < to->lo) to->lo = from->lo;
  if (from->hi > to->hi) to->hi = from->hi;
  to->count += from->count;
  if (from->rep_dur > to->rep_dur) {
    to->rep_dur = from->rep_dur;
    to->rep_name = from->rep_name;
    to->rep_cat = from->rep_cat;
    to->rep_src = from->rep_src;
    to->rep_flags = from->rep_flags;
  }
  if (from->counter) {
    if (from->vmin < to->vmin) to->vmin = from->vmin;
    if (from->vmax > to->vmax) to->vmax = from->vmax;
    if (from->tlast >= to->tlast) {
      to->tlast = from->tlast;
      to->vlast = from->vlast;
    }
  }
}

/* floor((t - base) / w), computed without overflow */
static int64_t raw_index(const st_stream *s, int64_t t) {
  int after = t >= s->base;
  uint64_t ud = after ? (uint64_t)t - (uint64_t)s->base : (uint64_t)s->base - (uint64_t)t;
  uint64_t q = ud / (uint64_t)s->w, r = ud % (uint64_t)s->w;
  return after ? (int64_t)q : -(int64_t)(q + (r != 0));
}

/* Doubles the bucket width until the buckets and long events fit again
 * (max_buckets each, with room). 0: out of memory. */
static int coarsen(st_stream *s) {
  do {
    if (s->w > INT64_MAX / 2) return 1; /* one bucket spans all time: nothing more to merge */
    s->w *= 2;
    s->epoch++; /* every cached bucket moves */
    sbucket *old = s->bk;
    size_t n = s->nbk;
    s->bk = NULL;
    s->nbk = s->capbk = 0;
    st_u64map_clear(&s->bmap);
    for (size_t i = 0; i < n; i++) {
      sbucket *b = bucket_at(s, old[i].track, floor_div(old[i].idx, 2), old[i].counter);
      if (!b) {
        st_free(&s->alloc, old);
        return 0;
      }
      merge_bucket(b, &old[i]);
    }
    st_free(&s->alloc, old);
    size_t kept = 0;
    for (size_t i = 0; i < s->nlong; i++) {
      slong *l = &s->longs[i];
      if (l->dur < s->w) {
        sbucket *b = bucket_at(s, l->track, raw_index(s, l->start), 0);
        if (!b) return 0;
        fold_slice(b, l->start, l->dur, l->name, l->cat, l->src, l->flags);
      } else {
        s->longs[kept++] = *l;
      }
    }
    s->nlong = kept;
  } while (s->nbk > (size_t)s->max_buckets * 3 / 4 || s->nlong > s->max_buckets);
  return 1;
}

/* base + idx * w, saturating */
static int64_t bucket_start(const st_stream *s, int64_t idx) {
  if (idx > 0 && s->w > INT64_MAX / idx) return INT64_MAX;
  if (idx < 0 && s->w > INT64_MAX / -idx) return INT64_MIN; /* idx > -2^40: -idx fits */
  return st_sat_add(s->base, idx * s->w);
}

/* The bucket index of t, coarsening first while it falls outside the key's
 * range or a new bucket would pass the budget. 0: out of memory. */
static int index_of(st_stream *s, int64_t t, int64_t *idx) {
  if (!s->have_base) {
    s->base = t;
    s->have_base = 1;
  }
  if (s->nbk >= s->max_buckets && !coarsen(s)) return 0;
  int after = t >= s->base;
  uint64_t ud = after ? (uint64_t)t - (uint64_t)s->base : (uint64_t)s->base - (uint64_t)t;
  while (ud / (uint64_t)s->w >= (uint64_t)IDX_LIMIT - 1 && s->w <= INT64_MAX / 2)
    if (!coarsen(s)) return 0;
  *idx = raw_index(s, t);
  return 1;
}

static int summarise_slice(st_stream *s, uint32_t track, int64_t start, int64_t dur, uint32_t name,
                           uint32_t cat, uint64_t src, uint8_t flags) {
  if (flags & ST_EV_UNFINISHED) dur = 0;
  if (dur < 0) dur = 0;
  int64_t idx;
  if (!index_of(s, start, &idx)) return 0;
  if (dur >= s->w) {
    if (s->nlong == s->caplong) {
      void *p = s->longs;
      if (!st_grow_from(&s->alloc, &p, &s->caplong, s->nlong + 1, sizeof *s->longs, 256)) return 0;
      s->longs = p;
    }
    s->longs[s->nlong++] = (slong){track, flags, start, dur, name, cat, src};
    if (s->nlong > s->max_buckets && !coarsen(s)) return 0;
    return 1;
  }
  sbucket *b = bucket_at(s, track, idx, 0);
  if (!b) return 0;
  fold_slice(b, start, dur, name, cat, src, flags);
  return 1;
}

/* ==== 2. the block index and the exact events ============================== */

static int block_note(st_stream *s, uint64_t src, int64_t lo, int64_t hi, int event) {
  uint64_t k = src / s->block_bytes;
  if (k >= SIZE_MAX / sizeof(sblock) / 2) return 1; /* beyond any real input */
  if (k >= s->nblocks) {
    void *v = s->blocks;
    int ok = st_grow_from(&s->alloc, &v, &s->capblocks, (size_t)k + 1, sizeof *s->blocks, 64);
    s->blocks = v;
    if (!ok) return 0;
    for (size_t i = s->nblocks; i <= k; i++)
      s->blocks[i] = (sblock){UINT64_MAX, 0, INT64_MAX, INT64_MIN, 0};
    s->nblocks = (size_t)k + 1;
  }
  sblock *b = &s->blocks[k];
  if (event) {
    if (src < b->first_src) b->first_src = src;
    if (src > b->last_src) b->last_src = src;
    b->events++;
  }
  if (lo < b->lo) b->lo = lo;
  if (hi > b->hi) b->hi = hi;
  return 1;
}

static int add_exact(st_stream *s, uint32_t track, int64_t start, int64_t dur, uint32_t name,
                     uint32_t cat, uint64_t src, uint64_t end_src, uint8_t flags) {
  if (s->nexact == s->capexact) {
    void *p = s->exact;
    if (!st_grow_from(&s->alloc, &p, &s->capexact, s->nexact + 1, sizeof *s->exact, 256)) return 0;
    s->exact = p;
  }
  sexact *e = &s->exact[s->nexact++];
  memset(e, 0, sizeof *e);
  st_track_kind kind = ST_TRACK_SLICES;
  st_builder_track_info(s->builder, track, &e->pid, &kind, &e->key, &e->track_name);
  e->kind = (uint8_t)kind;
  e->flags = flags;
  e->start = start;
  e->dur = dur;
  e->name = name;
  e->cat = cat;
  e->src = src;
  e->end_src = end_src;
  return 1;
}

static st_track_kind kind_of(st_stream *s, uint32_t track) {
  st_track_kind kind = ST_TRACK_SLICES;
  st_builder_track_info(s->builder, track, NULL, &kind, NULL, NULL);
  return kind;
}

/* Legacy async steps (T, p) are slices of a chain that began at its S,
 * maybe blocks before: a window cannot rebuild them, so once a trace has
 * shown one, its async slices are all held exactly. */
static int legacy_steps(const st_stream *s) {
  const st_stats *st = st_loader_stats(s->loader);
  return st && (st->phases['T'] || st->phases['p']);
}

/* A slice whose halves are known (end_src UINT64_MAX: one event). */
static int take_slice(st_stream *s, uint32_t track, int64_t start, int64_t dur, uint32_t name,
                      uint32_t cat, uint64_t src, uint64_t end_src, uint8_t flags) {
  s->last_src = end_src != UINT64_MAX ? end_src : src;
  st_track_kind kind = kind_of(s, track);
  if (kind == ST_TRACK_SAMPLES) /* CPU samples: summary only */
    return summarise_slice(s, track, start, dur, name, cat, src, flags);
  int cross = (end_src != UINT64_MAX && src / s->block_bytes != end_src / s->block_bytes) ||
              (kind == ST_TRACK_ASYNC && legacy_steps(s));
  if ((flags & ST_EV_UNFINISHED) || cross) /* in the summary as they are */
    return add_exact(s, track, start, dur, name, cat, src, end_src, flags);
  if (!summarise_slice(s, track, start, dur, name, cat, src, flags)) return 0;
  if (dur < 0) dur = 0;
  int64_t end = start > INT64_MAX - dur ? INT64_MAX : start + dur;
  if (!block_note(s, src, start, end, 1)) return 0;
  if (end_src != UINT64_MAX && !block_note(s, end_src, start, end, 1)) return 0;
  return 1;
}

static int settle_pending(st_stream *s) {
  if (!s->pend.on) return 1;
  s->pend.on = 0;
  spending p = s->pend;
  return take_slice(s, p.track, p.start, p.dur, p.name, p.cat, p.src, UINT64_MAX, p.flags);
}

/* ==== 3. the sink ========================================================= */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int sink_slice(void *ud, uint32_t track, int64_t start_ns, int64_t dur_ns, uint32_t name,
                      uint32_t cat, uint64_t *src, uint8_t flags) {
  st_stream *s = ud;
  if (!settle_pending(s)) return -1;
  if (flags & ST_EV_HAS_END) { /* its end src follows */
    s->pend = (spending){1, track, name, cat, flags, start_ns, dur_ns, *src};
    return 0;
  }
  return take_slice(s, track, start_ns, dur_ns, name, cat, *src, UINT64_MAX, flags) ? 0 : -1;
}

static int sink_end_src(void *ud, uint64_t *src, uint64_t *end_src) {
  st_stream *s = ud;
  if (!s->pend.on || s->pend.src != *src) return settle_pending(s) ? 0 : -1;
  s->pend.on = 0;
  spending p = s->pend;
  return take_slice(s, p.track, p.start, p.dur, p.name, p.cat, p.src, *end_src, p.flags) ? 0 : -1;
}

/* The last sample of counter track in block k. 0: out of memory. */
static int note_clast(st_stream *s, uint64_t k, uint32_t track, int64_t ts, double v) {
  if (k >= ((uint64_t)1 << 40)) return 1;
  uint64_t key = k << 24 | track;
  uint32_t i = st_u64map_get(&s->cmap, key);
  if (i == ST_U64MAP_NONE) {
    if (s->nclast == s->capclast) {
      void *p = s->clast;
      if (!st_grow_from(&s->alloc, &p, &s->capclast, s->nclast + 1, sizeof *s->clast, 64)) return 0;
      s->clast = p;
    }
    if (s->nclast >= UINT32_MAX - 1 ||
        !st_u64map_put(&s->cmap, &s->alloc, key, (uint32_t)s->nclast))
      return 0;
    sclast *e = &s->clast[s->nclast++];
    memset(e, 0, sizeof *e);
    e->block = k;
    e->track = track;
    e->ts = INT64_MIN;
    st_track_kind kind;
    st_builder_track_info(s->builder, track, &e->pid, &kind, &e->key, &e->name);
    i = (uint32_t)(s->nclast - 1);
  }
  sclast *e = &s->clast[i];
  if (ts >= e->ts) {
    e->ts = ts;
    e->v = v;
  }
  return 1;
}

static int sink_counter(void *ud, uint32_t track, int64_t ts_ns, double value, uint64_t src) {
  st_stream *s = ud;
  if (!settle_pending(s)) return -1;
  int64_t idx;
  if (!index_of(s, ts_ns, &idx)) return -1;
  sbucket *b = bucket_at(s, track, idx, 1);
  if (!b) return -1;
  if (b->count == 0 || value < b->vmin) b->vmin = value;
  if (b->count == 0 || value > b->vmax) b->vmax = value;
  if (b->count == 0 || ts_ns >= b->tlast) {
    b->tlast = ts_ns;
    b->vlast = value;
  }
  fold_slice(b, ts_ns, 0, 0, 0, 0, 0);
  if (src == UINT64_MAX) src = s->last_src;
  /* its own src starts a block's bytes as an event's does: the sample is
   * read with its block, and the block's extent holds its time */
  if (src != UINT64_MAX && !block_note(s, src, ts_ns, ts_ns, 1)) return -1;
  if (src != UINT64_MAX && track < (1u << 24) &&
      !note_clast(s, src / s->block_bytes, track, ts_ns, value))
    return -1;
  return 0;
}

static int sink_flow(void *ud, uint32_t track, int64_t ts_ns, uint64_t key, unsigned role,
                     unsigned bind, uint64_t *src) {
  (void)ud, (void)track, (void)ts_ns, (void)key, (void)role, (void)bind, (void)src;
  return 0; /* the summary draws no arrows; a window's come from its blocks */
}

/* The summary's events into b (whose tracks are the pass's), *n of them.
 * preview: a snapshot while the pass runs (CPU samples left out: their
 * frames are the pass builder's). */
static st_code emit_summary(st_stream *s, st_builder *b, int preview, uint64_t *count) {
  uint64_t n = 0;
  for (size_t i = 0; i < s->nbk; i++) {
    const sbucket *k = &s->bk[i];
    if (k->count == 0) continue;
    if (preview && kind_of(s, k->track) == ST_TRACK_SAMPLES) continue;
    st_code c;
    if (k->counter) {
      int64_t mid = k->lo + (k->tlast - k->lo) / 2;
      c = st_builder_counter(b, k->track, k->lo, k->vmin);
      if (c == ST_OK && mid > k->lo && mid < k->tlast)
        c = st_builder_counter(b, k->track, mid, k->vmax);
      if (c == ST_OK && k->tlast > k->lo) c = st_builder_counter(b, k->track, k->tlast, k->vlast);
    } else {
      /* clipped at the bucket's end so buckets never overlap each other */
      int64_t bend = bucket_start(s, k->idx + 1);
      int64_t end = k->hi < bend ? k->hi : bend;
      if (end < k->lo) end = k->lo;
      uint8_t fl = (uint8_t)((k->rep_flags & ~(ST_EV_HAS_END | ST_EV_UNFINISHED)) | ST_EV_SUMMARY);
      c = st_builder_slice(b, k->track, k->lo, end - k->lo, k->rep_name, k->rep_cat, k->rep_src,
                           fl);
    }
    if (c != ST_OK) return c;
    n++;
  }
  for (size_t i = 0; i < s->nlong; i++) {
    const slong *l = &s->longs[i];
    if (preview && kind_of(s, l->track) == ST_TRACK_SAMPLES) continue;
    st_code c = st_builder_slice(b, l->track, l->start, l->dur, l->name, l->cat, l->src,
                                 (uint8_t)(l->flags & ~ST_EV_HAS_END));
    if (c != ST_OK) return c;
    n++;
  }
  for (size_t i = 0; i < s->nexact; i++) {
    st_code c = st_stream_add_exact(b, &s->exact[i]);
    if (c != ST_OK) return c;
    n++;
  }
  *count = n;
  return ST_OK;
}

/* The summary, into the builder the importer filled (its tracks). */
static st_code sink_flush(void *ud, st_builder *b) {
  st_stream *s = ud;
  /* the importer has finished (its unclosed slices are in): the exact
   * events are all known, so their halves' srcs are sorted once */
  if (!settle_pending(s)) return ST_ERR_NOMEM;
  size_t nskip = 0;
  for (size_t i = 0; i < s->nexact; i++) nskip += s->exact[i].end_src != UINT64_MAX ? 2 : 1;
  if (nskip && !(s->skip = st_realloc_array(&s->alloc, NULL, nskip, sizeof *s->skip)))
    return ST_ERR_NOMEM;
  for (size_t i = 0; i < s->nexact; i++) {
    s->skip[s->nskip++] = s->exact[i].src;
    if (s->exact[i].end_src != UINT64_MAX) s->skip[s->nskip++] = s->exact[i].end_src;
  }
  if (s->nskip) qsort(s->skip, s->nskip, sizeof *s->skip, cmp_u64);
  uint64_t n = 0;
  st_code c = emit_summary(s, b, 0, &n);
  s->summary_events = n;
  return c;
}

st_code st_stream_add_exact(st_builder *b, const sexact *e) {
  uint32_t proc = st_builder_process(b, e->pid);
  uint32_t tr = proc == UINT32_MAX
                    ? UINT32_MAX
                    : st_builder_track(b, proc, (st_track_kind)e->kind, e->key, e->track_name);
  if (tr == UINT32_MAX) return ST_ERR_NOMEM;
  st_code c = st_builder_slice(b, tr, e->start, e->dur, e->name, e->cat, e->src, e->flags);
  if (c == ST_OK && e->end_src != UINT64_MAX) c = st_builder_end_src(b, e->src, e->end_src);
  return c;
}

/* ==== 4. public API ======================================================= */

int st_stream_skips(const st_stream *s, uint64_t src) {
  size_t lo = st_lower_bound_u64(s->skip, s->nskip, src);
  return lo < s->nskip && s->skip[lo] == src;
}

st_stream *st_stream_create(const st_stream_desc *desc) {
  st_alloc al = desc ? desc->alloc : (st_alloc){0};
  st_stream *s = st_calloc(&al, 1, sizeof *s);
  if (!s) return NULL;
  s->alloc = al;
  if (desc && desc->file_name) snprintf(s->file_name, sizeof s->file_name, "%s", desc->file_name);
  s->block_bytes = desc && desc->block_bytes ? desc->block_bytes : ST_STREAM_BLOCK;
  if (s->block_bytes < 4096) s->block_bytes = 4096;
  s->max_buckets = desc && desc->max_buckets ? desc->max_buckets : ST_STREAM_BUCKETS;
  if (s->max_buckets < 64) s->max_buckets = 64;
  s->w = 1000; /* 1 us */
  s->epoch = 1;
  s->gz_span = desc ? desc->gz_span : 0;
  s->last_src = UINT64_MAX;
  s->sink = (st_builder_sink){s, sink_slice, sink_counter, sink_end_src, sink_flow, sink_flush};
  s->own_strings = !(desc && desc->strings);
  s->strings = s->own_strings ? st_strtab_create(&al) : desc->strings;
  st_load_desc ld = {0};
  ld.alloc = al;
  ld.file_name = s->file_name[0] ? s->file_name : NULL;
  ld.strings = s->strings;
  ld.sink = &s->sink;
  s->staging = desc && desc->staging ? desc->staging
                                     : (uint64_t)s->max_buckets * ST_STREAM_STAGING_PER_BUCKET;
  ld.staging_limit = s->staging; /* Perfetto ftrace: bounded, not the whole file */
  s->loader = s->strings ? st_loader_create(&ld) : NULL;
  if (!s->loader) {
    st_stream_destroy(s);
    return NULL;
  }
  s->builder = st_loader_builder(s->loader);
  return s;
}

void st_stream_destroy(st_stream *s) {
  if (!s) return;
  st_alloc a = s->alloc;
  st_loader_destroy(s->loader);
  st_free(&a, s->bk);
  st_u64map_free(&s->bmap, &a);
  st_free(&a, s->longs);
  st_free(&a, s->tcache);
  st_free(&a, s->clast);
  st_u64map_free(&s->cmap, &a);
  st_free(&a, s->blocks);
  st_free(&a, s->exact);
  st_free(&a, s->skip);
  st_stream_spill_free(&a, s->spill);
  st_gzindex_destroy(s->gz);
  st_free(&a, s->saved_stats);
  st_free(&a, s->saved_meta);
  st_free(&a, s->saved_text);
  if (s->own_strings) st_strtab_destroy(s->strings);
  st_free(&a, s);
}

st_code st_stream_push(st_stream *s, const void *data, size_t len) {
  if (!s || s->finished) return ST_ERR_ARG;
  st_stream_gz_push(s, data, len);
  return st_loader_push(s->loader, data, len);
}

st_trace *st_stream_finish(st_stream *s, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  if (!s || s->finished) {
    st_error_set(err, ST_ERR_ARG, 0, "no stream");
    return NULL;
  }
  s->finished = 1;
  st_trace *t = NULL;
  t = st_loader_finish(s->loader, err);
  s->events_end = st_loader_events_end(s->loader); /* finish parses what was held back */
  s->builder = NULL;
  if (t) {
    s->origin = st_trace_origin_ns(t);
    s->end = st_sat_add(s->origin, st_trace_duration_ns(t));
  }
  const st_stats *st = st_loader_stats(s->loader);
  s->bytes_decoded = st ? st->bytes_decoded : 0;
  s->windows = t && st && st->format && !strcmp(st->format, "chrome-json") && s->events_end > 0;
  if (!s->windows) { /* no windows from the file's blocks: their index is no use */
    st_free(&s->alloc, s->blocks);
    st_free(&s->alloc, s->clast);
    st_u64map_free(&s->cmap, &s->alloc);
    s->blocks = NULL;
    s->clast = NULL;
    s->nblocks = s->capblocks = s->nclast = s->capclast = 0;
  }
  st_stream_gz_finish(s);
  return t;
}

st_trace *st_stream_snapshot(st_stream *s, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  if (!s || s->finished || !s->builder) {
    st_error_set(err, ST_ERR_ARG, 0, "no pass running");
    return NULL;
  }
  st_builder *b = st_builder_create_shared(&s->alloc, s->strings);
  uint64_t n = 0;
  st_code c = b ? st_builder_copy_skeleton(s->builder, b) : ST_ERR_NOMEM;
  if (c == ST_OK) c = emit_summary(s, b, 1, &n);
  if (c != ST_OK) {
    st_builder_destroy(b);
    st_error_set(err, c, 0, "out of memory");
    return NULL;
  }
  return st_builder_finish(b, err);
}

const st_stats *st_stream_stats(const st_stream *s) { return st_stream_stats_of(s); }

const char *st_stream_metadata_json(const st_stream *s) {
  if (s && s->opened) return s->saved_meta ? s->saved_meta : "{}";
  return s ? st_loader_metadata_json(s->loader) : "{}";
}

st_argsrc *st_stream_take_args_source(st_stream *s) {
  if (s && s->opened) /* JSON args are read from the file by src alone */
    return s->windows ? st_argsrc_create(&s->alloc, ST_ARGS_JSON) : NULL;
  return s ? st_loader_take_args_source(s->loader) : NULL;
}

st_strtab *st_stream_strings(st_stream *s) { return s ? s->strings : NULL; }

uint64_t st_stream_events_in(const st_stream *s, int64_t t0_ns, int64_t t1_ns) {
  if (!s || t1_ns < t0_ns) return 0;
  int64_t a0 = st_sat_add(s->origin, t0_ns), a1 = st_sat_add(s->origin, t1_ns);
  uint64_t n = 0;
  if (s->spill) { /* the partitions meeting it, whole */
    for (uint32_t k = 0; k <= s->spill->parts; k++)
      if (s->spill->part[k].lo <= a1 && s->spill->part[k].hi >= a0) n += s->spill->part[k].records;
    return n;
  }
  if (s->opened) /* an index keeps no bucket counts: the blocks meeting it, whole */
    for (size_t i = 0; i < s->nblocks; i++)
      if (s->blocks[i].events && s->blocks[i].lo <= a1 && s->blocks[i].hi >= a0)
        n += s->blocks[i].events;
  for (size_t i = 0; i < s->nbk; i++) {
    const sbucket *b = &s->bk[i];
    if (!b->counter && b->count && b->lo <= a1 && b->hi >= a0) n += b->count;
  }
  for (size_t i = 0; i < s->nlong; i++) {
    const slong *l = &s->longs[i];
    n += l->start <= a1 && st_sat_add(l->start, l->dur) >= a0;
  }
  for (size_t i = 0; i < s->nexact; i++) {
    const sexact *e = &s->exact[i];
    int64_t end = (e->flags & ST_EV_UNFINISHED) ? s->end : st_sat_add(e->start, e->dur);
    n += e->start <= a1 && end >= a0;
  }
  return n;
}

void st_stream_info_get(const st_stream *s, st_stream_info *out) {
  memset(out, 0, sizeof *out);
  if (!s) return;
  out->bytes_decoded = s->bytes_decoded;
  out->events_end = s->events_end;
  out->block_bytes = s->block_bytes;
  for (size_t i = 0; i < s->nblocks; i++) out->blocks += s->blocks[i].events > 0;
  out->exact = s->nexact;
  out->buckets = s->opened ? s->saved_buckets : s->nbk + s->nlong;
  out->bucket_ns = s->w;
  out->summary_events = s->summary_events;
  out->bytes = sizeof *s + s->capbk * sizeof(sbucket) + st_u64map_bytes(&s->bmap) +
               s->caplong * sizeof(slong) + s->capblocks * sizeof(sblock) +
               s->capexact * sizeof(sexact) + s->nskip * sizeof(uint64_t) + st_gzindex_bytes(s->gz);
  out->windows = s->windows || s->spill;
  /* unsorted: a narrow window anywhere would read more than a quarter of
   * the blocks (a block is read for a window in its extent: the mean of
   * the blocks' extents, as fractions of the trace's time, is that share) */
  uint32_t nb = 0;
  double share = 0, span = (double)s->end - (double)s->origin;
  for (size_t i = 0; i < s->nblocks; i++) {
    if (!s->blocks[i].events || !(span > 0)) continue;
    nb++;
    share += ((double)s->blocks[i].hi - (double)s->blocks[i].lo) / span;
  }
  out->unsorted = nb >= 8 && share > 0.25 * nb;
  out->spill_wanted = !s->spill && s->finished && (!s->windows || out->unsorted);
  out->spilled = s->spill != NULL;
  out->spill_bytes = s->spill ? s->spill->bytes : 0;
  const st_stats *st = st_stream_stats(s);
  out->compressed = st && st->compressed;
  out->restart_points = st_gzindex_points(s->gz);
}
