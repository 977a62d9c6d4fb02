/* idle_causes.c: why a device is idle (analyze.h "idle causes"): one sweep
 * in time over a device's idle gaps and its host's slices, each moment of a
 * gap credited to the deepest host slice running then (wrappers left out),
 * or to "nothing recorded"; per name the time, the gaps it covers and its
 * longest stretch; the ST_ANALYZE_CAUSES largest kept, the rest as "other",
 * each cause's gaps listed once, in time order.
 */
#include "analyze.h"
#include "analyze_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct piece {
  int64_t a, b;
  uint32_t gap, row, index, depth;
} piece;

/* The heap's order: the deeper first, the lower row on ties. */
static int deeper(const piece *p, uint32_t x, uint32_t y) {
  return p[x].depth > p[y].depth || (p[x].depth == p[y].depth && p[x].row < p[y].row);
}

static void ph_push(const piece *p, uint32_t *h, uint32_t *n, uint32_t x) {
  uint32_t i = (*n)++;
  h[i] = x;
  while (i > 0 && deeper(p, h[i], h[(i - 1) / 2])) {
    uint32_t t = h[i];
    h[i] = h[(i - 1) / 2];
    h[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static void ph_pop(const piece *p, uint32_t *h, uint32_t *n) {
  h[0] = h[--(*n)];
  for (uint32_t i = 0;;) {
    uint32_t l = 2 * i + 1, r = l + 1, s = i;
    if (l < *n && deeper(p, h[l], h[s])) s = l;
    if (r < *n && deeper(p, h[r], h[s])) s = r;
    if (s == i) return;
    uint32_t t = h[i];
    h[i] = h[s];
    h[s] = t;
    i = s;
  }
}

typedef struct cause_acc {
  uint32_t id, last_gap, gaps;
  int64_t ns, cur, best;
  uint32_t best_gap;
  st_event_ref best_ref;
} cause_acc;

typedef struct id_gap {
  uint32_t id, gap; /* a name (UINT32_MAX: nothing recorded) has a part of a gap */
} id_gap;

typedef struct causes_ws {
  id_gap *ig; /* in gap order */
  size_t nig, cap_ig;
  piece *p;
  size_t np, cap;
  uint32_t *heap;
  uint32_t *slot; /* per name id: index + 1 into acc */
  cause_acc *acc;
  uint32_t nacc, cap_acc;
} causes_ws;

/* x becomes active: kept in w->p, its index pushed on the heap. */
static int push_active(const st_alloc *a, causes_ws *w, uint32_t *hn, piece x) {
  if (w->np == w->cap) { /* indexes on the heap are uint32_t */
    void *v[2] = {w->p, w->heap};
    static const size_t elem[2] = {sizeof *w->p, sizeof *w->heap};
    int ok = st_grow_each(a, v, elem, 2, &w->cap, w->np + 1, 256, UINT32_MAX - 1);
    w->p = v[0], w->heap = v[1];
    if (!ok) return 0;
  }
  w->p[w->np] = x;
  ph_push(w->p, w->heap, hn, (uint32_t)w->np++);
  return 1;
}

static int push_ig(const st_alloc *a, causes_ws *w, uint32_t id, uint32_t gap) {
  if (w->nig == w->cap_ig) {
    void *v = w->ig;
    int ok = st_grow_upto(a, &v, &w->cap_ig, w->nig + 1, sizeof *w->ig, 256, UINT32_MAX - 1);
    w->ig = v;
    if (!ok) return 0;
  }
  w->ig[w->nig++] = (id_gap){id, gap};
  return 1;
}

static int credit(const st_alloc *a, causes_ws *w, const st_trace *t, const piece *x, int64_t len,
                  uint32_t gap) {
  uint32_t id = st_trace_rows(t, NULL)[x->row].name[x->index];
  uint32_t s = w->slot[id];
  if (!s) {
    if (w->nacc == w->cap_acc) {
      void *na = w->acc;
      if (!st_grow32(a, &na, &w->cap_acc, w->nacc + 1, sizeof *w->acc, 64)) return 0;
      w->acc = na;
    }
    memset(&w->acc[w->nacc], 0, sizeof w->acc[w->nacc]);
    w->acc[w->nacc].id = id;
    s = w->slot[id] = ++w->nacc;
  }
  cause_acc *c = &w->acc[s - 1];
  c->ns += len;
  if (c->last_gap != gap + 1) {
    c->last_gap = gap + 1;
    c->gaps++;
    c->cur = 0;
    if (!push_ig(a, w, id, gap)) return 0;
  }
  c->cur += len;
  if (c->cur > c->best) {
    c->best = c->cur;
    c->best_gap = gap;
    c->best_ref = (st_event_ref){x->row, x->index};
  }
  return 1;
}

static int cmp_acc(const void *x, const void *y) {
  const cause_acc *a = x, *b = y;
  if (a->ns != b->ns) return a->ns > b->ns ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* The gaps of the causes, one pass over the (name, gap) parts: a part goes
 * to its name's cause (w->slot: index + 1 into the sorted w->acc; the first
 * nnamed are named), else to "other" (nnamed), nothing recorded to
 * nnamed + 1; each cause's gaps once each, in time order, contiguous in
 * an->cgaps from first[t], count[t] of them. */
static int bucket_gaps(st_analysis *an, const causes_ws *w, const ivlist *gl, uint32_t nnamed,
                       uint32_t *first, uint32_t *count) {
  uint32_t last[ST_ANALYZE_CAUSES + 2], pos[ST_ANALYZE_CAUSES + 2], nt = nnamed + 2;
  uint64_t total = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t t = 0; t < nt; t++) last[t] = UINT32_MAX;
    for (size_t i = 0; i < w->nig; i++) {
      const id_gap *x = &w->ig[i];
      uint32_t t = x->id == UINT32_MAX ? nnamed + 1 : w->slot[x->id] - 1;
      if (t > nnamed && x->id != UINT32_MAX) t = nnamed;
      if (x->gap == last[t]) continue;
      last[t] = x->gap;
      if (pass == 0)
        count[t]++, total++;
      else
        an->cgaps[pos[t]++] = (st_an_span){gl->v[x->gap].t0, gl->v[x->gap].t1};
    }
    if (pass == 0) {
      if (total > UINT32_MAX - an->ncgaps) return 0;
      uint32_t need = an->ncgaps + (uint32_t)total;
      if (need > an->cap_cgaps) {
        st_an_span *nv = st_realloc_array(&an->alloc, an->cgaps, need, sizeof *nv);
        if (!nv) return 0;
        an->cgaps = nv;
        an->cap_cgaps = need;
      }
      for (uint32_t t = 0, at = an->ncgaps; t < nt; at += count[t++]) first[t] = pos[t] = at;
    }
  }
  an->ncgaps += (uint32_t)total;
  return 1;
}

static int push_cause(st_analysis *an, st_an_cause c) {
  if (an->ncauses == an->cap_causes) {
    void *nv = an->causes;
    if (!st_grow32(&an->alloc, &nv, &an->cap_causes, an->ncauses + 1, sizeof *an->causes, 32))
      return 0;
    an->causes = nv;
  }
  an->causes[an->ncauses++] = c;
  return 1;
}

/* A cause row of device d: what, its ns, its longest gap, its gaps'
 * [first, first + count) in an->cgaps. */
static st_an_cause cause_row(uint32_t d, st_cause_what what, int64_t ns, ivl gap, uint32_t first,
                             uint32_t count) {
  st_an_cause cs = {.device = d, .what = (uint8_t)what, .ns = ns};
  cs.gap_t0_ns = gap.t0;
  cs.gap_t1_ns = gap.t1;
  cs.first_gap = first;
  cs.gaps = count;
  return cs;
}

/* Device d's idle causes (analyze.h) from its gaps gl and the host rows. */
st_code an_idle_causes(st_analysis *an, trace_ctx *c, uint32_t k, uint32_t d, const rowlist *host,
                       const ivlist *gl, merger *m) {
  const st_alloc *a = &an->alloc;
  st_an_device *dev = &an->devices[d];
  dev->first_cause = an->ncauses;
  dev->causes = 0;
  if (!gl->n) return ST_OK;
  causes_ws w;
  memset(&w, 0, sizeof w);
  w.slot = st_calloc(a, c->ncls ? c->ncls : 1, sizeof *w.slot);
  int ok = w.slot != NULL;
  const st_row *rows = st_trace_rows(c->t, NULL);
  /* one sweep in time over the gaps and the host slices (in start order
   * through the merger): the active slices in a heap, the deepest on top
   * (ended ones dropped when they come up) */
  an_merge_init(m, rows, host->v, host->n);
  uint32_t pr = 0, pi = 0, hn = 0;
  int has = an_merge_next(m, &pr, &pi);
  int64_t nothing = 0, nothing_best = 0;
  uint32_t nothing_best_gap = 0;
#define PENDING_START (rows[pr].start[pi])
#define TAKE_UNTIL(x)                                                                              \
  while (ok && has && PENDING_START <= (x)) {                                                      \
    int64_t e_ = st_sat_add(rows[pr].start[pi], rows[pr].dur[pi]);                                 \
    if (e_ > (x) && an_kind_at(an, c, k, pr, pi) != ST_KIND_WRAPPER)                               \
      ok = push_active(a, &w, &hn, (piece){rows[pr].start[pi], e_, 0, pr, pi, rows[pr].depth});    \
    has = an_merge_next(m, &pr, &pi);                                                              \
  }
  for (uint32_t j = 0; ok && j < gl->n; j++) {
    int64_t x = gl->v[j].t0, none_here = 0;
    TAKE_UNTIL(x);
    while (ok && x < gl->v[j].t1) {
      while (hn && w.p[w.heap[0]].b <= x) ph_pop(w.p, w.heap, &hn);
      int64_t nx = gl->v[j].t1;
      if (has && PENDING_START < nx) nx = PENDING_START;
      if (hn && w.p[w.heap[0]].b < nx) nx = w.p[w.heap[0]].b;
      if (hn)
        ok = credit(a, &w, c->t, &w.p[w.heap[0]], nx - x, j);
      else
        none_here += nx - x;
      x = nx;
      TAKE_UNTIL(x);
    }
    if (none_here && ok) ok = push_ig(a, &w, UINT32_MAX, j);
    if (none_here) {
      nothing += none_here;
      if (none_here > nothing_best) nothing_best = none_here, nothing_best_gap = j;
    }
  }
#undef TAKE_UNTIL
#undef PENDING_START
  if (ok) {
    for (uint32_t i = 0; i < w.nacc; i++) c->blocked[w.acc[i].id] += w.acc[i].ns;
    if (w.nacc) qsort(w.acc, w.nacc, sizeof *w.acc, cmp_acc);
    for (uint32_t i = 0; i < w.nacc; i++) w.slot[w.acc[i].id] = i + 1;
    uint32_t nnamed = w.nacc < ST_ANALYZE_CAUSES ? w.nacc : ST_ANALYZE_CAUSES;
    uint32_t gfirst[ST_ANALYZE_CAUSES + 2], gcount[ST_ANALYZE_CAUSES + 2] = {0};
    ok = bucket_gaps(an, &w, gl, nnamed, gfirst, gcount);
    int64_t other = 0;
    uint32_t other_gap = 0;
    int64_t other_best = 0;
    for (uint32_t i = 0; ok && i < w.nacc; i++) {
      const cause_acc *x = &w.acc[i];
      if (i >= ST_ANALYZE_CAUSES) {
        other += x->ns;
        if (x->best > other_best) other_best = x->best, other_gap = x->best_gap;
        continue;
      }
      st_an_cause cs;
      memset(&cs, 0, sizeof cs);
      cs.device = d;
      cs.what = ST_CAUSE_SLICE;
      cs.ref = x->best_ref;
      st_event_ref p;
      if (an_parent_of(c->t, x->best_ref.row, x->best_ref.index, &p) &&
          an_kind_at(an, c, k, p.row, p.index) != ST_KIND_WRAPPER) {
        cs.has_parent = 1;
        cs.parent = p;
      }
      cs.ns = x->ns;
      cs.gap_t0_ns = gl->v[x->best_gap].t0;
      cs.gap_t1_ns = gl->v[x->best_gap].t1;
      cs.first_gap = gfirst[i];
      cs.gaps = gcount[i];
      ok = push_cause(an, cs);
    }
    if (ok && other)
      ok = push_cause(an, cause_row(d, ST_CAUSE_OTHER, other, gl->v[other_gap], gfirst[nnamed],
                                    gcount[nnamed]));
    if (ok && nothing)
      ok = push_cause(an, cause_row(d, ST_CAUSE_NOTHING, nothing, gl->v[nothing_best_gap],
                                    gfirst[nnamed + 1], gcount[nnamed + 1]));
    dev->causes = an->ncauses - dev->first_cause;
  }
  st_free(a, w.p);
  st_free(a, w.ig);
  st_free(a, w.heap);
  st_free(a, w.slot);
  st_free(a, w.acc);
  return ok ? ST_OK : ST_ERR_NOMEM;
}
