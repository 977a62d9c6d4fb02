/* stat_tests.c: nearest-rank percentiles, quickselect, median / MAD,
 * Mann-Whitney U and a bootstrap interval (see stat_tests.h). */
#include "stat_tests.h"

#include <math.h>
#include <stdlib.h>

size_t st_stat_rank(uint32_t pct, size_t n) {
  if (n == 0) return 0;
  if (pct > 100) pct = 100;
  /* ceil(pct * n / 100) in integers: n < 2^57 keeps pct * n in range */
  uint64_t r = ((uint64_t)pct * (uint64_t)n + 99) / 100;
  return r == 0 ? 0 : (size_t)(r - 1);
}

static void swap64(int64_t *a, int64_t *b) {
  int64_t t = *a;
  *a = *b;
  *b = t;
}

/* Three-way partition of v[0, n) (n >= 1) around the median of its first,
 * middle and last values: afterwards v[0, *lt) < pivot, v[*lt, *gt) ==
 * pivot, v[*gt, n) > pivot. Returns the pivot. */
static int64_t partition3(int64_t *v, size_t n, size_t *lt_out, size_t *gt_out) {
  int64_t x = v[0], y = v[n / 2], z = v[n - 1];
  int64_t pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
  size_t lt = 0, i = 0, gt = n;
  while (i < gt) {
    if (v[i] < pivot)
      swap64(&v[lt++], &v[i++]);
    else if (v[i] > pivot)
      swap64(&v[i], &v[--gt]);
    else
      i++;
  }
  *lt_out = lt;
  *gt_out = gt;
  return pivot;
}

int64_t st_stat_select(int64_t *v, size_t n, size_t k) {
  if (n == 0) return 0;
  if (k >= n) k = n - 1;
  while (n > 1) { /* v[0, n) holds the k-th */
    size_t lt, gt;
    int64_t pivot = partition3(v, n, &lt, &gt);
    if (k < lt) {
      n = lt;
    } else if (k >= gt) {
      v += gt;
      k -= gt;
      n -= gt;
    } else {
      return pivot;
    }
  }
  return v[k];
}

static void insertion_i64(int64_t *v, size_t n) {
  for (size_t i = 1; i < n; i++) {
    int64_t x = v[i];
    size_t j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

void st_stat_sort_i64(int64_t *v, size_t n) {
  /* the larger side is looped on, the smaller recursed into: depth <= log2 n */
  while (n > 16) {
    size_t lt, gt;
    partition3(v, n, &lt, &gt);
    if (lt < n - gt) {
      st_stat_sort_i64(v, lt);
      v += gt;
      n -= gt;
    } else {
      st_stat_sort_i64(v + gt, n - gt);
      n = lt;
    }
  }
  insertion_i64(v, n);
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b ? 1 : 0;
}

double st_stat_median(double *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double st_stat_mad(double *v, size_t n, double *scratch) {
  if (n == 0) return 0;
  double m = st_stat_median(v, n);
  for (size_t i = 0; i < n; i++) scratch[i] = fabs(v[i] - m);
  return st_stat_median(scratch, n);
}

void st_stat_mwu(const int64_t *a, size_t na, const int64_t *b, size_t nb, st_mwu *out) {
  out->u_b = 0;
  out->mean = (double)na * (double)nb / 2;
  out->z = 0;
  out->p = 1;
  if (na == 0 || nb == 0) return;
  double n = (double)na + (double)nb, rank_b = 0, ties = 0, pos = 0;
  size_t i = 0, j = 0;
  while (i < na || j < nb) {
    /* the next tie group: every value equal to the smallest left */
    int64_t v = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
    size_t ca = 0, cb = 0;
    while (i < na && a[i] == v) i++, ca++;
    while (j < nb && b[j] == v) j++, cb++;
    double t = (double)(ca + cb);
    rank_b += (double)cb * (pos + (t + 1) / 2); /* ranks pos+1 .. pos+t, averaged */
    ties += t * t * t - t;
    pos += t;
  }
  out->u_b = rank_b - (double)nb * ((double)nb + 1) / 2;
  double var = (double)na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (!(var > 0)) return;
  double d = out->u_b - out->mean, ad = fabs(d) - 0.5;
  if (ad < 0) ad = 0;
  out->z = (d < 0 ? -ad : ad) / sqrt(var);
  out->p = erfc(fabs(out->z) / sqrt(2.0));
  if (out->p > 1) out->p = 1;
}

static int cmp_abs(const void *x, const void *y) {
  double a = fabs(*(const double *)x), b = fabs(*(const double *)y);
  return a < b ? -1 : a > b;
}

void st_stat_wilcoxon(double *x, size_t n, st_wsr *out) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != 0 && x[i] == x[i]) x[m++] = x[i]; /* zeros (and NaN) dropped */
  out->w_plus = 0;
  out->z = 0;
  out->p = 1;
  out->n = m;
  if (!m) return;
  qsort(x, m, sizeof *x, cmp_abs);
  double ties = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    while (j < m && fabs(x[j]) == fabs(x[i])) j++;
    double t = (double)(j - i), rank = ((double)i + 1 + (double)j) / 2; /* ranks i+1 .. j */
    for (size_t k = i; k < j; k++)
      if (x[k] > 0) out->w_plus += rank;
    ties += t * t * t - t;
    i = j;
  }
  double dn = (double)m, mean = dn * (dn + 1) / 4;
  double var = dn * (dn + 1) * (2 * dn + 1) / 24 - ties / 48;
  if (!(var > 0)) return;
  double d = out->w_plus - mean, ad = fabs(d) - 0.5;
  if (ad < 0) ad = 0;
  out->z = (d < 0 ? -ad : ad) / sqrt(var);
  out->p = erfc(fabs(out->z) / sqrt(2.0));
  if (out->p > 1) out->p = 1;
}

double st_stat_wilcoxon_pmin(size_t n) {
  if (!n) return 1;
  double dn = (double)n, mean = dn * (dn + 1) / 4;
  double sd = sqrt(dn * (dn + 1) * (2 * dn + 1) / 24);
  return erfc((mean - 0.5) / sd / sqrt(2.0));
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double resample_mean(const double *v, size_t n, uint64_t *s) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += v[splitmix(s) % n];
  return sum / (double)n;
}

st_code st_stat_bootstrap_diff(const st_alloc *alloc, const double *a, size_t na, const double *b,
                               size_t nb, uint32_t reps, uint64_t seed, double *lo, double *hi) {
  if (na < 2 || nb < 2 || reps < 40 || !a || !b) return ST_ERR_ARG;
  double *d = st_calloc(alloc, reps, sizeof *d);
  if (!d) return ST_ERR_NOMEM;
  uint64_t s = seed;
  for (uint32_t r = 0; r < reps; r++) {
    double ma = resample_mean(a, na, &s);
    d[r] = resample_mean(b, nb, &s) - ma;
  }
  qsort(d, reps, sizeof *d, cmp_double);
  /* nearest-rank 2.5th and 97.5th percentiles, in per-mille */
  size_t r_lo = (size_t)(((uint64_t)25 * reps + 999) / 1000),
         r_hi = (size_t)(((uint64_t)975 * reps + 999) / 1000);
  *lo = d[r_lo ? r_lo - 1 : 0];
  *hi = d[r_hi ? r_hi - 1 : 0];
  st_free(alloc, d);
  return ST_OK;
}
