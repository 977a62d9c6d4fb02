/* lod_internal.h: the level-of-detail index's layout, shared by its build
 * (lod_build.c) and its queries (lod.c); lod.c's header comment explains
 * the structures and the walk. Small helpers both use are static inline. */
#ifndef STRATA_LOD_INTERNAL_H
#define STRATA_LOD_INTERNAL_H

#include "lod.h"

#include <stddef.h>
#include <stdint.h>

#define LEAF 8u              /* events per level-0 summary node */
#define MAX_LEVELS 64u       /* more than enough for 2^32 events */
#define CANDIDATES 8u        /* names tracked while summarising a range */
#define TBUCKET_EVENTS 8u    /* events per time bucket, on average */
#define TINDEX_MIN 64u       /* rows with fewer events search start[] directly */
#define CELL_SPLIT 1u        /* level-0 cells are 2^-CELL_SPLIT time buckets (~4 to 8 events) */
#define CELL_MIN_EVENTS 256u /* rows with fewer events have no pyramid */
#define CELLS_PER_PX 1.0     /* cells used are at most 1 px wide */

typedef struct name_node {
  uint32_t name;
  float w;
} name_node;

typedef struct mm_node {
  double min, max;
} mm_node;

/* A time cell of the pyramid (see "Zoomed out" above): the events starting
 * in [cell start, cell start + 2^(cshift + level)), cell start = tbase +
 * index * width. 28 bytes: times are kept as 32-bit offsets from the cell
 * start (CELL_FAR when they do not fit: then the query reads the events). */
typedef struct cell {
  uint32_t first;    /* first event starting in the cell or later */
  uint32_t name;     /* heaviest name (heavy-hitter merge, as the name tree) */
  float w;           /* its weight */
  float maxdur;      /* longest event (0 if empty) */
  float dur;         /* summed durations of its events (a block's busy time) */
  uint32_t next_off; /* start[first] - cell start (the next start, no search) */
  int32_t end_off;   /* end of the last event starting before the cell's end
                      * - cell start (a block's last end, no search) */
} cell;
#define CELL_FAR_NEXT UINT32_MAX
#define CELL_FAR_END INT32_MIN

typedef struct lrow {
  size_t gsum;     /* offset of this row's gsum[count / LEAF + 1] */
  size_t node;     /* offset of this row's level-0 name nodes */
  size_t tidx;     /* offset of this row's time index tidx[nb + 1] */
  size_t cells;    /* offset of this row's cell pyramid (ncell0 > 0) */
  int64_t tbase;   /* start of bucket 0 and cell 0: the row's first start */
  uint32_t nb;     /* buckets; 0: no time index (small row) */
  uint32_t shift;  /* bucket width 2^shift ns */
  uint32_t cshift; /* level-0 cell width 2^cshift ns */
  uint32_t ncell0; /* level-0 cells; 0: no pyramid */
} lrow;

struct st_lod {
  st_alloc alloc;
  const st_trace *trace;
  const st_row *rows;
  uint32_t row_count;
  const st_counter *counters;
  uint32_t counter_count;
  lrow *lrows;
  int64_t *gsum;
  name_node *nodes;
  uint32_t *tidx;
  cell *cells;
  size_t *cnode_off; /* per counter: offset of its level-0 min/max nodes */
  mm_node *cnodes;
  size_t bytes;
};

/* ---- range summaries: implicit multi-level trees over fixed-size leaves -- */

/* Offsets of each level relative to the first node; returns the level count. */
static inline uint32_t tree_levels(size_t n, size_t off[MAX_LEVELS]) {
  uint32_t k = 0;
  size_t at = 0;
  if (n <= LEAF) return 0;
  for (size_t span = LEAF; k < MAX_LEVELS; span *= 2) {
    size_t c = (n + span - 1) / span;
    off[k++] = at;
    at += c;
    if (c <= 1 || span > SIZE_MAX / 4) break;
  }
  return k;
}

/* A range [a, b) decomposes into single elements and whole tree nodes,
 * O(LEAF + log n) pieces: the ragged ends element by element, the aligned
 * middle as the largest aligned nodes that fit (tree_node_at). */
typedef struct tree_shape {
  size_t off[MAX_LEVELS];
  uint32_t levels;
} tree_shape;

/* The largest node starting at p (a multiple of LEAF) that ends by b:
 * its index among the tree's nodes, and its width in *span. */
static inline size_t tree_node_at(const tree_shape *sh, size_t p, size_t b, size_t *span) {
  uint32_t k = 0;
  while (k + 1 < sh->levels) {
    size_t s = (size_t)LEAF << (k + 1);
    if (p % s || p + s > b) break;
    k++;
  }
  *span = (size_t)LEAF << k;
  return sh->off[k] + p / *span;
}

static inline double dmin(double a, double b) { return b < a || a != a ? b : a; } /* NaN-skipping */
static inline double dmax(double a, double b) { return b > a || a != a ? b : a; }

/* ---- the cell pyramid ------------------------------------------------------ */

static inline float weight_of(int64_t dur) { return (float)dur + 1.0f; }

/* Levels of a cell pyramid over c0 level-0 cells: level k has
 * ceil(c0 / 2^k) cells, down to one; off[k] is its offset. Returns the
 * level count (0 if c0 == 0) and the total in *total. */
static inline uint32_t cell_levels(size_t c0, size_t off[MAX_LEVELS], size_t cnt[MAX_LEVELS],
                                   size_t *total) {
  uint32_t k = 0;
  size_t at = 0;
  for (size_t c = c0; c > 0 && k<MAX_LEVELS; c = c> 1 ? (c + 1) / 2 : 0) {
    off[k] = at;
    cnt[k++] = c;
    at += c;
    if (c == 1) break;
  }
  *total = at;
  return k;
}

static inline int64_t cell_start(int64_t tbase, uint64_t index, uint32_t shift) {
  return (int64_t)((uint64_t)tbase + (index << shift));
}

#endif
