/* flame.c: call trees of samples or nested slices (see flame.h).
 *
 * Building has two steps. (1) Aggregate: every contributing event adds to
 * a node found by (parent node, name) in a hash map, nodes numbered in
 * creation order (a parent always before its children); samples reach
 * their node through a per-frame memo, so each stack is walked once per
 * build, not once per sample (a merged trace's samples through their own
 * part's frame table: the memo has a stretch per part). (2) Lay out:
 * totals flow to parents in reverse creation order, children are sorted
 * (total desc, name), and one preorder walk assigns the final index,
 * depth, x and subtree end. The contributing events are kept (row,
 * index, node) for st_flame_select.
 *
 * Contents
 *   1. state and helpers
 *   2. samples
 *   3. slices
 *   4. layout
 *   5. public API
 */
#include "flame.h"

#include "merge_sort.h"
#include "query.h"
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

/* ==== 1. state and helpers =============================================== */

typedef struct contrib {
  uint32_t row, index, node;
} contrib;

struct st_flame {
  st_alloc alloc;
  st_flame_source source;
  st_flame_node *nodes;
  uint32_t count, max_depth;
  contrib *ev; /* sorted by (row, index) */
  size_t nev;
  /* sampling interval per track of the trace it was computed for */
  const st_trace *iv_trace;
  int64_t *interval; /* per track, -1 = not computed */
  uint32_t iv_tracks;
};

typedef struct tnode { /* a node while aggregating */
  uint32_t name, parent;
  uint64_t total, self, tns, sns, count;
} tnode;

typedef struct bstate {
  st_flame *f;
  const st_trace *t;
  const st_alloc *a;
  const st_row *rows;
  const st_track *tracks;
  uint32_t nrows, ntracks;
  tnode *n;
  uint32_t nn, cn;
  st_u64map map;   /* parent << 32 | name -> node */
  uint32_t *fmemo; /* samples: frame -> node, for every frame table in use */
  size_t *fbase;   /* samples of a merged trace: where part k's frames start in fmemo */
  uint32_t *chain; /* samples: frames being mapped */
  contrib *ev;
  size_t nev, cev;
  uint32_t *stack; /* slices: DFS of (row, index, parent node) triples */
  size_t nstack, cstack;
  int nomem;
} bstate;

/* The child of `parent` named `name`, created if absent; UINT32_MAX on failure. */
static uint32_t child_of(bstate *bs, uint32_t parent, uint32_t name) {
  uint64_t k = (uint64_t)parent << 32 | name;
  uint32_t v = st_u64map_get(&bs->map, k);
  if (v != ST_U64MAP_NONE) return v;
  if (bs->nn >= UINT32_MAX - 2) return bs->nomem = 1, UINT32_MAX;
  size_t cap = bs->cn;
  if (!st_grow_from(bs->a, (void **)&bs->n, &cap, (size_t)bs->nn + 1, sizeof *bs->n, 64) ||
      cap > UINT32_MAX || !st_u64map_put(&bs->map, bs->a, k, bs->nn))
    return bs->nomem = 1, UINT32_MAX;
  bs->cn = (uint32_t)cap;
  bs->n[bs->nn] = (tnode){.name = name, .parent = parent};
  return bs->nn++;
}

static void contribute(bstate *bs, uint32_t row, uint32_t index, uint32_t node) {
  if (!st_grow_from(bs->a, (void **)&bs->ev, &bs->cev, bs->nev + 1, sizeof *bs->ev, 64)) {
    bs->nomem = 1;
    return;
  }
  bs->ev[bs->nev++] = (contrib){row, index, node};
}

/* Whether track tr belongs to the thread of track `want` (UINT32_MAX: any). */
static int on_thread(const bstate *bs, uint32_t tr, uint32_t want) {
  if (want == UINT32_MAX) return 1;
  if (want >= bs->ntracks || tr >= bs->ntracks) return 0;
  const st_track *a = &bs->tracks[tr], *b = &bs->tracks[want];
  int thread_a = a->kind == ST_TRACK_SLICES || a->kind == ST_TRACK_SAMPLES;
  int thread_b = b->kind == ST_TRACK_SLICES || b->kind == ST_TRACK_SAMPLES;
  if (!thread_a || !thread_b) return tr == want;
  return a->process == b->process && a->key == b->key;
}

/* ==== 2. samples ========================================================== */

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* The k-th smallest of v[0, n): quickselect (median-of-three pivots), and a
 * sort of what is left if it has not converged after 48 rounds, so hostile
 * input costs O(n log n) at worst. */
static int64_t select_kth(int64_t *v, size_t n, size_t k) {
  size_t lo = 0, hi = n; /* k in [lo, hi) */
  for (int round = 0; hi - lo > 16 && round < 48; round++) {
    int64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
    int64_t p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    size_t i = lo, j = hi - 1; /* Hoare partition around p */
    for (;;) {
      while (v[i] < p) i++;
      while (v[j] > p) j--;
      if (i >= j) break;
      int64_t x = v[i];
      v[i++] = v[j];
      v[j--] = x;
    }
    if (k <= j)
      hi = j + 1;
    else
      lo = j + 1;
  }
  qsort(v + lo, hi - lo, sizeof *v, cmp_i64);
  return v[k];
}

/* The track's sampling interval: the median (lower) gap between
 * consecutive samples of its first row; 0 with fewer than two. Cached per
 * trace. -1 on allocation failure. */
static int64_t interval_of(bstate *bs, uint32_t track) {
  st_flame *f = bs->f;
  if (f->iv_trace != bs->t || f->iv_tracks != bs->ntracks) {
    st_free(&f->alloc, f->interval);
    f->interval = st_realloc_array(&f->alloc, NULL, bs->ntracks ? bs->ntracks : 1, sizeof(int64_t));
    if (!f->interval) {
      f->iv_trace = NULL;
      return -1;
    }
    for (uint32_t i = 0; i < bs->ntracks; i++) f->interval[i] = -1;
    f->iv_trace = bs->t;
    f->iv_tracks = bs->ntracks;
  }
  if (f->interval[track] >= 0) return f->interval[track];
  const st_track *tr = &bs->tracks[track];
  int64_t iv = 0;
  if (tr->row_count && tr->first_row < bs->nrows) {
    const st_row *r = &bs->rows[tr->first_row];
    if (r->count >= 2) {
      int64_t *gaps = st_realloc_array(bs->a, NULL, r->count - 1, sizeof *gaps);
      if (!gaps) return -1;
      for (uint32_t i = 0; i + 1 < r->count; i++) gaps[i] = r->start[i + 1] - r->start[i];
      iv = select_kth(gaps, r->count - 1, (r->count - 2) / 2);
      st_free(bs->a, gaps);
    }
  }
  f->interval[track] = iv;
  return iv;
}

/* The node of a frame of table fr (memo: fr's part of fmemo): its parent
 * chain mapped top-down once. Nodes are keyed by name, so equal name paths
 * of different tables (the parts of a merged trace, which share one string
 * table) meet in one node. */
static uint32_t frame_node(bstate *bs, const st_frames *fr, uint32_t *memo, uint32_t frame) {
  uint32_t nf = st_frames_count(fr);
  if (frame >= nf) return UINT32_MAX;
  if (memo[frame] != UINT32_MAX) return memo[frame];
  uint32_t k = 0, x = frame;
  while (x != ST_FRAME_NONE && memo[x] == UINT32_MAX && k <= ST_FRAMES_MAX_DEPTH) {
    bs->chain[k++] = x;
    x = st_frames_parent(fr, x);
  }
  uint32_t node = x == ST_FRAME_NONE || memo[x] == UINT32_MAX ? 0 : memo[x];
  while (k) {
    uint32_t fx = bs->chain[--k];
    node = child_of(bs, node, st_frames_name(fr, fx));
    if (node == UINT32_MAX) return UINT32_MAX;
    memo[fx] = node;
  }
  return node;
}

/* The frame memo: one entry per frame of the trace's table, or of every
 * part's table of a merged trace, one table after another. */
static int samples_setup(bstate *bs) {
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(bs->t, &np);
  uint64_t nf = 0;
  if (parts) {
    bs->fbase = st_realloc_array(bs->a, NULL, np ? np : 1, sizeof *bs->fbase);
    if (!bs->fbase) return bs->nomem = 1, 0;
    for (uint32_t k = 0; k < np; k++) {
      bs->fbase[k] = (size_t)nf;
      nf += st_frames_count(st_trace_frames(parts[k].trace));
      if (nf > SIZE_MAX / sizeof *bs->fmemo) return bs->nomem = 1, 0;
    }
  } else {
    nf = st_frames_count(st_trace_frames(bs->t));
  }
  if (!nf) nf = 1;
  bs->fmemo = st_realloc_array(bs->a, NULL, (size_t)nf, sizeof *bs->fmemo);
  bs->chain = st_realloc_array(bs->a, NULL, ST_FRAMES_MAX_DEPTH + 1, sizeof *bs->chain);
  if (!bs->fmemo || !bs->chain) return bs->nomem = 1, 0;
  memset(bs->fmemo, 0xFF, (size_t)nf * sizeof *bs->fmemo);
  return 1;
}

/* Samples row[lo, hi) of a samples track. */
static void add_samples(bstate *bs, uint32_t row, uint32_t lo, uint32_t hi) {
  const st_row *r = &bs->rows[row];
  const st_frames *fr = st_trace_row_frames(bs->t, row);
  uint32_t *memo = bs->fmemo;
  if (bs->fbase) { /* a merged trace: the row's part's frames */
    uint32_t k = st_trace_part_of_row(bs->t, row);
    if (k == UINT32_MAX) return;
    memo += bs->fbase[k];
  }
  int64_t iv = interval_of(bs, r->track);
  if (iv < 0) {
    bs->nomem = 1;
    return;
  }
  for (uint32_t i = lo; i < hi && !bs->nomem; i++) {
    uint32_t node = frame_node(bs, fr, memo, r->cat[i]);
    if (node == UINT32_MAX) continue;
    bs->n[node].self++;
    bs->n[node].sns += (uint64_t)iv;
    contribute(bs, row, i, node);
  }
}

static void build_samples(bstate *bs, const st_flame_query *q) {
  if (!samples_setup(bs)) return;
  if (q->sel) {
    uint32_t ns;
    const st_sel_span *sp = st_selection_spans(q->sel, &ns);
    for (uint32_t i = 0; i < ns && !bs->nomem; i++) {
      if (sp[i].row >= bs->nrows) continue;
      const st_row *r = &bs->rows[sp[i].row];
      if (r->track >= bs->ntracks || bs->tracks[r->track].kind != ST_TRACK_SAMPLES) continue;
      add_samples(bs, sp[i].row, sp[i].lo, sp[i].hi < r->count ? sp[i].hi : r->count);
    }
    return;
  }
  for (uint32_t tr = 0; tr < bs->ntracks && !bs->nomem; tr++) {
    const st_track *k = &bs->tracks[tr];
    if (k->kind != ST_TRACK_SAMPLES || !on_thread(bs, tr, q->track)) continue;
    for (uint32_t r = k->first_row; r < k->first_row + k->row_count && r < bs->nrows; r++) {
      uint32_t lo = st_row_first_start_ge(&bs->rows[r], q->t0);
      uint32_t hi = st_row_first_start_ge(&bs->rows[r], q->t1);
      if (lo < hi) add_samples(bs, r, lo, hi);
    }
  }
}

/* ==== 3. slices =========================================================== */

static int push3(bstate *bs, uint32_t a, uint32_t b, uint32_t c) {
  if (!st_grow_from(bs->a, (void **)&bs->stack, &bs->cstack, bs->nstack + 3, sizeof *bs->stack, 64))
    return bs->nomem = 1, 0;
  bs->stack[bs->nstack++] = a;
  bs->stack[bs->nstack++] = b;
  bs->stack[bs->nstack++] = c;
  return 1;
}

static int64_t end_of(const st_row *r, uint32_t i) {
  int64_t s = r->start[i], d = r->dur[i];
  return s > INT64_MAX - d ? INT64_MAX : s + d;
}

/* The slice row[i] under node `parent`, and everything nested in it,
 * clipped to [lo, hi). Children are the next row's slices starting inside
 * it (rows of a base slice track are nesting depths; an overflow track's
 * rows are not, so its slices stand alone). */
static void add_slice_tree(bstate *bs, uint32_t row, uint32_t i, uint32_t parent, int64_t lo,
                           int64_t hi) {
  if (!push3(bs, row, i, parent)) return;
  while (bs->nstack && !bs->nomem) {
    bs->nstack -= 3;
    uint32_t r = bs->stack[bs->nstack], j = bs->stack[bs->nstack + 1];
    uint32_t pn = bs->stack[bs->nstack + 2];
    const st_row *R = &bs->rows[r];
    int64_t s = R->start[j], e = end_of(R, j);
    int64_t cs = s > lo ? s : lo, ce = e < hi ? e : hi;
    uint64_t dur = ce > cs ? (uint64_t)(ce - cs) : 0;
    uint32_t node = child_of(bs, pn, R->name[j]);
    if (node == UINT32_MAX) return;
    bs->n[node].total += dur;
    bs->n[node].count++;
    contribute(bs, r, j, node);
    const st_track *tr = &bs->tracks[R->track];
    if (tr->overflow || r + 1 >= tr->first_row + tr->row_count || r + 1 >= bs->nrows) continue;
    const st_row *C = &bs->rows[r + 1];
    uint32_t a = st_row_first_start_ge(C, s), a2 = st_row_first_end_gt(C, cs);
    uint32_t b = st_row_first_start_ge(C, e), b2 = st_row_first_start_ge(C, ce);
    if (a2 > a) a = a2;
    if (b2 < b) b = b2;
    for (uint32_t c = b; c > a && !bs->nomem; c--) push3(bs, r + 1, c - 1, node);
  }
}

/* Whether the slice row[i] lies inside a selected slice of a lower depth. */
static int has_selected_ancestor(const bstate *bs, const st_selection *sel, uint32_t row,
                                 uint32_t i) {
  const st_row *R = &bs->rows[row];
  const st_track *tr = &bs->tracks[R->track];
  if (tr->overflow) return 0;
  int64_t s = R->start[i], e = end_of(R, i);
  for (uint32_t k = row; k > tr->first_row;) {
    k--;
    const st_row *P = &bs->rows[k];
    uint32_t j = st_row_first_start_gt(P, s);
    if (j == 0) return 0;
    j--;
    if (end_of(P, j) < e) return 0; /* not nested (cannot happen in a base track) */
    if (st_selection_contains(sel, k, j)) return 1;
  }
  return 0;
}

static void build_slices(bstate *bs, const st_flame_query *q) {
  if (q->sel) {
    uint32_t ns;
    const st_sel_span *sp = st_selection_spans(q->sel, &ns);
    for (uint32_t k = 0; k < ns && !bs->nomem; k++) {
      if (sp[k].row >= bs->nrows) continue;
      const st_row *r = &bs->rows[sp[k].row];
      if (r->track >= bs->ntracks || bs->tracks[r->track].kind != ST_TRACK_SLICES) continue;
      uint32_t hi = sp[k].hi < r->count ? sp[k].hi : r->count;
      for (uint32_t i = sp[k].lo; i < hi && !bs->nomem; i++)
        if (!has_selected_ancestor(bs, q->sel, sp[k].row, i))
          add_slice_tree(bs, sp[k].row, i, 0, INT64_MIN, INT64_MAX);
    }
    return;
  }
  for (uint32_t tr = 0; tr < bs->ntracks && !bs->nomem; tr++) {
    const st_track *k = &bs->tracks[tr];
    if (k->kind != ST_TRACK_SLICES || !k->row_count || !on_thread(bs, tr, q->track)) continue;
    /* roots: the first row of a base track, every row of an overflow track */
    uint32_t last = k->overflow ? k->first_row + k->row_count : k->first_row + 1;
    for (uint32_t r = k->first_row; r < last && r < bs->nrows; r++) {
      const st_row *R = &bs->rows[r];
      uint32_t lo = st_row_first_end_gt(R, q->t0), hi = st_row_first_start_ge(R, q->t1);
      for (uint32_t i = lo; i < hi && !bs->nomem; i++) add_slice_tree(bs, r, i, 0, q->t0, q->t1);
    }
  }
}

/* ==== 4. layout =========================================================== */

typedef struct sort_ctx {
  const tnode *n;
  const st_strtab *s;
} sort_ctx;

/* children order: total desc, then name (bytes), then creation order */
static int child_before(const sort_ctx *c, uint32_t x, uint32_t y) {
  if (c->n[x].total != c->n[y].total) return c->n[x].total > c->n[y].total;
  size_t lx, ly;
  const char *sx = st_strtab_get(c->s, c->n[x].name, &lx);
  const char *sy = st_strtab_get(c->s, c->n[y].name, &ly);
  int m = memcmp(sx, sy, lx < ly ? lx : ly);
  if (m || lx != ly) return m ? m < 0 : lx < ly;
  return x < y;
}

static inline int child_less(const sort_ctx *c, const uint32_t *x, const uint32_t *y) {
  return child_before(c, *x, *y);
}
ST_DEFINE_MERGE_SORT_CTX(sort_children, uint32_t, const sort_ctx *, child_less)

static int contrib_less(const void *x, const void *y) {
  const contrib *a = x, *b = y;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static int layout(bstate *bs, st_flame_source src) {
  st_flame *f = bs->f;
  uint32_t n = bs->nn;
  tnode *t = bs->n;
  /* totals bottom-up (children were created after their parents) */
  if (src == ST_FLAME_SAMPLES) {
    for (uint32_t i = 0; i < n; i++) {
      t[i].total = t[i].self;
      t[i].tns = t[i].sns;
    }
    for (uint32_t i = n; i-- > 1;) {
      t[t[i].parent].total += t[i].total;
      t[t[i].parent].tns += t[i].tns;
    }
    for (uint32_t i = 0; i < n; i++) t[i].count = t[i].total;
  } else {
    t[0].total = 0;
    for (uint32_t i = 1; i < n; i++)
      if (t[i].parent == 0) t[0].total += t[i].total;
    uint64_t *kids = st_calloc(bs->a, n, sizeof *kids);
    if (!kids) return 0;
    for (uint32_t i = 1; i < n; i++) kids[t[i].parent] += t[i].total;
    for (uint32_t i = 0; i < n; i++) {
      t[i].self = t[i].total > kids[i] ? t[i].total - kids[i] : 0;
      t[i].tns = t[i].total;
      t[i].sns = t[i].self;
    }
    st_free(bs->a, kids);
  }
  /* children lists (counting sort by parent), each sorted */
  uint32_t *first = st_calloc(bs->a, (size_t)n + 1, sizeof *first);
  uint32_t *list = st_realloc_array(bs->a, NULL, n, sizeof *list);
  uint32_t *tmp = st_realloc_array(bs->a, NULL, n, sizeof *tmp);
  uint32_t *size = st_realloc_array(bs->a, NULL, n, sizeof *size);
  uint32_t *newi = st_realloc_array(bs->a, NULL, n, sizeof *newi);
  f->nodes = st_realloc_array(&f->alloc, NULL, n, sizeof *f->nodes);
  int ok = first && list && tmp && size && newi && f->nodes;
  if (ok) {
    for (uint32_t i = 1; i < n; i++) first[t[i].parent + 1]++;
    for (uint32_t i = 0; i < n; i++) first[i + 1] += first[i];
    memcpy(tmp, first, (size_t)n * sizeof *tmp);
    for (uint32_t i = 1; i < n; i++) list[tmp[t[i].parent]++] = i;
    sort_ctx sc = {t, st_trace_strings(bs->t)};
    for (uint32_t i = 0; i < n; i++)
      sort_children(&sc, list + first[i], tmp, first[i + 1] - first[i]);
    for (uint32_t i = 0; i < n; i++) size[i] = 1;
    for (uint32_t i = n; i-- > 1;) size[t[i].parent] += size[i];
    /* preorder: a node's index is its parent's + 1 + the sizes of the
     * siblings before it; x likewise with totals */
    f->nodes[0] = (st_flame_node){.name = t[0].name, .parent = UINT32_MAX, .end = n};
    newi[0] = 0;
    f->max_depth = 0;
    for (uint32_t i = 0; i < n; i++) { /* creation order: parents first */
      uint32_t ni = newi[i], at = ni + 1;
      uint64_t x = f->nodes[ni].x;
      for (uint32_t k = first[i]; k < first[i + 1]; k++) {
        uint32_t c = list[k];
        newi[c] = at;
        f->nodes[at] = (st_flame_node){.name = t[c].name,
                                       .parent = ni,
                                       .depth = f->nodes[ni].depth + 1,
                                       .end = at + size[c],
                                       .x = x};
        if (f->nodes[at].depth > f->max_depth) f->max_depth = f->nodes[at].depth;
        at += size[c];
        x += t[c].total;
      }
    }
    for (uint32_t i = 0; i < n; i++) {
      st_flame_node *o = &f->nodes[newi[i]];
      o->total = t[i].total;
      o->self = t[i].self;
      o->total_ns = t[i].tns;
      o->self_ns = t[i].sns;
      o->count = t[i].count;
    }
    for (size_t k = 0; k < bs->nev; k++) bs->ev[k].node = newi[bs->ev[k].node];
    size_t k = 1; /* samples arrive in (row, index) order: sort only if not */
    while (k < bs->nev && contrib_less(&bs->ev[k - 1], &bs->ev[k]) < 0) k++;
    if (k < bs->nev) qsort(bs->ev, bs->nev, sizeof *bs->ev, contrib_less);
    f->count = n;
  }
  st_free(bs->a, first);
  st_free(bs->a, list);
  st_free(bs->a, tmp);
  st_free(bs->a, size);
  st_free(bs->a, newi);
  return ok;
}

/* ==== 5. public API ======================================================= */

st_flame *st_flame_create(const st_alloc *a) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_flame *f = st_calloc(&al, 1, sizeof *f);
  if (f) f->alloc = al;
  return f;
}

static void clear(st_flame *f) {
  st_free(&f->alloc, f->nodes);
  st_free(&f->alloc, f->ev);
  f->nodes = NULL;
  f->ev = NULL;
  f->count = f->max_depth = 0;
  f->nev = 0;
}

void st_flame_destroy(st_flame *f) {
  if (!f) return;
  clear(f);
  st_free(&f->alloc, f->interval);
  st_alloc a = f->alloc;
  st_free(&a, f);
}

st_code st_flame_build(st_flame *f, const st_trace *t, const st_flame_query *q) {
  if (!f || !t || !q || (q->source != ST_FLAME_SAMPLES && q->source != ST_FLAME_SLICES))
    return ST_ERR_ARG;
  clear(f);
  f->source = q->source;
  bstate bs = {.f = f, .t = t, .a = &f->alloc};
  bs.rows = st_trace_rows(t, &bs.nrows);
  bs.tracks = st_trace_tracks(t, &bs.ntracks);
  if (child_of(&bs, UINT32_MAX, ST_STR_EMPTY) != 0) { /* the root */
    st_free(&f->alloc, bs.n);
    st_u64map_free(&bs.map, &f->alloc);
    return ST_ERR_NOMEM;
  }
  if (q->sel || q->t0 < q->t1) {
    if (q->source == ST_FLAME_SAMPLES)
      build_samples(&bs, q);
    else
      build_slices(&bs, q);
  }
  int ok = !bs.nomem && layout(&bs, q->source);
  if (ok) {
    f->ev = bs.ev;
    f->nev = bs.nev;
    bs.ev = NULL;
  }
  st_free(&f->alloc, bs.n);
  st_u64map_free(&bs.map, &f->alloc);
  st_free(&f->alloc, bs.fmemo);
  st_free(&f->alloc, bs.fbase);
  st_free(&f->alloc, bs.chain);
  st_free(&f->alloc, bs.ev);
  st_free(&f->alloc, bs.stack);
  if (!ok) {
    clear(f);
    return ST_ERR_NOMEM;
  }
  return ST_OK;
}

const st_flame_node *st_flame_nodes(const st_flame *f, uint32_t *count) {
  if (count) *count = f ? f->count : 0;
  return f ? f->nodes : NULL;
}
st_flame_source st_flame_source_of(const st_flame *f) { return f ? f->source : ST_FLAME_SAMPLES; }
uint32_t st_flame_max_depth(const st_flame *f) { return f ? f->max_depth : 0; }
uint64_t st_flame_events(const st_flame *f) { return f ? f->nev : 0; }

uint32_t st_flame_hit(const st_flame *f, double fx, uint32_t depth) {
  if (!f || !f->count || !(fx >= 0) || fx >= 1 || depth > f->max_depth) return UINT32_MAX;
  const st_flame_node *n = f->nodes;
  double v = fx * (double)n[0].total;
  uint32_t cur = 0;
  for (uint32_t d = 0; d < depth; d++) {
    uint32_t c = cur + 1, next = UINT32_MAX;
    while (c < n[cur].end) {
      if (v >= (double)n[c].x && v < (double)n[c].x + (double)n[c].total) {
        next = c;
        break;
      }
      c = n[c].end;
    }
    if (next == UINT32_MAX) return UINT32_MAX;
    cur = next;
  }
  return n[cur].total ? cur : UINT32_MAX;
}

st_code st_flame_select(const st_flame *f, uint32_t node, st_selection *out) {
  if (!f || !out || node >= f->count) return ST_ERR_ARG;
  st_selection_clear(out);
  uint32_t lo = node, hi = f->source == ST_FLAME_SAMPLES ? f->nodes[node].end : node + 1;
  size_t k = 0;
  while (k < f->nev) {
    const contrib *c = &f->ev[k];
    if (c->node < lo || c->node >= hi) {
      k++;
      continue;
    }
    uint32_t row = c->row, first = c->index, last = c->index;
    k++;
    while (k < f->nev && f->ev[k].row == row && f->ev[k].index == last + 1 && f->ev[k].node >= lo &&
           f->ev[k].node < hi) {
      last++;
      k++;
    }
    if (st_selection_add(out, row, first, last + 1) != ST_OK) return ST_ERR_NOMEM;
  }
  return ST_OK;
}
