/* diff.c: the diff table of two traces (see diff.h).
 *
 * Contents
 *   1. state and helpers (saturating arithmetic, ratios)
 *   2. build: aggregate each side (st_agg), join by name bytes; the
 *      verdicts (each row's instance durations, Mann-Whitney U), the
 *      rollup by kind and the headline
 *   3. sorting
 *   4. a row's events
 * (its JSON: diff_json.c)
 *
 * The join sorts each side's st_agg rows by name (st_agg_sort: bytes, so
 * both sides share one order) and merges them: O(n log n) in the distinct
 * names, no hash table, and no string is copied (rows point into the
 * traces' string tables).
 */
#include "diff.h"
#include "diff_internal.h"

#include "analyze.h"
#include "bisect.h"
#include "json_out.h"
#include "merge_sort.h"
#include "stat_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== 1. state and helpers =============================================== */

/* b / a with the diff's rule: 1 when both are 0, +inf when only b is. */
static double ratio(double a, double b) {
  if (a == 0) return b == 0 ? 1.0 : INFINITY;
  return b / a;
}

static int name_cmp(const char *a, size_t na, const char *b, size_t nb) {
  int k = memcmp(a, b, na < nb ? na : nb);
  if (k) return k < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/* ==== 2. build =========================================================== */

static st_agg *aggregate(const st_alloc *a, const st_trace *t, st_diff_by by, int64_t t0,
                         int64_t t1, st_error *err) {
  st_agg *g = st_agg_create(a, t);
  if (!g) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  st_agg_set_key(g, by == ST_DIFF_BY_CAT ? ST_AGG_KEY_CAT : ST_AGG_KEY_NAME);
  if (st_agg_add_window(g, t0, t1) != ST_OK) {
    st_agg_destroy(g);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  st_agg_sort(g, ST_AGG_NAME, 0);
  return g;
}

static void fill_side(st_diff_row *r, const st_agg_row *s, int side) {
  if (side == 0) {
    r->key_a = s->name;
    r->count_a = s->count;
    r->total_a_ns = s->total_ns;
    r->self_a_ns = s->self_ns;
    r->avg_a_ns = s->count ? (double)s->total_ns / (double)s->count : 0;
  } else {
    r->key_b = s->name;
    r->count_b = s->count;
    r->total_b_ns = s->total_ns;
    r->self_b_ns = s->self_ns;
    r->avg_b_ns = s->count ? (double)s->total_ns / (double)s->count : 0;
  }
}

static void finish_row(st_diff_row *r) {
  r->d_count = (int64_t)r->count_b - (int64_t)r->count_a;
  r->d_total_ns = st_sat_sub(r->total_b_ns, r->total_a_ns);
  r->d_self_ns = st_sat_sub(r->self_b_ns, r->self_a_ns);
  r->d_avg_ns = r->avg_b_ns - r->avg_a_ns;
  r->ratio_total = ratio((double)r->total_a_ns, (double)r->total_b_ns);
  r->ratio_self = ratio((double)r->self_a_ns, (double)r->self_b_ns);
  r->ratio_avg = ratio(r->avg_a_ns, r->avg_b_ns);
  r->p_value = -1;
}

/* ---- verdicts ------------------------------------------------------------ */

/* Side s's instance durations of every row, grouped by row (dur[off[i],
 * off[i + 1]) in the order the events are listed: row by row of the trace,
 * by start within one), from the same events st_agg_add_window counted. */
static st_code side_durations(st_diff *d, int s, int by_cat, int64_t **dur_out, int64_t **start_out,
                              size_t **off_out) {
  const st_alloc *a = &d->alloc;
  const st_trace *t = d->t[s];
  uint32_t ns = st_strtab_count(st_trace_strings(t)), nr;
  uint32_t *slot = st_calloc(a, ns ? ns : 1, sizeof *slot);
  size_t *off = st_calloc(a, (size_t)d->count + 1, sizeof *off);
  size_t *fill = st_calloc(a, (size_t)d->count + 1, sizeof *fill);
  uint64_t total = 0;
  for (uint32_t i = 0; i < d->count; i++) total += s ? d->rows[i].count_b : d->rows[i].count_a;
  int64_t *dur = total < SIZE_MAX / 8 ? st_calloc(a, total ? (size_t)total : 1, sizeof *dur) : NULL;
  int64_t *st = total < SIZE_MAX / 8 ? st_calloc(a, total ? (size_t)total : 1, sizeof *st) : NULL;
  if (!slot || !off || !fill || !dur || !st) {
    st_free(a, slot);
    st_free(a, off);
    st_free(a, fill);
    st_free(a, dur);
    st_free(a, st);
    return ST_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < d->count; i++) {
    const st_diff_row *r = &d->rows[i];
    uint32_t k = s ? r->key_b : r->key_a;
    off[i + 1] = off[i] + (size_t)(s ? r->count_b : r->count_a);
    if (k < ns) slot[k] = i + 1;
  }
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < nr; r++) {
    const st_row *row = &rows[r];
    uint32_t lo = st_row_first_end_gt(row, d->t0[s]), hi = st_row_first_start_ge(row, d->t1[s]);
    const uint32_t *keys = by_cat ? row->cat : row->name;
    for (uint32_t i = lo; i < hi; i++) {
      uint32_t g = keys[i] < ns ? slot[keys[i]] : 0;
      if (g && off[g - 1] + fill[g - 1] < off[g]) {
        st[off[g - 1] + fill[g - 1]] = row->start[i];
        dur[off[g - 1] + fill[g - 1]++] = row->dur[i];
      }
    }
  }
  st_free(a, slot);
  st_free(a, fill);
  *dur_out = dur;
  *start_out = st;
  *off_out = off;
  return ST_OK;
}

/* The smallest p the test can give with these counts (every B above every
 * A, no ties): the rule for "not enough data". */
static double p_min(size_t na, size_t nb) {
  double n = (double)na + (double)nb, m = (double)na * (double)nb;
  double sd = sqrt(m * (n + 1) / 12);
  if (!(sd > 0)) return 1;
  return erfc((m / 2 - 0.5) / sd / sqrt(2.0));
}

/* x rounded to 3 significant digits (the ratio as shown). */
static double sig3(double x) {
  if (!(x > 0) || !isfinite(x)) return x;
  double m = pow(10.0, 2 - floor(log10(x)));
  return round(x * m) / m;
}

/* log(b / a) of one pair (with 1 ns added to both when one is 0). */
static double log_ratio(int64_t a, int64_t b) {
  if (a > 0 && b > 0) return log((double)b / (double)a);
  return log(((double)b + 1) / ((double)a + 1));
}

/* The verdict of a test's p and z, the effect (ratio = B / A of the means
 * or totals, as shown) and the time added (share rule). */
static uint32_t decide(double p, double z, double ratio, double rmin, double alpha, double added,
                       double share_ns) {
  uint32_t f = 0;
  if (p < alpha && z > 0 && ratio > 1 && sig3(ratio) >= rmin &&
      (share_ns <= 0 || added >= share_ns))
    f |= ST_DIFF_REGRESSION;
  if (p < alpha && z < 0 && ratio < 1 && ratio > 0 && sig3(1 / ratio) >= rmin &&
      (share_ns <= 0 || -added >= share_ns))
    f |= ST_DIFF_IMPROVEMENT;
  return f;
}

/* Each side's durations per row, kept for the rollup (a paired row's in
 * the order of its pairs). */
typedef struct durs {
  int64_t *dur[2], *start[2];
  size_t *off[2];
  double *x;       /* scratch: the pairs' log ratios */
  int64_t *key[2]; /* scratch: per instance (step << 32 | its place) */
  const st_an_step *steps[2];
  uint32_t nsteps[2];
} durs;

/* The step holding time t (steps in time order), or nsteps when none. */
static uint32_t step_of(const st_an_step *v, uint32_t n, int64_t t) {
  uint32_t lo =
      (uint32_t)st_bound_i64_at(v, n, sizeof *v, offsetof(st_an_step, t0_ns), t, ST_UPPER);
  return lo > 0 && t < v[lo - 1].t1_ns ? lo - 1 : n;
}

/* 1 if row i's instances pair up (diff.h): the same count on both sides,
 * and per step the same count when both have the same number of steps;
 * then both sides' durations are put in the order of their pairs (by step,
 * then as listed). */
static int pair_up(durs *ds, uint32_t i, size_t n) {
  int by_step = ds->nsteps[0] && ds->nsteps[0] == ds->nsteps[1];
  if (!by_step) return 1; /* in the order they are listed */
  for (int s = 0; s < 2; s++) {
    const int64_t *st = ds->start[s] + ds->off[s][i];
    for (size_t k = 0; k < n; k++)
      ds->key[s][k] = (int64_t)((uint64_t)step_of(ds->steps[s], ds->nsteps[s], st[k]) << 32 | k);
    st_stat_sort_i64(ds->key[s], n);
  }
  for (size_t k = 0; k < n; k++)
    if ((ds->key[0][k] >> 32) != (ds->key[1][k] >> 32)) return 0; /* per step counts differ */
  for (int s = 0; s < 2; s++) { /* durations in pair order (start: scratch) */
    int64_t *dv = ds->dur[s] + ds->off[s][i], *tmp = ds->start[s] + ds->off[s][i];
    for (size_t k = 0; k < n; k++) tmp[k] = dv[ds->key[s][k] & 0xffffffff];
    memcpy(dv, tmp, n * sizeof *dv);
  }
  return 1;
}

static st_code verdicts(st_diff *d, durs *ds, double rmin, double share_ns, double alpha,
                        int by_cat) {
  st_code rc = side_durations(d, 0, by_cat, &ds->dur[0], &ds->start[0], &ds->off[0]);
  if (rc == ST_OK) rc = side_durations(d, 1, by_cat, &ds->dur[1], &ds->start[1], &ds->off[1]);
  size_t most = 0;
  for (uint32_t i = 0; rc == ST_OK && i < d->count; i++) {
    size_t na = ds->off[0][i + 1] - ds->off[0][i], nb = ds->off[1][i + 1] - ds->off[1][i];
    if (na < nb && na > most) most = na;
    if (nb <= na && nb > most) most = nb;
  }
  if (rc == ST_OK) {
    ds->x = st_calloc(&d->alloc, most ? most : 1, sizeof *ds->x);
    ds->key[0] = st_calloc(&d->alloc, most ? most : 1, sizeof *ds->key[0]);
    ds->key[1] = st_calloc(&d->alloc, most ? most : 1, sizeof *ds->key[1]);
    if (!ds->x || !ds->key[0] || !ds->key[1]) rc = ST_ERR_NOMEM;
  }
  for (uint32_t i = 0; rc == ST_OK && i < d->count; i++) {
    st_diff_row *r = &d->rows[i];
    if (r->flags & (ST_DIFF_ONLY_A | ST_DIFF_ONLY_B)) continue;
    size_t na = ds->off[0][i + 1] - ds->off[0][i], nb = ds->off[1][i + 1] - ds->off[1][i];
    int64_t *a = ds->dur[0] + ds->off[0][i], *b = ds->dur[1] + ds->off[1][i];
    double p, z;
    if (na == nb && na < UINT32_MAX && st_stat_wilcoxon_pmin(na) < alpha &&
        pair_up(ds, i, na)) { /* the instances pair up */
      for (size_t k = 0; k < na; k++) ds->x[k] = log_ratio(a[k], b[k]);
      st_wsr w;
      st_stat_wilcoxon(ds->x, na, &w);
      p = w.p, z = w.z;
      r->test = ST_DIFF_TEST_WILCOXON;
    } else {
      st_stat_sort_i64(a, na);
      st_stat_sort_i64(b, nb);
      st_mwu u;
      st_stat_mwu(a, na, b, nb, &u);
      p = u.p, z = u.z;
      r->test = ST_DIFF_TEST_MANN_WHITNEY;
      if (!(p_min(na, nb) < alpha)) {
        r->p_value = p;
        r->flags |= ST_DIFF_NOT_ENOUGH_DATA;
        continue;
      }
    }
    r->p_value = p;
    r->flags |= decide(p, z, r->ratio_avg, rmin, alpha,
                       (double)r->total_b_ns - (double)r->total_a_ns, share_ns);
  }
  return rc;
}

static void durs_free(const st_alloc *a, durs *ds) {
  for (int s = 0; s < 2; s++) {
    st_free(a, ds->dur[s]);
    st_free(a, ds->start[s]);
    st_free(a, ds->off[s]);
    st_free(a, ds->key[s]);
  }
  st_free(a, ds->x);
}

/* ---- rollup by kind ------------------------------------------------------ */

/* "fusion.37" -> 6 ("fusion"); names without a trailing number: whole. */
static size_t kind_len(const char *s, size_t n) {
  size_t k = n;
  while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') k--;
  if (k == n || k == 0) return n;
  if (s[k - 1] == '.' || s[k - 1] == '#' || s[k - 1] == '_' || s[k - 1] == '-' || s[k - 1] == ' ')
    k--;
  return k ? k : n;
}

typedef struct kind_ref {
  const char *s;
  size_t n;
  uint32_t row;
} kind_ref;

static int cmp_kind_ref(const void *x, const void *y) {
  const kind_ref *a = x, *b = y;
  int k = name_cmp(a->s, a->n, b->s, b->n);
  return k ? k : a->row < b->row ? -1 : a->row > b->row;
}

static int cmp_kind(const void *x, const void *y) {
  const st_diff_kind *a = x, *b = y;
  if (a->d_total_ns != b->d_total_ns) return a->d_total_ns > b->d_total_ns ? -1 : 1;
  return name_cmp(a->kind, a->kind_len, b->kind, b->kind_len);
}

/* The kind's verdict (diff.h): the paired test over the pairs of its
 * paired rows, else Mann-Whitney over its rows' instances pooled. */
static st_code kind_verdict(st_diff *d, st_diff_kind *k, const kind_ref *refs, uint32_t n, durs *ds,
                            double rmin, double alpha) {
  const st_alloc *a = &d->alloc;
  size_t np = 0, pool[2] = {0, 0};
  for (uint32_t i = 0; i < n; i++) {
    uint32_t r = refs[i].row;
    size_t na = ds->off[0][r + 1] - ds->off[0][r], nb = ds->off[1][r + 1] - ds->off[1][r];
    if (d->rows[r].test == ST_DIFF_TEST_WILCOXON) np += na;
    pool[0] += na, pool[1] += nb;
  }
  double ratio = k->total_a_ns > 0 ? (double)k->total_b_ns / (double)k->total_a_ns : 0;
  if (np) {
    double *x = st_calloc(a, np, sizeof *x);
    if (!x) return ST_ERR_NOMEM;
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t r = refs[i].row;
      if (d->rows[r].test != ST_DIFF_TEST_WILCOXON) continue;
      const int64_t *va = ds->dur[0] + ds->off[0][r], *vb = ds->dur[1] + ds->off[1][r];
      for (size_t j = 0; j < ds->off[0][r + 1] - ds->off[0][r]; j++)
        x[m++] = log_ratio(va[j], vb[j]);
    }
    st_wsr w;
    st_stat_wilcoxon(x, m, &w);
    st_free(a, x);
    k->test = ST_DIFF_TEST_WILCOXON;
    k->p_value = w.p;
    k->verdict = decide(w.p, w.z, ratio, rmin, alpha, (double)k->d_total_ns, 0);
    return ST_OK;
  }
  if (!pool[0] || !pool[1]) {
    k->verdict = pool[0] ? ST_DIFF_ONLY_A : ST_DIFF_ONLY_B;
    return ST_OK;
  }
  int64_t *v[2];
  v[0] = st_calloc(a, pool[0], sizeof *v[0]);
  v[1] = st_calloc(a, pool[1], sizeof *v[1]);
  if (!v[0] || !v[1]) {
    st_free(a, v[0]);
    st_free(a, v[1]);
    return ST_ERR_NOMEM;
  }
  for (int s = 0; s < 2; s++) {
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t r = refs[i].row;
      for (size_t j = ds->off[s][r]; j < ds->off[s][r + 1]; j++) v[s][m++] = ds->dur[s][j];
    }
    st_stat_sort_i64(v[s], m);
  }
  st_mwu u;
  st_stat_mwu(v[0], pool[0], v[1], pool[1], &u);
  st_free(a, v[0]);
  st_free(a, v[1]);
  k->test = ST_DIFF_TEST_MANN_WHITNEY;
  k->p_value = u.p;
  if (!(p_min(pool[0], pool[1]) < alpha))
    k->verdict = ST_DIFF_NOT_ENOUGH_DATA;
  else
    k->verdict = decide(u.p, u.z, ratio, rmin, alpha, (double)k->d_total_ns, 0);
  return ST_OK;
}

static st_code rollup(st_diff *d, durs *ds, double rmin, double alpha) {
  const st_alloc *a = &d->alloc;
  kind_ref *refs = st_calloc(a, d->count ? d->count : 1, sizeof *refs);
  d->kinds = st_calloc(a, d->count ? d->count : 1, sizeof *d->kinds);
  if (!refs || !d->kinds) {
    st_free(a, refs);
    return ST_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < d->count; i++)
    refs[i] = (kind_ref){d->rows[i].name, kind_len(d->rows[i].name, d->rows[i].name_len), i};
  qsort(refs, d->count, sizeof *refs, cmp_kind_ref);
  uint32_t m = 0;
  for (uint32_t i = 0; i < d->count; i++) {
    if (i == 0 || name_cmp(refs[i].s, refs[i].n, refs[i - 1].s, refs[i - 1].n) != 0) {
      d->kinds[m].kind = refs[i].s;
      d->kinds[m++].kind_len = refs[i].n;
    }
    st_diff_kind *k = &d->kinds[m - 1];
    const st_diff_row *r = &d->rows[refs[i].row];
    k->rows++;
    k->regressions += (r->flags & ST_DIFF_REGRESSION) != 0;
    k->improvements += (r->flags & ST_DIFF_IMPROVEMENT) != 0;
    k->count_a += r->count_a;
    k->count_b += r->count_b;
    k->total_a_ns = st_sat_add(k->total_a_ns, r->total_a_ns);
    k->total_b_ns = st_sat_add(k->total_b_ns, r->total_b_ns);
  }
  st_code rc = ST_OK;
  for (uint32_t i = 0, at = 0; i < m; i++) {
    d->kinds[i].d_total_ns = st_sat_sub(d->kinds[i].total_b_ns, d->kinds[i].total_a_ns);
    d->kinds[i].p_value = -1;
    if (rc == ST_OK)
      rc = kind_verdict(d, &d->kinds[i], refs + at, d->kinds[i].rows, ds, rmin, alpha);
    at += d->kinds[i].rows;
  }
  if (rc != ST_OK) {
    st_free(a, refs);
    return rc;
  }
  qsort(d->kinds, m, sizeof *d->kinds, cmp_kind);
  d->nkinds = m;
  st_free(a, refs);
  return ST_OK;
}

/* ---- headline ------------------------------------------------------------ */

/* Per-step wall and mean device busy of one analysed trace into w / b
 * (n each); *has_busy: it has devices. */
static void per_step(const st_analysis *an, double *w, double *b, int *has_busy) {
  uint32_t ns, nd;
  const st_an_step *steps = st_analysis_steps(an, &ns);
  const st_an_device *dev = st_analysis_devices(an, &nd);
  const st_an_cell *cells = st_analysis_cells(an, NULL);
  *has_busy = nd > 0;
  for (uint32_t j = 0; j < ns; j++) {
    w[j] = (double)(steps[j].t1_ns - steps[j].t0_ns);
    double sum = 0;
    for (uint32_t k = 0; k < nd; k++) sum += (double)cells[dev[k].first_cell + j].t.busy_ns;
    b[j] = nd ? sum / nd : 0;
  }
}

static double mean(const double *v, uint32_t n) {
  double s = 0;
  for (uint32_t i = 0; i < n; i++) s += v[i];
  return n ? s / n : 0;
}

static double busy_total(const st_analysis *an) {
  uint32_t nd;
  const st_an_device *dev = st_analysis_devices(an, &nd);
  double s = 0;
  for (uint32_t k = 0; k < nd; k++) s += (double)dev[k].total.busy_ns;
  return nd ? s / nd : 0;
}

static st_code headline(st_diff *d, st_analysis *const *an) {
  const st_alloc *a = &d->alloc;
  st_diff_headline *h = &d->head;
  uint32_t n[2];
  st_analysis_steps(an[0], &n[0]);
  st_analysis_steps(an[1], &n[1]);
  h->steps_a = n[0];
  h->steps_b = n[1];
  double *w[2], *b[2];
  int hb[2];
  st_code rc = ST_OK;
  for (int s = 0; s < 2; s++) {
    w[s] = st_calloc(a, n[s] ? n[s] : 1, sizeof *w[s]);
    b[s] = st_calloc(a, n[s] ? n[s] : 1, sizeof *b[s]);
    if (!w[s] || !b[s]) rc = ST_ERR_NOMEM;
  }
  if (rc == ST_OK) {
    per_step(an[0], w[0], b[0], &hb[0]);
    per_step(an[1], w[1], b[1], &hb[1]);
    if (n[0] && n[1]) {
      h->has_step = 1;
      h->step_a_ns = mean(w[0], n[0]);
      h->step_b_ns = mean(w[1], n[1]);
      h->d_step_ns = h->step_b_ns - h->step_a_ns;
      h->has_step_ci = st_stat_bootstrap_diff(a, w[0], n[0], w[1], n[1], 2000, 18, &h->d_step_lo_ns,
                                              &h->d_step_hi_ns) == ST_OK;
    }
    if (hb[0] && hb[1]) {
      h->has_busy = 1;
      if (n[0] && n[1]) {
        h->busy_a_ns = mean(b[0], n[0]);
        h->busy_b_ns = mean(b[1], n[1]);
        h->has_busy_ci = st_stat_bootstrap_diff(a, b[0], n[0], b[1], n[1], 2000, 18,
                                                &h->d_busy_lo_ns, &h->d_busy_hi_ns) == ST_OK;
      } else {
        h->busy_a_ns = busy_total(an[0]);
        h->busy_b_ns = busy_total(an[1]);
      }
      h->d_busy_ns = h->busy_b_ns - h->busy_a_ns;
    }
  }
  for (int s = 0; s < 2; s++) {
    st_free(a, w[s]);
    st_free(a, b[s]);
  }
  return rc;
}

st_diff *st_diff_build(const st_alloc *alloc, const st_trace *a, const st_trace *b,
                       const st_diff_opts *opts, st_error *err) {
  st_alloc al = alloc ? *alloc : (st_alloc){0};
  st_diff_opts o;
  if (opts)
    o = *opts;
  else
    memset(&o, 0, sizeof o);
  if (!a || !b) {
    st_error_set(err, ST_ERR_ARG, 0, "diff: a trace is missing");
    return NULL;
  }
  if (o.by != ST_DIFF_BY_NAME && o.by != ST_DIFF_BY_CAT) {
    st_error_set(err, ST_ERR_ARG, 0, "diff: unknown grouping %d", (int)o.by);
    return NULL;
  }
  if ((o.range_a && o.a_t1_ns < o.a_t0_ns) || (o.range_b && o.b_t1_ns < o.b_t0_ns)) {
    st_error_set(err, ST_ERR_ARG, 0, "diff: a range ends before it starts");
    return NULL;
  }
  double rmin = o.regression_ratio == 0 ? ST_DIFF_REGRESSION_RATIO : o.regression_ratio;
  double share = o.regression_share == 0 ? ST_DIFF_REGRESSION_SHARE : o.regression_share;
  double alpha = o.alpha == 0 ? ST_DIFF_ALPHA : o.alpha;
  if (!(rmin >= 1.0) || !(share >= 0.0 && share <= 1.0) || !isfinite(rmin) ||
      !(alpha > 0 && alpha < 1)) {
    st_error_set(err, ST_ERR_ARG, 0,
                 "diff: regression ratio must be >= 1, share in [0, 1] and alpha in (0, 1)");
    return NULL;
  }
  st_diff *d = st_calloc(&al, 1, sizeof *d);
  if (!d) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  d->alloc = al;
  d->t[0] = a;
  d->t[1] = b;
  d->t0[0] = o.range_a ? o.a_t0_ns : INT64_MIN;
  d->t1[0] = o.range_a ? o.a_t1_ns : INT64_MAX;
  d->t0[1] = o.range_b ? o.b_t0_ns : INT64_MIN;
  d->t1[1] = o.range_b ? o.b_t1_ns : INT64_MAX;

  st_agg *g[2] = {NULL, NULL};
  g[0] = aggregate(&al, a, o.by, d->t0[0], d->t1[0], err);
  if (g[0]) g[1] = aggregate(&al, b, o.by, d->t0[1], d->t1[1], err);
  if (!g[1]) {
    st_agg_destroy(g[0]);
    st_free(&al, d);
    return NULL;
  }
  uint32_t n[2];
  const st_agg_row *ar[2] = {st_agg_rows(g[0], &n[0]), st_agg_rows(g[1], &n[1])};
  const st_strtab *strs[2] = {st_trace_strings(a), st_trace_strings(b)};
  size_t cap = (size_t)n[0] + n[1];
  d->rows = st_calloc(&al, cap ? cap : 1, sizeof *d->rows);
  if (!d->rows) {
    st_agg_destroy(g[0]);
    st_agg_destroy(g[1]);
    st_free(&al, d);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  /* merge-join the two name-sorted lists */
  int64_t busy[2] = {0, 0};
  for (int s = 0; s < 2; s++)
    for (uint32_t i = 0; i < n[s]; i++) busy[s] = st_sat_add(busy[s], ar[s][i].self_ns);
  double share_ns = share * (double)(busy[0] > busy[1] ? busy[0] : busy[1]);
  uint64_t events[2] = {st_agg_events(g[0]), st_agg_events(g[1])};
  uint32_t i = 0, j = 0, m = 0;
  while (i < n[0] || j < n[1]) {
    size_t la = 0, lb = 0;
    const char *sa = i < n[0] ? st_strtab_get(strs[0], ar[0][i].name, &la) : NULL;
    const char *sb = j < n[1] ? st_strtab_get(strs[1], ar[1][j].name, &lb) : NULL;
    int k = !sa ? 1 : !sb ? -1 : name_cmp(sa, la, sb, lb);
    st_diff_row *r = &d->rows[m++];
    r->key_a = r->key_b = ST_STR_NONE;
    if (k <= 0) {
      fill_side(r, &ar[0][i++], 0);
      r->name = sa;
      r->name_len = la;
    }
    if (k >= 0) {
      fill_side(r, &ar[1][j++], 1);
      if (k > 0) {
        r->name = sb;
        r->name_len = lb;
      }
    }
    if (k < 0) r->flags |= ST_DIFF_ONLY_A;
    if (k > 0) r->flags |= ST_DIFF_ONLY_B;
    finish_row(r);
  }
  d->count = m;
  st_agg_destroy(g[0]);
  st_agg_destroy(g[1]);
  /* both traces' steps and devices: the pairs per step, the headline */
  st_analyze_opts ao;
  memset(&ao, 0, sizeof ao);
  ao.no_ops = 1;
  ao.max_gaps = 1;
  st_analysis *an[2] = {st_analyze(&al, &a, 1, &ao, NULL), st_analyze(&al, &b, 1, &ao, NULL)};
  durs ds;
  memset(&ds, 0, sizeof ds);
  for (int s = 0; s < 2; s++) ds.steps[s] = st_analysis_steps(an[s], &ds.nsteps[s]);
  st_code rc = an[0] && an[1] ? ST_OK : ST_ERR_NOMEM;
  if (rc == ST_OK) rc = verdicts(d, &ds, rmin, share_ns, alpha, o.by == ST_DIFF_BY_CAT);
  if (rc == ST_OK) rc = rollup(d, &ds, rmin, alpha);
  durs_free(&al, &ds);
  if (rc == ST_OK && !o.no_headline) rc = headline(d, an);
  st_analysis_destroy(an[0]);
  st_analysis_destroy(an[1]);
  if (rc != ST_OK) {
    st_diff_destroy(d);
    st_error_set(err, rc, 0, "out of memory");
    return NULL;
  }
  st_diff_summary *su = &d->sum;
  su->by = o.by;
  su->rows = m;
  for (uint32_t r = 0; r < m; r++) {
    uint32_t f = d->rows[r].flags;
    su->only_a += (f & ST_DIFF_ONLY_A) != 0;
    su->only_b += (f & ST_DIFF_ONLY_B) != 0;
    su->regressions += (f & ST_DIFF_REGRESSION) != 0;
    su->improvements += (f & ST_DIFF_IMPROVEMENT) != 0;
    su->not_enough_data += (f & ST_DIFF_NOT_ENOUGH_DATA) != 0;
  }
  su->events_a = events[0];
  su->events_b = events[1];
  su->busy_a_ns = busy[0];
  su->busy_b_ns = busy[1];
  su->a_t0_ns = o.range_a ? o.a_t0_ns : 0;
  su->a_t1_ns = o.range_a ? o.a_t1_ns : st_trace_duration_ns(a);
  su->b_t0_ns = o.range_b ? o.b_t0_ns : 0;
  su->b_t1_ns = o.range_b ? o.b_t1_ns : st_trace_duration_ns(b);
  su->regression_ratio = rmin;
  su->regression_share = share;
  su->alpha = alpha;
  st_diff_sort(d, ST_DIFF_COL_D_TOTAL, 1);
  return d;
}

void st_diff_destroy(st_diff *d) {
  if (!d) return;
  st_alloc a = d->alloc;
  st_free(&a, d->rows);
  st_free(&a, d->kinds);
  st_free(&a, d);
}

const st_diff_row *st_diff_rows(const st_diff *d, uint32_t *count) {
  if (count) *count = d ? d->count : 0;
  return d ? d->rows : NULL;
}

void st_diff_summary_get(const st_diff *d, st_diff_summary *out) {
  if (!out) return;
  if (d)
    *out = d->sum;
  else
    memset(out, 0, sizeof *out);
}

const st_diff_kind *st_diff_rollup(const st_diff *d, uint32_t *count) {
  if (count) *count = d ? d->nkinds : 0;
  return d ? d->kinds : NULL;
}

void st_diff_headline_get(const st_diff *d, st_diff_headline *out) {
  if (!out) return;
  if (d)
    *out = d->head;
  else
    memset(out, 0, sizeof *out);
}

const st_trace *st_diff_trace(const st_diff *d, st_diff_side side) {
  if (!d || (side != ST_DIFF_SIDE_A && side != ST_DIFF_SIDE_B)) return NULL;
  return d->t[side];
}

/* ==== 3. sorting ========================================================= */

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

static int cmp_rows(st_diff_col col, int desc, const st_diff_row *a, const st_diff_row *b) {
  int k = 0;
  switch (col) {
  case ST_DIFF_COL_NAME: k = name_cmp(a->name, a->name_len, b->name, b->name_len); break;
  case ST_DIFF_COL_COUNT_A: k = CMP3(a->count_a, b->count_a); break;
  case ST_DIFF_COL_COUNT_B: k = CMP3(a->count_b, b->count_b); break;
  case ST_DIFF_COL_TOTAL_A: k = CMP3(a->total_a_ns, b->total_a_ns); break;
  case ST_DIFF_COL_TOTAL_B: k = CMP3(a->total_b_ns, b->total_b_ns); break;
  case ST_DIFF_COL_SELF_A: k = CMP3(a->self_a_ns, b->self_a_ns); break;
  case ST_DIFF_COL_SELF_B: k = CMP3(a->self_b_ns, b->self_b_ns); break;
  case ST_DIFF_COL_AVG_A: k = CMP3(a->avg_a_ns, b->avg_a_ns); break;
  case ST_DIFF_COL_AVG_B: k = CMP3(a->avg_b_ns, b->avg_b_ns); break;
  case ST_DIFF_COL_D_COUNT: k = CMP3(a->d_count, b->d_count); break;
  case ST_DIFF_COL_D_TOTAL: k = CMP3(a->d_total_ns, b->d_total_ns); break;
  case ST_DIFF_COL_D_SELF: k = CMP3(a->d_self_ns, b->d_self_ns); break;
  case ST_DIFF_COL_D_AVG: k = CMP3(a->d_avg_ns, b->d_avg_ns); break;
  case ST_DIFF_COL_RATIO_TOTAL: k = CMP3(a->ratio_total, b->ratio_total); break;
  case ST_DIFF_COL_RATIO_SELF: k = CMP3(a->ratio_self, b->ratio_self); break;
  case ST_DIFF_COL_RATIO_AVG: k = CMP3(a->ratio_avg, b->ratio_avg); break;
  default: break;
  }
  if (desc) k = -k;
  if (!k && col != ST_DIFF_COL_NAME) k = name_cmp(a->name, a->name_len, b->name, b->name_len);
  if (!k) k = CMP3(a->key_a, b->key_a);
  if (!k) k = CMP3(a->key_b, b->key_b);
  return k;
}

typedef struct sort_by {
  st_diff_col col;
  int desc;
} sort_by;
static inline int row_less(const sort_by *by, const st_diff_row *a, const st_diff_row *b) {
  return cmp_rows(by->col, by->desc, a, b) < 0;
}
ST_DEFINE_MERGE_SORT_CTX(sort_rows, st_diff_row, const sort_by *, row_less)

void st_diff_sort(st_diff *d, st_diff_col col, int descending) {
  if (!d || d->count < 2 || col < 0 || col >= ST_DIFF_COL_COUNT_) return;
  st_diff_row *tmp = st_malloc(&d->alloc, (size_t)d->count * sizeof *tmp); /* NULL: in place */
  sort_rows(&(sort_by){col, descending}, d->rows, tmp, d->count);
  st_free(&d->alloc, tmp);
}

static const char *const col_keys[ST_DIFF_COL_COUNT_] = {
    "name",      "count_a",     "count_b",    "total_us_a", "total_us_b", "self_us_a",
    "self_us_b", "avg_us_a",    "avg_us_b",   "d_count",    "d_total_us", "d_self_us",
    "d_avg_us",  "ratio_total", "ratio_self", "ratio_avg"};

const char *st_diff_col_key(st_diff_col col) {
  return col >= 0 && col < ST_DIFF_COL_COUNT_ ? col_keys[col] : "";
}

st_diff_col st_diff_col_parse(const char *key, size_t len) {
  if (!key) return ST_DIFF_COL_COUNT_;
  for (int c = 0; c < ST_DIFF_COL_COUNT_; c++)
    if (strlen(col_keys[c]) == len && memcmp(col_keys[c], key, len) == 0) return (st_diff_col)c;
  return ST_DIFF_COL_COUNT_;
}

/* ==== 4. a row's events ================================================== */

void st_diff_events_begin(const st_diff *d, uint32_t row, st_diff_side side, st_diff_iter *it) {
  memset(it, 0, sizeof *it);
  it->key = ST_STR_NONE;
  if (!d || row >= d->count || (side != ST_DIFF_SIDE_A && side != ST_DIFF_SIDE_B)) return;
  it->trace = d->t[side];
  it->key = side == ST_DIFF_SIDE_A ? d->rows[row].key_a : d->rows[row].key_b;
  it->by_cat = d->sum.by == ST_DIFF_BY_CAT;
  it->t0 = d->t0[side];
  it->t1 = d->t1[side];
  st_trace_rows(it->trace, &it->rows);
  it->row = UINT32_MAX; /* before the first row */
}

int st_diff_events_next(st_diff_iter *it, st_event_ref *out) {
  if (!it || !it->trace || it->key == ST_STR_NONE) return 0;
  const st_row *rows = st_trace_rows(it->trace, NULL);
  for (;;) {
    if (it->row != UINT32_MAX && it->row < it->rows) {
      const st_row *r = &rows[it->row];
      const uint32_t *keys = it->by_cat ? r->cat : r->name;
      while (it->index < it->end) {
        uint32_t i = it->index++;
        if (keys[i] == it->key) {
          out->row = it->row;
          out->index = i;
          return 1;
        }
      }
    }
    /* the next trace row: events intersecting [t0, t1) as st_agg_add_window */
    it->row = it->row == UINT32_MAX ? 0 : it->row + 1;
    if (it->row >= it->rows) {
      it->row = it->rows;
      it->key = ST_STR_NONE;
      return 0;
    }
    const st_row *r = &rows[it->row];
    it->index = st_row_first_end_gt(r, it->t0);
    it->end = st_row_first_start_ge(r, it->t1);
  }
}
