/* lod.c: level-of-detail queries over a trace's rows and counters (see lod.h).
 *
 * Contents
 *   1. row queries
 *   2. counter queries
 * The structures are in lod_internal.h and built in lod_build.c; what they
 * hold and why is explained here.
 *
 * Rows. A row's events are sorted by start and do not overlap, so their ends
 * are sorted too: the first event intersecting a window is one binary search
 * away. Per row the index keeps
 *   - gsum[n / LEAF + 1]: prefix sums of durations at every LEAF-th event,
 *     so the busy time of any index range is one subtraction plus the
 *     ragged ends from dur[] (at most 2 (LEAF - 1) events, in lines a
 *     block reads anyway): 1 byte/event. (Full prefix sums, 8 bytes/event,
 *     saved little: a block reads dur[] near its ends anyway, for its last
 *     event and its name.)
 *   - a name summary: level 0 holds, per aligned group of LEAF events, the
 *     name with the largest weight (dur + 1 ns, so instants count too) and
 *     that weight; level k + 1 merges pairs of level-k nodes (same name: add,
 *     else keep the heavier). 8 bytes per node, about n / LEAF * 2 nodes:
 *     2 bytes/event with LEAF = 8. The merge is a heavy-hitter heuristic, not
 *     an exact arg-max, which is all a colour needs.
 *   - a time index: the row's start range cut into nb power-of-two buckets
 *     of 2^shift ns (nb <= n / TBUCKET_EVENTS + 1), tidx[b] = the first
 *     event starting at or after bucket b (4 bytes per bucket, 0.5
 *     byte/event). The end of a block (first event starting at or after a
 *     column end) then lies between tidx[b] and tidx[b + 1]: one read of a
 *     compact array plus a short bisection, where a gallop over start[]
 *     from the block's first event touches log2(block size) cache lines
 *     and pages (a full view of 1e7 events is bound by those misses).
 *   - a time-cell pyramid (rows of at least CELL_MIN_EVENTS events): level
 *     0 cuts the start range into cells of half a time bucket (4 to 8
 *     events on average), level k + 1 merges pairs of level-k cells; each
 *     cell (28 bytes) holds its first event, its summed durations, its
 *     longest event, its heaviest name, and as 32-bit offsets from its
 *     start the next start and the end of the last event before its end:
 *     about n / 3 cells, ~9.4 bytes/event.
 *   Total about 13.3 bytes/event (plus 64 bytes per row), reported by
 *   st_lod_bytes().
 *
 * Zoomed out. A merged block found exactly needs the first event past its
 * column's end: a miss in start[] and dur[] (and the index) per block,
 * and a walk over every event's duration and name for the block's busy
 * time and colour: a full view streams the rows' columns through the
 * cache (16+ bytes per event in view). When the pyramid has cells at most
 * 1 px wide, a block instead takes the events of every cell starting in
 * its column (1 to 4 consecutive cells, one or two cache lines, plus the
 * next cell for the block's end and the next start; a column whose cells
 * hold a wide event, found by the cells' longest event, ends the block at
 * that event, which is the last of its cell and is yielded as itself:
 * rows that mix long and short events, like a thread's states, stay on
 * the cells too): the block can hold events starting less than 1 px after
 * the column (lod.h), and costs no per-event access at all. 1e7 events,
 * full view, all rows: 4.5 -> 1.9 ms with 32-event cells at 1/4 px. Cells
 * of 4 to 8 events used up to 1 px serve rows from ~8 events per pixel
 * (a system trace's thread states: ~11 per pixel at full view, which
 * cells of 8 to 16 events at 1/2 px left to the exact walk): its full
 * view, 224 rows, 15.5 -> 9.2 ms of CPU, and the lod 15.3 -> 13.3 bytes
 * per event with the sampled prefix sums.
 *
 * Query walk (per row, window [t0, t1), scale nspp): pixel columns are
 * anchored at time 0 (column c = [c * nspp, (c + 1) * nspp)), so blocks stay
 * put while panning. An event at least min_px wide is yielded as itself; a
 * narrow one opens a block that takes every following event starting in the
 * same column (found with the time index, or zoomed out with the cells),
 * except a wide last one. Since min_px >= 1, a wide event starting in the column ends past
 * it, so it can only be the last one. The next item starts in a later column,
 * so a row yields at most (columns + 1) blocks plus (window / min_px + 2)
 * events, and costs O(log n) per item: never O(events).
 *
 * Counters: per aligned group of LEAF samples (and pairs of groups above)
 * the min and max, so the min/max of any column costs O(log n) nodes.
 */
#include "lod_internal.h"

#include "bisect.h"

#include <math.h>
#include <string.h>

/* A hint only: portable C11 elsewhere, GCC/Clang builtin where available
 * (a no-op in wasm). */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* ==== 1. row queries ===================================================== */

/* First index in [lo, n) with a[index] >= v: gallop from lo, then bisect, so
 * the cost is O(log(distance)). */
static size_t gallop_ge(const int64_t *a, size_t lo, size_t n, int64_t v) {
  size_t step = 1, hi = lo;
  while (hi < n && a[hi] < v) {
    lo = hi + 1;
    hi = step < n - hi ? hi + step : n;
    step *= 2;
  }
  return st_lower_bound_i64_in(a, lo, hi, v);
}

/* Same result as gallop_ge(a, lo, n, v), searched outward from the guess
 * lo + guess: consecutive blocks of a row hold similar numbers of events,
 * so the answer is usually a few entries (one cache line) away, where a
 * gallop from lo would probe log2(block size) lines of a[]. */
static size_t gallop_guess(const int64_t *a, size_t lo, size_t n, int64_t v, size_t guess) {
  size_t p = guess < n - lo ? lo + guess : n;
  if (p < n && a[p] < v) return gallop_ge(a, p + 1, n, v);
  /* the answer is in [lo, p]: gallop down from p */
  size_t hi = p, step = 1;
  while (hi > lo) {
    size_t q = step < hi - lo ? hi - step : lo;
    if (a[q] < v) {
      lo = q + 1;
      break;
    }
    hi = q;
    step *= 2;
  }
  return st_lower_bound_i64_in(a, lo, hi, v);
}

/* gallop_ge(start, lo, n, v) for a row with a time index: the answer lies
 * in [tidx[b], tidx[b + 1]] for v's bucket b. dur[]'s line at the bucket is
 * requested while start[] is bisected (the block's busy time needs it).
 * inline: the row query calls it per block, per frame. */
static inline size_t tindex_ge(const lrow *lr, const uint32_t *tx, const int64_t *start, size_t lo,
                               size_t n, int64_t v, const int64_t *dur) {
  if (v <= lr->tbase) return lo;
  uint64_t b = ((uint64_t)v - (uint64_t)lr->tbase) >> lr->shift;
  if (b >= lr->nb) return n; /* past the last start */
  size_t a = tx[b], z = tx[b + 1];
  PREFETCH(&dur[a]);
  if (lo > a) a = lo;
  return a >= z ? a : st_lower_bound_i64_in(start, a, z, v);
}

/* Time of the end of the pixel column holding t (columns anchored at 0);
 * always > t. */
/* floor() and ceil() for |x| < 2^62 without a libm call (which x86-64
 * without SSE4.1 makes for each: two per block, a measurable share of a
 * zoomed-out query); exact, since the truncation of such a double is. */
static inline double floor_fast(double x) {
  if (!(x > -4.6e18 && x < 4.6e18)) return floor(x);
  double i = (double)(int64_t)x;
  return i > x ? i - 1.0 : i;
}
static inline double ceil_fast(double x) {
  if (!(x > -4.6e18 && x < 4.6e18)) return ceil(x);
  double i = (double)(int64_t)x;
  return i < x ? i + 1.0 : i;
}

static inline int64_t column_end(int64_t t, double nspp) {
  double e = (floor_fast((double)t / nspp) + 1.0) * nspp;
  if (e >= 9.2e18) return INT64_MAX;
  int64_t ei = (int64_t)ceil_fast(e);
  return ei > t ? ei : t + 1;
}
static inline int64_t column_start(int64_t t, double nspp) {
  double s = floor_fast((double)t / nspp) * nspp;
  if (s <= -9.2e18) return INT64_MIN;
  int64_t si = (int64_t)ceil_fast(s);
  return si <= t ? si : t;
}

/* Summed durations of events [a, b) of a row: the group sums for the whole
 * groups of LEAF events inside, dur[] for the ragged ends (at most 2 (LEAF
 * - 1) events, in the lines a block reads anyway). Saturated group sums
 * (durations summing past INT64_MAX ns: hostile input) read as "all
 * busy". A double: exact to 2^53 ns (104 days), which a busy fraction
 * needs no more than. */
static double dur_sum(const int64_t *gsum, const int64_t *dur, size_t a, size_t b) {
  size_t ga = (a + LEAF - 1) / LEAF, gb = b / LEAF;
  double s = 0;
  if (ga >= gb) {
    for (size_t i = a; i < b; i++) s += (double)dur[i];
    return s;
  }
  if (gsum[gb] == INT64_MAX) return 9.2e18;
  s = (double)(gsum[gb] - gsum[ga]);
  for (size_t i = a; i < ga * LEAF; i++) s += (double)dur[i];
  for (size_t i = gb * LEAF; i < b; i++) s += (double)dur[i];
  return s;
}

typedef struct name_acc {
  const st_row *row;
  const name_node *nodes;
  name_node cand[CANDIDATES];
  uint32_t n;
} name_acc;

static void acc_add(name_acc *acc, name_node x) {
  uint32_t lightest = 0;
  for (uint32_t c = 0; c < acc->n; c++) {
    if (acc->cand[c].name == x.name) {
      acc->cand[c].w += x.w;
      return;
    }
    if (acc->cand[c].w < acc->cand[lightest].w) lightest = c;
  }
  if (acc->n < CANDIDATES)
    acc->cand[acc->n++] = x;
  else if (x.w > acc->cand[lightest].w)
    acc->cand[lightest] = x;
}
static void acc_elem(void *ud, size_t i) {
  name_acc *acc = ud;
  acc_add(acc, (name_node){acc->row->name[i], weight_of(acc->row->dur[i])});
}

/* Blocks spanning at least this many whole leaves take their name from the
 * larger summary nodes inside them only: those of at least 1/MIN_PIECE of
 * the block (the greedy decomposition leaves at most two nodes per level,
 * so the skipped smaller nodes and ragged edges hold at most about 1/8 of
 * the block's events). That bounds a block to about 8 node reads, mostly
 * in the small, cached upper levels, where the full decomposition read
 * ~2 log2(block / LEAF) nodes plus up to 2 (LEAF - 1) events, each a
 * likely cache miss, for a colour the rest rarely changes. */
#define INTERIOR_LEAVES 4u
#define MIN_PIECE 16u

/* Blocks of at most this many events are named after their longest event:
 * zoomed in, blocks of a few events are the common case, and totalling
 * weights per name cost more than the rest of the block. 32 rather than 16:
 * rows of 10 to 30 events per pixel column, too sparse for the time cells
 * (a thread's states in a system trace: 12 per column), had a third of
 * their blocks take the tree's path, whose ragged ends read name[] and
 * dur[] per event; the branch-free scan over dur (4 cache lines at most)
 * costs less (those rows' full view: -20 %). The same scan sums the
 * block's busy time (*busy), which a larger block takes from the group
 * sums (dur_sum). */
#define SMALL_BLOCK 32u

static uint32_t dominant_name(const st_lod *lod, uint32_t row, const tree_shape *sh, size_t a,
                              size_t b, double *busy) {
  const st_row *r = &lod->rows[row];
  if (b - a <= SMALL_BLOCK) {
    /* the longest is picked without a branch (which of 16 events is
     * longest is a coin toss for the branch predictor) */
    size_t best = a;
    int64_t bw = -1;
    double sum = 0;
    for (size_t i = a; i < b; i++) {
      int64_t d = r->dur[i];
      int longer = d > bw;
      bw = longer ? d : bw;
      best = longer ? i : best;
      sum += (double)d;
    }
    if (busy) *busy = sum;
    return r->name[best];
  }
  if (busy) *busy = dur_sum(lod->gsum + lod->lrows[row].gsum, r->dur, a, b);
  name_acc acc = {r, lod->nodes + lod->lrows[row].node, {{0, 0}}, 0};
  size_t ia = (a + LEAF - 1) / LEAF * LEAF, ib = b / LEAF * LEAF;
  if (sh->levels && ib > ia && ib - ia >= INTERIOR_LEAVES * LEAF) {
    size_t min_span = (b - a) / MIN_PIECE, span; /* the interior's larger nodes */
    for (size_t p = ia; p < ib; p += span) {
      size_t x = tree_node_at(sh, p, ib, &span);
      if (span >= min_span || acc.n == 0) acc_add(&acc, acc.nodes[x]);
    }
  } else {
    /* the decomposition, inlined: small blocks are the common case when
     * zoomed in, and the indirect calls cost more than the work */
    size_t p = a;
    if (sh->levels) {
      while (p < b && p % LEAF) acc_elem(&acc, p++);
      while (p + LEAF <= b) {
        size_t span, x = tree_node_at(sh, p, b, &span);
        acc_add(&acc, acc.nodes[x]);
        p += span;
      }
    }
    for (; p < b; p++) acc_elem(&acc, p);
  }
  name_node best = acc.cand[0];
  for (uint32_t c = 1; c < acc.n; c++)
    if (acc.cand[c].w > best.w) best = acc.cand[c];
  return best.name;
}

/* ---- zoomed out: blocks from the cell pyramid ------------------------------ */

typedef struct pyr {
  const cell *c;  /* cells of the chosen level */
  size_t count;   /* ... how many */
  uint32_t shift; /* their width is 2^shift ns */
  int64_t tbase;
  size_t n;             /* events in the row */
  const int64_t *start; /* the row's events, for offsets that did not fit */
  const int64_t *dur;
  const int64_t *gsum; /* for a block that does not start on a cell */
  float narrow_lt;     /* a cell whose maxdur is below this holds only narrow events */
  double min_ns;       /* an event at least this long is wide */
} pyr;

typedef struct pyr_out {
  size_t j;         /* the block is [i, j) */
  double busy_ns;   /* summed durations of [i, j) */
  int64_t last_end; /* end of event j - 1 */
  int64_t next;     /* start of event j (INT64_MAX if j == n) */
  uint32_t name;    /* dominant name of the block's whole cells */
  uint8_t named;    /* 0: no whole cell; the caller asks the name tree */
  uint8_t next_narrow;
  uint8_t next_wide; /* event j is wide (a mixed column: yielded as itself) */
  int64_t dur_j;     /* dur[j] when read (next_wide), else -1 */
} pyr_out;

/* The pyramid level for a query: the widest cells at most 1/CELLS_PER_PX
 * of a pixel (so a column holds about 1 to 4 of them). 0 if the row has no
 * pyramid or the scale is too fine for it (then blocks hold few events and
 * the exact search is cheap). */
static int pyr_level(const st_lod *lod, const lrow *lr, const st_row *r, double nspp, double min_ns,
                     pyr *p) {
  if (!lr->ncell0) return 0;
  double wmax = nspp / CELLS_PER_PX;
  if (!(wmax >= ldexp(1.0, (int)lr->cshift))) return 0;
  size_t off[MAX_LEVELS], cnt[MAX_LEVELS], total;
  uint32_t levels = cell_levels(lr->ncell0, off, cnt, &total), k = 0;
  while (k + 1 < levels && ldexp(1.0, (int)(lr->cshift + k + 1)) <= wmax) k++;
  p->c = lod->cells + lr->cells + off[k];
  p->count = cnt[k];
  p->shift = lr->cshift + k;
  p->tbase = lr->tbase;
  p->n = r->count;
  p->start = r->start;
  p->dur = r->dur;
  p->gsum = lod->gsum + lr->gsum;
  /* maxdur is a float: 1e-6 below min_ns is safely below any rounding */
  p->narrow_lt = (float)(min_ns * (1.0 - 1e-6));
  p->min_ns = min_ns;
  return 1;
}

/* The block that starts with narrow event i (start s) and takes the events
 * of every cell that starts before its column's end ce. Reads only cells:
 * the 1 to 4 of the column (name, busy time and the wide-event check: one
 * cache line or two) and the one after it (the block's end and the next
 * start, as offsets).
 *
 * Mixed columns (a thread's states: short runs, then a sleep many pixels
 * long). A wide event (at least min_px >= 1 px) is at least as long as a
 * cell of at most 1 px, so it ends at or past its own cell's end: it is the
 * last event of its cell, and nothing else starts in that cell after it. The first cell of the
 * column whose longest event is wide therefore ends the block just before
 * that cell's last event, which the caller then yields as itself: the
 * narrow events before it are summarised from the cells (plus dur_sum for
 * the part of that cell before the wide event) instead of being
 * walked. Returns 0 (the caller then searches exactly) only for a cell whose
 * longest event is within float rounding of min_px but narrow. */
static int pyr_block(const pyr *p, size_t i, int64_t s, int64_t ce, pyr_out *o) {
  uint64_t cf = ((uint64_t)s - (uint64_t)p->tbase) >> p->shift;
  uint64_t rel = (uint64_t)ce - (uint64_t)p->tbase, mask = ((uint64_t)1 << p->shift) - 1;
  uint64_t ccend = (rel >> p->shift) + ((rel & mask) != 0); /* first cell starting at/after ce */
  if (ce <= s || cf >= p->count) return 0;
  if (ccend > p->count) ccend = p->count;
  /* the heaviest name, runs of equal names summed (cells of a column
   * mostly repeat a few names; a heavy-hitter table cost more than the
   * rest of the block) */
  uint32_t best = 0, run = 0;
  float best_w = 0, run_w = 0;
  double busy = 0;
  uint64_t cw = ccend; /* the first cell holding a wide event */
  for (uint64_t c = cf; c < ccend; c++) {
    const cell *x = &p->c[c];
    if (x->maxdur >= p->narrow_lt) {
      cw = c;
      break;
    }
    busy += x->dur;
    if (!(x->w > 0) || x->first < i) continue; /* empty, or not whole */
    if (x->name == run) {
      run_w += x->w;
    } else {
      run = x->name;
      run_w = x->w;
    }
    if (run_w > best_w) best = run, best_w = run_w;
  }
  o->next_wide = 0;
  o->dur_j = -1;
  if (cw < ccend) {
    /* the wide event: the last of cell cw (see above) */
    size_t wi = (cw + 1 < p->count ? p->c[cw + 1].first : p->n) - 1;
    if (wi <= i || wi >= p->n) return 0;
    int64_t dw = p->dur[wi];
    if ((double)dw < p->min_ns) return 0; /* rounding: narrow after all */
    o->j = wi;
    size_t cwf = p->c[cw].first;
    o->busy_ns = p->c[cf].first == i && cwf >= i ? busy + dur_sum(p->gsum, p->dur, cwf, wi)
                                                 : dur_sum(p->gsum, p->dur, i, wi);
    o->last_end = p->start[wi - 1] + p->dur[wi - 1];
    o->next = p->start[wi];
    o->next_narrow = 0;
    o->next_wide = 1;
    o->dur_j = dw;
    o->named = best_w > 0;
    o->name = best;
    return 1;
  }
  size_t j = ccend < p->count ? p->c[ccend].first : p->n;
  if (j <= i) return 0;
  o->j = j;
  /* whole cells: their summed durations; else (the block began inside a
   * cell, after an exact block) the prefix sums */
  o->busy_ns = p->c[cf].first == i ? busy : dur_sum(p->gsum, p->dur, i, j);
  const cell *last = &p->c[ccend - 1];
  o->last_end = last->end_off != CELL_FAR_END
                    ? cell_start(p->tbase, ccend - 1, p->shift) + last->end_off
                    : p->start[j - 1] + p->dur[j - 1];
  o->next = INT64_MAX;
  o->next_narrow = 0;
  if (j < p->n) {
    const cell *nx = &p->c[ccend];
    o->next = nx->next_off != CELL_FAR_NEXT ? cell_start(p->tbase, ccend, p->shift) + nx->next_off
                                            : p->start[j];
    uint64_t cn = ((uint64_t)o->next - (uint64_t)p->tbase) >> p->shift; /* event j's cell */
    o->next_narrow = cn < p->count && p->c[cn].maxdur < p->narrow_lt;
  }
  o->named = best_w > 0;
  o->name = best;
  return 1;
}

typedef struct row_t0 {
  const st_row *r;
  int64_t t0;
} row_t0;

/* 1 if event i ends at or before t0 and starts before it (monotone in i). */
static int done_before_t0(const void *ctx, size_t i) {
  const row_t0 *k = ctx;
  return !(k->r->start[i] + k->r->dur[i] > k->t0 || k->r->start[i] >= k->t0);
}

uint32_t st_lod_query_row(const st_lod *lod, uint32_t row, int64_t t0, int64_t t1, double ns_per_px,
                          double min_px, st_lod_item_fn fn, void *ud) {
  if (!lod || row >= lod->row_count || t1 <= t0 || !(ns_per_px > 0) || !fn) return 0;
  if (!(min_px >= 1.0)) min_px = 1.0; /* see the header comment: blocks rely on it */
  const st_row *r = &lod->rows[row];
  const lrow *lr = &lod->lrows[row];
  const int64_t *gsum = lod->gsum + lr->gsum;
  const uint32_t *tx = lod->tidx + lr->tidx;
  size_t n = r->count;
  double min_ns = min_px * ns_per_px;
  int64_t px_ns = ns_per_px >= 9.2e18 ? INT64_MAX : (int64_t)ceil(ns_per_px);

  /* first event that ends after t0 or starts at/after it (monotone in i):
   * the events before the first start >= t0 (one bucket of the time index
   * away) end in start order, so it is that one or one just before it */
  size_t lo = 0, hi = n;
  if (lr->nb) {
    hi = tindex_ge(lr, tx, r->start, 0, n, t0, r->dur);
    lo = hi;
    for (size_t step = 1; lo > 0;) { /* gallop back over events ending after t0 */
      size_t q = lo > step ? lo - step : 0;
      if (r->start[q] + r->dur[q] > t0) {
        hi = q;
        lo = q;
        step *= 2;
      } else {
        lo = q + 1;
        break;
      }
    }
  }
  row_t0 k = {r, t0};
  lo = st_partition_point(lo, hi, done_before_t0, &k);
  uint32_t items = 0;
  tree_shape sh;
  sh.levels = tree_levels(n, sh.off); /* once per query, not per block */
  size_t guess = 1;                   /* last block's size */
  pyr py = {0};
  int use_pyr = gsum[n / LEAF] != INT64_MAX && /* saturated sums: exact path (dur[]) */
                pyr_level(lod, lr, r, ns_per_px, min_ns, &py);
  int64_t s_next = 0, d_next = -1; /* start (and duration) of the next event when a block read it */
  int have_s = 0, narrow = 0;      /* ... and whether its cell says it is narrow */
  for (size_t i = lo; i < n;) {
    int64_t s = have_s ? s_next : r->start[i];
    int known_narrow = have_s && narrow;
    have_s = 0;
    if (s >= t1) break;
    if (!known_narrow) {
      int64_t d = d_next >= 0 ? d_next : r->dur[i];
      d_next = -1;
      if ((double)d >= min_ns) {
        st_lod_item it = {s, s + d, (uint32_t)i, 1, r->name[i], 1.0f, r->flags[i], 0};
        fn(ud, &it);
        items++;
        i++;
        continue;
      }
    }
    int64_t ce = column_end(s, ns_per_px);
    if (use_pyr) {
      pyr_out o;
      if (pyr_block(&py, i, s, ce, &o)) {
        int64_t e = s > INT64_MAX - px_ns ? INT64_MAX : s + px_ns;
        if (e > o.next) e = o.next;
        if (e < o.last_end) e = o.last_end;
        size_t j = o.j;
        st_lod_item it = {s, e, (uint32_t)i, (uint32_t)(j - i), o.name, 1.0f, 0, 1};
        if (j - i == 1) {
          it.name = r->name[i];
          it.flags = r->flags[i];
        } else if (!o.named) {
          it.name = dominant_name(lod, row, &sh, i, j, NULL);
        }
        if (e > s) {
          double busy = o.busy_ns / (double)(e - s);
          it.busy = busy > 1.0 ? 1.0f : (float)busy;
        }
        fn(ud, &it);
        items++;
        i = j;
        s_next = o.next;
        d_next = o.dur_j; /* the wide event's duration, read by the block */
        have_s = j < n;
        narrow = o.next_narrow;
        continue;
      }
    }
    size_t j = lr->nb ? tindex_ge(lr, tx, r->start, i + 1, n, ce, r->dur)
                      : gallop_guess(r->start, i + 1, n, ce, guess - 1);
    guess = j - i;
    /* the next block most likely ends about as far on: start its loads now
     * (a full view is bound by these misses, not by arithmetic) */
    if (guess < n - j) {
      PREFETCH(&r->start[j + guess]);
      PREFETCH(&r->dur[j + guess]);
    }
    int64_t dlast = r->dur[j - 1];
    if (j - 1 > i && (double)dlast >= min_ns) { /* a wide last event stays itself */
      j--;
      dlast = r->dur[j - 1];
    }
    int64_t last_end = r->start[j - 1] + dlast;
    int64_t next = j < n ? r->start[j] : INT64_MAX;
    int64_t e = s > INT64_MAX - px_ns ? INT64_MAX : s + px_ns;
    if (e > next) e = next;
    if (e < last_end) e = last_end;
    st_lod_item it = {s, e, (uint32_t)i, (uint32_t)(j - i), 0, 1.0f, 0, 1};
    double busy_ns = 0;
    it.name = dominant_name(lod, row, &sh, i, j, &busy_ns);
    if (j - i == 1) it.flags = r->flags[i];
    if (e > s) {
      double busy = busy_ns / (double)(e - s);
      it.busy = busy > 1.0 ? 1.0f : (float)busy;
    }
    fn(ud, &it);
    items++;
    i = j;
  }
  return items;
}

/* ==== 2. counter queries ================================================= */

typedef struct mm_acc {
  const double *value;
  const mm_node *nodes;
  double min, max;
  int any;
} mm_acc;

/* The min/max of samples [a, b) as single samples and whole tree nodes
 * (the decomposition above, inlined): a zoomed-out counter
 * asks this once per pixel column, and the indirect calls per sample cost
 * more than the min/max. */
static void mm_range(const tree_shape *sh, mm_acc *m, size_t a, size_t b) {
  const double *val = m->value;
  double mn = val[a], mx = val[a]; /* a < b: the column holds sample a */
  size_t p = a + 1;
  if (sh->levels) {
    while (p < b && p % LEAF) mn = dmin(mn, val[p]), mx = dmax(mx, val[p]), p++;
    while (p + LEAF <= b) {
      size_t span;
      const mm_node *x = &m->nodes[tree_node_at(sh, p, b, &span)];
      mn = dmin(mn, x->min);
      mx = dmax(mx, x->max);
      p += span;
    }
  }
  for (; p < b; p++) mn = dmin(mn, val[p]), mx = dmax(mx, val[p]);
  m->min = mn;
  m->max = mx;
  m->any = 1;
}

uint32_t st_lod_query_counter(const st_lod *lod, uint32_t counter, int64_t t0, int64_t t1,
                              double ns_per_px, st_lod_sample_fn fn, void *ud) {
  if (!lod || counter >= lod->counter_count || t1 <= t0 || !(ns_per_px > 0) || !fn) return 0;
  const st_counter *c = &lod->counters[counter];
  size_t n = c->count;
  size_t k = gallop_ge(c->ts, 0, n, t0);
  uint32_t items = 0;
  tree_shape sh;
  sh.levels = tree_levels(n, sh.off);
  if (k > 0) {
    /* the value in force at t0, up to the column of the next sample */
    int64_t e = k < n && c->ts[k] < t1 ? column_start(c->ts[k], ns_per_px) : t1;
    if (e < t0) e = t0;
    double v = c->value[k - 1];
    st_lod_sample smp = {t0, e, v, v, v};
    fn(ud, &smp);
    items++;
  }
  while (k < n && c->ts[k] < t1) {
    int64_t cs = column_start(c->ts[k], ns_per_px);
    size_t j = gallop_ge(c->ts, k + 1, n, column_end(c->ts[k], ns_per_px));
    mm_acc m = {c->value, lod->cnodes + lod->cnode_off[counter], 0, 0, 0};
    mm_range(&sh, &m, k, j);
    int64_t e = j < n && c->ts[j] < t1 ? column_start(c->ts[j], ns_per_px) : t1;
    st_lod_sample smp = {cs, e, m.min, m.max, c->value[j - 1]};
    fn(ud, &smp);
    items++;
    k = j;
  }
  return items;
}
