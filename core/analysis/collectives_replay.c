/* collectives_replay.c: each step replayed from its collectives
 * (collectives.h "critical path", "what-if"): per trace the compute
 * segments between its collectives, each collective ending when its last
 * member arrives; the critical path walked back from the step's end, and
 * the step time with one trace's segments set to the median (what it
 * costs).
 */
#include "collectives.h"

#include "analyze_internal.h"
#include "collectives_internal.h"
#include "merge_sort.h"

#include <stdlib.h>
#include <string.h>

/* One step's replay: the traces with the step (slots), their instances by
 * arrival (m per trace), m + 1 compute segments each; the collectives of
 * the step by their end. */
typedef struct rstep {
  uint32_t ntr, nins, norder;
  uint32_t *tr;          /* per trace slot: trace */
  uint32_t *first;       /* per trace slot: first instance slot (ntr + 1 entries) */
  int64_t *start, *stop; /* per trace slot: its aligned step window */
  uint32_t *ins;         /* per instance slot: index into c->in */
  uint32_t *tslot;       /* per instance slot: its trace slot */
  int64_t *g;            /* per trace slot t: g[first[t] + t + j], j <= m */
  int64_t *arr, *end;    /* per instance slot: replayed */
  int64_t *tend;         /* per trace slot: replayed step end */
  uint32_t *order;       /* collectives */
  int64_t *gmed;         /* per ordinal */
} rstep;

static int64_t seg(const rstep *s, uint32_t t, uint32_t j, uint32_t over) {
  return t == over ? s->gmed[j] : s->g[s->first[t] + t + j];
}

/* Replays the step (over: the trace slot whose segments are the medians,
 * UINT32_MAX: none); slot_of: per member, its instance slot or UINT32_MAX.
 * Returns the step time. */
static int64_t replay(const st_collectives *c, rstep *s, const uint32_t *slot_of, uint32_t over) {
  for (uint32_t x = 0; x < s->norder; x++) {
    const st_coll *cl = &c->colls[s->order[x]];
    int64_t last = INT64_MIN;
    for (uint32_t m = 0; m < cl->members; m++) {
      uint32_t mi = cl->first_member + m, p = slot_of[mi];
      int64_t a = c->members[mi].start_ns;
      if (p != UINT32_MAX) {
        uint32_t t = s->tslot[p], j = p - s->first[t];
        a = st_sat_add(j ? s->end[p - 1] : s->start[t], seg(s, t, j, over));
        s->arr[p] = a;
      }
      if (a > last) last = a;
    }
    int64_t e = st_sat_add(last, cl->dur_ns);
    for (uint32_t m = 0; m < cl->members; m++) {
      uint32_t p = slot_of[cl->first_member + m];
      if (p != UINT32_MAX) s->end[p] = e;
    }
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t t = 0; t < s->ntr; t++) {
    uint32_t m = s->first[t + 1] - s->first[t];
    int64_t from = m ? s->end[s->first[t + 1] - 1] : s->start[t];
    s->tend[t] = st_sat_add(from, seg(s, t, m, over));
    if (s->tend[t] > hi) hi = s->tend[t];
    if (s->start[t] < lo) lo = s->start[t];
  }
  return s->ntr ? hi - lo : 0;
}

static int push_seg(st_collectives *c, st_coll_segment sg) {
  if (c->nsegs == c->capsegs) {
    void *nv = c->segs;
    if (!st_grow32(&c->alloc, &nv, &c->capsegs, c->nsegs + 1, sizeof *c->segs, 256)) return 0;
    c->segs = nv;
  }
  c->segs[c->nsegs++] = sg;
  return 1;
}

/* The critical path of the replayed step (no override) into c->segs. */
static int path(st_collectives *c, const rstep *s, const uint32_t *slot_of, int64_t step,
                int64_t total) {
  if (!s->ntr) return 1;
  uint32_t t = 0;
  for (uint32_t u = 1; u < s->ntr; u++)
    if (s->tend[u] > s->tend[t]) t = u;
  uint32_t from = c->nsegs;
  uint32_t m = s->first[t + 1] - s->first[t];
  int64_t at = m ? s->end[s->first[t + 1] - 1] : s->start[t];
  if (!push_seg(c, (st_coll_segment){s->tr[t], 0, 0, at, s->tend[t]})) return 0;
  int32_t j = (int32_t)m - 1;
  for (uint32_t guard = 0; j >= 0 && guard < s->nins + 1; guard++) {
    uint32_t p = s->first[t] + (uint32_t)j;
    uint32_t x = c->in[s->ins[p]].coll;
    const st_coll *cl = &c->colls[x];
    /* its last arrival in the replay */
    uint32_t bt = UINT32_MAX, bslot = UINT32_MAX;
    int64_t last = INT64_MIN;
    for (uint32_t q = 0; q < cl->members; q++) {
      uint32_t mi = cl->first_member + q, ps = slot_of[mi];
      int64_t a = ps != UINT32_MAX ? s->arr[ps] : c->members[mi].start_ns;
      if (a > last || (a == last && c->members[mi].trace < bt)) {
        last = a;
        bt = c->members[mi].trace;
        bslot = ps;
      }
    }
    if (!push_seg(c, (st_coll_segment){bt, 1, x, last, s->end[p]})) return 0;
    if (bslot == UINT32_MAX) break;
    t = s->tslot[bslot];
    j = (int32_t)(bslot - s->first[t]);
    int64_t prev = j ? s->end[bslot - 1] : s->start[t];
    if (!push_seg(c, (st_coll_segment){s->tr[t], 0, 0, prev, s->arr[bslot]})) return 0;
    j--;
  }
  /* time order */
  for (uint32_t a = from, b = c->nsegs - 1; a < b; a++, b--) {
    st_coll_segment tmp = c->segs[a];
    c->segs[a] = c->segs[b];
    c->segs[b] = tmp;
  }
  c->paths[c->npaths++] = (st_coll_path){step, total, from, c->nsegs - from};
  return 1;
}

static int cmp_step_inst(const void *p, const void *q, const inst *in) {
  const inst *a = &in[*(const uint32_t *)p], *b = &in[*(const uint32_t *)q];
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  return (a->coll > b->coll) - (a->coll < b->coll);
}

static inline int step_inst_less(const inst *in, const uint32_t *a, const uint32_t *b) {
  return cmp_step_inst(a, b, in) < 0;
}
ST_DEFINE_MERGE_SORT_CTX(sort_idx, uint32_t, const inst *, step_inst_less)

static int cmp_end(const void *p, const void *q, const st_coll *cl) {
  const st_coll *a = &cl[*(const uint32_t *)p], *b = &cl[*(const uint32_t *)q];
  if (a->end_ns != b->end_ns) return a->end_ns < b->end_ns ? -1 : 1;
  return a->last_ns < b->last_ns ? -1 : a->last_ns > b->last_ns;
}

st_code coll_replays(st_collectives *c) {
  const st_alloc *a = &c->alloc;
  const st_analysis *an = c->an;
  uint32_t nt = st_analysis_traces(an), n = 0, ns;
  const st_an_step *steps = st_analysis_steps(an, &ns);
  size_t N = c->nin ? c->nin : 1;
  uint32_t *idx = st_calloc(a, N, sizeof *idx), *tmp = st_calloc(a, N, sizeof *tmp);
  uint32_t *slot_of = st_calloc(a, N, sizeof *slot_of);
  rstep s;
  memset(&s, 0, sizeof s);
  s.tr = st_calloc(a, N, sizeof *s.tr);
  s.first = st_calloc(a, N + 1, sizeof *s.first);
  s.start = st_calloc(a, N, sizeof *s.start);
  s.stop = st_calloc(a, N, sizeof *s.stop);
  s.ins = st_calloc(a, N, sizeof *s.ins);
  s.tslot = st_calloc(a, N, sizeof *s.tslot);
  s.g = st_calloc(a, 2 * N + 1, sizeof *s.g);
  s.arr = st_calloc(a, N, sizeof *s.arr);
  s.end = st_calloc(a, N, sizeof *s.end);
  s.tend = st_calloc(a, N, sizeof *s.tend);
  s.order = st_calloc(a, N, sizeof *s.order);
  s.gmed = st_calloc(a, N + 1, sizeof *s.gmed);
  int64_t *vals = st_calloc(a, N, sizeof *vals);
  uint32_t *wcount = st_calloc(a, nt ? nt : 1, sizeof *wcount);
  uint8_t *seen = st_calloc(a, c->ncolls ? c->ncolls : 1, 1);
  c->what_if = st_calloc(a, nt ? nt : 1, sizeof *c->what_if);
  c->what_if_has = st_calloc(a, nt ? nt : 1, 1);
  c->paths = st_calloc(a, N, sizeof *c->paths);
  st_code rc = ST_OK;
  if (!idx || !tmp || !slot_of || !s.tr || !s.first || !s.start || !s.stop || !s.ins || !s.tslot ||
      !s.g || !s.arr || !s.end || !s.tend || !s.order || !s.gmed || !vals || !wcount || !seen ||
      !c->what_if || !c->what_if_has || !c->paths) {
    rc = ST_ERR_NOMEM;
    goto done;
  }
  for (uint32_t i = 0; i < c->nin; i++) {
    slot_of[i] = UINT32_MAX;
    if (c->in[i].step != 0) idx[n++] = i;
  }
  sort_idx(c->in, idx, tmp, n);
  for (uint32_t lo = 0; lo < n;) {
    int64_t step = c->in[idx[lo]].step;
    uint32_t hi = lo;
    while (hi < n && c->in[idx[hi]].step == step) hi++;
    /* trace slots and instance slots */
    s.ntr = s.nins = s.norder = 0;
    for (uint32_t i = lo; i < hi; i++) {
      const inst *x = &c->in[idx[i]];
      if (!s.ntr || s.tr[s.ntr - 1] != x->trace) {
        uint32_t j = st_analysis_find_step(an, x->trace, step);
        if (j == UINT32_MAX || j >= ns) continue;
        s.tr[s.ntr] = x->trace;
        s.first[s.ntr] = s.nins;
        s.start[s.ntr] = st_coll_aligned(c, x->trace, steps[j].t0_ns);
        s.stop[s.ntr] = st_coll_aligned(c, x->trace, steps[j].t1_ns);
        s.ntr++;
      }
      s.ins[s.nins] = idx[i];
      s.tslot[s.nins] = s.ntr - 1;
      slot_of[x->pos] = s.nins;
      s.nins++;
    }
    s.first[s.ntr] = s.nins;
    /* segments */
    uint32_t maxm = 0;
    for (uint32_t t = 0; t < s.ntr; t++) {
      uint32_t f = s.first[t], m = s.first[t + 1] - f;
      int64_t *g = &s.g[f + t];
      int64_t prev = s.start[t];
      for (uint32_t j = 0; j < m; j++) {
        const inst *x = &c->in[s.ins[f + j]];
        g[j] = x->a - prev;
        prev = c->colls[x->coll].end_ns;
      }
      g[m] = s.stop[t] - prev;
      if (m + 1 > maxm) maxm = m + 1;
    }
    for (uint32_t j = 0; j < maxm; j++) {
      uint32_t k = 0;
      for (uint32_t t = 0; t < s.ntr; t++)
        if (s.first[t + 1] - s.first[t] + 1 > j) vals[k++] = s.g[s.first[t] + t + j];
      s.gmed[j] = k ? coll_median(vals, k) : 0;
    }
    /* the step's collectives by end */
    for (uint32_t p = 0; p < s.nins; p++) {
      uint32_t x = c->in[s.ins[p]].coll;
      if (!seen[x]) seen[x] = 1, s.order[s.norder++] = x;
    }
    for (uint32_t q = 0; q < s.norder; q++) seen[s.order[q]] = 0;
    for (uint32_t i = 1; i < s.norder; i++) { /* insertion sort by end */
      uint32_t v = s.order[i], j = i;
      while (j > 0 && cmp_end(&s.order[j - 1], &v, c->colls) > 0) {
        s.order[j] = s.order[j - 1];
        j--;
      }
      s.order[j] = v;
    }
    int64_t base = replay(c, &s, slot_of, UINT32_MAX);
    if (!path(c, &s, slot_of, step, base)) {
      rc = ST_ERR_NOMEM;
      goto done;
    }
    for (uint32_t t = 0; t < s.ntr; t++) {
      int64_t w = replay(c, &s, slot_of, t);
      c->what_if[s.tr[t]] += (double)(base - w);
      wcount[s.tr[t]]++;
    }
    for (uint32_t p = 0; p < s.nins; p++) slot_of[c->in[s.ins[p]].pos] = UINT32_MAX;
    lo = hi;
  }
  for (uint32_t k = 0; k < nt; k++) {
    c->what_if_has[k] = wcount[k] > 0;
    if (wcount[k]) c->what_if[k] /= wcount[k];
  }
done:
  st_free(a, idx), st_free(a, tmp), st_free(a, slot_of), st_free(a, s.tr), st_free(a, s.first);
  st_free(a, s.start), st_free(a, s.stop), st_free(a, s.ins), st_free(a, s.tslot);
  st_free(a, s.g), st_free(a, s.arr), st_free(a, s.end), st_free(a, s.tend);
  st_free(a, s.order), st_free(a, s.gmed), st_free(a, vals), st_free(a, wcount);
  st_free(a, seen);
  return rc;
}
