/* trace.c: the trace model and its builder (see trace.h).
 *
 * Contents
 *   1. builder state: processes and tracks found by hash, per-track staging
 *   2. builder API (find-or-create, add events)
 *   3. sorting (stable merge sort with a caller-allocated buffer)
 *   4. layout: nesting depths with a stack, overflow spill, lane packing
 *   5. flows: chaining points by key, binding them to events
 *   6. finish: origin, ordering, struct-of-arrays rows, counters, flows
 *   7. trace accessors (flow lookups by binary search)
 *
 * Layout rules (what st_builder_finish guarantees):
 *   - ST_TRACK_SLICES: events sorted by (start asc, dur desc, src asc) are
 *     nested with a stack of open slices. An event that starts inside the
 *     innermost open slice but ends after it is misnested; it is flagged
 *     ST_EV_OVERLAP and moved to an overflow track (same process, kind and
 *     key, overflow = 1, same name) placed right after its base track. The
 *     overflow events are nested the same way, pass after pass, each pass's
 *     rows stacked below the previous one's. After OVERFLOW_PASSES passes the
 *     rest is lane-packed (below), which bounds the work at O(n log n) even
 *     for hostile staircases of partially overlapping slices.
 *   - ST_TRACK_ASYNC / ST_TRACK_INSTANTS: greedy packing in start order into
 *     the lowest-numbered lane that is free (its last event ended at or
 *     before the start). A lane holding a zero-length event counts as busy
 *     until 1 ns after it, so two markers at the same timestamp get separate
 *     lanes (both stay visible and hittable) while markers at increasing
 *     timestamps share lane 0. This uses the minimum number of lanes.
 *   - Every row satisfies start[i] + dur[i] <= start[i + 1]; nothing is
 *     dropped.
 */
#include "trace.h"

#include "u64map.h"

#include <string.h>

#define OVERFLOW_PASSES 8

/* Staged events of a track live in blocks: the first grows by doubling up to
 * EV_BLOCK events (small tracks stay small), the rest are EV_BLOCK each. No
 * block is ever copied while importing, so the staging costs sizeof(bev) per
 * event plus at most one partial block per track, where one doubling array
 * cost up to 2x that, and 3x at the moment it grew (old + new copy). */
#define EV_BLOCK 16384u

/* ==== 1. builder state ================================================== */

/* A staged event: 32 bytes (flags ride in the low byte of src: offsets stay
 * below 2^56, 64 PiB), the builder's peak memory is mostly these. */
typedef struct bev {
  int64_t start, dur;
  uint64_t sf; /* src << 8 | ST_EV_* flags */
  uint32_t name, cat;
} bev;
_Static_assert(sizeof(bev) == 32, "bev is 32 bytes");
#define EV_SRC(e) ((e)->sf >> 8)
#define EV_FLAGS(e) ((uint8_t)(e)->sf)
#define SRC_MAX (UINT64_MAX >> 8)

typedef struct bsample {
  int64_t ts;
  double value;
} bsample;

typedef struct bflow { /* one flow point (st_builder_flow) */
  uint64_t key;
  int64_t ts;
  uint64_t src;
  uint32_t track;
  uint8_t role, bind;
} bflow;

typedef struct bproc {
  int64_t pid;
  uint32_t name, labels;
  int32_t sort_index;
} bproc;

typedef struct btrack {
  uint8_t kind;
  uint32_t process;
  int64_t key;
  uint32_t name;
  int32_t sort_index;
  uint8_t indent;
  bev **blk; /* staged events: see EV_BLOCK */
  uint32_t blk_count, blk_cap;
  size_t last_cap; /* capacity of the last block */
  size_t ev_count;
  bsample *cs;
  size_t cs_count, cs_cap;
} btrack;

struct st_builder {
  st_alloc alloc;
  st_strtab *strings;
  bproc *procs;
  uint32_t proc_count, proc_cap;
  uint32_t *proc_slots; /* index + 1, 0 = empty; power-of-two size */
  uint32_t proc_slot_cap;
  btrack *tracks;
  uint32_t track_count, track_cap;
  uint32_t *track_slots;
  uint32_t track_slot_cap;
  bflow *fl;
  size_t fl_count, fl_cap;
  st_end_src *ends; /* st_builder_end_src pairs, in call order */
  size_t end_count, end_cap;
};

struct st_trace {
  st_alloc alloc;
  st_strtab *strings;
  st_process *procs;
  uint32_t proc_count;
  st_track *tracks;
  uint32_t track_count;
  st_row *rows;
  uint32_t row_count;
  st_counter *counters;
  uint32_t counter_count;
  /* event columns: one block per output slice track (start, dur, src, name,
   * cat, flags of its events, in that order), so the builder can free each
   * track's staging as its columns are made instead of holding both whole */
  void **col;
  uint32_t col_count;
  size_t ev_count;
  int64_t *cs_ts;
  double *cs_value;
  size_t cs_count;
  int64_t origin, duration;
  st_flow *flows;     /* sorted by (from_row, from_index, to_row, to_index) */
  uint32_t *flows_in; /* indices into flows sorted by destination */
  uint32_t flow_count;
  st_flow_info flow_info;
  st_end_src *ends; /* sorted by src, unique */
  size_t end_count;
  size_t bytes;
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

/* Grows a power-of-two slot table to hold `need` entries at <= 50% load,
 * rehashing with rehash(ctx, index). Returns 0 on failure (table intact). */
static int grow_slots(const st_alloc *a, uint32_t **slots, uint32_t *cap, uint32_t need,
                      uint32_t (*hash_of)(const void *ctx, uint32_t i), const void *ctx) {
  if ((uint64_t)need * 2 <= *cap) return 1;
  uint32_t ncap = *cap ? *cap : 64;
  while ((uint64_t)need * 2 > ncap) {
    if (ncap > UINT32_MAX / 2) return 0;
    ncap *= 2;
  }
  uint32_t *ns = st_calloc(a, ncap, sizeof *ns);
  if (!ns) return 0;
  for (uint32_t i = 0; i < need - 1; i++) {
    uint32_t h = hash_of(ctx, i) & (ncap - 1);
    while (ns[h]) h = (h + 1) & (ncap - 1);
    ns[h] = i + 1;
  }
  st_free(a, *slots);
  *slots = ns;
  *cap = ncap;
  return 1;
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
  if (count < *cap) return 1;
  size_t ncap = *cap ? *cap : 16;
  while (ncap <= count) {
    if (ncap > SIZE_MAX / 2) return 0;
    ncap *= 2;
  }
  void *np = st_realloc_array(a, *p, ncap, elem);
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

/* ==== 2. builder API ===================================================== */

st_builder *st_builder_create(const st_alloc *a) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_builder *b = st_calloc(&al, 1, sizeof *b);
  if (!b) return NULL;
  b->alloc = al;
  b->strings = st_strtab_create(&al);
  if (!b->strings) {
    st_free(&al, b);
    return NULL;
  }
  return b;
}

static void free_blocks(st_builder *b, btrack *t) {
  for (uint32_t k = 0; k < t->blk_count; k++) st_free(&b->alloc, t->blk[k]);
  st_free(&b->alloc, t->blk);
  t->blk = NULL;
  t->blk_count = t->blk_cap = 0;
}

static void free_builder_parts(st_builder *b, int keep_strings) {
  for (uint32_t i = 0; i < b->track_count; i++) {
    free_blocks(b, &b->tracks[i]);
    st_free(&b->alloc, b->tracks[i].cs);
  }
  st_free(&b->alloc, b->tracks);
  st_free(&b->alloc, b->track_slots);
  st_free(&b->alloc, b->procs);
  st_free(&b->alloc, b->proc_slots);
  st_free(&b->alloc, b->fl);
  st_free(&b->alloc, b->ends);
  if (!keep_strings) st_strtab_destroy(b->strings);
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
  if (!grow_slots(&b->alloc, &b->proc_slots, &b->proc_slot_cap, idx + 1, proc_hash_of, b))
    return UINT32_MAX;
  uint32_t m = b->proc_slot_cap - 1, h = hash64((uint64_t)pid) & m;
  while (b->proc_slots[h]) h = (h + 1) & m;
  b->proc_slots[h] = idx + 1;
  b->proc_count++;
  return idx;
}

uint32_t st_builder_track(st_builder *b, uint32_t process, st_track_kind kind, int64_t key,
                          uint32_t name) {
  if (!b || process >= b->proc_count || (unsigned)kind > ST_TRACK_COUNTER) return UINT32_MAX;
  uint32_t hv = track_hash(process, (uint8_t)kind, key);
  if (b->track_slot_cap) {
    uint32_t m = b->track_slot_cap - 1;
    for (uint32_t h = hv & m, v; (v = b->track_slots[h]) != 0; h = (h + 1) & m) {
      const btrack *t = &b->tracks[v - 1];
      if (t->process == process && t->kind == kind && t->key == key) return v - 1;
    }
  }
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
  if (!grow_slots(&b->alloc, &b->track_slots, &b->track_slot_cap, idx + 1, track_hash_of, b))
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

st_code st_builder_slice(st_builder *b, uint32_t track, int64_t start_ns, int64_t dur_ns,
                         uint32_t name, uint32_t cat, uint64_t src, uint8_t flags) {
  if (!b || track >= b->track_count) return ST_ERR_ARG;
  btrack *t = &b->tracks[track];
  if (t->kind == ST_TRACK_COUNTER) return ST_ERR_ARG;
  if (t->ev_count >= UINT32_MAX - 1) return ST_ERR_LIMIT; /* rows index events by uint32 */
  /* events in the last block (block 0 is full, EV_BLOCK, once there are more) */
  size_t in_last = t->ev_count - (t->blk_count > 1 ? (size_t)EV_BLOCK * (t->blk_count - 1) : 0);
  if (t->blk_count == 1 && in_last == t->last_cap && t->last_cap < EV_BLOCK) {
    bev *nb = st_realloc_array(&b->alloc, t->blk[0], t->last_cap * 2, sizeof(bev));
    if (!nb) return ST_ERR_NOMEM;
    t->blk[0] = nb;
    t->last_cap *= 2;
  } else if (!t->blk_count || in_last == t->last_cap) {
    void *p = t->blk;
    size_t pcap = t->blk_cap;
    if (!reserve(&b->alloc, &p, &pcap, t->blk_count, sizeof(bev *))) return ST_ERR_NOMEM;
    t->blk = p;
    t->blk_cap = (uint32_t)pcap;
    size_t cap = t->blk_count ? EV_BLOCK : 16;
    bev *nb = st_realloc_array(&b->alloc, NULL, cap, sizeof(bev));
    if (!nb) return ST_ERR_NOMEM;
    t->blk[t->blk_count++] = nb;
    t->last_cap = cap;
    in_last = 0;
  }
  if (flags & ST_EV_UNFINISHED) dur_ns = 0;
  if (dur_ns < 0) dur_ns = 0;
  if (start_ns > INT64_MAX - dur_ns) dur_ns = INT64_MAX - start_ns; /* end saturates */
  if (src > SRC_MAX) src = SRC_MAX;
  t->blk[t->blk_count - 1][in_last] = (bev){start_ns, dur_ns, src << 8 | flags, name, cat};
  t->ev_count++;
  return ST_OK;
}

st_code st_builder_counter(st_builder *b, uint32_t track, int64_t ts_ns, double value) {
  if (!b || track >= b->track_count) return ST_ERR_ARG;
  btrack *t = &b->tracks[track];
  if (t->kind != ST_TRACK_COUNTER) return ST_ERR_ARG;
  if (t->cs_count >= UINT32_MAX - 1) return ST_ERR_LIMIT;
  void *p = t->cs;
  if (!reserve(&b->alloc, &p, &t->cs_cap, t->cs_count, sizeof(bsample))) return ST_ERR_NOMEM;
  t->cs = p;
  t->cs[t->cs_count++] = (bsample){ts_ns, value};
  return ST_OK;
}

st_code st_builder_flow(st_builder *b, uint64_t key, unsigned role, st_flow_bind bind,
                        uint32_t track, int64_t ts_ns, uint64_t src) {
  if (!b || track >= b->track_count || b->tracks[track].kind == ST_TRACK_COUNTER) return ST_ERR_ARG;
  if (!(role & (ST_FLOW_IN | ST_FLOW_OUT)) || role > 7 || (unsigned)bind > ST_FLOW_BIND_NEXT)
    return ST_ERR_ARG;
  if (b->fl_count >= UINT32_MAX - 1) return ST_ERR_LIMIT; /* flows index points by uint32 */
  void *p = b->fl;
  if (!reserve(&b->alloc, &p, &b->fl_cap, b->fl_count, sizeof(bflow))) return ST_ERR_NOMEM;
  b->fl = p;
  b->fl[b->fl_count++] = (bflow){key, ts_ns, src, track, (uint8_t)role, (uint8_t)bind};
  return ST_OK;
}

st_code st_builder_end_src(st_builder *b, uint64_t src, uint64_t end_src) {
  if (!b || src == UINT64_MAX || end_src == UINT64_MAX) return ST_ERR_ARG;
  if (b->end_count >= UINT32_MAX - 1) return ST_ERR_LIMIT;
  void *p = b->ends;
  if (!reserve(&b->alloc, &p, &b->end_cap, b->end_count, sizeof(st_end_src))) return ST_ERR_NOMEM;
  b->ends = p;
  /* clamped as st_builder_slice clamps the event's src, so lookups by it match */
  b->ends[b->end_count++] = (st_end_src){src > SRC_MAX ? SRC_MAX : src, end_src};
  return ST_OK;
}

/* ==== 3. sorting ========================================================= */

static int bev_less(const bev *a, const bev *b) {
  if (a->start != b->start) return a->start < b->start;
  if (a->dur != b->dur) return a->dur > b->dur;
  if (a->sf != b->sf) return a->sf < b->sf;         /* src, then flags */
  if (a->name != b->name) return a->name < b->name; /* total order: same result everywhere */
  return a->cat < b->cat;
}

static int bsample_less(const bsample *a, const bsample *b) { return a->ts < b->ts; }

/* Stable bottom-up merge sort; tmp holds n elements. Already-sorted input
 * (the common case: importers mostly append in time order) costs O(n). */
#define DEFINE_MERGE_SORT(fname, T, less)                                                          \
  static void fname(T *v, T *tmp, size_t n) {                                                      \
    size_t i = 1;                                                                                  \
    while (i < n && !less(&v[i], &v[i - 1])) i++;                                                  \
    if (i >= n) return;                                                                            \
    T *src = v, *dst = tmp;                                                                        \
    for (size_t w = 1; w < n; w *= 2) {                                                            \
      for (size_t lo = 0; lo < n; lo += 2 * w) {                                                   \
        size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;                \
        size_t a = lo, b = mid, o = lo;                                                            \
        while (a < mid && b < hi) dst[o++] = less(&src[b], &src[a]) ? src[b++] : src[a++];         \
        while (a < mid) dst[o++] = src[a++];                                                       \
        while (b < hi) dst[o++] = src[b++];                                                        \
        if (hi == n) break;                                                                        \
      }                                                                                            \
      T *sw = src;                                                                                 \
      src = dst;                                                                                   \
      dst = sw;                                                                                    \
    }                                                                                              \
    if (src != v) memcpy(v, src, n * sizeof(T));                                                   \
  }

static int end_less(const st_end_src *a, const st_end_src *b) { return a->src < b->src; }

DEFINE_MERGE_SORT(sort_events, bev, bev_less)
DEFINE_MERGE_SORT(sort_samples, bsample, bsample_less)
DEFINE_MERGE_SORT(sort_ends, st_end_src, end_less)

/* ==== 4. layout ========================================================== */

/* Scratch shared by all tracks, sized for the largest one. */
typedef struct scratch {
  uint32_t *depth; /* per event: row within the track (base rows, then overflow) */
  uint32_t *idx;   /* pending event indices for the current pass */
  int64_t *stack;  /* open slice ends / heap of (end) */
  uint32_t *lane;  /* heap payload: lane of each busy entry */
  uint32_t *free_; /* min-heap of free lane numbers */
  uint32_t *count; /* events per row, then write cursors */
  uint32_t *slot;  /* per event: index within its row (tracks with flow points) */
} scratch;

static int64_t ev_end(const bev *e) { return e->start + e->dur; } /* saturated when added */

/* One nesting pass over idx[0..n): assigns depth = base + level to events
 * that nest, compacts misnested ones to the front of idx. Returns the number
 * of misnested events; *rows gets the number of levels used. */
static size_t nest_pass(const bev *ev, scratch *s, size_t n, uint32_t base, uint32_t *rows) {
  size_t top = 0, spilled = 0;
  uint32_t used = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = s->idx[k];
    const bev *e = &ev[i];
    while (top && s->stack[top - 1] <= e->start) top--;
    if (top && ev_end(e) > s->stack[top - 1]) {
      s->idx[spilled++] = i; /* starts inside the open slice, ends after it */
      continue;
    }
    s->depth[i] = base + (uint32_t)top;
    s->stack[top++] = ev_end(e);
    if (top > used) used = (uint32_t)top;
  }
  *rows = used;
  return spilled;
}

/* Busy-lane heap entries (end, lane), ordered by end then lane. */
static int busy_less(const scratch *s, size_t a, size_t b) {
  if (s->stack[a] != s->stack[b]) return s->stack[a] < s->stack[b];
  return s->lane[a] < s->lane[b];
}
static void busy_swap(scratch *s, size_t a, size_t b) {
  int64_t e = s->stack[a];
  s->stack[a] = s->stack[b];
  s->stack[b] = e;
  uint32_t l = s->lane[a];
  s->lane[a] = s->lane[b];
  s->lane[b] = l;
}
static void busy_push(scratch *s, size_t *n, int64_t end, uint32_t lane) {
  size_t i = (*n)++;
  s->stack[i] = end;
  s->lane[i] = lane;
  while (i && busy_less(s, i, (i - 1) / 2)) {
    busy_swap(s, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}
static void busy_pop(scratch *s, size_t *n) {
  busy_swap(s, 0, --*n);
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && busy_less(s, l, m)) m = l;
    if (r < *n && busy_less(s, r, m)) m = r;
    if (m == i) break;
    busy_swap(s, i, m);
    i = m;
  }
}
static void free_push(uint32_t *h, size_t *n, uint32_t v) {
  size_t i = (*n)++;
  h[i] = v;
  while (i && h[i] < h[(i - 1) / 2]) {
    uint32_t t = h[i];
    h[i] = h[(i - 1) / 2];
    h[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}
static uint32_t free_pop(uint32_t *h, size_t *n) {
  uint32_t top = h[0];
  h[0] = h[--*n];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && h[l] < h[m]) m = l;
    if (r < *n && h[r] < h[m]) m = r;
    if (m == i) break;
    uint32_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return top;
}

/* Lowest-free-lane packing of idx[0..n) (in sorted order) into rows
 * base, base + 1, ...; returns the number of lanes. O(n log n). */
static uint32_t pack_lanes(const bev *ev, scratch *s, size_t n, uint32_t base) {
  size_t nbusy = 0, nfree = 0;
  uint32_t lanes = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = s->idx[k];
    const bev *e = &ev[i];
    while (nbusy && s->stack[0] <= e->start) {
      free_push(s->free_, &nfree, s->lane[0]);
      busy_pop(s, &nbusy);
    }
    uint32_t lane = nfree ? free_pop(s->free_, &nfree) : lanes++;
    s->depth[i] = base + lane;
    /* a zero-length event keeps its lane for 1 ns: markers at the same time
     * get their own lanes (see the header comment) */
    int64_t end = ev_end(e);
    if (e->dur == 0 && end < INT64_MAX) end++;
    busy_push(s, &nbusy, end, lane);
  }
  return lanes;
}

/* Lays out one track's sorted events. *base_rows gets the rows of the track
 * itself; returns the total rows (base + overflow). */
static uint32_t layout_track(bev *ev, size_t n, uint8_t kind, scratch *s, uint32_t *base_rows) {
  for (size_t i = 0; i < n; i++) s->idx[i] = (uint32_t)i;
  if (kind != ST_TRACK_SLICES) {
    *base_rows = pack_lanes(ev, s, n, 0);
    return *base_rows;
  }
  uint32_t rows;
  size_t pending = nest_pass(ev, s, n, 0, &rows);
  *base_rows = rows;
  uint32_t total = rows;
  for (size_t k = 0; k < pending; k++) ev[s->idx[k]].sf |= ST_EV_OVERLAP;
  for (int pass = 1; pending && pass < OVERFLOW_PASSES; pass++) {
    pending = nest_pass(ev, s, pending, total, &rows);
    total += rows;
  }
  if (pending) total += pack_lanes(ev, s, pending, total);
  return total;
}

static int64_t sat_sub(int64_t a, int64_t b) { /* a >= b assumed; saturates at INT64_MAX */
  uint64_t d = (uint64_t)a - (uint64_t)b;
  return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* ==== 5. flows ===========================================================
 * Points are chained per key in (ts, src) order into (producer, consumer)
 * pairs of point indices before layout; then, track by track right after
 * layout, each point of the track is bound to an event (row, index). Memory
 * while finishing: the points (32 bytes each) plus about 24 bytes per point
 * of work arrays; the trace keeps 20 bytes per bound flow. */

typedef int (*idx_less_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Stable bottom-up merge sort of indices; tmp holds n. */
static void sort_idx(uint32_t *v, uint32_t *tmp, size_t n, idx_less_fn less, const void *ctx) {
  size_t i = 1;
  while (i < n && !less(ctx, v[i], v[i - 1])) i++;
  if (i >= n) return;
  uint32_t *src = v, *dst = tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) dst[o++] = less(ctx, src[b], src[a]) ? src[b++] : src[a++];
      while (a < mid) dst[o++] = src[a++];
      while (b < hi) dst[o++] = src[b++];
      if (hi == n) break;
    }
    uint32_t *sw = src;
    src = dst;
    dst = sw;
  }
  if (src != v) memcpy(v, src, n * sizeof *v);
}

static int fl_key_less(const void *ctx, uint32_t a, uint32_t b) {
  const bflow *x = &((const bflow *)ctx)[a], *y = &((const bflow *)ctx)[b];
  if (x->key != y->key) return x->key < y->key;
  if (x->ts != y->ts) return x->ts < y->ts;
  if (x->src != y->src) return x->src < y->src;
  return a < b;
}

static int fl_track_less(const void *ctx, uint32_t a, uint32_t b) {
  const bflow *x = &((const bflow *)ctx)[a], *y = &((const bflow *)ctx)[b];
  if (x->track != y->track) return x->track < y->track;
  if (x->ts != y->ts) return x->ts < y->ts;
  if (x->src != y->src) return x->src < y->src;
  return a < b;
}

typedef struct flow_work {
  uint32_t *idx, *tmp; /* point indices (np each) */
  uint32_t *pairs;     /* (producer, consumer) point indices */
  size_t npairs;
  uint32_t *track_at;          /* builder track -> first position in idx; track_count + 1 */
  uint32_t *res_row, *res_idx; /* per point: bound event, UINT32_MAX if none */
  st_u64map srcmap;            /* src -> pending point (EVENT binding fallback) */
  int nomem;
} flow_work;

static void note_first(uint64_t *count, uint64_t *offset, uint64_t src) {
  if (!*count || src < *offset) *offset = src;
  ++*count;
}

/* Chains the points into pairs; then orders idx by (track, ts, src). */
static void chain_flows(const st_builder *b, flow_work *w, st_flow_info *info) {
  size_t np = b->fl_count;
  const bflow *fl = b->fl;
  for (size_t i = 0; i < np; i++) w->idx[i] = (uint32_t)i;
  sort_idx(w->idx, w->tmp, np, fl_key_less, fl);
  uint32_t prod = UINT32_MAX;
  for (size_t k = 0; k < np; k++) {
    uint32_t i = w->idx[k];
    const bflow *f = &fl[i];
    if (k == 0 || f->key != fl[w->idx[k - 1]].key) prod = UINT32_MAX;
    if (f->role & ST_FLOW_IN) {
      if (prod != UINT32_MAX) {
        w->pairs[2 * w->npairs] = prod;
        w->pairs[2 * w->npairs + 1] = i;
        w->npairs++;
      } else if (!(f->role & ST_FLOW_OUT)) {
        note_first(&info->unmatched, &info->unmatched_offset, f->src);
      }
    }
    if (f->role & ST_FLOW_OUT) prod = i;
    if (f->role & ST_FLOW_END) prod = UINT32_MAX;
  }
  for (size_t i = 0; i < np; i++) {
    w->idx[i] = (uint32_t)i;
    w->res_row[i] = w->res_idx[i] = UINT32_MAX;
  }
  sort_idx(w->idx, w->tmp, np, fl_track_less, fl);
  for (uint32_t t = 0, k = 0; t <= b->track_count; t++) {
    while (k < np && fl[w->idx[k]].track < t) k++;
    w->track_at[t] = k;
  }
}

/* First sorted event starting at or after ts. */
static size_t first_at_or_after(const bev *ev, size_t n, int64_t ts) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ev[mid].start < ts)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A point's time on the rebased axis; times before the origin map to -1
 * (nothing encloses them; the next event is the first). */
static int64_t rebase_ts(int64_t ts, int64_t origin) {
  return ts < origin ? -1 : sat_sub(ts, origin);
}

#define EVENT_SCAN_MAX 64 /* same-start events scanned for a src before the map fallback */

/* Binds the points of builder track bi to its sorted, laid-out events.
 * s->depth / s->slot give each event's row (relative to row_base) and index;
 * s->idx is free to use as the enclosing stack. */
static void bind_track(const st_builder *b, flow_work *w, uint32_t bi, const bev *ev, size_t n,
                       const scratch *s, uint32_t row_base, int64_t origin) {
  uint32_t lo = w->track_at[bi], hi = w->track_at[bi + 1];
  if (lo == hi || n == 0) return;
  size_t ptr = 0, top = 0, pending = 0;
  uint32_t *stack = s->idx;
  for (uint32_t k = lo; k < hi; k++) {
    uint32_t i = w->idx[k];
    const bflow *f = &b->fl[i];
    int64_t ts = rebase_ts(f->ts, origin);
    size_t e = n;
    if (f->bind == ST_FLOW_BIND_ENCLOSING) {
      /* the stack holds started events in start order; popping the ended
       * ones off the top leaves the latest-starting event open at ts */
      while (ptr < n && ev[ptr].start <= ts) stack[top++] = (uint32_t)ptr++;
      while (top && ev_end(&ev[stack[top - 1]]) < ts) top--;
      if (top) e = stack[top - 1];
    } else if (f->bind == ST_FLOW_BIND_NEXT) {
      e = first_at_or_after(ev, n, ts);
    } else {
      size_t j = first_at_or_after(ev, n, ts), scanned = 0;
      for (; j < n && ev[j].start == ts && scanned < EVENT_SCAN_MAX; j++, scanned++)
        if (EV_SRC(&ev[j]) == f->src) break;
      if (j < n && ev[j].start == ts && EV_SRC(&ev[j]) == f->src)
        e = j;
      else if (j < n && ev[j].start == ts)
        w->tmp[pending++] = i; /* many events start here: find it by src below */
    }
    if (e < n) {
      w->res_row[i] = row_base + s->depth[e];
      w->res_idx[i] = s->slot[e];
    }
  }
  if (!pending) return;
  /* fallback: one pass over the track's events with a src map (O(n)) */
  st_u64map_clear(&w->srcmap);
  for (size_t p = 0; p < pending; p++)
    if (st_u64map_get(&w->srcmap, b->fl[w->tmp[p]].src) == ST_U64MAP_NONE &&
        !st_u64map_put(&w->srcmap, &b->alloc, b->fl[w->tmp[p]].src, w->tmp[p]))
      w->nomem = 1;
  for (size_t j = 0; j < n; j++) {
    uint32_t i = st_u64map_get(&w->srcmap, EV_SRC(&ev[j]));
    if (i == ST_U64MAP_NONE || ev[j].start != rebase_ts(b->fl[i].ts, origin)) continue;
    w->res_row[i] = row_base + s->depth[j];
    w->res_idx[i] = s->slot[j];
  }
  for (size_t p = 0; p < pending; p++) {
    uint32_t i = w->tmp[p], r = st_u64map_get(&w->srcmap, b->fl[i].src);
    if (r != ST_U64MAP_NONE && r != i) {
      w->res_row[i] = w->res_row[r];
      w->res_idx[i] = w->res_idx[r];
    }
  }
}

static int flow_less(const st_flow *a, const st_flow *b) {
  if (a->from_row != b->from_row) return a->from_row < b->from_row;
  if (a->from_index != b->from_index) return a->from_index < b->from_index;
  if (a->to_row != b->to_row) return a->to_row < b->to_row;
  return a->to_index < b->to_index;
}
DEFINE_MERGE_SORT(sort_flows, st_flow, flow_less)

static int flow_in_less(const void *ctx, uint32_t a, uint32_t b) {
  const st_flow *x = &((const st_flow *)ctx)[a], *y = &((const st_flow *)ctx)[b];
  if (x->to_row != y->to_row) return x->to_row < y->to_row;
  if (x->to_index != y->to_index) return x->to_index < y->to_index;
  return a < b; /* flows are sorted by source: ties keep that order */
}

/* Turns the bound pairs into the trace's flow arrays. 0 on allocation failure. */
static int build_flows(st_trace *t, const st_builder *b, flow_work *w) {
  st_flow_info *info = &t->flow_info;
  size_t nf = 0;
  if (w->npairs) {
    t->flows = st_calloc(&t->alloc, w->npairs, sizeof *t->flows);
    if (!t->flows) return 0;
  }
  for (size_t k = 0; k < w->npairs; k++) {
    uint32_t a = w->pairs[2 * k], c = w->pairs[2 * k + 1];
    if (w->res_row[a] == UINT32_MAX || w->res_row[c] == UINT32_MAX ||
        (w->res_row[a] == w->res_row[c] && w->res_idx[a] == w->res_idx[c])) {
      note_first(&info->unbound, &info->unbound_offset, b->fl[a].src);
      continue;
    }
    t->flows[nf++] = (st_flow){w->res_row[a], w->res_idx[a], w->res_row[c], w->res_idx[c]};
  }
  if (nf) {
    st_flow *tmp = st_calloc(&t->alloc, nf, sizeof *tmp);
    t->flows_in = st_calloc(&t->alloc, nf, sizeof *t->flows_in);
    if (!tmp || !t->flows_in) {
      st_free(&t->alloc, tmp);
      return 0;
    }
    sort_flows(t->flows, tmp, nf);
    uint32_t *itmp = (uint32_t *)tmp; /* nf * 16 bytes >= nf * 4 */
    for (size_t i = 0; i < nf; i++) t->flows_in[i] = (uint32_t)i;
    sort_idx(t->flows_in, itmp, nf, flow_in_less, t->flows);
    st_free(&t->alloc, tmp);
    if (nf < w->npairs) {
      st_flow *sh = st_realloc_array(&t->alloc, t->flows, nf, sizeof *sh);
      if (sh) t->flows = sh;
    }
  } else {
    st_free(&t->alloc, t->flows);
    t->flows = NULL;
  }
  t->flow_count = (uint32_t)nf;
  info->bound = nf;
  return 1;
}

/* ==== 6. finish ========================================================== */

typedef struct order_key {
  int32_t sort_index;
  int64_t a; /* pid, or (kind, key) below */
  uint8_t kind;
  uint32_t index;
} order_key;

static int order_less(const order_key *x, const order_key *y) {
  if (x->sort_index != y->sort_index) return x->sort_index < y->sort_index;
  if (x->kind != y->kind) return x->kind < y->kind;
  if (x->a != y->a) return x->a < y->a;
  return x->index < y->index;
}
DEFINE_MERGE_SORT(sort_order, order_key, order_less)

static st_trace *fail(st_builder *b, st_trace *t, st_error *err) {
  st_error_set(err, ST_ERR_NOMEM, 0, "out of memory while building the trace model");
  if (t) {
    t->strings = NULL; /* still owned by the builder */
    st_trace_destroy(t);
  }
  free_builder_parts(b, 0);
  return NULL;
}

#define ALLOC_ARRAY(ptr, n)                                                                        \
  ((n) == 0 ? ((ptr) = NULL, 1) : ((ptr) = st_calloc(&b->alloc, (n), sizeof *(ptr))) != NULL)

st_trace *st_builder_finish(st_builder *b, st_error *err) {
  if (!b) {
    st_error_set(err, ST_ERR_ARG, 0, "no builder");
    return NULL;
  }
  if (err) st_error_set(err, ST_OK, 0, "");
  st_trace *t = st_calloc(&b->alloc, 1, sizeof *t);
  if (!t) return fail(b, NULL, err);
  t->alloc = b->alloc;
  t->strings = b->strings;

  /* -- totals, origin and end ------------------------------------------- */
  size_t nev = 0, ncs = 0, max_track = 0;
  uint32_t ncounters = 0;
  int have = 0;
  int64_t lo = 0, hi = 0;
  for (uint32_t i = 0; i < b->track_count; i++) {
    const btrack *bt = &b->tracks[i];
    nev += bt->ev_count; /* each < 2^32 and tracks < 2^31: no overflow in 64-bit size_t */
    ncs += bt->cs_count;
    if (bt->ev_count > max_track) max_track = bt->ev_count;
    if (bt->cs_count > max_track) max_track = bt->cs_count;
    if (bt->kind == ST_TRACK_COUNTER) ncounters++;
    for (size_t k = 0; k < bt->ev_count; k++) {
      const bev *e = &bt->blk[k / EV_BLOCK][k % EV_BLOCK];
      int64_t s0 = e->start, e0 = s0 + e->dur;
      if (!have || s0 < lo) lo = s0;
      if (!have || e0 > hi) hi = e0;
      have = 1;
    }
    for (size_t k = 0; k < bt->cs_count; k++) {
      int64_t s0 = bt->cs[k].ts;
      if (!have || s0 < lo) lo = s0;
      if (!have || s0 > hi) hi = s0;
      have = 1;
    }
  }
  t->origin = lo;
  t->duration = have ? sat_sub(hi, lo) : 0;

  /* columns get one spare element so empty rows never point at NULL + 0 */
  /* -- process order ------------------------------------------------------ */
  order_key *keys = NULL, *ktmp = NULL;
  size_t nkeys = b->proc_count > b->track_count ? b->proc_count : b->track_count;
  uint32_t *proc_rank = NULL; /* builder process -> display index */
  if (!ALLOC_ARRAY(keys, nkeys) || !ALLOC_ARRAY(ktmp, nkeys) ||
      !ALLOC_ARRAY(proc_rank, b->proc_count) || !ALLOC_ARRAY(t->procs, b->proc_count) ||
      !ALLOC_ARRAY(t->tracks, (size_t)b->track_count * 2) || !ALLOC_ARRAY(t->counters, ncounters) ||
      !ALLOC_ARRAY(t->col, b->track_count) || !ALLOC_ARRAY(t->cs_ts, ncs + 1) ||
      !ALLOC_ARRAY(t->cs_value, ncs + 1)) {
    st_free(&b->alloc, keys);
    st_free(&b->alloc, ktmp);
    st_free(&b->alloc, proc_rank);
    return fail(b, t, err);
  }
  for (uint32_t i = 0; i < b->proc_count; i++)
    keys[i] = (order_key){b->procs[i].sort_index, b->procs[i].pid, 0, i};
  sort_order(keys, ktmp, b->proc_count);
  for (uint32_t r = 0; r < b->proc_count; r++) {
    const bproc *bp = &b->procs[keys[r].index];
    proc_rank[keys[r].index] = r;
    t->procs[r] = (st_process){bp->pid, bp->name, bp->labels, bp->sort_index, 0, 0};
  }
  t->proc_count = b->proc_count;

  /* -- track order: by (process rank, sort_index, kind, key) ----------------
   * Sort all tracks by their process's rank first (stable sort by the
   * per-process key, then bucket by process). */
  for (uint32_t i = 0; i < b->track_count; i++) {
    const btrack *bt = &b->tracks[i];
    keys[i] = (order_key){bt->sort_index, bt->key, bt->kind, i};
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
      return fail(b, t, err);
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

  /* -- flows: chain the points into pairs (freed below) ------------------- */
  flow_work fw;
  memset(&fw, 0, sizeof fw);
  size_t np = b->fl_count;
  int ok = 1;
  if (np) {
    ok = ALLOC_ARRAY(fw.idx, np) && ALLOC_ARRAY(fw.tmp, np) && ALLOC_ARRAY(fw.pairs, 2 * np) &&
         ALLOC_ARRAY(fw.res_row, np) && ALLOC_ARRAY(fw.res_idx, np) &&
         ALLOC_ARRAY(fw.track_at, (size_t)b->track_count + 1);
    if (ok) chain_flows(b, &fw, &t->flow_info);
  }

  /* -- scratch for layout ------------------------------------------------- */
  scratch s = {0};
  bev *evtmp = NULL, *evbuf = NULL; /* evbuf: one track's staged events, contiguous */
  bsample *cstmp = NULL;
  size_t scap = max_track + 1;
  size_t rows_cap = 0;
  ok = ok && ALLOC_ARRAY(s.depth, scap) && ALLOC_ARRAY(s.idx, scap) && ALLOC_ARRAY(s.stack, scap) &&
       ALLOC_ARRAY(s.lane, scap) && ALLOC_ARRAY(s.free_, scap) && ALLOC_ARRAY(s.count, scap) &&
       (evtmp = st_realloc_array(&b->alloc, NULL, scap, sizeof *evtmp)) != NULL &&
       (evbuf = st_realloc_array(&b->alloc, NULL, scap, sizeof *evbuf)) != NULL &&
       ALLOC_ARRAY(cstmp, scap) && (!np || ALLOC_ARRAY(s.slot, scap));

  /* -- per track: sort, lay out, scatter into columns --------------------- */
  size_t cs_at = 0;
  uint32_t out_tracks = 0, counters_at = 0, cur_proc = UINT32_MAX;
  for (uint32_t k = 0; ok && k < b->track_count; k++) {
    uint32_t bi = track_order[k];
    btrack *bt = &b->tracks[bi];
    int has_points = np && fw.track_at[bi] < fw.track_at[bi + 1];
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
                     .first_row = t->row_count,
                     .counter = UINT32_MAX};
    if (bt->kind == ST_TRACK_COUNTER) {
      sort_samples(bt->cs, cstmp, bt->cs_count);
      st_counter *c = &t->counters[counters_at];
      *c = (st_counter){
          out_tracks, (uint32_t)bt->cs_count, t->cs_ts + cs_at, t->cs_value + cs_at, 0, 0};
      for (size_t i = 0; i < bt->cs_count; i++) {
        double v = bt->cs[i].value;
        t->cs_ts[cs_at + i] = sat_sub(bt->cs[i].ts, t->origin);
        t->cs_value[cs_at + i] = v;
        if (i == 0 || v < c->min) c->min = v;
        if (i == 0 || v > c->max) c->max = v;
      }
      cs_at += bt->cs_count;
      ot->counter = counters_at++;
      out_tracks++;
      t->procs[prank].track_count++;
      st_free(&b->alloc, bt->cs);
      bt->cs = NULL;
      continue;
    }
    /* gather the blocks (freeing each once copied), rebase and resolve
     * unfinished events, then sort */
    size_t n = bt->ev_count;
    bev *ev = evbuf;
    for (uint32_t q = 0, at0 = 0; q < bt->blk_count; q++) {
      size_t c = q == 0 ? (n < EV_BLOCK ? n : EV_BLOCK) : (n - at0 < EV_BLOCK ? n - at0 : EV_BLOCK);
      memcpy(ev + at0, bt->blk[q], c * sizeof *ev);
      at0 += (uint32_t)c;
      st_free(&b->alloc, bt->blk[q]);
      bt->blk[q] = NULL;
    }
    free_blocks(b, bt);
    /* this track's columns: start, dur, src (8-byte), name, cat (4), flags */
    const size_t ncol = n + 1; /* one spare so empty rows never point at NULL + 0 */
    void *colblk = st_realloc_array(&b->alloc, NULL, ncol, 3 * 8 + 2 * 4 + 1);
    if (!colblk) {
      ok = 0;
      break;
    }
    t->col[t->col_count++] = colblk;
    int64_t *c_start = colblk, *c_dur = c_start + ncol;
    uint64_t *c_src = (uint64_t *)(c_dur + ncol);
    uint32_t *c_name = (uint32_t *)(c_src + ncol), *c_cat = c_name + ncol;
    uint8_t *c_flags = (uint8_t *)(c_cat + ncol);
    for (size_t i = 0; i < n; i++) {
      bev *e = &ev[i];
      e->start = sat_sub(e->start, t->origin);
      if (EV_FLAGS(e) & ST_EV_UNFINISHED) e->dur = sat_sub(t->duration, e->start);
    }
    sort_events(ev, evtmp, n);
    uint32_t base_rows;
    uint32_t total_rows = layout_track(ev, n, bt->kind, &s, &base_rows);
    /* rows */
    size_t need = (size_t)t->row_count + total_rows;
    if (need > UINT32_MAX - 1) {
      ok = 0;
      break;
    }
    if (need > rows_cap) {
      size_t ncap = rows_cap ? rows_cap : 64;
      while (ncap < need) ncap *= 2;
      st_row *nr = st_realloc_array(&b->alloc, t->rows, ncap, sizeof *nr);
      if (!nr) {
        ok = 0;
        break;
      }
      t->rows = nr;
      rows_cap = ncap;
    }
    memset(s.count, 0, (size_t)total_rows * sizeof *s.count);
    for (size_t i = 0; i < n; i++) s.count[s.depth[i]]++;
    size_t at = 0;
    for (uint32_t r = 0; r < total_rows; r++) {
      uint32_t track_idx = r < base_rows ? out_tracks : out_tracks + 1;
      uint32_t depth = r < base_rows ? r : r - base_rows;
      uint32_t c = s.count[r];
      t->rows[t->row_count + r] =
          (st_row){track_idx,   depth,      c,          c_start + at, c_dur + at,
                   c_name + at, c_cat + at, c_src + at, c_flags + at};
      s.count[r] = (uint32_t)at; /* becomes the write cursor */
      at += c;
    }
    for (size_t i = 0; i < n; i++) {
      const bev *e = &ev[i];
      size_t o = s.count[s.depth[i]]++;
      if (has_points) /* index within the row: o minus the row's first column slot */
        s.slot[i] = (uint32_t)(o - (size_t)(t->rows[t->row_count + s.depth[i]].start - c_start));
      c_start[o] = e->start;
      c_dur[o] = e->dur;
      c_name[o] = e->name;
      c_cat[o] = e->cat;
      c_src[o] = EV_SRC(e);
      c_flags[o] = EV_FLAGS(e);
    }
    if (has_points) bind_track(b, &fw, bi, ev, n, &s, t->row_count, t->origin);
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

  st_free(&b->alloc, s.depth);
  st_free(&b->alloc, s.idx);
  st_free(&b->alloc, s.stack);
  st_free(&b->alloc, s.lane);
  st_free(&b->alloc, s.free_);
  st_free(&b->alloc, s.count);
  st_free(&b->alloc, s.slot);
  st_free(&b->alloc, evtmp);
  st_free(&b->alloc, evbuf);
  st_free(&b->alloc, cstmp);
  st_free(&b->alloc, ktmp);
  st_free(&b->alloc, proc_rank);
  if (ok && np) ok = !fw.nomem && build_flows(t, b, &fw);
  st_free(&b->alloc, fw.idx);
  st_free(&b->alloc, fw.tmp);
  st_free(&b->alloc, fw.pairs);
  st_free(&b->alloc, fw.res_row);
  st_free(&b->alloc, fw.res_idx);
  st_free(&b->alloc, fw.track_at);
  st_u64map_free(&fw.srcmap, &b->alloc);
  if (!ok) return fail(b, t, err);

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
  /* end events: sorted by src (stable: of several calls for a src, the
   * last is kept), moved into the trace */
  if (b->end_count) {
    st_end_src *tmp = st_realloc_array(&b->alloc, NULL, b->end_count, sizeof *tmp);
    if (!tmp) return fail(b, t, err);
    sort_ends(b->ends, tmp, b->end_count);
    st_free(&b->alloc, tmp);
    size_t k = 0;
    for (size_t i = 0; i < b->end_count; i++) {
      if (k && b->ends[k - 1].src == b->ends[i].src)
        b->ends[k - 1] = b->ends[i];
      else
        b->ends[k++] = b->ends[i];
    }
    st_end_src *sh = st_realloc_array(&b->alloc, b->ends, k, sizeof *sh);
    t->ends = sh ? sh : b->ends;
    t->end_count = k;
    b->ends = NULL;
    b->end_count = b->end_cap = 0;
  }
  free_builder_parts(b, 1);

  t->bytes = sizeof *t + (size_t)t->proc_count * sizeof(st_process) +
             (size_t)t->track_count * sizeof(st_track) + (size_t)t->row_count * sizeof(st_row) +
             (size_t)t->counter_count * sizeof(st_counter) +
             t->ev_count * (2 * sizeof(int64_t) + 2 * sizeof(uint32_t) + sizeof(uint64_t) + 1) +
             t->cs_count * (sizeof(int64_t) + sizeof(double)) +
             (size_t)t->flow_count * (sizeof(st_flow) + sizeof(uint32_t)) +
             t->end_count * sizeof(st_end_src);
  return t;
}

/* ==== 6. trace accessors ================================================= */

void st_trace_destroy(st_trace *t) {
  if (!t) return;
  st_alloc a = t->alloc;
  st_strtab_destroy(t->strings);
  st_free(&a, t->procs);
  st_free(&a, t->tracks);
  st_free(&a, t->rows);
  st_free(&a, t->counters);
  for (uint32_t i = 0; i < t->col_count; i++) st_free(&a, t->col[i]);
  st_free(&a, t->col);
  st_free(&a, t->cs_ts);
  st_free(&a, t->cs_value);
  st_free(&a, t->flows);
  st_free(&a, t->flows_in);
  st_free(&a, t->ends);
  st_free(&a, t);
}

const st_strtab *st_trace_strings(const st_trace *t) { return t ? t->strings : NULL; }

const st_process *st_trace_processes(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->proc_count : 0;
  return t ? t->procs : NULL;
}
const st_track *st_trace_tracks(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->track_count : 0;
  return t ? t->tracks : NULL;
}
const st_row *st_trace_rows(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->row_count : 0;
  return t ? t->rows : NULL;
}
const st_counter *st_trace_counters(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->counter_count : 0;
  return t ? t->counters : NULL;
}
int64_t st_trace_origin_ns(const st_trace *t) { return t ? t->origin : 0; }
int64_t st_trace_duration_ns(const st_trace *t) { return t ? t->duration : 0; }
uint64_t st_trace_event_count(const st_trace *t) {
  return t ? (uint64_t)t->ev_count + t->cs_count : 0;
}
size_t st_trace_bytes(const st_trace *t) { return t ? t->bytes + st_strtab_bytes(t->strings) : 0; }

uint64_t st_trace_end_src_of(const st_trace *t, uint64_t src) {
  if (!t || !t->end_count) return UINT64_MAX;
  size_t lo = 0, hi = t->end_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->ends[mid].src < src)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->end_count && t->ends[lo].src == src ? t->ends[lo].end_src : UINT64_MAX;
}

uint64_t st_trace_end_src(const st_trace *t, uint32_t row, uint32_t index) {
  if (!t || !t->end_count || row >= t->row_count || index >= t->rows[row].count ||
      !(t->rows[row].flags[index] & ST_EV_HAS_END))
    return UINT64_MAX;
  return st_trace_end_src_of(t, t->rows[row].src[index]);
}

const st_end_src *st_trace_end_srcs(const st_trace *t, size_t *count) {
  if (count) *count = t ? t->end_count : 0;
  return t && t->end_count ? t->ends : NULL;
}

const st_flow *st_trace_flows(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->flow_count : 0;
  return t ? t->flows : NULL;
}
const uint32_t *st_trace_flows_in(const st_trace *t, uint32_t *count) {
  if (count) *count = t ? t->flow_count : 0;
  return t ? t->flows_in : NULL;
}

/* First position whose (row, index) key is >= (row, index); in = 0 searches
 * the flows by source, 1 the destination index. */
static uint32_t flow_lower(const st_trace *t, int in, uint32_t row, uint32_t index) {
  uint32_t lo = 0, hi = t->flow_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const st_flow *f = &t->flows[in ? t->flows_in[mid] : mid];
    uint32_t r = in ? f->to_row : f->from_row, i = in ? f->to_index : f->from_index;
    if (r < row || (r == row && i < index))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static uint32_t flow_range(const st_trace *t, int in, uint32_t row, uint32_t lo, uint32_t hi,
                           uint32_t *first) {
  if (first) *first = 0;
  if (!t || !t->flow_count || lo >= hi) return 0;
  uint32_t a = flow_lower(t, in, row, lo), b = flow_lower(t, in, row, hi);
  if (first) *first = a;
  return b - a;
}

uint32_t st_trace_flows_from(const st_trace *t, uint32_t row, uint32_t index_lo, uint32_t index_hi,
                             uint32_t *first) {
  return flow_range(t, 0, row, index_lo, index_hi, first);
}
uint32_t st_trace_flows_to(const st_trace *t, uint32_t row, uint32_t index_lo, uint32_t index_hi,
                           uint32_t *first) {
  return flow_range(t, 1, row, index_lo, index_hi, first);
}

void st_trace_flow_info(const st_trace *t, st_flow_info *out) {
  if (!out) return;
  if (t)
    *out = t->flow_info;
  else
    memset(out, 0, sizeof *out);
}
