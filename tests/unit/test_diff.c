/* test_diff.c: the diff table of two traces (core/analysis/diff.h) on the fixtures
 * tests/fixtures/profile/run_a.json and run_b.json: two ProfilerSteps of
 * the same program, B with aten::mm and gemm_kernel twice as long and
 * aten::copy_ replaced by aten::relu. Exact numbers, derived by hand:
 *
 *   name            A: count total self    B: count total self
 *   ProfilerStep#1      1    100   47          1    100   17
 *   ProfilerStep#2      1    100   47          1    100   17
 *   aten::mm            2     60   60          2    120  120
 *   aten::add           2     40   40          2     40   40
 *   aten::copy_         2      6    6          -
 *   aten::relu          -                      2      6    6
 *   gemm_kernel         2     80   80          2    160  160
 *   add_kernel          2     10   10          2     10   10
 *   (us; busy = sum of self: A 290, B 370)
 * Two instances a side are too few for a verdict (ST_DIFF_NOT_ENOUGH_DATA:
 * Mann-Whitney U cannot reach p < 0.01); test_verdicts builds runs with
 * enough instances (the doubled ops of issue 18).
 *
 * Also: a trace against itself (every difference 0, every ratio 1), by
 * category, one step's range, sorting, a row's events, the JSON, bad
 * arguments and allocation failures. */
#include "check.h"
#include "diff.h"
#include "test_util.h"

#include <math.h>

static st_trace *load_fixture(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/tests/fixtures/profile/%s", STRATA_SOURCE_DIR, name);
  size_t n;
  unsigned char *data = tu_read_file(path, &n);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", path);
    return NULL;
  }
  st_error err;
  st_stats stats;
  st_trace *t = tu_load(data, n, n, name, &err, &stats, NULL, 0);
  free(data);
  return t;
}

static const st_diff_row *row_named(const st_diff *d, const char *name) {
  uint32_t n;
  const st_diff_row *r = st_diff_rows(d, &n);
  for (uint32_t i = 0; i < n; i++)
    if (r[i].name_len == strlen(name) && memcmp(r[i].name, name, r[i].name_len) == 0) return &r[i];
  return NULL;
}

static uint32_t index_named(const st_diff *d, const char *name) {
  uint32_t n;
  const st_diff_row *r = st_diff_rows(d, &n);
  for (uint32_t i = 0; i < n; i++)
    if (r[i].name_len == strlen(name) && memcmp(r[i].name, name, r[i].name_len) == 0) return i;
  return UINT32_MAX;
}

#define US 1000 /* ns */
#define N_E ST_DIFF_NOT_ENOUGH_DATA

static void check_row(const st_diff *d, const char *name, uint64_t ca, int64_t ta, int64_t sa,
                      uint64_t cb, int64_t tb, int64_t sb, uint32_t flags) {
  const st_diff_row *r = row_named(d, name);
  CHECK(r != NULL);
  if (!r) {
    fprintf(stderr, "  row %s missing\n", name);
    return;
  }
  CHECK_EQ_INT(r->count_a, ca);
  CHECK_EQ_INT(r->total_a_ns, ta * US);
  CHECK_EQ_INT(r->self_a_ns, sa * US);
  CHECK_EQ_INT(r->count_b, cb);
  CHECK_EQ_INT(r->total_b_ns, tb * US);
  CHECK_EQ_INT(r->self_b_ns, sb * US);
  CHECK_EQ_INT(r->d_count, (int64_t)cb - (int64_t)ca);
  CHECK_EQ_INT(r->d_total_ns, (tb - ta) * US);
  CHECK_EQ_INT(r->d_self_ns, (sb - sa) * US);
  CHECK(r->avg_a_ns == (ca ? (double)(ta * US) / (double)ca : 0));
  CHECK(r->avg_b_ns == (cb ? (double)(tb * US) / (double)cb : 0));
  double want = ta ? (double)tb / (double)ta : (tb ? INFINITY : 1.0);
  CHECK(r->ratio_total == want);
  want = sa ? (double)sb / (double)sa : (sb ? INFINITY : 1.0);
  CHECK(r->ratio_self == want);
  if (r->flags != flags) fprintf(stderr, "  %s: flags %u want %u\n", name, r->flags, flags);
  CHECK_EQ_INT(r->flags, flags);
  CHECK_EQ_INT(r->key_a == ST_STR_NONE, ca == 0);
  CHECK_EQ_INT(r->key_b == ST_STR_NONE, cb == 0);
}

static void test_self_all_zero(void) {
  st_trace *a = load_fixture("run_a.json");
  CHECK(a != NULL);
  if (!a) return;
  st_error err;
  /* the same trace twice, and by category too */
  for (int by = 0; by < 2; by++) {
    st_diff_opts o = {0};
    o.by = (st_diff_by)by;
    st_diff *d = st_diff_build(NULL, a, a, &o, &err);
    CHECK(d != NULL);
    uint32_t n;
    const st_diff_row *r = st_diff_rows(d, &n);
    CHECK_EQ_INT(n, by ? 3 : 7);
    for (uint32_t i = 0; i < n; i++) {
      CHECK_EQ_INT(r[i].d_count, 0);
      CHECK_EQ_INT(r[i].d_total_ns, 0);
      CHECK_EQ_INT(r[i].d_self_ns, 0);
      CHECK(r[i].d_avg_ns == 0);
      CHECK(r[i].ratio_total == 1 && r[i].ratio_self == 1 && r[i].ratio_avg == 1);
      CHECK_EQ_INT(r[i].flags & ~(uint32_t)ST_DIFF_NOT_ENOUGH_DATA, 0);
      CHECK(r[i].p_value == 1);
      CHECK_EQ_INT(r[i].key_a, r[i].key_b);
      CHECK(r[i].count_a > 0);
    }
    st_diff_summary s;
    st_diff_summary_get(d, &s);
    CHECK_EQ_INT(s.only_a, 0);
    CHECK_EQ_INT(s.only_b, 0);
    CHECK_EQ_INT(s.regressions, 0);
    CHECK_EQ_INT(s.improvements, 0);
    CHECK_EQ_INT(s.events_a, 12);
    CHECK_EQ_INT(s.events_b, 12);
    CHECK_EQ_INT(s.busy_a_ns, 290 * US);
    st_diff_destroy(d);
  }
  /* a fresh load of the same file: other strtab, same rows */
  st_trace *a2 = load_fixture("run_a.json");
  st_diff *d = st_diff_build(NULL, a, a2, NULL, &err);
  uint32_t n;
  const st_diff_row *r = st_diff_rows(d, &n);
  CHECK_EQ_INT(n, 7);
  for (uint32_t i = 0; i < n; i++)
    CHECK(r[i].d_total_ns == 0 && !(r[i].flags & (ST_DIFF_REGRESSION | ST_DIFF_IMPROVEMENT)));
  st_diff_destroy(d);
  st_trace_destroy(a2);
  st_trace_destroy(a);
}

static void test_doubled_by_name(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  CHECK(a && b);
  if (!a || !b) return;
  st_error err;
  st_diff *d = st_diff_build(NULL, a, b, NULL, &err);
  CHECK(d != NULL);
  uint32_t n;
  const st_diff_row *r = st_diff_rows(d, &n);
  CHECK_EQ_INT(n, 8);
  check_row(d, "ProfilerStep#1", 1, 100, 47, 1, 100, 17, N_E);
  check_row(d, "ProfilerStep#2", 1, 100, 47, 1, 100, 17, N_E);
  check_row(d, "aten::mm", 2, 60, 60, 2, 120, 120, N_E);
  check_row(d, "aten::add", 2, 40, 40, 2, 40, 40, N_E);
  check_row(d, "aten::copy_", 2, 6, 6, 0, 0, 0, ST_DIFF_ONLY_A);
  check_row(d, "aten::relu", 0, 0, 0, 2, 6, 6, ST_DIFF_ONLY_B);
  check_row(d, "gemm_kernel", 2, 80, 80, 2, 160, 160, N_E);
  check_row(d, "add_kernel", 2, 10, 10, 2, 10, 10, N_E);
  /* gemm_kernel {40, 40} vs {80, 80}: U_b = 4, ties 2 + 2, var 4/3,
   * z = 1.5 / sqrt(4/3): p = 0.19393...; one-sided rows: not computed */
  CHECK(fabs(row_named(d, "gemm_kernel")->p_value - 0.1939308522824107) < 1e-12);
  CHECK(row_named(d, "aten::relu")->p_value == -1);
  /* default order: the biggest increase of total first, ties by name bytes */
  static const char *const order[8] = {"gemm_kernel",    "aten::mm",       "aten::relu",
                                       "ProfilerStep#1", "ProfilerStep#2", "add_kernel",
                                       "aten::add",      "aten::copy_"};
  for (uint32_t i = 0; i < n && i < 8; i++) {
    CHECK(r[i].name_len == strlen(order[i]) && memcmp(r[i].name, order[i], r[i].name_len) == 0);
  }
  st_diff_summary s;
  st_diff_summary_get(d, &s);
  CHECK_EQ_INT(s.rows, 8);
  CHECK_EQ_INT(s.only_a, 1);
  CHECK_EQ_INT(s.only_b, 1);
  CHECK_EQ_INT(s.regressions, 0);
  CHECK_EQ_INT(s.improvements, 0);
  CHECK_EQ_INT(s.not_enough_data, 6);
  CHECK_EQ_INT(s.busy_a_ns, 290 * US);
  CHECK_EQ_INT(s.busy_b_ns, 370 * US);
  CHECK_EQ_INT(s.a_t0_ns, 0);
  CHECK_EQ_INT(s.a_t1_ns, 300 * US); /* ProfilerStep#2 ends at 1300 us */
  CHECK(s.regression_ratio == ST_DIFF_REGRESSION_RATIO);
  /* the avg ratio: mm 30 -> 60 us */
  CHECK(row_named(d, "aten::mm")->ratio_avg == 2.0);
  CHECK(row_named(d, "aten::mm")->d_avg_ns == 30.0 * US);
  st_diff_destroy(d);

  st_trace_destroy(a);
  st_trace_destroy(b);
}

/* A run with 10 instances of fusion.1 (base + i * step us), 10 of
 * fusion.2 (50 + i us) and one "rare" (5 us), one after another. */
static st_trace *run_trace(int base, int step) {
  char text[8192];
  size_t n = (size_t)snprintf(text, sizeof text, "[");
  int64_t ts = 0;
  for (int i = 0; i < 10; i++) {
    n +=
        (size_t)snprintf(text + n, sizeof text - n,
                         "%s{\"ph\":\"X\",\"name\":\"fusion.1\",\"pid\":1,\"tid\":1,\"ts\":%lld,"
                         "\"dur\":%d},{\"ph\":\"X\",\"name\":\"fusion.2\",\"pid\":1,\"tid\":1,"
                         "\"ts\":%lld,\"dur\":%d}",
                         i ? "," : "", (long long)ts, base + i * step, (long long)ts + 300, 50 + i);
    ts += 600;
  }
  snprintf(text + n, sizeof text - n,
           ",{\"ph\":\"X\",\"name\":\"rare\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":5}]",
           (long long)ts);
  st_error err;
  st_stats stats;
  return tu_load(text, strlen(text), strlen(text), "run.json", &err, &stats, NULL, 0);
}

/* issue 18: the doubled op is a regression; the same values are not;
 * one instance is not enough data */
static void test_verdicts(void) {
  st_trace *a = run_trace(100, 1), *b = run_trace(200, 2), *c = run_trace(109, -1);
  CHECK(a && b && c);
  if (!a || !b || !c) return;
  st_error err;
  st_diff *d = st_diff_build(NULL, a, b, NULL, &err);
  /* fusion.1: 10 instances a side pair up (issue 29): the signed-rank test
   * of log(B/A), every pair log 2 (ties: W+ = 55, var = 96.25 - 990 / 48),
   * p = erfc(27 / sqrt(75.625) / sqrt 2) (python's math.erfc) */
  check_row(d, "fusion.1", 10, 1045, 1045, 10, 2090, 2090, ST_DIFF_REGRESSION);
  CHECK(fabs(row_named(d, "fusion.1")->p_value - 0.0019041950430043902) < 1e-15);
  CHECK_EQ_INT(row_named(d, "fusion.1")->test, ST_DIFF_TEST_WILCOXON);
  CHECK_EQ_INT(row_named(d, "rare")->test, ST_DIFF_TEST_MANN_WHITNEY);
  check_row(d, "fusion.2", 10, 545, 545, 10, 545, 545, 0);
  CHECK(row_named(d, "fusion.2")->p_value == 1);
  check_row(d, "rare", 1, 5, 5, 1, 5, 5, N_E);
  st_diff_summary s;
  st_diff_summary_get(d, &s);
  CHECK_EQ_INT(s.regressions, 1);
  CHECK_EQ_INT(s.not_enough_data, 1);
  CHECK(s.alpha == ST_DIFF_ALPHA);
  /* the rollup: fusion.1 and fusion.2 are kind "fusion": +1045 us */
  uint32_t nk;
  const st_diff_kind *k = st_diff_rollup(d, &nk);
  CHECK_EQ_INT(nk, 2);
  CHECK(k[0].kind_len == 6 && memcmp(k[0].kind, "fusion", 6) == 0);
  CHECK_EQ_INT(k[0].rows, 2);
  CHECK_EQ_INT(k[0].regressions, 1);
  CHECK_EQ_INT(k[0].d_total_ns, 1045 * US);
  /* the kind's own verdict: its 20 pairs (10 of them log 2, 10 zero and
   * dropped) by the paired test, x1.66 in total */
  CHECK_EQ_INT(k[0].verdict, ST_DIFF_REGRESSION);
  CHECK_EQ_INT(k[0].test, ST_DIFF_TEST_WILCOXON);
  CHECK(fabs(k[0].p_value - 0.0019041950430043902) < 1e-15);
  /* no steps, no devices: an empty headline */
  st_diff_headline h;
  st_diff_headline_get(d, &h);
  CHECK(!h.has_step && !h.has_busy && h.steps_a == 0);
  st_diff_destroy(d);
  /* the same values in another order: no verdict either way (the pairs'
   * log ratios are symmetric about 0) */
  d = st_diff_build(NULL, a, c, NULL, &err);
  CHECK(row_named(d, "fusion.1")->p_value > 0.9);
  st_diff_summary_get(d, &s);
  CHECK_EQ_INT(s.regressions + s.improvements, 0);
  st_diff_destroy(d);
  /* the mirror image */
  d = st_diff_build(NULL, b, a, NULL, &err);
  check_row(d, "fusion.1", 10, 2090, 2090, 10, 1045, 1045, ST_DIFF_IMPROVEMENT);
  st_diff_destroy(d);
  /* thresholds: a 2.5x effect is not reached; a 50 % share of busy
   * (0.5 x 2640 us) is not either, a 30 % one is */
  st_diff_opts o = {0};
  o.regression_ratio = 2.5;
  d = st_diff_build(NULL, a, b, &o, &err);
  CHECK_EQ_INT(row_named(d, "fusion.1")->flags, 0);
  st_diff_destroy(d);
  o.regression_ratio = 0;
  o.regression_share = 0.5;
  d = st_diff_build(NULL, a, b, &o, &err);
  CHECK_EQ_INT(row_named(d, "fusion.1")->flags, 0);
  st_diff_destroy(d);
  o.regression_share = 0.3;
  d = st_diff_build(NULL, a, b, &o, &err);
  CHECK_EQ_INT(row_named(d, "fusion.1")->flags, ST_DIFF_REGRESSION);
  st_diff_destroy(d);
  /* a stricter alpha than 10 against 10 instances can ever reach: not
   * enough data */
  memset(&o, 0, sizeof o);
  o.alpha = 1e-4;
  d = st_diff_build(NULL, a, b, &o, &err);
  CHECK_EQ_INT(row_named(d, "fusion.1")->flags, N_E);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
  st_trace_destroy(c);
}

static void test_by_category(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  st_error err;
  st_diff_opts o = {0};
  o.by = ST_DIFF_BY_CAT;
  st_diff *d = st_diff_build(NULL, a, b, &o, &err);
  uint32_t n;
  st_diff_rows(d, &n);
  CHECK_EQ_INT(n, 3);
  /* cpu_op: mm + add + copy_ (A) / relu (B); self = total (no children) */
  /* cpu_op {3,3,20,20,30,30} vs {3,3,20,20,60,60}: 6 a side is enough;
   * U_b = 20 of mean 18, var 36: p = erfc(0.25 / sqrt 2), no verdict */
  check_row(d, "cpu_op", 6, 106, 106, 6, 166, 166, 0);
  CHECK(fabs(row_named(d, "cpu_op")->p_value - 0.8025873486341526) < 1e-12);
  check_row(d, "kernel", 4, 90, 90, 4, 170, 170, N_E);
  check_row(d, "user_annotation", 2, 200, 94, 2, 200, 34, N_E);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
}

static void test_step_range(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  st_error err;
  /* step 2 in each: [200, 300) us from the start (1000 us in the file) */
  st_diff_opts o = {0};
  o.range_a = o.range_b = 1;
  o.a_t0_ns = o.b_t0_ns = 200 * US;
  o.a_t1_ns = o.b_t1_ns = 300 * US;
  st_diff *d = st_diff_build(NULL, a, b, &o, &err);
  uint32_t n;
  st_diff_rows(d, &n);
  CHECK_EQ_INT(n, 7); /* ProfilerStep#1 ends at 100 us */
  CHECK(row_named(d, "ProfilerStep#1") == NULL);
  check_row(d, "ProfilerStep#2", 1, 100, 47, 1, 100, 17, N_E);
  check_row(d, "aten::mm", 1, 30, 30, 1, 60, 60, N_E);
  check_row(d, "gemm_kernel", 1, 40, 40, 1, 80, 80, N_E);
  check_row(d, "aten::copy_", 1, 3, 3, 0, 0, 0, ST_DIFF_ONLY_A);
  st_diff_summary s;
  st_diff_summary_get(d, &s);
  CHECK_EQ_INT(s.events_a, 6);
  CHECK_EQ_INT(s.a_t0_ns, 200 * US);
  CHECK_EQ_INT(s.b_t1_ns, 300 * US);
  st_diff_destroy(d);
  /* different ranges per side: A's step 1 against B's step 2 */
  o.a_t0_ns = 0;
  o.a_t1_ns = 100 * US;
  d = st_diff_build(NULL, a, b, &o, &err);
  check_row(d, "ProfilerStep#1", 1, 100, 47, 0, 0, 0, ST_DIFF_ONLY_A);
  check_row(d, "ProfilerStep#2", 0, 0, 0, 1, 100, 17, ST_DIFF_ONLY_B);
  st_diff_destroy(d);
  /* an empty range: no rows */
  o.a_t0_ns = o.a_t1_ns = o.b_t0_ns = o.b_t1_ns = 5000 * US;
  d = st_diff_build(NULL, a, b, &o, &err);
  st_diff_rows(d, &n);
  CHECK_EQ_INT(n, 0);
  char json[512];
  st_diff_json(d, 0, json, sizeof json);
  CHECK(strstr(json, "\"rows\":[],\"only_a\":0,\"only_b\":0") != NULL);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
}

static void test_sort(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  st_error err;
  st_diff *d = st_diff_build(NULL, a, b, NULL, &err);
  uint32_t n;
  const st_diff_row *r;
  /* ratio: relu (+inf) above every finite ratio; mm and gemm (2) by name */
  st_diff_sort(d, ST_DIFF_COL_RATIO_TOTAL, 1);
  r = st_diff_rows(d, &n);
  CHECK(r[0].name_len == 10 && memcmp(r[0].name, "aten::relu", 10) == 0);
  CHECK(r[1].name_len == 8 && memcmp(r[1].name, "aten::mm", 8) == 0);
  CHECK(r[2].name_len == 11 && memcmp(r[2].name, "gemm_kernel", 11) == 0);
  CHECK(r[n - 1].name_len == 11 && memcmp(r[n - 1].name, "aten::copy_", 11) == 0); /* 0 */
  /* every column, both directions: ordered by that column */
  for (int c = 0; c < ST_DIFF_COL_COUNT_; c++)
    for (int desc = 0; desc < 2; desc++) {
      st_diff_sort(d, (st_diff_col)c, desc);
      r = st_diff_rows(d, &n);
      for (uint32_t i = 1; i < n; i++) {
        double x = 0, y = 0;
        switch ((st_diff_col)c) {
        case ST_DIFF_COL_NAME: {
          size_t m = r[i - 1].name_len < r[i].name_len ? r[i - 1].name_len : r[i].name_len;
          int k = memcmp(r[i - 1].name, r[i].name, m);
          x = k ? k : (double)r[i - 1].name_len;
          y = k ? 0 : (double)r[i].name_len;
          break;
        }
        case ST_DIFF_COL_COUNT_A: x = (double)r[i - 1].count_a, y = (double)r[i].count_a; break;
        case ST_DIFF_COL_COUNT_B: x = (double)r[i - 1].count_b, y = (double)r[i].count_b; break;
        case ST_DIFF_COL_TOTAL_A:
          x = (double)r[i - 1].total_a_ns, y = (double)r[i].total_a_ns;
          break;
        case ST_DIFF_COL_TOTAL_B:
          x = (double)r[i - 1].total_b_ns, y = (double)r[i].total_b_ns;
          break;
        case ST_DIFF_COL_SELF_A: x = (double)r[i - 1].self_a_ns, y = (double)r[i].self_a_ns; break;
        case ST_DIFF_COL_SELF_B: x = (double)r[i - 1].self_b_ns, y = (double)r[i].self_b_ns; break;
        case ST_DIFF_COL_AVG_A: x = r[i - 1].avg_a_ns, y = r[i].avg_a_ns; break;
        case ST_DIFF_COL_AVG_B: x = r[i - 1].avg_b_ns, y = r[i].avg_b_ns; break;
        case ST_DIFF_COL_D_COUNT: x = (double)r[i - 1].d_count, y = (double)r[i].d_count; break;
        case ST_DIFF_COL_D_TOTAL:
          x = (double)r[i - 1].d_total_ns, y = (double)r[i].d_total_ns;
          break;
        case ST_DIFF_COL_D_SELF: x = (double)r[i - 1].d_self_ns, y = (double)r[i].d_self_ns; break;
        case ST_DIFF_COL_D_AVG: x = r[i - 1].d_avg_ns, y = r[i].d_avg_ns; break;
        case ST_DIFF_COL_RATIO_TOTAL: x = r[i - 1].ratio_total, y = r[i].ratio_total; break;
        case ST_DIFF_COL_RATIO_SELF: x = r[i - 1].ratio_self, y = r[i].ratio_self; break;
        case ST_DIFF_COL_RATIO_AVG: x = r[i - 1].ratio_avg, y = r[i].ratio_avg; break;
        default: break;
        }
        CHECK(desc ? x >= y : x <= y);
      }
      CHECK_EQ_STR(st_diff_col_key((st_diff_col)c),
                   st_diff_col_key(st_diff_col_parse(st_diff_col_key((st_diff_col)c),
                                                     strlen(st_diff_col_key((st_diff_col)c)))));
    }
  st_diff_sort(d, ST_DIFF_COL_NAME, 0);
  r = st_diff_rows(d, &n);
  CHECK(memcmp(r[0].name, "ProfilerStep#1", 14) == 0);
  CHECK(memcmp(r[n - 1].name, "gemm_kernel", 11) == 0);
  CHECK_EQ_INT(st_diff_col_parse("d_total_us", 10), ST_DIFF_COL_D_TOTAL);
  CHECK_EQ_INT(st_diff_col_parse("nope", 4), ST_DIFF_COL_COUNT_);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
}

static int count_events(const st_diff *d, uint32_t row, st_diff_side side, const char *name,
                        int by_cat) {
  st_diff_iter it;
  st_event_ref ref;
  int k = 0;
  const st_trace *t = st_diff_trace(d, side);
  st_diff_events_begin(d, row, side, &it);
  while (st_diff_events_next(&it, &ref)) {
    st_event_info info;
    CHECK(st_event_get(t, ref, &info));
    const char *s = st_strtab_get(st_trace_strings(t), by_cat ? info.cat : info.name, NULL);
    CHECK_EQ_STR(s, name);
    k++;
  }
  CHECK(!st_diff_events_next(&it, &ref)); /* stays at the end */
  return k;
}

static void test_row_events(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  st_error err;
  st_diff *d = st_diff_build(NULL, a, b, NULL, &err);
  CHECK_EQ_INT(count_events(d, index_named(d, "aten::mm"), ST_DIFF_SIDE_A, "aten::mm", 0), 2);
  CHECK_EQ_INT(count_events(d, index_named(d, "aten::mm"), ST_DIFF_SIDE_B, "aten::mm", 0), 2);
  CHECK_EQ_INT(count_events(d, index_named(d, "aten::relu"), ST_DIFF_SIDE_A, "", 0), 0);
  CHECK_EQ_INT(count_events(d, index_named(d, "aten::relu"), ST_DIFF_SIDE_B, "aten::relu", 0), 2);
  CHECK_EQ_INT(count_events(d, 99, ST_DIFF_SIDE_A, "", 0), 0); /* no such row */
  st_diff_destroy(d);
  /* within a range: only step 2's */
  st_diff_opts o = {0};
  o.range_a = o.range_b = 1;
  o.a_t0_ns = o.b_t0_ns = 200 * US;
  o.a_t1_ns = o.b_t1_ns = 300 * US;
  d = st_diff_build(NULL, a, b, &o, &err);
  CHECK_EQ_INT(count_events(d, index_named(d, "gemm_kernel"), ST_DIFF_SIDE_B, "gemm_kernel", 0), 1);
  st_diff_destroy(d);
  o.by = ST_DIFF_BY_CAT;
  o.range_a = o.range_b = 0;
  d = st_diff_build(NULL, a, b, &o, &err);
  CHECK_EQ_INT(count_events(d, index_named(d, "cpu_op"), ST_DIFF_SIDE_A, "cpu_op", 1), 6);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
}

static void test_json(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  st_error err;
  st_diff *d = st_diff_build(NULL, a, b, NULL, &err);
  size_t need = st_diff_json(d, 0, NULL, 0);
  char *buf = malloc(need + 1);
  CHECK_EQ_INT(st_diff_json(d, 0, buf, need + 1), need);
  CHECK_EQ_INT(strlen(buf), need);
  static const char first[] =
      "{\"schema\":\"strata.diff/1\",\"by\":\"name\",\"rows\":[{\"name\":\"gemm_kernel\","
      "\"count_a\":2,"
      "\"count_b\":2,\"total_us_a\":80,\"total_us_b\":160,\"self_us_a\":80,"
      "\"self_us_b\":160,\"avg_us_a\":40,\"avg_us_b\":80,\"d_count\":0,"
      "\"d_total_us\":80,\"d_self_us\":80,\"d_avg_us\":40,\"ratio_total\":2,"
      "\"ratio_self\":2,\"ratio_avg\":2,\"only_a\":false,\"only_b\":false,"
      "\"regression\":false,\"improvement\":false,\"p_value\":0.1939,"
      "\"verdict\":\"too_few\",\"test\":\"mann_whitney\"}";
  CHECK(strncmp(buf, first, sizeof first - 1) == 0);
  CHECK(strstr(buf, "{\"name\":\"aten::relu\",\"count_a\":0,\"count_b\":2,\"total_us_a\":0,"
                    "\"total_us_b\":6,\"self_us_a\":0,\"self_us_b\":6,\"avg_us_a\":0,"
                    "\"avg_us_b\":3,\"d_count\":2,\"d_total_us\":6,\"d_self_us\":6,"
                    "\"d_avg_us\":3,\"ratio_total\":null,\"ratio_self\":null,"
                    "\"ratio_avg\":null,\"only_a\":false,\"only_b\":true,") != NULL);
  CHECK(strstr(buf, "],\"only_a\":1,\"only_b\":1,\"regressions\":0,\"improvements\":0,"
                    "\"events_a\":12,\"events_b\":12,\"busy_us_a\":290,\"busy_us_b\":370,"
                    "\"range_a\":[0,300],\"range_b\":[0,300],\"not_enough_data\":6,"
                    "\"alpha\":0.01,\"regression_ratio\":1.1,\"rollup\":[{\"kind\":"
                    "\"gemm_kernel\",\"rows\":1,") != NULL);
  /* ProfilerStep#1 and #2 roll up into one kind */
  CHECK(strstr(buf, "{\"kind\":\"ProfilerStep\",\"rows\":2,\"count_a\":2,\"count_b\":2,"
                    "\"total_us_a\":200,\"total_us_b\":200,\"d_total_us\":0,") != NULL);
  /* the headline: 2 steps of 100 us each; device busy 45 -> 85 us a step */
  CHECK(strstr(buf, "\"headline\":{\"steps_a\":2,\"steps_b\":2,\"step_us_a\":100,"
                    "\"step_us_b\":100,\"d_step_us\":0,\"d_step_ci_us\":[0,0],"
                    "\"busy_us_a\":45,\"busy_us_b\":85,\"d_busy_us\":40,"
                    "\"d_busy_ci_us\":[40,40]}}") != NULL);
  /* truncated output: NUL-terminated, full length returned */
  char small[40];
  CHECK_EQ_INT(st_diff_json(d, 0, small, sizeof small), need);
  CHECK_EQ_INT(strlen(small), sizeof small - 1);
  /* max_rows */
  size_t one = st_diff_json(d, 1, buf, need + 1);
  CHECK(one < need);
  CHECK(strstr(buf, "\"name\":\"aten::mm\"") == NULL);
  free(buf);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
}

/* names with quotes, control characters and invalid UTF-8 in the JSON */
static void test_json_hostile_names(void) {
  static const char text[] =
      "[{\"ph\":\"X\",\"name\":\"q\\\"b\\\\\\n\xff\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]";
  st_error err;
  st_stats stats;
  st_trace *t = tu_load(text, sizeof text - 1, 7, "h.json", &err, &stats, NULL, 0);
  CHECK(t != NULL);
  st_diff *d = st_diff_build(NULL, t, t, NULL, &err);
  char buf[1024];
  st_diff_json(d, 0, buf, sizeof buf);
  CHECK(strstr(buf, "\"name\":\"q\\\"b\\\\\\u000a\xEF\xBF\xBD\"") != NULL);
  st_diff_destroy(d);
  st_trace_destroy(t);
}

static void test_bad_args(void) {
  st_trace *a = load_fixture("run_a.json");
  st_error err;
  CHECK(st_diff_build(NULL, NULL, a, NULL, &err) == NULL);
  CHECK_EQ_INT(err.code, ST_ERR_ARG);
  st_diff_opts o = {0};
  o.range_a = 1;
  o.a_t0_ns = 10;
  o.a_t1_ns = 5;
  CHECK(st_diff_build(NULL, a, a, &o, &err) == NULL);
  CHECK_EQ_INT(err.code, ST_ERR_ARG);
  memset(&o, 0, sizeof o);
  o.regression_ratio = 0.5;
  CHECK(st_diff_build(NULL, a, a, &o, &err) == NULL);
  o.regression_ratio = NAN;
  CHECK(st_diff_build(NULL, a, a, &o, &err) == NULL);
  o.regression_ratio = 0;
  o.regression_share = 2;
  CHECK(st_diff_build(NULL, a, a, &o, &err) == NULL);
  o.regression_share = 0;
  o.alpha = 1.5;
  CHECK(st_diff_build(NULL, a, a, &o, &err) == NULL);
  o.alpha = 0;
  o.by = (st_diff_by)7;
  CHECK(st_diff_build(NULL, a, a, &o, &err) == NULL);
  /* NULL-safe accessors */
  uint32_t n = 5;
  CHECK(st_diff_rows(NULL, &n) == NULL && n == 0);
  st_diff_sort(NULL, ST_DIFF_COL_NAME, 0);
  st_diff_destroy(NULL);
  CHECK(st_diff_trace(NULL, ST_DIFF_SIDE_A) == NULL);
  st_trace_destroy(a);
}

static void test_out_of_memory(void) {
  st_trace *a = load_fixture("run_a.json"), *b = load_fixture("run_b.json");
  int ok = 0;
  for (int k = 0; k < 400 && !ok; k++) {
    tu_fail_alloc f = {k};
    st_alloc al = {tu_failing, &f};
    st_error err;
    st_diff *d = st_diff_build(&al, a, b, NULL, &err);
    if (d) {
      ok = 1;
      uint32_t n;
      st_diff_rows(d, &n);
      CHECK_EQ_INT(n, 8);
      st_diff_destroy(d);
    } else {
      CHECK_EQ_INT(err.code, ST_ERR_NOMEM);
    }
  }
  CHECK(ok);
  st_trace_destroy(a);
  st_trace_destroy(b);
}

/* Two ProfilerSteps [0, 1000) and [1000, 2000) us; "op" n1 times in the
 * first (at 10 + 40 k us), n2 in the second, durations base + k. */
static st_trace *stepped_trace(int n1, int n2, int base) {
  char text[16384];
  size_t n = (size_t)snprintf(text, sizeof text,
                              "[{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
                              "\"ts\":0,\"dur\":1000},{\"ph\":\"X\",\"name\":\"ProfilerStep#2\","
                              "\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":1000}");
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < (s ? n2 : n1); k++)
      n += (size_t)snprintf(text + n, sizeof text - n,
                            ",{\"ph\":\"X\",\"name\":\"op\",\"pid\":1,\"tid\":2,\"ts\":%d,"
                            "\"dur\":%d}",
                            s * 1000 + 10 + 40 * k, base + k);
  snprintf(text + n, sizeof text - n, "]");
  st_error err;
  st_stats stats;
  return tu_load(text, strlen(text), strlen(text), "stepped.json", &err, &stats, NULL, 0);
}

/* issue 29: instances pair up when both runs hold the same count per step;
 * the same total spread otherwise over the steps is Mann-Whitney's */
static void test_pairs_per_step(void) {
  st_trace *a = stepped_trace(10, 10, 20), *b = stepped_trace(10, 10, 30),
           *c = stepped_trace(12, 8, 30);
  CHECK(a && b && c);
  if (!a || !b || !c) return;
  st_error err;
  st_diff *d = st_diff_build(NULL, a, b, NULL, &err);
  const st_diff_row *r = row_named(d, "op");
  CHECK(r && r->test == ST_DIFF_TEST_WILCOXON);
  /* pairs (20 + k, 30 + k) twice: every log ratio > 0, no two |x| equal
   * but the two steps' (ties of 2): W+ = 210, var = 20 * 21 * 41 / 24 -
   * 10 * 6 / 48 = 716.25, p = erfc((105 - 0.5) / sqrt(716.25) / sqrt 2) */
  CHECK(r && fabs(r->p_value - 9.435531950033605e-05) < 1e-15);
  st_diff_destroy(d);
  d = st_diff_build(NULL, a, c, NULL, &err);
  r = row_named(d, "op");
  CHECK(r && r->test == ST_DIFF_TEST_MANN_WHITNEY && r->count_a == r->count_b);
  st_diff_destroy(d);
  st_trace_destroy(a);
  st_trace_destroy(b);
  st_trace_destroy(c);
}

int main(void) {
  RUN(test_self_all_zero);
  RUN(test_pairs_per_step);
  RUN(test_doubled_by_name);
  RUN(test_verdicts);
  RUN(test_by_category);
  RUN(test_step_range);
  RUN(test_sort);
  RUN(test_row_events);
  RUN(test_json);
  RUN(test_json_hostile_names);
  RUN(test_bad_args);
  RUN(test_out_of_memory);
  return check_report();
}
