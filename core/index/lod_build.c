/* lod_build.c: builds the level-of-detail index of a trace's rows and
 * counters (lod.h; the layout in lod_internal.h, explained in lod.c): per
 * row the sampled prefix sums, the name summary tree, the time index and the
 * cell pyramid; per counter the min/max tree. One pass per row, O(events). */
#include "lod_internal.h"

#include <string.h>

/* Nodes of all levels above `n` leaves-of-LEAF: level k has ceil(n / (LEAF << k))
 * nodes; levels stop at the first with one node. */
static size_t tree_nodes(size_t n) {
  size_t total = 0;
  if (n <= LEAF) return 0;
  for (size_t span = LEAF;; span *= 2) {
    size_t c = (n + span - 1) / span;
    total += c;
    if (c <= 1 || span > SIZE_MAX / 4) break;
  }
  return total;
}

static name_node merge_names(name_node x, name_node y) {
  if (x.name == y.name) return (name_node){x.name, x.w + y.w};
  return y.w > x.w ? y : x;
}

/* Offsets from a cell's start (cells never start after the row's last
 * start, so cstart + width * index does not overflow). */
static uint32_t next_off_of(int64_t next, int64_t cstart) {
  if (next < cstart) return CELL_FAR_NEXT; /* not reached: first starts in or after */
  uint64_t d = (uint64_t)next - (uint64_t)cstart;
  return d < CELL_FAR_NEXT ? (uint32_t)d : CELL_FAR_NEXT;
}
static int32_t end_off_of(int64_t end, int64_t cstart) {
  uint64_t d = end >= cstart ? (uint64_t)end - (uint64_t)cstart : (uint64_t)cstart - (uint64_t)end;
  if (d > (uint64_t)INT32_MAX) return CELL_FAR_END;
  return end >= cstart ? (int32_t)d : -(int32_t)d;
}
/* Level k + 1 cell from level-k cells a (index ia, even) and b (ia + 1,
 * or NULL past the end); `after` is the first event starting at or after
 * b's end. Times are re-based on the merged cell's start (a's) and taken
 * from the events where b's offset did not fit. */
static cell merge_cells(const st_row *r, int64_t tbase, uint32_t shift_a, uint64_t ia,
                        const cell *a, const cell *b, size_t after) {
  cell m = *a;
  if (!b) return m; /* same start, and nothing starts past a: same end */
  name_node x = merge_names((name_node){a->name, a->w}, (name_node){b->name, b->w});
  m.name = x.name;
  m.w = x.w;
  if (b->maxdur > m.maxdur) m.maxdur = b->maxdur;
  m.dur = a->dur + b->dur;
  /* the end before the merged cell's end is b's, re-based on a's start */
  int64_t bstart = cell_start(tbase, ia + 1, shift_a), mstart = cell_start(tbase, ia, shift_a);
  int64_t end;
  if (b->end_off != CELL_FAR_END) {
    end = bstart + b->end_off;
  } else {
    end = after > 0 ? r->start[after - 1] + r->dur[after - 1] : INT64_MIN;
  }
  m.end_off = end_off_of(end, mstart);
  return m;
}

/* Level-0 cells from the row's events, then each level from the one below. */
static void build_cells(const st_row *r, const lrow *lr, cell *cells) {
  size_t off[MAX_LEVELS], cnt[MAX_LEVELS], total;
  uint32_t levels = cell_levels(lr->ncell0, off, cnt, &total);
  size_t n = r->count, i = 0;
  for (size_t c = 0; c < lr->ncell0; c++) {
    int64_t cs = cell_start(lr->tbase, c, lr->cshift);
    cell x = {(uint32_t)i, 0, 0, 0, 0, i < n ? next_off_of(r->start[i], cs) : 0, CELL_FAR_END};
    name_node cand[CANDIDATES];
    uint32_t nc = 0;
    uint64_t edge = (uint64_t)(c + 1) << lr->cshift; /* cells cover the start range */
    for (; i < n && (c + 1 == lr->ncell0 || (uint64_t)r->start[i] - (uint64_t)lr->tbase < edge);
         i++) {
      if ((float)r->dur[i] > x.maxdur) x.maxdur = (float)r->dur[i];
      x.dur += (float)r->dur[i];
      name_node y = {r->name[i], weight_of(r->dur[i])};
      uint32_t k = 0, light = 0;
      while (k < nc && cand[k].name != y.name) {
        if (cand[k].w < cand[light].w) light = k;
        k++;
      }
      if (k < nc)
        cand[k].w += y.w;
      else if (nc < CANDIDATES)
        cand[nc++] = y;
      else if (y.w > cand[light].w)
        cand[light] = y;
    }
    for (uint32_t k = 0; k < nc; k++)
      if (cand[k].w > x.w) x.name = cand[k].name, x.w = cand[k].w;
    if (i > 0) x.end_off = end_off_of(r->start[i - 1] + r->dur[i - 1], cs);
    cells[c] = x;
  }
  for (uint32_t k = 1; k < levels; k++)
    for (size_t c = 0; c < cnt[k]; c++) {
      const cell *a = &cells[off[k - 1] + 2 * c];
      const cell *b = 2 * c + 1 < cnt[k - 1] ? a + 1 : NULL;
      size_t after = 2 * c + 2 < cnt[k - 1] ? a[2].first : n;
      cells[off[k] + c] = merge_cells(r, lr->tbase, lr->cshift + k - 1, 2 * c, a, b, after);
    }
}

/* Time index shape of a row: buckets of 2^shift ns from its first start,
 * the narrowest power of two that needs at most n / TBUCKET_EVENTS + 1
 * buckets to cover the row's start range. */
static void tindex_shape(const st_row *r, lrow *lr) {
  lr->nb = 0;
  lr->shift = 0;
  lr->tbase = 0;
  if (r->count < TINDEX_MIN) return;
  int64_t base = r->start[0];
  uint64_t span = (uint64_t)r->start[r->count - 1] - (uint64_t)base; /* starts ascend */
  uint64_t want = r->count / TBUCKET_EVENTS;
  uint32_t shift = 0;
  while (shift < 63 && (span >> shift) + 1 > want) shift++;
  lr->tbase = base;
  lr->shift = shift;
  lr->nb = (uint32_t)((span >> shift) + 1);
}

/* Each level k >= 1 of a tree over n elements from the level below: node
 * j of level k merges nodes 2j and 2j + 1 of level k - 1 (merge(nodes, to,
 * a, b), b = SIZE_MAX where the last has no pair). */
static void tree_merge_up(size_t n, const size_t off[MAX_LEVELS], uint32_t levels, void *nodes,
                          void (*merge)(void *nodes, size_t to, size_t a, size_t b)) {
  for (uint32_t k = 1; k < levels; k++) {
    size_t child = (n + ((size_t)LEAF << (k - 1)) - 1) / ((size_t)LEAF << (k - 1));
    for (size_t j = 0; j < (child + 1) / 2; j++)
      merge(nodes, off[k] + j, off[k - 1] + 2 * j,
            2 * j + 1 < child ? off[k - 1] + 2 * j + 1 : SIZE_MAX);
  }
}
static void merge_name_nodes(void *nodes, size_t to, size_t a, size_t b) {
  name_node *v = nodes;
  v[to] = b == SIZE_MAX ? v[a] : merge_names(v[a], v[b]);
}
static void merge_mm_nodes(void *nodes, size_t to, size_t a, size_t b) {
  mm_node *v = nodes, x = v[a];
  if (b != SIZE_MAX) {
    x.min = dmin(x.min, v[b].min);
    x.max = dmax(x.max, v[b].max);
  }
  v[to] = x;
}

static void build_row_names(const st_row *r, name_node *nodes) {
  size_t n = r->count, off[MAX_LEVELS];
  uint32_t levels = tree_levels(n, off);
  if (!levels) return;
  /* level 0: exact arg-max of weight per group of LEAF events */
  for (size_t g = 0, a = 0; a < n; g++, a += LEAF) {
    size_t b = a + LEAF < n ? a + LEAF : n;
    name_node cand[LEAF] = {{0, 0}};
    size_t nc = 0;
    for (size_t i = a; i < b; i++) {
      size_t c = 0;
      while (c < nc && cand[c].name != r->name[i]) c++;
      if (c == nc) cand[nc++] = (name_node){r->name[i], 0};
      cand[c].w += weight_of(r->dur[i]);
    }
    name_node best = cand[0];
    for (size_t c = 1; c < nc; c++)
      if (cand[c].w > best.w) best = cand[c];
    nodes[off[0] + g] = best;
  }
  tree_merge_up(n, off, levels, nodes, merge_name_nodes);
}

static void build_counter(const st_counter *c, mm_node *nodes) {
  size_t n = c->count, off[MAX_LEVELS];
  uint32_t levels = tree_levels(n, off);
  if (!levels) return;
  for (size_t g = 0, a = 0; a < n; g++, a += LEAF) {
    size_t b = a + LEAF < n ? a + LEAF : n;
    mm_node m = {c->value[a], c->value[a]};
    for (size_t i = a + 1; i < b; i++) {
      m.min = dmin(m.min, c->value[i]);
      m.max = dmax(m.max, c->value[i]);
    }
    nodes[off[0] + g] = m;
  }
  tree_merge_up(n, off, levels, nodes, merge_mm_nodes);
}

st_lod *st_lod_build(const st_alloc *a, const st_trace *t, st_error *err) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!t) {
    st_error_set(err, ST_ERR_ARG, 0, "no trace");
    return NULL;
  }
  st_lod *lod = st_calloc(&al, 1, sizeof *lod);
  if (!lod) goto nomem;
  lod->alloc = al;
  lod->trace = t;
  lod->rows = st_trace_rows(t, &lod->row_count);
  lod->counters = st_trace_counters(t, &lod->counter_count);

  size_t ngsum = 0, nnodes = 0, ncnodes = 0, ntidx = 0, ncells = 0;
  lod->lrows = st_calloc(&al, (size_t)lod->row_count + 1, sizeof *lod->lrows);
  if (!lod->lrows) goto nomem;
  for (uint32_t r = 0; r < lod->row_count; r++) {
    /* each term < 2^33 and rows < 2^32: checked anyway for 32-bit size_t */
    lrow *lr = &lod->lrows[r];
    tindex_shape(&lod->rows[r], lr);
    lr->ncell0 = 0;
    if (lr->nb && lod->rows[r].count >= CELL_MIN_EVENTS) {
      uint64_t span = (uint64_t)lod->rows[r].start[lod->rows[r].count - 1] - (uint64_t)lr->tbase;
      lr->cshift = lr->shift > CELL_SPLIT ? lr->shift - CELL_SPLIT : 0;
      lr->ncell0 = (uint32_t)((span >> lr->cshift) + 1);
    }
    size_t coff[MAX_LEVELS], ccnt[MAX_LEVELS], ctotal;
    cell_levels(lr->ncell0, coff, ccnt, &ctotal);
    lr->cells = ncells;
    if (!st_add_size(ngsum, (size_t)lod->rows[r].count / LEAF + 1, &ngsum) ||
        !st_add_size(nnodes, tree_nodes(lod->rows[r].count), &nnodes) ||
        !st_add_size(ntidx, lr->nb ? (size_t)lr->nb + 1 : 0, &ntidx) ||
        !st_add_size(ncells, ctotal, &ncells))
      goto nomem;
  }
  for (uint32_t c = 0; c < lod->counter_count; c++)
    if (!st_add_size(ncnodes, tree_nodes(lod->counters[c].count), &ncnodes)) goto nomem;

  lod->gsum = st_calloc(&al, ngsum + 1, sizeof *lod->gsum);
  lod->tidx = st_calloc(&al, ntidx + 1, sizeof *lod->tidx);
  lod->cells = st_calloc(&al, ncells + 1, sizeof *lod->cells);
  lod->nodes = st_calloc(&al, nnodes + 1, sizeof *lod->nodes);
  lod->cnode_off = st_calloc(&al, (size_t)lod->counter_count + 1, sizeof *lod->cnode_off);
  lod->cnodes = st_calloc(&al, ncnodes + 1, sizeof *lod->cnodes);
  if (!lod->gsum || !lod->tidx || !lod->cells || !lod->nodes || !lod->cnode_off || !lod->cnodes)
    goto nomem;
  lod->bytes = sizeof *lod + ((size_t)lod->row_count + 1) * sizeof *lod->lrows +
               (ngsum + 1) * sizeof *lod->gsum + (nnodes + 1) * sizeof *lod->nodes +
               (ntidx + 1) * sizeof *lod->tidx + (ncells + 1) * sizeof *lod->cells +
               ((size_t)lod->counter_count + 1) * sizeof *lod->cnode_off +
               (ncnodes + 1) * sizeof *lod->cnodes;

  size_t ps = 0, nd = 0, ti = 0;
  for (uint32_t r = 0; r < lod->row_count; r++) {
    const st_row *row = &lod->rows[r];
    lrow *lr = &lod->lrows[r];
    lr->gsum = ps;
    lr->node = nd;
    lr->tidx = ti;
    if (lr->nb) {
      /* tidx[b] = first event starting at or after tbase + b * 2^shift */
      uint32_t *tx = lod->tidx + ti;
      size_t i = 0;
      for (uint32_t b = 0; b < lr->nb; b++) {
        uint64_t edge = (uint64_t)b << lr->shift;
        while (i < row->count && (uint64_t)row->start[i] - (uint64_t)lr->tbase < edge) i++;
        tx[b] = (uint32_t)i;
      }
      tx[lr->nb] = row->count;
      ti += (size_t)lr->nb + 1;
    }
    int64_t *g = lod->gsum + ps, acc = 0;
    g[0] = 0;
    for (uint32_t i = 0; i < row->count; i++) {
      /* rows do not overlap, so the sum is at most the row's span */
      acc = row->dur[i] > INT64_MAX - acc ? INT64_MAX : acc + row->dur[i];
      if ((i + 1) % LEAF == 0) g[(i + 1) / LEAF] = acc;
    }
    if (lr->ncell0) build_cells(row, lr, lod->cells + lr->cells);
    build_row_names(row, lod->nodes + nd);
    ps += (size_t)row->count / LEAF + 1;
    nd += tree_nodes(row->count);
  }
  size_t cn = 0;
  for (uint32_t c = 0; c < lod->counter_count; c++) {
    lod->cnode_off[c] = cn;
    build_counter(&lod->counters[c], lod->cnodes + cn);
    cn += tree_nodes(lod->counters[c].count);
  }
  return lod;

nomem:
  st_lod_destroy(lod);
  st_error_set(err, ST_ERR_NOMEM, 0, "out of memory building the level-of-detail index");
  return NULL;
}

void st_lod_destroy(st_lod *lod) {
  if (!lod) return;
  st_alloc a = lod->alloc;
  st_free(&a, lod->lrows);
  st_free(&a, lod->gsum);
  st_free(&a, lod->tidx);
  st_free(&a, lod->cells);
  st_free(&a, lod->nodes);
  st_free(&a, lod->cnode_off);
  st_free(&a, lod->cnodes);
  st_free(&a, lod);
}

size_t st_lod_bytes(const st_lod *lod) { return lod ? lod->bytes : 0; }

void st_lod_shift_rows(st_lod *lod, uint32_t row_lo, uint32_t row_hi, int64_t delta) {
  if (!lod || !delta) return;
  if (row_hi > lod->row_count) row_hi = lod->row_count;
  /* the index's buckets and cells are relative to tbase; rows without an
   * index (nb == 0) keep none */
  for (uint32_t r = row_lo; r < row_hi; r++)
    if (lod->lrows[r].nb) lod->lrows[r].tbase += delta;
}
