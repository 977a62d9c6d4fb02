/* stat_tests.h: the small statistics the analysis and the diff verdicts
 * rest on, each with one stated definition (README "Answers").
 *
 *   - Percentiles are nearest-rank: the p-th percentile of n values is the
 *     value at 1-based rank ceil(p * n / 100) of the ascending order (rank
 *     1 when that is 0), so it is always one of the values (p50 of
 *     {1, 2, 3, 4} is 2, p90 of 1..10 is 9, p99 of 1..10 is 10).
 *   - The median of a set of doubles is the middle value (the mean of the
 *     two middle ones for an even count); MAD is the median of the
 *     absolute deviations from the median.
 *   - Mann-Whitney U, two-sided, with the normal approximation, the tie
 *     correction of the variance and a continuity correction of 0.5 (as
 *     scipy.stats.mannwhitneyu(..., method="asymptotic") computes it):
 *       U_b = R_b - n_b (n_b + 1) / 2   (R_b: B's rank sum, ties averaged)
 *       var = n_a n_b / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))
 *       z = (|U_b - n_a n_b / 2| - 0.5) / sqrt(var),  p = erfc(z / sqrt 2)
 *     p is 1 when var is 0 (every value tied) or a side is empty.
 *   - Wilcoxon signed-rank, two-sided, normal approximation (as
 *     scipy.stats.wilcoxon(x, method="approx", correction=True) with its
 *     default zero_method "wilcox"): zero differences dropped, n the rest,
 *     ranks of |x| with ties averaged, W+ the sum of the positive ones' ranks,
 *       var = n (n + 1) (2n + 1) / 24 - sum(t^3 - t) / 48
 *       z = (|W+ - n (n + 1) / 4| - 0.5) / sqrt(var),  p = erfc(z / sqrt 2)
 *     p is 1 when n is 0 or var 0.
 *   - A bootstrap interval of mean(B) - mean(A): `reps` resamples of each
 *     side with replacement from a splitmix64 stream with a fixed seed (the
 *     same data always give the same interval), the nearest-rank 2.5th and
 *     97.5th percentiles of the resampled differences.
 *
 *   size_t k = st_stat_rank(90, n);           // 0-based index of p90
 *   int64_t p90 = st_stat_select(v, n, k);     // reorders v
 *   st_mwu r; st_stat_mwu(a_sorted, na, b_sorted, nb, &r);  // r.p
 */
#ifndef STRATA_STAT_TESTS_H
#define STRATA_STAT_TESTS_H

#include "base.h"

/* 0-based index of the nearest-rank pct-th percentile of n > 0 values
 * (pct in [0, 100]); 0 for n == 0. */
size_t st_stat_rank(uint32_t pct, size_t n);

/* The k-th smallest (0-based) of v[0, n) (k < n), reordering v so that
 * v[0, k) <= v[k] <= v[k + 1, n) (quickselect with a median-of-three
 * pivot and a three-way partition: O(n) expected). 0 if n == 0. */
int64_t st_stat_select(int64_t *v, size_t n, size_t k);

/* Sorts v[0, n) ascending (quicksort with a median-of-three pivot and a
 * three-way partition, the smaller side first, insertion sort below 16;
 * no comparator calls: several times qsort's speed on durations). */
void st_stat_sort_i64(int64_t *v, size_t n);

/* Median and MAD of v[0, n) (v is sorted in place); 0 for n == 0. */
double st_stat_median(double *v, size_t n);
double st_stat_mad(double *v, size_t n, double *scratch); /* scratch: n doubles */

typedef struct st_mwu {
  double u_b;  /* B's U statistic: pairs (a, b) with b > a, ties counting 1/2 */
  double mean; /* n_a n_b / 2 */
  double z;    /* signed: > 0 when B's values tend to be larger */
  double p;    /* two-sided p value */
} st_mwu;

/* Mann-Whitney U of a[0, na) and b[0, nb), both sorted ascending. */
void st_stat_mwu(const int64_t *a, size_t na, const int64_t *b, size_t nb, st_mwu *out);

typedef struct st_wsr {
  double w_plus; /* the positive differences' rank sum */
  double z;      /* signed: > 0 when the differences tend to be positive */
  double p;      /* two-sided p value */
  size_t n;      /* non-zero differences */
} st_wsr;

/* Wilcoxon signed-rank of x[0, n) (reordered: by |x|). */
void st_stat_wilcoxon(double *x, size_t n, st_wsr *out);
/* The smallest p it can give with n non-zero differences (all one sign,
 * no ties). */
double st_stat_wilcoxon_pmin(size_t n);

/* Bootstrap interval of mean(b) - mean(a) (definition above); lo/hi get
 * the bounds in the values' unit. ST_OK, ST_ERR_ARG (a side with fewer
 * than 2 values, reps < 40), ST_ERR_NOMEM (reps doubles from alloc). */
st_code st_stat_bootstrap_diff(const st_alloc *alloc, const double *a, size_t na, const double *b,
                               size_t nb, uint32_t reps, uint64_t seed, double *lo, double *hi);

#endif
