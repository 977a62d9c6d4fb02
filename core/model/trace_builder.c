/* trace_builder.c: builds the trace model (see trace.h's st_builder).
 *
 * Contents
 *   1. builder state: processes and tracks found by hash, per-track staging
 *   2. builder API (find-or-create, add events, flow points, end srcs)
 *   3. finish: origin, ordering, struct-of-arrays rows, counters, end srcs
 * (the accessors: trace.c; merged traces, a profile's files on one
 * timeline: trace_merge.c)
 *
 * Memory. While importing, events, counter samples, flow points and end
 * srcs are staged as compact records (trace_internal.h: ~10 bytes per
 * event where the model keeps 33). st_builder_finish does what needs
 * scratch memory first, while the staging is all there is (end srcs
 * sorted, flow points chained), then builds the model track by track:
 * each track's records are decoded straight into its final columns,
 * freeing each staged block once decoded, sorted and laid out in those
 * columns, and its events moved to their rows in place. The peak is about
 * the finished model plus 4 bytes per event of the largest track (8 if
 * its events came out of order) plus ~32 bytes per flow arrow (its pair
 * and its two points' bindings, until the pairs become the flows).
 *
 * st_builder_finish lays each track out with trace_layout.c (sorting,
 * nesting depths, overflow spill, lane packing: the layout rules are there)
 * and turns the flow points into arrows with trace_flows.c (chaining by key,
 * binding to events); trace_internal.h is what they share.
 */
#include "trace_internal.h"
#include "slots.h"

#define SRC_MAX (UINT64_MAX >> 8) /* srcs are clamped to 2^56 - 1 (64 PiB) */

/* ==== 1. builder state ================================================== */

typedef struct bproc {
  int64_t pid;
  uint32_t name, labels;
  int32_t sort_index;
} bproc;

typedef struct btrack {
  uint8_t kind;
  uint8_t indent;
  uint32_t process;
  int64_t key;
  uint32_t name, unit;
  uint64_t block_span;
  int32_t sort_index;
  size_t count; /* events, or samples for a counter track */
  tstream rec;  /* staged events (tev) or samples (tcs) */
  tev prev;     /* the last event added (for samples: prev.start is the last ts) */
  tpoints *pts; /* flow points bound to this track, NULL if none */
} btrack;

struct st_builder {
  st_alloc alloc;
  st_strtab *strings;
  int own_strings; /* 0: shared (st_builder_create_shared) */
  bproc *procs;
  uint32_t proc_count, proc_cap;
  uint32_t *proc_slots; /* index + 1, 0 = empty; power-of-two size */
  uint32_t proc_slot_cap;
  btrack *tracks;
  uint32_t track_count, track_cap;
  uint32_t *track_slots;
  uint32_t track_slot_cap;
  size_t point_count; /* flow points, all tracks: the next point's id */
  tstream ends;       /* st_builder_end_src pairs, in call order (see put_end) */
  size_t end_count;
  uint64_t end_prev;
  int64_t lo, hi;       /* the extent of everything added (events' starts and ends,
                         * samples); lo > hi while nothing was */
  st_frames *frames;    /* samples' stack frames (st_builder_frames), NULL until used */
  st_builder_sink sink; /* st_builder_set_sink; has_sink: 1 while set */
  int has_sink;
  uint64_t noted_src; /* st_builder_note_src */
  st_mem_event *mem;  /* st_builder_mem_events */
  size_t mem_count;
  st_block *blocks; /* st_builder_blocks */
  size_t block_count;
};

static uint32_t hash64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static uint32_t track_hash(uint32_t process, uint8_t kind, int64_t key) {
  return hash64((uint64_t)key * 0x9e3779b97f4a7c15ull ^ ((uint64_t)process << 8 | kind));
}

static uint32_t proc_hash_of(const void *ctx, uint32_t i) {
  return hash64((uint64_t)((const st_builder *)ctx)->procs[i].pid);
}

static uint32_t track_hash_of(const void *ctx, uint32_t i) {
  const btrack *t = &((const st_builder *)ctx)->tracks[i];
  return track_hash(t->process, t->kind, t->key);
}

/* Doubles a growable array so it holds at least count + 1 elements. */
static int reserve(const st_alloc *a, void **p, size_t *cap, size_t count, size_t elem) {
  return st_grow(a, p, cap, count + 1, elem);
}

/* Widens the extent of what was added to [lo, hi]. */
static inline void extend(st_builder *b, int64_t lo, int64_t hi) {
  if (lo < b->lo) b->lo = lo;
  if (hi > b->hi) b->hi = hi;
}

/* ==== 2. builder API ===================================================== */

/* A builder interning into `strings` (own: it creates and frees it). */
static st_builder *builder_new(const st_alloc *a, st_strtab *strings) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_builder *b = st_calloc(&al, 1, sizeof *b);
  if (!b) return NULL;
  b->alloc = al;
  b->lo = INT64_MAX;
  b->hi = INT64_MIN;
  b->noted_src = UINT64_MAX;
  b->own_strings = !strings;
  b->strings = strings ? strings : st_strtab_create(&al);
  if (!b->strings) {
    st_free(&al, b);
    return NULL;
  }
  return b;
}

st_builder *st_builder_create(const st_alloc *a) { return builder_new(a, NULL); }

st_builder *st_builder_create_shared(const st_alloc *a, st_strtab *strings) {
  return strings ? builder_new(a, strings) : NULL;
}

static void free_points(st_builder *b, btrack *t) {
  if (!t->pts) return;
  st_tstream_free(&t->pts->s, &b->alloc);
  st_free(&b->alloc, t->pts);
  t->pts = NULL;
}

static void free_builder_parts(st_builder *b, int keep_strings) {
  for (uint32_t i = 0; i < b->track_count; i++) {
    st_tstream_free(&b->tracks[i].rec, &b->alloc);
    free_points(b, &b->tracks[i]);
  }
  st_free(&b->alloc, b->tracks);
  st_free(&b->alloc, b->track_slots);
  st_free(&b->alloc, b->procs);
  st_free(&b->alloc, b->proc_slots);
  st_tstream_free(&b->ends, &b->alloc);
  st_frames_destroy(b->frames);
  st_free(&b->alloc, b->mem);
  st_free(&b->alloc, b->blocks);
  if (!keep_strings && b->own_strings) st_strtab_destroy(b->strings);
  st_alloc a = b->alloc;
  st_free(&a, b);
}

void st_builder_destroy(st_builder *b) {
  if (b) free_builder_parts(b, 0);
}

st_strtab *st_builder_strings(st_builder *b) { return b ? b->strings : NULL; }

uint32_t st_builder_process(st_builder *b, int64_t pid) {
  if (!b) return UINT32_MAX;
  if (b->proc_slot_cap) {
    uint32_t m = b->proc_slot_cap - 1;
    for (uint32_t h = hash64((uint64_t)pid) & m, v; (v = b->proc_slots[h]) != 0; h = (h + 1) & m)
      if (b->procs[v - 1].pid == pid) return v - 1;
  }
  if (b->proc_count >= UINT32_MAX - 2) return UINT32_MAX;
  if (b->proc_count == b->proc_cap) {
    size_t cap = b->proc_cap;
    void *p = b->procs;
    if (!reserve(&b->alloc, &p, &cap, b->proc_count, sizeof(bproc)) || cap > UINT32_MAX)
      return UINT32_MAX;
    b->procs = p;
    b->proc_cap = (uint32_t)cap;
  }
  uint32_t idx = b->proc_count;
  b->procs[idx] = (bproc){pid, ST_STR_EMPTY, ST_STR_EMPTY, 0};
  if (!st_slots_make_room(&b->alloc, &b->proc_slots, &b->proc_slot_cap, idx, 64, proc_hash_of, b))
    return UINT32_MAX;
  uint32_t m = b->proc_slot_cap - 1, h = hash64((uint64_t)pid) & m;
  while (b->proc_slots[h]) h = (h + 1) & m;
  b->proc_slots[h] = idx + 1;
  b->proc_count++;
  return idx;
}

/* The builder track (process, kind, key), or UINT32_MAX. */
static uint32_t find_track(const st_builder *b, uint32_t process, uint8_t kind, int64_t key) {
  if (!b->track_slot_cap) return UINT32_MAX;
  uint32_t m = b->track_slot_cap - 1;
  for (uint32_t h = track_hash(process, kind, key) & m, v; (v = b->track_slots[h]) != 0;
       h = (h + 1) & m) {
    const btrack *t = &b->tracks[v - 1];
    if (t->process == process && t->kind == kind && t->key == key) return v - 1;
  }
  return UINT32_MAX;
}

/* A thread's instants track (ST_TRACK_INSTANTS keyed and named like a
 * slices track of its process: importers name a thread's tracks alike) is
 * shown as the marker lane above that thread's slices: the slices track,
 * else UINT32_MAX. (The name keeps a process's own instants, key -1 and no
 * name in Chrome JSON, apart from a named thread whose tid is -1.) */
static uint32_t markers_of(const st_builder *b, const btrack *bt) {
  if (bt->kind != ST_TRACK_INSTANTS) return UINT32_MAX;
  uint32_t s = find_track(b, bt->process, ST_TRACK_SLICES, bt->key);
  return s != UINT32_MAX && b->tracks[s].name == bt->name ? s : UINT32_MAX;
}

uint32_t st_builder_track(st_builder *b, uint32_t process, st_track_kind kind, int64_t key,
                          uint32_t name) {
  if (!b || process >= b->proc_count || (unsigned)kind > ST_TRACK_SAMPLES) return UINT32_MAX;
  uint32_t found = find_track(b, process, (uint8_t)kind, key);
  if (found != UINT32_MAX) return found;
  uint32_t hv = track_hash(process, (uint8_t)kind, key);
  /* the finished trace may need an overflow track per track: keep 2x in range */
  if (b->track_count >= UINT32_MAX / 2 - 2) return UINT32_MAX;
  if (b->track_count == b->track_cap) {
    size_t cap = b->track_cap;
    void *p = b->tracks;
    if (!reserve(&b->alloc, &p, &cap, b->track_count, sizeof(btrack)) || cap > UINT32_MAX)
      return UINT32_MAX;
    b->tracks = p;
    b->track_cap = (uint32_t)cap;
  }
  uint32_t idx = b->track_count;
  b->tracks[idx] = (btrack){.kind = (uint8_t)kind, .process = process, .key = key, .name = name};
  if (!st_slots_make_room(&b->alloc, &b->track_slots, &b->track_slot_cap, idx, 64, track_hash_of,
                          b))
    return UINT32_MAX;
  uint32_t m = b->track_slot_cap - 1, h = hv & m;
  while (b->track_slots[h]) h = (h + 1) & m;
  b->track_slots[h] = idx + 1;
  b->track_count++;
  return idx;
}

void st_builder_process_name(st_builder *b, uint32_t process, uint32_t name) {
  if (b && process < b->proc_count) b->procs[process].name = name;
}
void st_builder_process_labels(st_builder *b, uint32_t process, uint32_t labels) {
  if (b && process < b->proc_count) b->procs[process].labels = labels;
}
void st_builder_process_sort(st_builder *b, uint32_t process, int32_t sort_index) {
  if (b && process < b->proc_count) b->procs[process].sort_index = sort_index;
}
void st_builder_track_name(st_builder *b, uint32_t track, uint32_t name) {
  if (b && track < b->track_count) b->tracks[track].name = name;
}
void st_builder_track_sort(st_builder *b, uint32_t track, int32_t sort_index) {
  if (b && track < b->track_count) b->tracks[track].sort_index = sort_index;
}

void st_builder_track_indent(st_builder *b, uint32_t track, uint8_t indent) {
  if (b && track < b->track_count) b->tracks[track].indent = indent;
}

void st_builder_track_unit(st_builder *b, uint32_t track, uint32_t unit) {
  if (b && track < b->track_count) b->tracks[track].unit = unit;
}

void st_builder_set_sink(st_builder *b, const st_builder_sink *sink) {
  if (!b) return;
  b->has_sink = sink != NULL;
  if (sink) b->sink = *sink;
}

void st_builder_note_src(st_builder *b, uint64_t src) {
  if (b) b->noted_src = src;
}

int st_builder_track_info(const st_builder *b, uint32_t track, int64_t *pid, st_track_kind *kind,
                          int64_t *key, uint32_t *name) {
  if (!b || track >= b->track_count) return 0;
  const btrack *t = &b->tracks[track];
  if (pid) *pid = b->procs[t->process].pid;
  if (kind) *kind = (st_track_kind)t->kind;
  if (key) *key = t->key;
  if (name) *name = t->name;
  return 1;
}

uint32_t st_builder_track_count(const st_builder *b) { return b ? b->track_count : 0; }

st_code st_builder_copy_skeleton(const st_builder *from, st_builder *to) {
  if (!from || !to || to->proc_count || to->track_count) return ST_ERR_ARG;
  for (uint32_t i = 0; i < from->proc_count; i++) {
    const bproc *p = &from->procs[i];
    if (st_builder_process(to, p->pid) != i) return ST_ERR_NOMEM; /* pids are unique: index i */
    to->procs[i].name = p->name;
    to->procs[i].labels = p->labels;
    to->procs[i].sort_index = p->sort_index;
  }
  for (uint32_t i = 0; i < from->track_count; i++) {
    const btrack *t = &from->tracks[i];
    if (st_builder_track(to, t->process, (st_track_kind)t->kind, t->key, t->name) != i)
      return ST_ERR_NOMEM;
    to->tracks[i].sort_index = t->sort_index;
    to->tracks[i].indent = t->indent;
    to->tracks[i].unit = t->unit;
    to->tracks[i].block_span = t->block_span;
  }
  if (from->lo <= from->hi) extend(to, from->lo, from->hi);
  return ST_OK;
}

void st_builder_extend(st_builder *b, int64_t lo_ns, int64_t hi_ns) {
  if (b && lo_ns <= hi_ns) extend(b, lo_ns, hi_ns);
}

/* the sink's verdict as a code: 1 keep (ST_OK), 0 drop, -1 out of memory */
#define SINK_DECIDE(call)                                                                          \
  do {                                                                                             \
    int keep_ = (call);                                                                            \
    if (keep_ < 0) return ST_ERR_NOMEM;                                                            \
    if (keep_ == 0) return ST_OK;                                                                  \
  } while (0)

st_code st_builder_slice(st_builder *b, uint32_t track, int64_t start_ns, int64_t dur_ns,
                         uint32_t name, uint32_t cat, uint64_t src, uint8_t flags) {
  if (!b || track >= b->track_count) return ST_ERR_ARG;
  btrack *t = &b->tracks[track];
  if (t->kind == ST_TRACK_COUNTER) return ST_ERR_ARG;
  if (b->has_sink && b->sink.slice) {
    if (!(flags & ST_EV_UNFINISHED) && dur_ns >= 0 && start_ns <= INT64_MAX - dur_ns)
      extend(b, start_ns, start_ns + dur_ns);
    else
      extend(b, start_ns, start_ns);
    SINK_DECIDE(b->sink.slice(b->sink.ud, track, start_ns, dur_ns, name, cat, &src, flags));
  }
  if (t->count >= UINT32_MAX - 1) return ST_ERR_LIMIT; /* rows index events by uint32 */
  uint8_t *p = ts_reserve(&t->rec, &b->alloc, EV_REC_MAX);
  if (!p) return ST_ERR_NOMEM;
  if (flags & ST_EV_UNFINISHED) dur_ns = 0;
  if (dur_ns < 0) dur_ns = 0;
  if (start_ns > INT64_MAX - dur_ns) dur_ns = INT64_MAX - start_ns; /* end saturates */
  if (src > SRC_MAX) src = SRC_MAX;
  extend(b, start_ns, start_ns + dur_ns);
  tev e = {(uint64_t)start_ns, src, (uint64_t)dur_ns, name, cat, flags};
  ts_commit(&t->rec, tev_put(p, &t->prev, &e));
  t->count++;
  return ST_OK;
}

st_code st_builder_counter(st_builder *b, uint32_t track, int64_t ts_ns, double value) {
  if (!b || track >= b->track_count) return ST_ERR_ARG;
  btrack *t = &b->tracks[track];
  if (t->kind != ST_TRACK_COUNTER) return ST_ERR_ARG;
  if (b->has_sink && b->sink.counter) {
    extend(b, ts_ns, ts_ns);
    SINK_DECIDE(b->sink.counter(b->sink.ud, track, ts_ns, value, b->noted_src));
  }
  if (t->count >= UINT32_MAX - 1) return ST_ERR_LIMIT;
  uint8_t *p = ts_reserve(&t->rec, &b->alloc, CS_REC_MAX);
  if (!p) return ST_ERR_NOMEM;
  extend(b, ts_ns, ts_ns);
  ts_commit(&t->rec, tcs_put(p, &t->prev.start, ts_ns, value));
  t->count++;
  return ST_OK;
}

st_code st_builder_flow(st_builder *b, uint64_t key, unsigned role, st_flow_bind bind,
                        uint32_t track, int64_t ts_ns, uint64_t src) {
  if (!b || track >= b->track_count || b->tracks[track].kind == ST_TRACK_COUNTER) return ST_ERR_ARG;
  if (!(role & (ST_FLOW_IN | ST_FLOW_OUT)) || role > 7 || (unsigned)bind > ST_FLOW_BIND_NEXT)
    return ST_ERR_ARG;
  if (b->has_sink && b->sink.flow)
    SINK_DECIDE(b->sink.flow(b->sink.ud, track, ts_ns, key, role, (unsigned)bind, &src));
  if (b->point_count >= UINT32_MAX - 1) return ST_ERR_LIMIT; /* flows index points by uint32 */
  btrack *t = &b->tracks[track];
  if (!t->pts && !(t->pts = st_calloc(&b->alloc, 1, sizeof *t->pts))) return ST_ERR_NOMEM;
  uint8_t *p = ts_reserve(&t->pts->s, &b->alloc, PT_REC_MAX);
  if (!p) return ST_ERR_NOMEM;
  tpoint e = {key, src, (uint64_t)ts_ns, (uint32_t)b->point_count, (uint8_t)role, (uint8_t)bind};
  ts_commit(&t->pts->s, tpt_put(p, &t->pts->prev, &e));
  t->pts->count++;
  b->point_count++;
  return ST_OK;
}

/* An end-src pair: zigzag deltas of src (from the previous pair's) and of
 * end_src (from src). */
#define END_REC_MAX 20u

st_code st_builder_end_src(st_builder *b, uint64_t src, uint64_t end_src) {
  if (!b || src == UINT64_MAX || end_src == UINT64_MAX) return ST_ERR_ARG;
  if (b->has_sink && b->sink.end_src) SINK_DECIDE(b->sink.end_src(b->sink.ud, &src, &end_src));
  if (b->end_count >= UINT32_MAX - 1) return ST_ERR_LIMIT;
  uint8_t *p = ts_reserve(&b->ends, &b->alloc, END_REC_MAX);
  if (!p) return ST_ERR_NOMEM;
  /* clamped as st_builder_slice clamps the event's src, so lookups by it match */
  if (src > SRC_MAX) src = SRC_MAX;
  p = put_uv(p, zz(src - b->end_prev));
  p = put_uv(p, zz(end_src - src));
  ts_commit(&b->ends, p);
  b->end_prev = src;
  b->end_count++;
  return ST_OK;
}

/* ==== 3. finish ========================================================== */

static int end_less(const st_end_src *a, const st_end_src *b) { return a->src < b->src; }
ST_DEFINE_MERGE_SORT(sort_ends, st_end_src, end_less)
static int block_less(const st_block *a, const st_block *b) { return a->src < b->src; }
ST_DEFINE_MERGE_SORT(sort_blocks, st_block, block_less)

typedef struct order_key {
  int32_t sort_index;
  int64_t a; /* pid, or (kind, key) below */
  uint8_t kind;
  uint8_t after; /* 0: a thread's marker lane, ordered just before its slices (1) */
  uint32_t index;
} order_key;

static int order_less(const order_key *x, const order_key *y) {
  if (x->sort_index != y->sort_index) return x->sort_index < y->sort_index;
  if (x->kind != y->kind) return x->kind < y->kind;
  if (x->a != y->a) return x->a < y->a;
  if (x->after != y->after) return x->after < y->after;
  return x->index < y->index;
}
ST_DEFINE_MERGE_SORT(sort_order, order_key, order_less)

static st_trace *fail(st_builder *b, st_trace *t, st_error *err, size_t events) {
  st_error_set(err, ST_ERR_NOMEM, 0, "out of memory while building the trace model of %zu events",
               events);
  if (t) {
    t->strings = NULL; /* still owned by the builder */
    st_trace_destroy(t);
  }
  free_builder_parts(b, 0);
  return NULL;
}

#define ALLOC_ARRAY(ptr, n) TR_ALLOC_ARRAY(&b->alloc, ptr, n)

/* The end srcs, decoded, sorted by src (stable: of several calls for a src
 * the last is kept) and moved into the trace. 0 on allocation failure. */
static int finish_ends(st_builder *b, st_trace *t) {
  size_t n = b->end_count;
  if (!n) return 1;
  st_end_src *ends = st_realloc_array(&b->alloc, NULL, n, sizeof *ends);
  if (!ends) return 0;
  size_t k = 0;
  uint64_t src = 0, u;
  for (uint32_t q = 0; q < b->ends.count; q++) {
    tblock *blk = b->ends.blk[q];
    for (const uint8_t *p = blk->data, *end = p + blk->used; p < end; k++) {
      p = get_uv(p, &u);
      src += unzz(u);
      p = get_uv(p, &u);
      ends[k] = (st_end_src){src, src + unzz(u)};
    }
    st_free(&b->alloc, blk);
    b->ends.blk[q] = NULL;
  }
  st_tstream_free(&b->ends, &b->alloc);
  st_end_src *tmp = st_realloc_array(&b->alloc, NULL, n, sizeof *tmp);
  if (!tmp) {
    st_free(&b->alloc, ends);
    return 0;
  }
  sort_ends(ends, tmp, n);
  st_free(&b->alloc, tmp);
  k = 0;
  for (size_t i = 0; i < n; i++) {
    if (k && ends[k - 1].src == ends[i].src)
      ends[k - 1] = ends[i];
    else
      ends[k++] = ends[i];
  }
  st_end_src *sh = k < n ? st_realloc_array(&b->alloc, ends, k, sizeof *sh) : NULL;
  t->ends = sh ? sh : ends;
  t->end_count = k;
  return 1;
}

/* One counter track: its samples decoded into a block (ts, value), time
 * order, min / max. 0 on allocation failure. */
static int finish_counter(st_builder *b, st_trace *t, btrack *bt, tlayout *s, st_counter *c,
                          uint32_t out_track) {
  size_t n = bt->count, ncol = n + 1; /* one spare so an empty series never points at NULL */
  void *blk = st_realloc_array(&b->alloc, NULL, ncol, sizeof(int64_t) + sizeof(double));
  if (!blk) return 0;
  t->col[t->col_count++] = blk;
  int64_t *ts = blk;
  double *value = (double *)(ts + ncol);
  size_t k = 0;
  uint64_t at = 0;
  for (uint32_t q = 0; q < bt->rec.count; q++) {
    tblock *rb = bt->rec.blk[q];
    for (const uint8_t *p = rb->data, *end = p + rb->used; p < end; k++) {
      p = tcs_get(p, &at, &value[k]);
      ts[k] = (int64_t)at;
    }
    st_free(&b->alloc, rb);
    bt->rec.blk[q] = NULL;
  }
  st_tstream_free(&bt->rec, &b->alloc);
  if (!st_tlayout_samples(s, ts, value, n)) return 0;
  *c = (st_counter){out_track, (uint32_t)n, ts, value, 0, 0};
  for (size_t i = 0; i < n; i++) {
    double v = value[i];
    ts[i] = sat_sub(ts[i], t->origin);
    if (i == 0 || v < c->min) c->min = v;
    if (i == 0 || v > c->max) c->max = v;
  }
  return 1;
}

/* One slice / async / instant track: its events decoded into a block of
 * columns, laid out, flow points bound, moved to their rows; the rows are
 * appended to t->rows (capacity *rows_cap). *base_rows / *total_rows: the
 * track's own rows and with the overflow ones. 0 on allocation failure. */
static int finish_events(st_builder *b, st_trace *t, btrack *bt, tlayout *s, tflow *fw,
                         uint32_t out_track, size_t *rows_cap, uint32_t *base_rows,
                         uint32_t *total_rows) {
  size_t n = bt->count, ncol = n + 1; /* one spare so empty rows never point at NULL + 0 */
  void *blk = st_realloc_array(&b->alloc, NULL, ncol, 3 * 8 + 2 * 4 + 1);
  if (!blk) return 0;
  t->col[t->col_count++] = blk;
  tcols c;
  c.start = blk;
  c.dur = c.start + ncol;
  c.src = (uint64_t *)(c.dur + ncol);
  c.name = (uint32_t *)(c.src + ncol);
  c.cat = c.name + ncol;
  c.flags = (uint8_t *)(c.cat + ncol);
  /* decode, rebasing time and resolving unfinished events; free as we go */
  size_t k = 0;
  tev e = {0};
  int64_t origin = t->origin, duration = t->duration;
  for (uint32_t q = 0; q < bt->rec.count; q++) {
    tblock *rb = bt->rec.blk[q];
    for (const uint8_t *p = rb->data, *end = p + rb->used; p < end; k++) {
      p = tev_get(p, &e);
      int64_t start = sat_sub((int64_t)e.start, origin);
      c.start[k] = start;
      int64_t dur = e.flags & ST_EV_UNFINISHED ? sat_sub(duration, start) : (int64_t)e.dur;
      /* rebasing may move a start up to INT64_MAX: its end saturates too, so
       * start + dur never overflows in anything that reads a row */
      c.dur[k] = start > 0 && dur > INT64_MAX - start ? INT64_MAX - start : dur;
      c.src[k] = e.src;
      c.name[k] = e.name;
      c.cat[k] = e.cat;
      c.flags[k] = e.flags;
    }
    st_free(&b->alloc, rb);
    bt->rec.blk[q] = NULL;
  }
  st_tstream_free(&bt->rec, &b->alloc);
  uint32_t base, total;
  if (!st_tlayout_track(s, &c, n, bt->kind, &base, &total)) return 0;
  size_t need = (size_t)t->row_count + total;
  if (need > UINT32_MAX - 1) return 0;
  void *nr = t->rows;
  if (!st_grow_from(&b->alloc, &nr, rows_cap, need, sizeof *t->rows, 64)) return 0;
  t->rows = nr;
  if (!st_tlayout_slots(s, n, total)) return 0;
  if (bt->pts &&
      !st_tflow_bind(fw, bt->pts, &c, n, s->depth, s->row_first, total, t->row_count, origin))
    return 0;
  if (total > 1) st_tlayout_apply(s, &c, n);
  for (uint32_t r = 0; r < total; r++) {
    size_t at = s->row_first[r];
    t->rows[t->row_count + r] = (st_row){r < base ? out_track : out_track + 1,
                                         r < base ? r : r - base,
                                         s->row_first[r + 1] - s->row_first[r],
                                         c.start + at,
                                         c.dur + at,
                                         c.name + at,
                                         c.cat + at,
                                         c.src + at,
                                         c.flags + at};
  }
  *base_rows = base;
  *total_rows = total;
  return 1;
}

st_trace *st_builder_finish(st_builder *b, st_error *err) {
  if (!b) {
    st_error_set(err, ST_ERR_ARG, 0, "no builder");
    return NULL;
  }
  if (err) st_error_set(err, ST_OK, 0, "");
  if (b->has_sink) { /* detached first: flush may add events */
    st_builder_sink sk = b->sink;
    b->has_sink = 0;
    st_code fc = sk.flush ? sk.flush(sk.ud, b) : ST_OK;
    if (fc != ST_OK) {
      st_error_set(err, fc, 0, fc == ST_ERR_NOMEM ? "out of memory" : "the summary failed");
      st_builder_destroy(b);
      return NULL;
    }
  }
  /* -- totals ---------------------------------------------------------------- */
  size_t nev = 0, ncs = 0, max_track = 0;
  uint32_t ncounters = 0;
  for (uint32_t i = 0; i < b->track_count; i++) {
    const btrack *bt = &b->tracks[i];
    /* each < 2^32 and tracks < 2^31: no overflow in 64-bit size_t */
    if (bt->kind == ST_TRACK_COUNTER) {
      ncs += bt->count;
      ncounters++;
    } else {
      nev += bt->count;
    }
    if (bt->count > max_track) max_track = bt->count;
  }
  st_trace *t = st_calloc(&b->alloc, 1, sizeof *t);
  if (!t) return fail(b, NULL, err, nev + ncs);
  t->alloc = b->alloc;
  t->strings = b->strings;
  t->own_strings = b->own_strings;
  int have = b->lo <= b->hi;
  t->origin = have ? b->lo : 0;
  t->duration = have ? sat_sub(b->hi, b->lo) : 0;

  /* -- process order ------------------------------------------------------ */
  order_key *keys = NULL, *ktmp = NULL;
  size_t nkeys = b->proc_count > b->track_count ? b->proc_count : b->track_count;
  uint32_t *proc_rank = NULL; /* builder process -> display index */
  if (!ALLOC_ARRAY(keys, nkeys) || !ALLOC_ARRAY(ktmp, nkeys) ||
      !ALLOC_ARRAY(proc_rank, b->proc_count) || !ALLOC_ARRAY(t->procs, b->proc_count) ||
      !ALLOC_ARRAY(t->tracks, (size_t)b->track_count * 2) || !ALLOC_ARRAY(t->counters, ncounters) ||
      !ALLOC_ARRAY(t->col, b->track_count)) {
    st_free(&b->alloc, keys);
    st_free(&b->alloc, ktmp);
    st_free(&b->alloc, proc_rank);
    return fail(b, t, err, nev + ncs);
  }
  for (uint32_t i = 0; i < b->proc_count; i++)
    keys[i] = (order_key){b->procs[i].sort_index, b->procs[i].pid, 0, 1, i};
  sort_order(keys, ktmp, b->proc_count);
  for (uint32_t r = 0; r < b->proc_count; r++) {
    const bproc *bp = &b->procs[keys[r].index];
    proc_rank[keys[r].index] = r;
    t->procs[r] = (st_process){bp->pid, bp->name, bp->labels, bp->sort_index, 0, 0};
  }
  t->proc_count = b->proc_count;

  /* -- track order: by (process rank, sort_index, kind, key) ----------------
   * Sort all tracks by their process's rank first (stable sort by the
   * per-process key, then bucket by process). A thread's instants take its
   * slices track's place, just before it (markers_of). */
  for (uint32_t i = 0; i < b->track_count; i++) {
    const btrack *bt = &b->tracks[i];
    uint32_t m = markers_of(b, bt);
    const btrack *at = m != UINT32_MAX ? &b->tracks[m] : bt;
    if (bt->kind == ST_TRACK_SAMPLES) /* a thread's samples row: right after its slices */
      keys[i] = (order_key){bt->sort_index, bt->key, ST_TRACK_SLICES, 2, i};
    else
      keys[i] = (order_key){at->sort_index, at->key, at->kind, m == UINT32_MAX, i};
  }
  sort_order(keys, ktmp, b->track_count);
  uint32_t *track_order = (uint32_t *)ktmp; /* reuse: order_key is larger than uint32 */
  {
    /* counting sort by process rank keeps the per-process order */
    uint32_t *pos = NULL;
    if (!ALLOC_ARRAY(pos, (size_t)b->proc_count + 1)) {
      st_free(&b->alloc, keys);
      st_free(&b->alloc, ktmp);
      st_free(&b->alloc, proc_rank);
      return fail(b, t, err, nev + ncs);
    }
    for (uint32_t i = 0; i < b->track_count; i++) pos[proc_rank[b->tracks[i].process] + 1]++;
    for (uint32_t p = 0; p < b->proc_count; p++) pos[p + 1] += pos[p];
    for (uint32_t k = 0; k < b->track_count; k++) {
      uint32_t i = keys[k].index;
      track_order[pos[proc_rank[b->tracks[i].process]]++] = i;
    }
    st_free(&b->alloc, pos);
  }
  st_free(&b->alloc, keys);
  keys = NULL;

  /* -- what needs scratch memory, while only the staging is resident: the
   *    end srcs, and the flow points chained into pairs ------------------- */
  int ok = finish_ends(b, t);
  tflow fw;
  memset(&fw, 0, sizeof fw);
  if (ok && b->point_count) {
    tpoints **pts = NULL;
    ok = ALLOC_ARRAY(pts, b->track_count);
    for (uint32_t i = 0; ok && i < b->track_count; i++) pts[i] = b->tracks[i].pts;
    ok = ok && st_tflow_chain(&fw, &b->alloc, pts, b->track_count, b->point_count, &t->flow_info);
    st_free(&b->alloc, pts);
  }

  /* -- per track: decode into columns, lay out, bind flow points ---------- */
  tlayout s;
  memset(&s, 0, sizeof s);
  ok = ok && st_tlayout_init(&s, &b->alloc, max_track + 1);
  size_t rows_cap = 0;
  uint32_t out_tracks = 0, counters_at = 0, cur_proc = UINT32_MAX;
  for (uint32_t k = 0; ok && k < b->track_count; k++) {
    uint32_t bi = track_order[k];
    btrack *bt = &b->tracks[bi];
    uint32_t prank = proc_rank[bt->process];
    if (prank != cur_proc) {
      cur_proc = prank;
      t->procs[prank].first_track = out_tracks;
    }
    st_track *ot = &t->tracks[out_tracks];
    *ot = (st_track){.kind = bt->kind,
                     .process = prank,
                     .key = bt->key,
                     .name = bt->name,
                     .sort_index = bt->sort_index,
                     .indent = bt->indent,
                     .unit = bt->unit,
                     .block_span = bt->kind == ST_TRACK_ASYNC ? bt->block_span : 0,
                     .markers = markers_of(b, bt) != UINT32_MAX,
                     .first_row = t->row_count,
                     .counter = UINT32_MAX};
    if (bt->kind == ST_TRACK_COUNTER) {
      ok = finish_counter(b, t, bt, &s, &t->counters[counters_at], out_tracks);
      ot->counter = counters_at++;
      out_tracks++;
      t->procs[prank].track_count++;
      continue;
    }
    uint32_t base_rows = 0, total_rows = 0;
    ok = finish_events(b, t, bt, &s, &fw, out_tracks, &rows_cap, &base_rows, &total_rows);
    free_points(b, bt);
    if (!ok) break;
    ot->row_count = base_rows;
    t->row_count += total_rows;
    out_tracks++;
    t->procs[prank].track_count++;
    if (total_rows > base_rows) {
      st_track *of = &t->tracks[out_tracks];
      *of = *ot;
      of->overflow = 1;
      of->first_row = ot->first_row + base_rows;
      of->row_count = total_rows - base_rows;
      out_tracks++;
      t->procs[prank].track_count++;
    }
  }
  t->track_count = out_tracks;
  t->counter_count = counters_at;
  t->ev_count = nev;
  t->cs_count = ncs;

  st_tlayout_free(&s);
  st_free(&b->alloc, ktmp);
  st_free(&b->alloc, proc_rank);
  if (ok && b->point_count)
    ok = st_tflow_build(&fw, &t->alloc, &t->flows, &t->flows_in, &t->flow_count, &t->flow_info);
  st_tflow_free(&fw);
  if (!ok) return fail(b, t, err, nev + ncs);

  /* shrink the over-allocated arrays (tracks: 2x reserved for overflow) */
  if (t->track_count) {
    st_track *nt = st_realloc_array(&t->alloc, t->tracks, t->track_count, sizeof *nt);
    if (nt) t->tracks = nt;
  }
  if (t->row_count && t->row_count < rows_cap) {
    st_row *nr = st_realloc_array(&t->alloc, t->rows, t->row_count, sizeof *nr);
    if (nr) {
      /* row pointers point into the columns, not into rows: safe to move */
      t->rows = nr;
    }
  }
  t->frames = b->frames; /* samples' frames: moved, interning table dropped */
  b->frames = NULL;
  st_frames_seal(t->frames);
  t->mem = b->mem; /* memory events: moved */
  t->mem_count = b->mem_count;
  b->mem = NULL;
  if (b->block_count) { /* blocks: moved, sorted by src */
    st_block *tmp = st_realloc_array(&b->alloc, NULL, b->block_count, sizeof *tmp);
    if (!tmp) return fail(b, t, err, nev + ncs);
    sort_blocks(b->blocks, tmp, b->block_count);
    st_free(&b->alloc, tmp);
    t->blocks = b->blocks;
    t->block_count = b->block_count;
    b->blocks = NULL;
    b->block_count = 0;
  }
  free_builder_parts(b, 1);

  t->bytes = st_frames_bytes(t->frames) + sizeof *t + (size_t)t->proc_count * sizeof(st_process) +
             (size_t)t->track_count * sizeof(st_track) + (size_t)t->row_count * sizeof(st_row) +
             (size_t)t->counter_count * sizeof(st_counter) +
             t->ev_count * (2 * sizeof(int64_t) + 2 * sizeof(uint32_t) + sizeof(uint64_t) + 1) +
             t->cs_count * (sizeof(int64_t) + sizeof(double)) +
             (size_t)t->flow_count * (sizeof(st_flow) + sizeof(uint32_t)) +
             t->end_count * sizeof(st_end_src) + t->mem_count * sizeof(st_mem_event) +
             t->block_count * sizeof(st_block);
  return t;
}

/* ---- memory events, blocks and stack frames ------------------------------ */

st_code st_builder_mem_events(st_builder *b, st_mem_event *ev, size_t n) {
  if (!b) return ST_ERR_ARG;
  st_free(&b->alloc, b->mem);
  b->mem = ev;
  b->mem_count = ev ? n : 0;
  return ST_OK;
}

st_code st_builder_blocks(st_builder *b, st_block *blocks, size_t n) {
  if (!b) return ST_ERR_ARG;
  st_free(&b->alloc, b->blocks);
  b->blocks = blocks;
  b->block_count = blocks ? n : 0;
  return ST_OK;
}

void st_builder_track_blocks(st_builder *b, uint32_t track, uint64_t span) {
  if (b && track < b->track_count) b->tracks[track].block_span = span;
}

st_frames *st_builder_frames(st_builder *b) {
  if (b && !b->frames) b->frames = st_frames_create(&b->alloc);
  return b ? b->frames : NULL;
}
