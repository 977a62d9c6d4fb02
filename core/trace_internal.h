/* trace_internal.h: what the pieces of the trace builder share (private to
 * trace.c, trace_layout.c and trace_flows.c; nothing else includes it).
 *
 * trace.c owns the builder and the model: it stages events as bev, and
 * st_builder_finish gathers one track's events at a time, has
 * trace_layout.c sort them and assign each a row (st_tlayout_track), then
 * scatters them into the trace's columns. Flow points (bflow) are chained
 * into pairs by trace_flows.c before that loop (st_tflow_chain), bound to
 * the laid-out events track by track inside it (st_tflow_bind), and turned
 * into the trace's flow arrays after it (st_tflow_build). Every call is per
 * track or per trace, never per event: the hot loops stay in one file.
 */
#ifndef STRATA_TRACE_INTERNAL_H
#define STRATA_TRACE_INTERNAL_H

#include "trace.h"
#include "u64map.h"

#include <string.h>

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

static inline int64_t ev_end(const bev *e) { return e->start + e->dur; } /* saturated when added */

static inline int64_t sat_sub(int64_t a, int64_t b) { /* a >= b assumed; saturates at INT64_MAX */
  uint64_t d = (uint64_t)a - (uint64_t)b;
  return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* calloc n elements of *ptr into ptr (NULL and success for n = 0); 0 on failure */
#define TR_ALLOC_ARRAY(a, ptr, n)                                                                  \
  ((n) == 0 ? ((ptr) = NULL, 1) : ((ptr) = st_calloc((a), (n), sizeof *(ptr))) != NULL)

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

/* ---- layout (trace_layout.c) ----------------------------------------------
 * Scratch shared by all tracks, sized for the largest one. After
 * st_tlayout_track, depth[i] is event i's row within its track (base rows,
 * then overflow rows) and idx is free for the caller (the flow binding's
 * stack). */
typedef struct tlayout {
  uint32_t *depth; /* per event: row within the track (base rows, then overflow) */
  uint32_t *idx;   /* pending event indices for the current pass */
  int64_t *stack;  /* open slice ends / heap of (end) */
  uint32_t *lane;  /* heap payload: lane of each busy entry */
  uint32_t *free_; /* min-heap of free lane numbers */
  bev *tmp;        /* merge sort buffer */
} tlayout;

/* Allocates the scratch for tracks of up to cap events. 0 on failure (free
 * it anyway). */
int st_tlayout_init(tlayout *s, const st_alloc *a, size_t cap);
void st_tlayout_free(tlayout *s, const st_alloc *a);
/* Sorts one track's events (start asc, dur desc, src asc) and lays them out
 * (see trace_layout.c), flagging spilled slices ST_EV_OVERLAP. *base_rows
 * gets the rows of the track itself; returns the total rows (base +
 * overflow). */
uint32_t st_tlayout_track(tlayout *s, bev *ev, size_t n, uint8_t kind, uint32_t *base_rows);

/* ---- flows (trace_flows.c) ------------------------------------------------ */
typedef struct bflow { /* one flow point (st_builder_flow) */
  uint64_t key;
  int64_t ts;
  uint64_t src;
  uint32_t track;
  uint8_t role, bind;
} bflow;

/* Work state of one finish; zeroed by st_tflow_chain, freed by st_tflow_free. */
typedef struct tflow {
  const st_alloc *alloc;
  const bflow *fl; /* the builder's points */
  size_t np;
  uint32_t *idx, *tmp; /* point indices (np each) */
  uint32_t *pairs;     /* (producer, consumer) point indices */
  size_t npairs;
  uint32_t *track_at;          /* builder track -> first position in idx; track_count + 1 */
  uint32_t *res_row, *res_idx; /* per point: bound event, UINT32_MAX if none */
  st_u64map srcmap;            /* src -> pending point (EVENT binding fallback) */
  int nomem;
} tflow;

/* Chains the np points into (producer, consumer) pairs, counting unmatched
 * ends in info, and orders them by track for binding. 0 on allocation
 * failure (free w anyway). */
int st_tflow_chain(tflow *w, const st_alloc *a, const bflow *fl, size_t np, uint32_t track_count,
                   st_flow_info *info);
/* Whether builder track bi has points to bind. */
static inline int st_tflow_on_track(const tflow *w, uint32_t bi) {
  return w->np && w->track_at[bi] < w->track_at[bi + 1];
}
/* Binds the points of builder track bi to its n sorted, laid-out events:
 * event j is in row row_base + depth[j] at index slot[j]. stack: n free
 * entries. */
void st_tflow_bind(tflow *w, uint32_t bi, const bev *ev, size_t n, const uint32_t *depth,
                   const uint32_t *slot, uint32_t *stack, uint32_t row_base, int64_t origin);
/* The bound pairs as the trace's flows (sorted) and flows_in, allocated
 * with a; counts bound and unbound arrows in info. 0 on allocation
 * failure (here or during binding); what was set in *flows / *flows_in is
 * then the caller's to free. */
int st_tflow_build(tflow *w, const st_alloc *a, st_flow **flows, uint32_t **flows_in,
                   uint32_t *count, st_flow_info *info);
void st_tflow_free(tflow *w);

#endif
