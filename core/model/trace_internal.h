/* trace_internal.h: what the pieces of the trace model share (private to
 * trace.c, trace_builder.c, trace_stage.c, trace_layout.c, trace_flows.c
 * and trace_merge.c, and the unit test of its codecs and sorts,
 * tests/unit/test_builder_memory.c).
 *
 * trace_builder.c builds the model, trace.c owns it (its accessors and
 * destroy). While importing, it stages what
 * importers add as compact records (varints, deltas from the previous
 * record of the same track: ~10 bytes per event instead of the model's 33)
 * appended to chains of byte blocks (tstream). st_builder_finish decodes
 * one track at a time straight into that track's final columns (freeing
 * each block as it goes), has trace_layout.c sort the columns and assign
 * each event a row (st_tlayout_track), and moves every event to its row's
 * place in the same memory. Flow points (tpoints, staged per track the same
 * way) are chained into pairs by trace_flows.c before that loop
 * (st_tflow_chain), bound to the laid-out events track by track inside it
 * (st_tflow_bind), and turned into the trace's flow arrays after it
 * (st_tflow_build). Every call is per track or per trace, never per event:
 * the hot loops stay in one file (the record codecs below are inline).
 *
 * Call order: a file calls only the files below it, never one above (what
 * all of them share is inline here).
 *
 *   trace_builder.c -> trace_flows.c, trace_layout.c -> trace_stage.c
 *                      (growing arrays, index sorts, staged byte blocks)
 *   trace_builder.c -> trace_stage.c, trace.c (the model's accessors)
 *   trace_merge.c -> trace.c
 */
#ifndef STRATA_TRACE_INTERNAL_H
#define STRATA_TRACE_INTERNAL_H

#include "merge_sort.h"
#include "trace.h"
#include "u64map.h"

#include <string.h>

static inline int64_t sat_sub(int64_t a, int64_t b) { /* a >= b assumed; saturates at INT64_MAX */
  uint64_t d = (uint64_t)a - (uint64_t)b;
  return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* calloc n elements of *ptr into ptr (NULL and success for n = 0); 0 on failure */
#define TR_ALLOC_ARRAY(a, ptr, n)                                                                  \
  ((n) == 0 ? ((ptr) = NULL, 1) : ((ptr) = st_calloc((a), (n), sizeof *(ptr))) != NULL)

/* Stable sort of uint32 indices by less(ctx, a, b); tmp holds n. Runs of
 * 32 are insertion-sorted, then merged bottom-up; sorted input is O(n). */
typedef int (*st_tidx_less)(const void *ctx, uint32_t a, uint32_t b);
void st_tsort_idx(uint32_t *v, uint32_t *tmp, size_t n, st_tidx_less less, const void *ctx);

/* ---- staging streams ------------------------------------------------------
 * Records appended to a chain of byte blocks. A record never spans blocks;
 * blocks grow from TS_BLOCK_MIN to TS_BLOCK_MAX bytes (small tracks stay
 * small) and are never copied or moved. */
#define TS_BLOCK_MIN 64u /* >= the largest record */
#define TS_BLOCK_MAX 65536u

typedef struct tblock {
  uint32_t used, cap; /* bytes of data[] */
  uint8_t data[];
} tblock;

typedef struct tstream {
  tblock **blk;
  uint32_t count, cap; /* blocks */
} tstream;

/* Room for `need` bytes at the end of the last block (a new block if
 * needed): where to write, or NULL on allocation failure. */
uint8_t *st_tstream_room(tstream *s, const st_alloc *a, uint32_t need);
void st_tstream_free(tstream *s, const st_alloc *a);

static inline uint8_t *ts_reserve(tstream *s, const st_alloc *a, uint32_t need) {
  if (s->count) {
    tblock *b = s->blk[s->count - 1];
    if (b->cap - b->used >= need) return b->data + b->used;
  }
  return st_tstream_room(s, a, need);
}
static inline void ts_commit(tstream *s, const uint8_t *end) {
  tblock *b = s->blk[s->count - 1];
  b->used = (uint32_t)(end - b->data);
}

/* LEB128 varints; zigzag for signed deltas (computed modulo 2^64, so any
 * pair of values round-trips). */
static inline uint8_t *put_uv(uint8_t *p, uint64_t v) {
  if (v < 1u << 7) {
    p[0] = (uint8_t)v;
    return p + 1;
  }
  if (v < 1u << 14) {
    p[0] = (uint8_t)(v | 0x80);
    p[1] = (uint8_t)(v >> 7);
    return p + 2;
  }
  if (v < 1u << 21) {
    p[0] = (uint8_t)(v | 0x80);
    p[1] = (uint8_t)(v >> 7 | 0x80);
    p[2] = (uint8_t)(v >> 14);
    return p + 3;
  }
  do {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  } while (v >= 0x80);
  *p++ = (uint8_t)v;
  return p;
}
static inline const uint8_t *get_uv(const uint8_t *p, uint64_t *v) {
  uint64_t r = p[0];
  if (r < 0x80) {
    *v = r;
    return p + 1;
  }
  r = (r & 0x7F) | (uint64_t)p[1] << 7;
  if (p[1] < 0x80) {
    *v = r;
    return p + 2;
  }
  r = (r & 0x3FFF) | (uint64_t)p[2] << 14;
  if (p[2] < 0x80) {
    *v = r;
    return p + 3;
  }
  r &= 0x1FFFFF;
  unsigned sh = 21;
  uint8_t c;
  p += 3;
  do {
    c = *p++;
    r |= (uint64_t)(c & 0x7F) << sh;
    sh += 7;
  } while (c & 0x80);
  *v = r;
  return p;
}
static inline uint64_t zz(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }
static inline uint64_t unzz(uint64_t u) { return (u >> 1) ^ (0 - (u & 1)); }

/* One staged event (st_builder_slice). Encoded as a header byte (bits 0-3:
 * flags; 4: name follows; 5: cat follows; 6: a full flags byte follows),
 * then zigzag start delta, dur, zigzag src delta, and name / cat when they
 * differ from the previous event of the track. */
#define EV_REC_MAX 48u
typedef struct tev {
  uint64_t start, src; /* start as uint64 bits: deltas wrap */
  uint64_t dur;
  uint32_t name, cat;
  uint8_t flags;
} tev;

static inline uint8_t *tev_put(uint8_t *p, tev *prev, const tev *e) {
  uint8_t *h = p++;
  uint8_t hd = e->flags & 0x0F;
  if (e->flags & 0xF0) {
    hd |= 0x40;
    *p++ = e->flags;
  }
  p = put_uv(p, zz(e->start - prev->start));
  p = put_uv(p, e->dur);
  p = put_uv(p, zz(e->src - prev->src));
  if (e->name != prev->name) {
    hd |= 0x10;
    p = put_uv(p, e->name);
  }
  if (e->cat != prev->cat) {
    hd |= 0x20;
    p = put_uv(p, e->cat);
  }
  *h = hd;
  *prev = *e;
  return p;
}
/* Decodes the next record into *e (which holds the previous one). */
static inline const uint8_t *tev_get(const uint8_t *p, tev *e) {
  uint8_t hd = *p++;
  uint64_t u;
  e->flags = hd & 0x0F;
  if (hd & 0x40) e->flags = *p++;
  p = get_uv(p, &u);
  e->start += unzz(u);
  p = get_uv(p, &e->dur);
  p = get_uv(p, &u);
  e->src += unzz(u);
  if (hd & 0x10) {
    p = get_uv(p, &u);
    e->name = (uint32_t)u;
  }
  if (hd & 0x20) {
    p = get_uv(p, &u);
    e->cat = (uint32_t)u;
  }
  return p;
}

/* One staged counter sample: zigzag ts delta, then the value's 8 bytes. */
#define CS_REC_MAX 24u
static inline uint8_t *tcs_put(uint8_t *p, uint64_t *prev_ts, int64_t ts, double v) {
  p = put_uv(p, zz((uint64_t)ts - *prev_ts));
  *prev_ts = (uint64_t)ts;
  memcpy(p, &v, 8);
  return p + 8;
}
static inline const uint8_t *tcs_get(const uint8_t *p, uint64_t *ts, double *v) {
  uint64_t u;
  p = get_uv(p, &u);
  *ts += unzz(u);
  memcpy(v, p, 8);
  return p + 8;
}

/* ---- the columns of one track while it is finished ------------------------ */
typedef struct tcols {
  int64_t *start, *dur;
  uint64_t *src;
  uint32_t *name, *cat;
  uint8_t *flags;
} tcols;

/* The model's layout order: start asc, dur desc, src, flags, name, cat
 * (a total order: the same result whatever the sort). */
static inline int tcols_less(const tcols *c, size_t a, size_t b) {
  if (c->start[a] != c->start[b]) return c->start[a] < c->start[b];
  if (c->dur[a] != c->dur[b]) return c->dur[a] > c->dur[b];
  if (c->src[a] != c->src[b]) return c->src[a] < c->src[b];
  if (c->flags[a] != c->flags[b]) return c->flags[a] < c->flags[b];
  if (c->name[a] != c->name[b]) return c->name[a] < c->name[b];
  return c->cat[a] < c->cat[b];
}

/* ---- layout (trace_layout.c) ----------------------------------------------
 * Scratch shared by all tracks. depth and perm are sized for the largest
 * track (perm only once a track needs sorting); the rest grows with what a
 * track needs (nesting depth, lanes, spilled events, rows). */
typedef struct tlayout {
  const st_alloc *alloc;
  size_t cap;      /* elements of depth / perm */
  uint32_t *depth; /* per event: row within the track, then its destination */
  uint32_t *perm;  /* sort order (NULL until a track is out of order) */
  uint32_t *idx;   /* spilled event indices for the next pass */
  size_t idx_cap;
  int64_t *stack;  /* open slice ends / heap of (end) */
  uint32_t *lane;  /* heap payload: lane of each busy entry */
  uint32_t *free_; /* min-heap of free lane numbers */
  size_t stack_cap, lane_cap;
  uint32_t *row_first; /* per row of the track: first column slot */
  size_t row_cap;
} tlayout;

/* Scratch for tracks of up to cap events. 0 on failure (free it anyway). */
int st_tlayout_init(tlayout *s, const st_alloc *a, size_t cap);
void st_tlayout_free(tlayout *s);
/* Puts one track's n events (columns c) in layout order, then lays them
 * out (see trace_layout.c), flagging spilled slices ST_EV_OVERLAP:
 * s->depth[i] is event i's row within the track (base rows first, then
 * overflow rows). *base_rows gets the rows of the track itself, *total the
 * rows with the overflow ones. 0 on allocation failure. */
int st_tlayout_track(tlayout *s, tcols *c, size_t n, uint8_t kind, uint32_t *base_rows,
                     uint32_t *total);
/* After st_tlayout_track: turns depth into each event's column slot once
 * grouped by row (s->row_first[r]: row r's first slot). 0 on failure. */
int st_tlayout_slots(tlayout *s, size_t n, uint32_t total_rows);
/* Moves the events to their slots (s->depth), in place. */
void st_tlayout_apply(tlayout *s, tcols *c, size_t n);
/* Counter samples of one track into time order (stable), in place. 0 on
 * failure. */
int st_tlayout_samples(tlayout *s, int64_t *ts, double *value, size_t n);

/* ---- flows (trace_flows.c) ------------------------------------------------ */

/* One track's flow points (st_builder_flow), staged: a header byte (role |
 * bind << 3), then the point's id delta (ids are global, in call order),
 * zigzag deltas of ts, src and key. */
#define PT_REC_MAX 48u
typedef struct tpoint {
  uint64_t key, src;
  uint64_t ts; /* int64 bits */
  uint32_t id;
  uint8_t role, bind;
} tpoint;

typedef struct tpoints {
  tstream s;
  uint32_t count;
  tpoint prev; /* the last point added (the encoder's state) */
} tpoints;

static inline uint8_t *tpt_put(uint8_t *p, tpoint *prev, const tpoint *e) {
  *p++ = (uint8_t)(e->role | e->bind << 3);
  p = put_uv(p, e->id - prev->id);
  p = put_uv(p, zz(e->ts - prev->ts));
  p = put_uv(p, zz(e->src - prev->src));
  p = put_uv(p, zz(e->key - prev->key));
  *prev = *e;
  return p;
}
static inline const uint8_t *tpt_get(const uint8_t *p, tpoint *e) {
  uint64_t u;
  e->role = *p & 7;
  e->bind = (uint8_t)(*p++ >> 3);
  p = get_uv(p, &u);
  e->id += (uint32_t)u;
  p = get_uv(p, &u);
  e->ts += unzz(u);
  p = get_uv(p, &u);
  e->src += unzz(u);
  p = get_uv(p, &u);
  e->key += unzz(u);
  return p;
}

/* A chained arrow: producer and consumer point ids and the producer's src
 * (for st_flow_info.unbound_offset). Same size as st_flow: st_tflow_build
 * turns the pairs into the flows in place. */
typedef struct tpair {
  uint64_t prod_src;
  uint32_t prod, cons;
} tpair;
_Static_assert(sizeof(tpair) == sizeof(st_flow), "pairs become flows in place");

/* Work state of one finish; zeroed by st_tflow_chain, freed by st_tflow_free. */
typedef struct tflow {
  const st_alloc *alloc;
  size_t np;
  tpair *pairs; /* chained arrows, then the flows */
  size_t npairs;
  uint32_t *res_row, *res_idx; /* per point: bound event, UINT32_MAX if none */
  st_u64map srcmap;            /* src -> pending point (EVENT binding fallback) */
  int nomem;
} tflow;

/* Chains the np points staged in pts[0..track_count) (NULL for a track
 * without) into (producer, consumer) pairs, counting unmatched ends in
 * info. 0 on allocation failure (free w anyway). */
int st_tflow_chain(tflow *w, const st_alloc *a, tpoints *const *pts, uint32_t track_count,
                   size_t np, st_flow_info *info);
/* Binds the points of one track (freeing them) to its n laid-out events:
 * columns c in layout order, event j in row row_base + r at index
 * dest[j] - row_first[r] for the row r holding slot dest[j] (row_first:
 * rows ascending). 0 on allocation failure. */
int st_tflow_bind(tflow *w, tpoints *pts, const tcols *c, size_t n, const uint32_t *dest,
                  const uint32_t *row_first, uint32_t rows, uint32_t row_base, int64_t origin);
/* The bound pairs as the trace's flows (sorted) and flows_in, allocated
 * with a; counts bound and unbound arrows in info. 0 on allocation
 * failure; what was set in *flows / *flows_in is then the caller's to
 * free. */
int st_tflow_build(tflow *w, const st_alloc *a, st_flow **flows, uint32_t **flows_in,
                   uint32_t *count, st_flow_info *info);
void st_tflow_free(tflow *w);

/* ---- the model (trace.c builds it; trace_merge.c joins traces) ---------- */

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
  /* columns: one block per output track: a slice track's start, dur, src,
   * name, cat, flags of its events in that order, a counter track's ts and
   * value; each made as the builder frees that track's staging */
  void **col;
  uint32_t col_count;
  size_t ev_count;
  size_t cs_count;
  int64_t origin, duration;
  st_flow *flows;     /* sorted by (from_row, from_index, to_row, to_index) */
  uint32_t *flows_in; /* indices into flows sorted by destination */
  uint32_t flow_count;
  st_flow_info flow_info;
  st_end_src *ends; /* sorted by src, unique */
  size_t end_count;
  st_frames *frames; /* the builder's, sealed; NULL if no samples */
  st_mem_event *mem; /* the builder's memory events, NULL if none */
  size_t mem_count;
  st_block *blocks; /* the builder's blocks, sorted by src; NULL if none */
  size_t block_count;
  size_t bytes;
  int own_strings; /* 0: a shared table (st_builder_create_shared) or a merged trace's */
  int64_t shift;   /* ns every time was moved by since finish (st_trace_merge) */
  /* a merged trace (trace_merge.c): its parts; its own arrays are the merged
   * processes, tracks, rows, counters and flows (columns are the parts') */
  st_trace_part *parts;
  uint32_t part_count;
};

#endif
