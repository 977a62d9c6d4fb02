/* stream_window.c: streaming mode's window loads (stream.h): which byte
 * ranges of the file hold a time window's events, and the model of those
 * bytes, fed to an ordinary loader as one event list, with the summary's
 * tracks, time base and strings, the file's offsets as srcs, and the exact
 * events the index holds added in place of the halves it ignores.
 */
#include "stream_internal.h"

#include "bisect.h"

#include <string.h>

/* ==== 1. the plan ======================================================== */

/* The next block holding events at or after k (s->nblocks if none). */
static size_t next_block(const st_stream *s, size_t k) {
  while (k < s->nblocks && s->blocks[k].events == 0) k++;
  return k;
}

uint32_t st_stream_window_plan(const st_stream *s, int64_t t0_ns, int64_t t1_ns,
                               st_stream_range *out, uint32_t cap, uint64_t *bytes) {
  if (bytes) *bytes = 0;
  if (!s || !(s->windows || s->spill) || t1_ns < t0_ns) return 0;
  int64_t a0 = st_sat_add(s->origin, t0_ns), a1 = st_sat_add(s->origin, t1_ns);
  if (s->spill) return st_stream_spill_plan(s, a0, a1, out, cap, bytes);
  uint32_t n = 0;
  uint64_t total = 0, last_end = UINT64_MAX;
  for (size_t k = next_block(s, 0); k < s->nblocks;) {
    size_t nx = next_block(s, k + 1);
    const sblock *b = &s->blocks[k];
    uint64_t from = b->first_src;
    uint64_t to = nx < s->nblocks ? s->blocks[nx].first_src : s->events_end;
    if (to > from && b->lo <= a1 && b->hi >= a0) {
      if (n > 0 && last_end == from) { /* adjacent: one read */
        if (n <= cap) out[n - 1].length += to - from;
      } else {
        if (n < cap) out[n] = (st_stream_range){from, to - from};
        if (n < UINT32_MAX) n++;
      }
      last_end = to;
      total += to - from;
    }
    k = nx;
  }
  if (bytes) *bytes = total;
  return n;
}

/* ==== 2. the load ========================================================= */

/* Bytes fed from offset `fed` on are the file's from `file` on. */
typedef struct wseg {
  uint64_t fed, file, len;
} wseg;

struct st_stream_window {
  st_alloc alloc;
  st_stream *s;
  st_loader *loader;
  st_builder_sink sink;
  wseg *segs;
  uint32_t nseg, nranges;
  uint64_t got; /* bytes of the current range (segs[nseg - 1]) pushed */
  const st_stream_range *ranges;
  uint64_t fed;
  int64_t a0, a1;  /* absolute ns: the exact events added meet [a0, a1] */
  int filter;      /* st_stream_window_set_filter */
  uint8_t *loaded; /* per block: its bytes are read (part of a range) */
  /* from the re-ordered copy (s->spill): records into a builder of its own */
  st_builder *b;
  uint32_t *tmap;     /* the copy's track -> b's (UINT32_MAX: not yet) */
  uint8_t *part_read; /* per partition: its chunks are read */
  uint8_t rec[sizeof(srecord)];
  uint32_t nrec;  /* bytes of rec held (a record split across pushes) */
  uint64_t limit; /* the bytes the ranges may name: the copy's or the events' */
  /* filtered: per counter track (the window's), its last sample before a0 */
  st_u64map before;
  struct {
    uint32_t track;
    int64_t ts;
    double v;
  } * bsamp;
  size_t nb, capb;
  int nomem;
};

/* the file offset of fed offset `at` (unchanged outside the ranges) */
static uint64_t to_file(const st_stream_window *w, uint64_t at) {
  uint32_t lo = (uint32_t)st_first_range_ending_after(w->segs, w->nseg, sizeof *w->segs,
                                                      offsetof(wseg, fed), offsetof(wseg, len), at);
  if (lo < w->nseg && w->segs[lo].fed <= at) return w->segs[lo].file + (at - w->segs[lo].fed);
  return at;
}

static int win_slice(void *ud, uint32_t track, int64_t start_ns, int64_t dur_ns, uint32_t name,
                     uint32_t cat, uint64_t *src, uint8_t flags) {
  (void)track, (void)name, (void)cat;
  st_stream_window *w = ud;
  if (w->filter) {
    int64_t end = (flags & ST_EV_UNFINISHED) ? w->s->end
                  : dur_ns > 0               ? st_sat_add(start_ns, dur_ns)
                                             : start_ns;
    if (start_ns > w->a1 || end < w->a0) return 0;
  }
  *src = to_file(w, *src);
  return !st_stream_skips(w->s, *src); /* a half of an exact event: the index adds it */
}

static int win_counter(void *ud, uint32_t track, int64_t ts_ns, double value, uint64_t src) {
  (void)src;
  st_stream_window *w = ud;
  if (!w->filter || (ts_ns >= w->a0 && ts_ns <= w->a1)) return 1;
  if (ts_ns > w->a1) return 0;
  /* before the window: only the series' last such sample is kept (its
   * value where the window starts), added at the end */
  uint32_t i = st_u64map_get(&w->before, track);
  if (i == ST_U64MAP_NONE) {
    if (w->nb == w->capb) {
      void *p = w->bsamp;
      if (!st_grow(&w->alloc, &p, &w->capb, w->nb + 1, sizeof *w->bsamp)) return -1;
      w->bsamp = p;
    }
    if (!st_u64map_put(&w->before, &w->alloc, track, (uint32_t)w->nb)) return -1;
    i = (uint32_t)w->nb++;
    w->bsamp[i].track = track;
    w->bsamp[i].ts = INT64_MIN;
  }
  if (ts_ns >= w->bsamp[i].ts) {
    w->bsamp[i].ts = ts_ns;
    w->bsamp[i].v = value;
  }
  return 0;
}

/* Each counter series' value where the window starts: its last sample
 * before a0 in the blocks not read (the pass kept one per block), and,
 * filtered, in those read. Real samples at their own times. */
static st_code counters_before(st_stream_window *w, st_builder *b) {
  const st_stream *s = w->s;
  st_u64map best = {0}; /* pass track -> clast index */
  st_code c = ST_OK;
  for (size_t i = 0; i < s->nclast && c == ST_OK; i++) {
    const sclast *e = &s->clast[i];
    if (e->ts >= w->a0 || (e->block < s->nblocks && w->loaded && w->loaded[e->block])) continue;
    uint32_t j = st_u64map_get(&best, e->track);
    if (j == ST_U64MAP_NONE || s->clast[j].ts < e->ts)
      if (!st_u64map_put(&best, &w->alloc, e->track, (uint32_t)i)) c = ST_ERR_NOMEM;
  }
  for (size_t i = 0; i < s->nclast && c == ST_OK; i++) {
    const sclast *e = &s->clast[i];
    if (st_u64map_get(&best, e->track) != i) continue;
    uint32_t proc = st_builder_process(b, e->pid);
    uint32_t tr = proc == UINT32_MAX ? UINT32_MAX
                                     : st_builder_track(b, proc, ST_TRACK_COUNTER, e->key, e->name);
    c = tr == UINT32_MAX ? ST_ERR_NOMEM : st_builder_counter(b, tr, e->ts, e->v);
  }
  st_u64map_free(&best, &w->alloc);
  for (size_t i = 0; i < w->nb && c == ST_OK; i++)
    c = st_builder_counter(b, w->bsamp[i].track, w->bsamp[i].ts, w->bsamp[i].v);
  return c;
}

static int win_end_src(void *ud, uint64_t *src, uint64_t *end_src) {
  st_stream_window *w = ud;
  *src = to_file(w, *src);
  *end_src = to_file(w, *end_src);
  return !st_stream_skips(w->s, *src);
}

static int win_flow(void *ud, uint32_t track, int64_t ts_ns, uint64_t key, unsigned role,
                    unsigned bind, uint64_t *src) {
  (void)track, (void)ts_ns, (void)key, (void)role, (void)bind;
  *src = to_file(ud, *src);
  return 1;
}

/* the exact events meeting the window, and the counters' values at its start */
static st_code win_flush(void *ud, st_builder *b) {
  st_stream_window *w = ud;
  const st_stream *s = w->s;
  st_code cb = counters_before(w, b);
  if (cb != ST_OK) return cb;
  for (size_t i = 0; i < s->nexact; i++) {
    const sexact *e = &s->exact[i];
    int64_t end = (e->flags & ST_EV_UNFINISHED) ? s->end : st_sat_add(e->start, e->dur);
    if (e->start > w->a1 || end < w->a0) continue;
    st_code c = st_stream_add_exact(b, e);
    if (c != ST_OK) return c;
  }
  return ST_OK;
}

/* The summary's processes and tracks, so the window has every one (empty
 * or not) under the same names and order. */
static int copy_tracks(st_builder *b, const st_trace *summary) {
  uint32_t np = 0, nt = 0;
  const st_process *ps = st_trace_processes(summary, &np);
  const st_track *ts = st_trace_tracks(summary, &nt);
  for (uint32_t i = 0; i < np; i++) {
    uint32_t p = st_builder_process(b, ps[i].pid);
    if (p == UINT32_MAX) return 0;
    st_builder_process_name(b, p, ps[i].name);
    st_builder_process_labels(b, p, ps[i].labels);
    st_builder_process_sort(b, p, ps[i].sort_index);
  }
  for (uint32_t i = 0; i < nt; i++) {
    const st_track *t = &ts[i];
    if (t->overflow || t->process >= np) continue; /* overflow lanes: the layout makes them */
    uint32_t p = st_builder_process(b, ps[t->process].pid);
    uint32_t k = p == UINT32_MAX ? UINT32_MAX
                                 : st_builder_track(b, p, (st_track_kind)t->kind, t->key, t->name);
    if (k == UINT32_MAX) return 0;
    st_builder_track_name(b, k, t->name);
    st_builder_track_sort(b, k, t->sort_index);
    st_builder_track_indent(b, k, t->indent);
    st_builder_track_unit(b, k, t->unit);
  }
  return 1;
}

/* ---- from the re-ordered copy ---- */

static uint32_t copy_track(st_stream_window *w, uint32_t t) {
  const sspill *sp = w->s->spill;
  if (t >= sp->ntracks) return UINT32_MAX;
  if (w->tmap[t] == UINT32_MAX) {
    const strackkey *k = &sp->tracks[t];
    uint32_t proc = st_builder_process(w->b, k->pid);
    if (proc != UINT32_MAX)
      w->tmap[t] = st_builder_track(w->b, proc, (st_track_kind)k->kind, k->key, k->name);
  }
  return w->tmap[t];
}

static st_code take_record(st_stream_window *w, const srecord *r) {
  uint32_t tr = copy_track(w, r->track);
  if (tr == UINT32_MAX) return r->track >= w->s->spill->ntracks ? ST_ERR_FORMAT : ST_ERR_NOMEM;
  if (r->kind == SREC_COUNTER) {
    double v;
    memcpy(&v, &r->dur, sizeof v);
    return win_counter(w, tr, r->start, v, r->src) < 0 ? ST_ERR_NOMEM
           : r->start >= w->a0 && r->start <= w->a1    ? st_builder_counter(w->b, tr, r->start, v)
                                                       : ST_OK;
  }
  if (r->kind == SREC_FLOW) /* the partitions' flow points, all: arrows to their neighbours */
    return st_builder_flow(w->b, (uint64_t)r->cat << 32 | r->name, r->flags, (st_flow_bind)r->pad,
                           tr, r->start, r->src) == ST_ERR_NOMEM
               ? ST_ERR_NOMEM
               : ST_OK;
  if (r->kind != SREC_SLICE) return ST_ERR_FORMAT;
  int64_t end = (r->flags & ST_EV_UNFINISHED) ? w->s->end
                : r->dur > 0                  ? st_sat_add(r->start, r->dur)
                                              : r->start;
  if (r->start > w->a1 || end < w->a0) return ST_OK;
  st_code c = st_builder_slice(w->b, tr, r->start, r->dur, r->name, r->cat, r->src, r->flags);
  if (c == ST_OK && r->end_src != UINT64_MAX) c = st_builder_end_src(w->b, r->src, r->end_src);
  return c;
}

static st_code take_records(st_stream_window *w, const uint8_t *p, size_t n) {
  srecord r;
  while (n) {
    size_t k = sizeof r - w->nrec < n ? sizeof r - w->nrec : n;
    memcpy(w->rec + w->nrec, p, k);
    w->nrec += (uint32_t)k;
    p += k;
    n -= k;
    if (w->nrec < sizeof r) break;
    memcpy(&r, w->rec, sizeof r);
    w->nrec = 0;
    st_code c = take_record(w, &r);
    if (c != ST_OK) return c;
  }
  return ST_OK;
}

/* Each counter series' value where the window starts: its last sample
 * before a0 in the partitions not read, and in those read. */
static st_code copy_counters_before(st_stream_window *w) {
  const sspill *sp = w->s->spill;
  st_u64map best = {0}; /* the copy's track -> clast index */
  st_code c = ST_OK;
  for (size_t i = 0; i < sp->nclast && c == ST_OK; i++) {
    const spclast *e = &sp->clast[i];
    if (e->ts >= w->a0 || w->part_read[e->part]) continue;
    uint32_t j = st_u64map_get(&best, e->track);
    if (j == ST_U64MAP_NONE || sp->clast[j].ts < e->ts)
      if (!st_u64map_put(&best, &w->alloc, e->track, (uint32_t)i)) c = ST_ERR_NOMEM;
  }
  for (size_t i = 0; i < sp->nclast && c == ST_OK; i++) {
    const spclast *e = &sp->clast[i];
    if (st_u64map_get(&best, e->track) != i) continue;
    uint32_t tr = copy_track(w, e->track);
    if (tr == UINT32_MAX) {
      c = ST_ERR_NOMEM;
      break;
    }
    /* an earlier sample read in the window's partitions does not exist
     * (those partitions are later than this one's); a later one wins */
    uint32_t bi = st_u64map_get(&w->before, tr);
    if (bi == ST_U64MAP_NONE || w->bsamp[bi].ts < e->ts)
      c = st_builder_counter(w->b, tr, e->ts, e->v);
  }
  st_u64map_free(&best, &w->alloc);
  for (size_t i = 0; i < w->nb && c == ST_OK; i++)
    c = st_builder_counter(w->b, w->bsamp[i].track, w->bsamp[i].ts, w->bsamp[i].v);
  return c;
}

/* The window's own builder and which partitions its ranges read. 0: out
 * of memory. */
static int copy_begin(st_stream_window *w) {
  const st_stream *s = w->s;
  const sspill *sp = s->spill;
  if (!(w->part_read = st_calloc(&w->alloc, (size_t)sp->parts + 1, 1))) return 0;
  if (sp->ntracks && !(w->tmap = st_calloc(&w->alloc, sp->ntracks, sizeof *w->tmap))) return 0;
  for (uint32_t i = 0; i < sp->ntracks; i++) w->tmap[i] = UINT32_MAX;
  for (size_t i = 0, k = 0; i < sp->nchunks && k < w->nranges; i++) {
    const schunk *c = &sp->chunks[i];
    while (k < w->nranges && w->ranges[k].offset + w->ranges[k].length <= c->offset) k++;
    if (k < w->nranges && c->offset >= w->ranges[k].offset) {
      w->part_read[c->part] = 1;
      const spart *pt = &sp->part[c->part];
      if (pt->lo < w->a0) w->a0 = pt->lo;
      if (pt->hi > w->a1) w->a1 = pt->hi;
    }
  }
  w->filter = 1; /* a partition holds events outside the span: always filtered */
  if (!(w->b = st_builder_create_shared(&w->alloc, s->strings))) return 0;
  return 1;
}

static st_code feed(st_stream_window *w, const void *p, size_t n) {
  w->fed += n;
  if (w->b) return take_records(w, p, n);
  return st_loader_push(w->loader, p, n); /* an error repeats on later pushes */
}

st_stream_window *st_stream_window_begin(st_stream *s, const st_trace *summary,
                                         const st_stream_range *ranges, uint32_t n, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  if (!s || !summary || !(s->windows || s->spill) || (n && !ranges)) {
    st_error_set(err, ST_ERR_ARG, 0, "no window loads for this trace");
    return NULL;
  }
  uint64_t limit = s->spill ? s->spill->bytes : s->events_end;
  for (uint32_t k = 0; k < n; k++)
    if (ranges[k].offset > limit || ranges[k].length > limit - ranges[k].offset ||
        (k && ranges[k].offset < ranges[k - 1].offset + ranges[k - 1].length)) {
      st_error_set(err, ST_ERR_ARG, ranges[k].offset,
                   "window ranges out of order or past the events");
      return NULL;
    }
  st_stream_window *w = st_calloc(&s->alloc, 1, sizeof *w);
  if (!w) goto nomem;
  w->alloc = s->alloc;
  w->s = s;
  w->ranges = ranges;
  w->nranges = n;
  w->a0 = INT64_MAX;
  w->a1 = INT64_MIN;
  w->limit = limit;
  if (n && !(w->segs = st_calloc(&s->alloc, n, sizeof *w->segs))) goto nomem;
  if (s->spill) {
    if (!copy_begin(w)) goto nomem;
    st_builder_extend(w->b, s->origin, s->end);
    if (!copy_tracks(w->b, summary)) goto nomem;
    return w;
  }
  for (uint32_t k = 0; k < n; k++) { /* the default span: the blocks' extent */
    for (uint64_t b = ranges[k].offset / s->block_bytes;
         b < s->nblocks && b * s->block_bytes < ranges[k].offset + ranges[k].length; b++) {
      if (!s->blocks[b].events) continue;
      if (s->blocks[b].lo < w->a0) w->a0 = s->blocks[b].lo;
      if (s->blocks[b].hi > w->a1) w->a1 = s->blocks[b].hi;
    }
  }
  w->sink = (st_builder_sink){w, win_slice, win_counter, win_end_src, win_flow, win_flush};
  /* which blocks' bytes the ranges hold: a block's bytes run from its
   * first event to the next block's (blocks without events: the one before) */
  if (s->nblocks && !(w->loaded = st_calloc(&s->alloc, s->nblocks, 1))) goto nomem;
  for (size_t b = 0, owner = SIZE_MAX; b < s->nblocks; b++) {
    if (s->blocks[b].events) {
      owner = b;
      uint64_t at = s->blocks[b].first_src;
      for (uint32_t k = 0; k < n && !w->loaded[b]; k++)
        w->loaded[b] = at >= ranges[k].offset && at - ranges[k].offset < ranges[k].length;
    } else if (owner != SIZE_MAX) {
      w->loaded[b] = w->loaded[owner];
    }
  }
  st_load_desc ld = {0};
  ld.alloc = s->alloc;
  ld.strings = s->strings;
  ld.sink = &w->sink;
  w->loader = st_loader_create(&ld);
  if (!w->loader) goto nomem;
  st_builder *b = st_loader_builder(w->loader);
  st_builder_extend(b, s->origin, s->end); /* the summary's time zero and end */
  if (!copy_tracks(b, summary)) goto nomem;
  feed(w, "[", 1);
  return w;
nomem:
  st_stream_window_destroy(w);
  st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
  return NULL;
}

void st_stream_window_set_span(st_stream_window *w, int64_t t0_ns, int64_t t1_ns) {
  if (!w) return;
  w->a0 = st_sat_add(w->s->origin, t0_ns);
  w->a1 = st_sat_add(w->s->origin, t1_ns);
}

st_code st_stream_window_push(st_stream_window *w, uint32_t k, const void *data, size_t len) {
  if (!w || k >= w->nranges || (len && !data)) return ST_ERR_ARG;
  /* range k continues (k == the current one) or starts once the one
   * before is whole */
  int starts = w->nseg == 0 ? k == 0 : k == w->nseg && w->got == w->ranges[k - 1].length;
  int goes_on = w->nseg > 0 && k == w->nseg - 1;
  if (!starts && !goes_on) return ST_ERR_ARG;
  if (starts) {
    /* a range ends where the next block's first event starts, after the
     * comma that follows its last event: ranges join as one list (the
     * last may leave a trailing comma: a warning of the window's own) */
    w->segs[w->nseg++] = (wseg){w->fed, w->ranges[k].offset, w->ranges[k].length};
    w->got = 0;
  }
  if (len > w->ranges[k].length - w->got) return ST_ERR_ARG;
  w->got += len;
  return feed(w, data, len);
}

st_trace *st_stream_window_finish(st_stream_window *w, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  if (!w || w->nseg != w->nranges || (w->nseg && w->got != w->ranges[w->nseg - 1].length)) {
    st_error_set(err, ST_ERR_ARG, 0, "window: not every range was read");
    return NULL;
  }
  if (w->b) {
    st_code c = w->nrec ? ST_ERR_FORMAT : copy_counters_before(w);
    st_builder *b = w->b; /* consumed below */
    w->b = NULL;
    if (c != ST_OK) {
      st_builder_destroy(b);
      st_error_set(err, c, 0,
                   c == ST_ERR_NOMEM ? "out of memory" : "the re-ordered copy is damaged");
      return NULL;
    }
    return st_builder_finish(b, err);
  }
  feed(w, "]", 1);
  return st_loader_finish(w->loader, err);
}

void st_stream_window_set_filter(st_stream_window *w, int on) {
  if (w) w->filter = on != 0 || w->b; /* the copy's partitions: always filtered */
}

const st_stats *st_stream_window_stats(const st_stream_window *w) {
  return w && w->loader ? st_loader_stats(w->loader) : NULL;
}

void st_stream_window_destroy(st_stream_window *w) {
  if (!w) return;
  st_alloc a = w->alloc;
  st_loader_destroy(w->loader);
  st_free(&a, w->segs);
  st_free(&a, w->loaded);
  st_builder_destroy(w->b);
  st_free(&a, w->tmap);
  st_free(&a, w->part_read);
  st_free(&a, w->bsamp);
  st_u64map_free(&w->before, &a);
  st_free(&a, w);
}
