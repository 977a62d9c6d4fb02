/* collectives_clock.c: each trace's clock offset from the collectives
 * matched across ranks (collectives.h "offsets"): per pair of traces the
 * median of their shared collectives' end differences, the traces joined
 * from the earliest; and an instant's aligned time (st_coll_aligned).
 */
#include "collectives.h"

#include "analyze_internal.h"
#include "collectives_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *p, const void *q) {
  int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
  return (a > b) - (a < b);
}

/* The median of v[0, n) (sorted in place; even n: the mean of the middle two). */
int64_t coll_median(int64_t *v, uint32_t n) {
  qsort(v, n, sizeof *v, cmp_i64);
  if (n % 2) return v[n / 2];
  int64_t x = v[n / 2 - 1], y = v[n / 2];
  return x + (y - x) / 2;
}

static int cmp_dbl(const void *p, const void *q) {
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

/* The k-th smallest of v[0, n) (v reordered; Wirth's selection). */
static double kth(double *v, uint32_t n, uint32_t k) {
  int64_t lo = 0, hi = (int64_t)n - 1, kk = k;
  while (lo < hi) {
    double pv = v[lo + (hi - lo) / 2];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pv) i++;
      while (v[j] > pv) j--;
      if (i <= j) {
        double t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    if (kk <= j)
      hi = j;
    else if (kk >= i)
      lo = i;
    else
      break;
  }
  return v[k];
}

static double median_d(double *v, uint32_t n) {
  if (n < 8) {
    qsort(v, n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  double hi = kth(v, n, n / 2);
  if (n % 2) return hi;
  double lo = v[0]; /* the largest of the lower half */
  for (uint32_t i = 1; i < n / 2; i++)
    if (v[i] > lo) lo = v[i];
  return (lo + hi) / 2;
}

/* Offsets (collectives.h), in double ns from the earliest end (exact for
 * these magnitudes; halves of medians kept), rounded at the end. */
st_code coll_offsets(st_collectives *c, inst **o) {
  const st_alloc *a = &c->alloc;
  uint32_t nt = st_analysis_traces(c->an);
  size_t N = c->nin ? c->nin : 1;
  c->offsets = st_calloc(a, nt ? nt : 1, sizeof *c->offsets);
  double *e = st_calloc(a, N, sizeof *e), *tmp = st_calloc(a, N, sizeof *tmp);
  double *mc = st_calloc(a, c->ncolls ? c->ncolls : 1, sizeof *mc);
  double *off = st_calloc(a, nt ? nt : 1, sizeof *off);
  uint32_t *by_trace = st_calloc(a, N, sizeof *by_trace);
  uint32_t *tfirst = st_calloc(a, (size_t)nt + 1, sizeof *tfirst);
  uint32_t *fill = st_calloc(a, nt ? nt : 1, sizeof *fill);
  uint32_t *tr = st_calloc(a, N, sizeof *tr), *cid = st_calloc(a, N, sizeof *cid);
  st_code rc = ST_OK;
  if (!c->offsets || !e || !tmp || !mc || !off || !by_trace || !tfirst || !fill || !tr || !cid) {
    rc = ST_ERR_NOMEM;
    goto done;
  }
  int64_t base = INT64_MAX;
  for (uint32_t i = 0; i < c->nin; i++) {
    int64_t v = st_sat_add(st_trace_origin_ns(st_analysis_trace(c->an, o[i]->trace)), o[i]->t_e);
    if (v < base) base = v;
  }
  for (uint32_t i = 0; i < c->nin; i++) {
    int64_t v = st_sat_add(st_trace_origin_ns(st_analysis_trace(c->an, o[i]->trace)), o[i]->t_e);
    e[i] = (double)(v - base);
    tr[i] = o[i]->trace;
    cid[i] = o[i]->coll;
  }
  /* member slots (in o's order) of each trace, over multi-member collectives */
  for (uint32_t i = 0; i < c->nin; i++)
    if (c->colls[o[i]->coll].members > 1) tfirst[o[i]->trace + 1]++;
  for (uint32_t k = 0; k < nt; k++) tfirst[k + 1] += tfirst[k];
  for (uint32_t i = 0; i < c->nin; i++)
    if (c->colls[o[i]->coll].members > 1) by_trace[tfirst[o[i]->trace] + fill[o[i]->trace]++] = i;
  for (int round = 0; round < 64; round++) {
    for (uint32_t x = 0; x < c->ncolls; x++) {
      const st_coll *cl = &c->colls[x];
      for (uint32_t m = 0; m < cl->members; m++) {
        uint32_t i = cl->first_member + m;
        tmp[m] = e[i] + off[tr[i]];
      }
      mc[x] = median_d(tmp, cl->members);
    }
    double moved = 0;
    for (uint32_t k = 0; k < nt; k++) {
      uint32_t n = tfirst[k + 1] - tfirst[k];
      if (!n) continue;
      for (uint32_t j = 0; j < n; j++) {
        uint32_t i = by_trace[tfirst[k] + j];
        tmp[j] = mc[cid[i]] - e[i];
      }
      double v = median_d(tmp, n), d = v > off[k] ? v - off[k] : off[k] - v;
      if (d > moved) moved = d;
      off[k] = v;
    }
    if (moved < 0.01) break;
  }
  uint32_t ref = UINT32_MAX;
  for (uint32_t k = 0; k < nt && ref == UINT32_MAX; k++)
    if (tfirst[k + 1] > tfirst[k]) ref = k;
  double shift = ref == UINT32_MAX ? 0 : off[ref];
  for (uint32_t k = 0; k < nt; k++) {
    st_coll_offset *f = &c->offsets[k];
    uint32_t n = tfirst[k + 1] - tfirst[k];
    double v = off[k] - shift;
    f->trace = k;
    f->has = n > 0;
    f->collectives = n;
    f->offset_ns = n ? (int64_t)(v < 0 ? v - 0.5 : v + 0.5) : 0;
    for (uint32_t j = 0; j < n; j++) {
      uint32_t i = by_trace[tfirst[k] + j];
      double r = mc[o[i]->coll] - shift - e[i] - v;
      tmp[j] = r < 0 ? -r : r;
    }
    double res = n ? median_d(tmp, n) : 0;
    f->residual_ns = (int64_t)(res + 0.5);
  }
  c->zero = st_trace_origin_ns(st_analysis_trace(c->an, ref == UINT32_MAX ? 0 : ref));
  for (uint32_t i = 0; i < c->nin; i++) {
    inst *x = &c->in[i];
    x->a = st_coll_aligned(c, x->trace, x->t_a);
    x->e = st_coll_aligned(c, x->trace, x->t_e);
  }
done:
  st_free(a, e), st_free(a, tmp), st_free(a, mc), st_free(a, off);
  st_free(a, by_trace), st_free(a, tfirst), st_free(a, fill), st_free(a, tr), st_free(a, cid);
  return rc;
}

int64_t st_coll_aligned(const st_collectives *c, uint32_t k, int64_t t) {
  int64_t abs = st_sat_add(st_trace_origin_ns(st_analysis_trace(c->an, k)), t);
  return st_sat_add(abs, c->offsets[k].offset_ns) - c->zero;
}
