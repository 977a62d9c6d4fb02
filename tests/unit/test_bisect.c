/* test_bisect.c: the binary searches of core/base/bisect.h against linear
 * scans (the independent truth): every array of up to 9 ascending values
 * with repeats, every probe around them, every form (typed arrays, records,
 * pairs, byte ranges, a sub-range, the general partition point). */
#include "bisect.h"
#include "check.h"

#include <stdlib.h>

typedef struct rec {
  uint32_t major;
  int64_t minor;
  uint64_t off, len;
} rec;

static int below_3(const void *ctx, size_t i) { return ((const int *)ctx)[i] < 3; }

static void test_against_scans(void) {
  srand(31);
  for (int n = 0; n <= 9; n++)
    for (int trial = 0; trial < 300; trial++) {
      int64_t a[9];
      uint64_t u[9];
      uint32_t w[9];
      rec r[9];
      int64_t x = -4;
      uint64_t at = 0;
      for (int i = 0; i < n; i++) {
        x += rand() % 3; /* ascending, with repeats */
        a[i] = x;
        u[i] = (uint64_t)(x + 4);
        w[i] = (uint32_t)(x + 4);
        r[i].major = (uint32_t)(i * 3 / n); /* ascending, with repeats */
        at += (uint64_t)(rand() % 3);
        r[i].off = at;
        r[i].len = (uint64_t)(rand() % 3);
        at += r[i].len;
      }
      for (int i = 0; i < n; i++) /* minor ascends within a major */
        r[i].minor = i && r[i].major == r[i - 1].major ? r[i - 1].minor + rand() % 2 : rand() % 3;
      for (int64_t v = -6; v <= 24; v++) {
        size_t lb = 0, ub = 0, ubf = 0, lbu = 0, ubu = 0, ubw = 0, rg = 0;
        while (lb < (size_t)n && a[lb] < v) lb++;
        while (ub < (size_t)n && a[ub] <= v) ub++;
        while (ubf < (size_t)n && (double)a[ubf] <= (double)v + 0.5) ubf++;
        while (lbu < (size_t)n && u[lbu] < (uint64_t)(v + 6)) lbu++;
        while (ubu < (size_t)n && u[ubu] <= (uint64_t)(v + 6)) ubu++;
        while (ubw < (size_t)n && w[ubw] <= (uint32_t)(v + 6)) ubw++;
        while (rg < (size_t)n && r[rg].off + r[rg].len <= (uint64_t)(v + 6)) rg++;
        CHECK_EQ_INT(st_lower_bound_i64(a, (size_t)n, v), lb);
        CHECK_EQ_INT(st_upper_bound_i64(a, (size_t)n, v), ub);
        CHECK_EQ_INT(st_upper_bound_i64_f(a, (size_t)n, (double)v + 0.5), ubf);
        CHECK_EQ_INT(st_lower_bound_u64(u, (size_t)n, (uint64_t)(v + 6)), lbu);
        CHECK_EQ_INT(st_upper_bound_u64(u, (size_t)n, (uint64_t)(v + 6)), ubu);
        CHECK_EQ_INT(st_upper_bound_u32(w, (size_t)n, (uint32_t)(v + 6)), ubw);
        CHECK_EQ_INT(st_first_range_ending_after(r, (size_t)n, sizeof *r, offsetof(rec, off),
                                                 offsetof(rec, len), (uint64_t)(v + 6)),
                     rg);
        /* a sub-range [lo, hi) of a */
        for (int lo = 0; lo <= n; lo++)
          for (int hi = lo; hi <= n; hi++) {
            size_t k = (size_t)lo;
            while (k < (size_t)hi && a[k] < v) k++;
            CHECK_EQ_INT(st_lower_bound_i64_in(a, (size_t)lo, (size_t)hi, v), k);
          }
        /* records by one field, and by a pair (major, minor) */
        rec key_rec[9];
        for (int i = 0; i < n; i++) key_rec[i] = r[i], key_rec[i].minor = a[i];
        CHECK_EQ_INT(
            st_bound_i64_at(key_rec, (size_t)n, sizeof *key_rec, offsetof(rec, minor), v, ST_LOWER),
            lb);
        CHECK_EQ_INT(
            st_bound_i64_at(key_rec, (size_t)n, sizeof *key_rec, offsetof(rec, minor), v, ST_UPPER),
            ub);
        for (uint32_t m = 0; m <= 4; m++)
          for (int upper = 0; upper <= 1; upper++) {
            size_t p = 0;
            while (p < (size_t)n &&
                   (r[p].major < m ||
                    (r[p].major == m && (r[p].minor < v || (upper && r[p].minor == v)))))
              p++;
            CHECK_EQ_INT(st_bound_pair_at(r, (size_t)n, sizeof *r, offsetof(rec, major), m,
                                          offsetof(rec, minor), v, upper),
                         p);
          }
      }
    }
}

static void test_partition_point(void) {
  int v[] = {0, 1, 2, 3, 3, 5};
  CHECK_EQ_INT(st_partition_point(0, 6, below_3, v), 3);
  CHECK_EQ_INT(st_partition_point(4, 6, below_3, v), 4); /* a sub-range past the prefix */
  CHECK_EQ_INT(st_partition_point(0, 2, below_3, v), 2); /* true throughout: hi */
  CHECK_EQ_INT(st_partition_point(2, 2, below_3, v), 2); /* empty */
}

int main(void) {
  RUN(test_against_scans);
  RUN(test_partition_point);
  return check_report();
}
