/* test_analyze.c: the analysis of core/analysis/analyze.h, opstats.h and
 * stat_tests.h on hand-built traces with answers derived by hand.
 *
 * The Kineto-like trace (us; pid 0 is the GPU, pid 100 the program):
 *   host "python": PyTorch Profiler (0) [0, 200) wraps ProfilerStep#1
 *     [0, 100) (forward [5, 45), backward [50, 95)) and ProfilerStep#2
 *     [100, 200) (forward [105, 125))
 *   stream 7: gemm [10, 40), ncclKernel_AllReduce [50, 70),
 *     Memcpy HtoD (gpu_memcpy) [80, 90), gemm [110, 130)
 *   stream 8: ncclKernel_AllGather [30, 60), add [65, 75),
 *     an annotation (gpu_user_annotation) [0, 8), Memset (gpu_memset) [150, 160)
 * Step 1: compute = [10,40) u [65,75) = 40; comm = [30,70) = 40; memcpy =
 *   10; busy = [10,75) u [80,90) = 75; idle 25; overlap = comm n compute =
 *   [30,40) + [65,70) = 15 (37.5 % of comm). Step 2: compute 20, memcpy
 *   10, busy 30, idle 70. The range [0, 200): busy 105, compute 60, comm
 *   40, memcpy 20, overlap 15. Idle gaps: [160,200) 40, [90,110) 20,
 *   [130,150) 20, [0,10) 10, [75,80) 5. Host per step (the markers and
 *   the profiler's wrapper left out): 40 + 45 = 85, then 20.
 */
#include "analyze.h"
#include "check.h"
#include "stat_tests.h"
#include "test_util.h"

#include <math.h>

#define US 1000 /* ns */

static st_trace *load_text(const char *text) {
  st_error err;
  st_stats stats;
  st_trace *t = tu_load(text, strlen(text), 4096, "t.json", &err, &stats, NULL, 0);
  CHECK(t != NULL);
  return t;
}

static const char kineto[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"python3\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":8,\"args\":{\"name\":\"stream 8 \"}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":100,\"tid\":0,\"args\":{\"name\":\"python3\"}}"
    ","
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":100,\"tid\":1,\"args\":{\"name\":\"python\"}},"
    "{\"ph\":\"X\",\"name\":\"PyTorch Profiler (0)\",\"pid\":100,\"tid\":1,\"ts\":0,\"dur\":200},"
    "{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":100,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"forward\",\"pid\":100,\"tid\":1,\"ts\":5,\"dur\":40},"
    "{\"ph\":\"X\",\"name\":\"backward\",\"pid\":100,\"tid\":1,\"ts\":50,\"dur\":45},"
    "{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"pid\":100,\"tid\":1,\"ts\":100,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"forward\",\"pid\":100,\"tid\":1,\"ts\":105,\"dur\":20},"
    "{\"ph\":\"X\",\"name\":\"gemm\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":30},"
    "{\"ph\":\"X\",\"name\":\"ncclKernel_AllReduce\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":50,\"dur\":20},"
    "{\"ph\":\"X\",\"name\":\"Memcpy HtoD\",\"cat\":\"gpu_memcpy\",\"pid\":0,\"tid\":7,\"ts\":80,"
    "\"dur\":10},"
    "{\"ph\":\"X\",\"name\":\"gemm\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":110,\"dur\":20},"
    "{\"ph\":\"X\",\"name\":\"ncclKernel_AllGather\",\"cat\":\"kernel\",\"pid\":0,\"tid\":8,"
    "\"ts\":30,\"dur\":30},"
    "{\"ph\":\"X\",\"name\":\"add\",\"cat\":\"kernel\",\"pid\":0,\"tid\":8,\"ts\":65,\"dur\":10},"
    "{\"ph\":\"X\",\"name\":\"mark\",\"cat\":\"gpu_user_annotation\",\"pid\":0,\"tid\":8,\"ts\":0,"
    "\"dur\":8},"
    "{\"ph\":\"X\",\"name\":\"Memset (Device)\",\"cat\":\"gpu_memset\",\"pid\":0,\"tid\":8,"
    "\"ts\":150,\"dur\":10}"
    "]}";

static void check_times(const st_an_times *t, int64_t wall, int64_t busy, int64_t compute,
                        int64_t comm, int64_t memcpy_, int64_t overlap) {
  CHECK_EQ_INT(t->wall_ns, wall * US);
  CHECK_EQ_INT(t->busy_ns, busy * US);
  CHECK_EQ_INT(t->compute_ns, compute * US);
  CHECK_EQ_INT(t->comm_ns, comm * US);
  CHECK_EQ_INT(t->memcpy_ns, memcpy_ * US);
  CHECK_EQ_INT(t->overlap_ns, overlap * US);
}

static const char *event_name(const st_trace *t, st_event_ref r) {
  static char buf[64];
  size_t l;
  const char *s =
      st_strtab_get(st_trace_strings(t), st_trace_rows(t, NULL)[r.row].name[r.index], &l);
  snprintf(buf, sizeof buf, "%.*s", (int)l, s);
  return buf;
}

static void test_unions(void) {
  st_trace *t = load_text(kineto);
  if (!t) return;
  st_error err;
  const st_trace *ts[1] = {t};
  st_analysis *an = st_analyze(NULL, ts, 1, NULL, &err);
  CHECK(an != NULL);
  if (!an) return;
  CHECK_EQ_INT(st_analysis_step_source(an, 0), ST_STEPS_PROFILER_STEP);
  uint32_t ns, nd, nc, ng;
  const st_an_step *steps = st_analysis_steps(an, &ns);
  CHECK_EQ_INT(ns, 2);
  CHECK_EQ_INT(steps[0].number, 1);
  CHECK_EQ_INT(steps[0].t0_ns, 0);
  CHECK_EQ_INT(steps[0].t1_ns, 100 * US);
  CHECK_EQ_INT(steps[1].number, 2);
  CHECK_EQ_INT(steps[0].host_ns, 85 * US);
  CHECK_EQ_INT(steps[1].host_ns, 20 * US);
  const st_an_device *d = st_analysis_devices(an, &nd);
  CHECK_EQ_INT(nd, 1);
  CHECK_EQ_STR(d[0].name, "GPU 0");
  CHECK_EQ_INT(d[0].rows, 2);
  CHECK_EQ_INT(d[0].step_count, 2);
  CHECK_EQ_INT(d[0].step_ns, 100 * US);
  check_times(&d[0].total, 200, 105, 60, 40, 20, 15);
  const st_an_cell *c = st_analysis_cells(an, &nc);
  CHECK_EQ_INT(nc, 2);
  check_times(&c[d[0].first_cell].t, 100, 75, 40, 40, 10, 15);
  check_times(&c[d[0].first_cell + 1].t, 100, 30, 20, 0, 10, 0);
  const st_an_gap *g = st_analysis_gaps(an, &ng);
  CHECK_EQ_INT(ng, 5);
  static const int64_t gap[5][2] = {{160, 200}, {90, 110}, {130, 150}, {0, 10}, {75, 80}};
  for (uint32_t i = 0; i < ng && i < 5; i++) {
    CHECK_EQ_INT(g[i].t0_ns, gap[i][0] * US);
    CHECK_EQ_INT(g[i].t1_ns, gap[i][1] * US);
  }
  /* host in the gaps: none at the end; backward then forward (5 us each) */
  CHECK_EQ_INT(g[0].host_count, 0);
  CHECK_EQ_INT(g[1].host_count, 2);
  CHECK_EQ_STR(event_name(t, g[1].host[0].ref), "backward");
  CHECK_EQ_INT(g[1].host[0].overlap_ns, 5 * US);
  CHECK_EQ_STR(event_name(t, g[1].host[1].ref), "forward");
  CHECK_EQ_INT(g[3].host_count, 1); /* [0, 10): forward's [5, 10) */
  CHECK_EQ_INT(g[3].host[0].overlap_ns, 5 * US);
  /* the JSON: the keys, exact figures */
  size_t need = st_analysis_json(an, NULL, NULL, 0);
  char *buf = malloc(need + 1);
  CHECK_EQ_INT(st_analysis_json(an, NULL, buf, need + 1), need);
  CHECK(strstr(buf, "\"devices\":[{\"trace\":0,\"name\":\"GPU 0\",\"steps\":2,\"range_us\":200,"
                    "\"step_us\":100,\"step_p50_us\":100,\"step_p90_us\":100,"
                    "\"utilization_pct\":52.5,\"busy_us\":105,\"idle_us\":95,\"idle_pct\":47.5,"
                    "\"compute_us\":60,\"comm_us\":40,\"memcpy_us\":20,\"overlap_pct\":37.5,"
                    "\"steps_with_work\":2,\"idle_split\":{\"host_wait_us\":0,\"kernel_wait_us\":0,"
                    "\"other_us\":95},\"idle_causes\":[") != NULL);
  /* idle causes (issue 29), by hand: the gaps [0, 10), [75, 80), [90, 110),
   * [130, 150), [160, 200); forward [5, 45) and [105, 125), backward [50,
   * 95) under the wrappers (left out): forward 5 + 5, backward 5 + 5, the
   * rest (75 us) nothing; they sum to the idle 95 us */
  CHECK(strstr(buf, "\"idle_causes\":[{\"what\":\"forward\",\"us\":10,\"pct\":10.53,"
                    "\"kind\":\"slice\",\"in\":null,\"gaps\":2,\"gap_start_us\":0,"
                    "\"gap_end_us\":10},{\"what\":\"backward\",\"us\":10,\"pct\":10.53,"
                    "\"kind\":\"slice\",\"in\":null,\"gaps\":2,\"gap_start_us\":75,"
                    "\"gap_end_us\":80},{\"what\":\"nothing recorded\",\"us\":75,\"pct\":78.95,"
                    "\"kind\":\"none\",\"in\":null,\"gaps\":4,\"gap_start_us\":160,"
                    "\"gap_end_us\":200}]}]") != NULL);
  CHECK(strstr(buf, "{\"trace\":0,\"step\":2,\"start_us\":100,\"end_us\":200,\"wall_us\":100,"
                    "\"host_us\":20}") != NULL);
  CHECK(strstr(buf,
               "\"per_step\":[{\"trace\":0,\"device\":0,\"step\":1,\"start_us\":0,"
               "\"wall_us\":100,\"busy_us\":75,\"idle_us\":25,\"idle_pct\":25,"
               "\"compute_us\":40,\"comm_us\":40,\"memcpy_us\":10,\"overlap_pct\":37.5}") != NULL);
  CHECK(strstr(buf, "\"stragglers\":[]") != NULL);
  free(buf);
  st_analysis_destroy(an);

  /* --step-name: "forward" events are the steps: [5,45) and [105,125) */
  st_analyze_opts o = {0};
  o.step_name = "forward";
  o.step_name_len = 7;
  an = st_analyze(NULL, ts, 1, &o, &err);
  steps = st_analysis_steps(an, &ns);
  CHECK_EQ_INT(st_analysis_step_source(an, 0), ST_STEPS_NAMED);
  CHECK_EQ_INT(ns, 2);
  CHECK_EQ_INT(steps[1].number, 2);
  CHECK_EQ_INT(steps[1].t0_ns, 105 * US);
  d = st_analysis_devices(an, &nd);
  /* range [5,45) u [105,125): busy [10,45) + [110,125) */
  CHECK_EQ_INT(d[0].total.wall_ns, 60 * US);
  CHECK_EQ_INT(d[0].total.busy_ns, 50 * US);
  st_analysis_destroy(an);
  st_trace_destroy(t);
}

/* The parts of a merged view share one string table (classified once for
 * both): two copies of the Kineto-like trace give the same figures each. */
static void test_shared_strings(void) {
  st_strtab *strs = st_strtab_create(NULL);
  st_trace *t[2];
  for (int k = 0; k < 2; k++) {
    st_load_desc d;
    memset(&d, 0, sizeof d);
    d.file_name = "t.json";
    d.strings = strs;
    st_loader *l = st_loader_create(&d);
    st_loader_push(l, kineto, strlen(kineto));
    st_error err;
    t[k] = st_loader_finish(l, &err);
    st_loader_destroy(l);
    CHECK(t[k] != NULL);
  }
  CHECK(st_trace_strings(t[0]) == st_trace_strings(t[1]));
  st_error err;
  st_analysis *an = st_analyze(NULL, (const st_trace *const *)t, 2, NULL, &err);
  uint32_t nd, ns;
  const st_an_device *d = st_analysis_devices(an, &nd);
  const st_an_step *steps = st_analysis_steps(an, &ns);
  CHECK_EQ_INT(nd, 2);
  CHECK_EQ_INT(ns, 4);
  for (uint32_t i = 0; i < nd; i++) check_times(&d[i].total, 200, 105, 60, 40, 20, 15);
  CHECK_EQ_INT(steps[2].host_ns, 85 * US);
  st_analysis_destroy(an);
  st_trace_destroy(t[0]);
  st_trace_destroy(t[1]);
  st_strtab_destroy(strs);
}

/* XProf-like TPU cores: no streams, the XLA Ops line; Steps lines with
 * each core's own windows */
static void test_steps_line(void) {
  static const char text[] =
      "{\"traceEvents\":["
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"/device:TPU:0\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"Steps\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":3,\"args\":{\"name\":\"XLA Ops\"}},"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"/device:TPU:1\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":1,\"args\":{\"name\":\"Steps\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":3,\"args\":{\"name\":\"XLA Ops\"}},"
      "{\"ph\":\"X\",\"name\":\"1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},"
      "{\"ph\":\"X\",\"name\":\"2\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":50},"
      "{\"ph\":\"X\",\"name\":\"fusion.1\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":20},"
      "{\"ph\":\"X\",\"name\":\"all-reduce.1\",\"pid\":1,\"tid\":3,\"ts\":20,\"dur\":20},"
      "{\"ph\":\"X\",\"name\":\"all-gather-start.3\",\"pid\":1,\"tid\":3,\"ts\":50,\"dur\":5},"
      "{\"ph\":\"X\",\"name\":\"sendrecv_fusion\",\"pid\":1,\"tid\":3,\"ts\":60,\"dur\":5},"
      "{\"ph\":\"X\",\"name\":\"train 1\",\"pid\":2,\"tid\":1,\"ts\":5,\"dur\":55},"
      "{\"ph\":\"X\",\"name\":\"train 2\",\"pid\":2,\"tid\":1,\"ts\":60,\"dur\":60},"
      "{\"ph\":\"X\",\"name\":\"send.2\",\"pid\":2,\"tid\":3,\"ts\":10,\"dur\":10}"
      "]}";
  st_trace *t = load_text(text);
  if (!t) return;
  const st_trace *ts[1] = {t};
  st_error err;
  st_analysis *an = st_analyze(NULL, ts, 1, NULL, &err);
  CHECK_EQ_INT(st_analysis_step_source(an, 0), ST_STEPS_STEPS_LINE);
  uint32_t ns, nd;
  const st_an_step *s = st_analysis_steps(an, &ns);
  CHECK_EQ_INT(ns, 2);
  /* the trace's steps: hulls of both lines' events */
  CHECK_EQ_INT(s[0].t0_ns, 0);
  CHECK_EQ_INT(s[0].t1_ns, 60 * US);
  CHECK_EQ_INT(s[1].t0_ns, 50 * US);
  CHECK_EQ_INT(s[1].t1_ns, 120 * US);
  const st_an_device *d = st_analysis_devices(an, &nd);
  CHECK_EQ_INT(nd, 2);
  CHECK_EQ_STR(d[0].name, "/device:TPU:0");
  const st_an_cell *c = st_analysis_cells(an, NULL);
  /* TPU:0 uses its own windows [0,50) and [50,100) */
  CHECK_EQ_INT(c[d[0].first_cell].t0_ns, 0);
  CHECK_EQ_INT(c[d[0].first_cell].t1_ns, 50 * US);
  check_times(&c[d[0].first_cell].t, 50, 40, 20, 20, 0, 0);
  check_times(&c[d[0].first_cell + 1].t, 50, 10, 5, 5, 0, 0);
  CHECK_EQ_INT(d[0].step_ns, 50 * US);
  /* TPU:1: [5,60) and [60,120): send.2 is comm */
  check_times(&c[d[1].first_cell].t, 55, 10, 0, 10, 0, 0);
  CHECK_EQ_INT(d[1].step_ns, (55 + 60) * US / 2);
  CHECK_EQ_INT(d[1].step_p50_ns, 55 * US);
  CHECK_EQ_INT(d[1].step_p90_ns, 60 * US);
  st_analysis_destroy(an);
  st_trace_destroy(t);
}

/* ---- stragglers: per-step compute of each rank ---------------------------- */

/* A rank: one GPU stream, two ProfilerSteps of 100 us, `k` us of kernel in each. */
static st_trace *rank_trace(double k_us) {
  char text[1024];
  snprintf(
      text, sizeof text,
      "{\"traceEvents\":["
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,"
      "\"args\":{\"name\":\"stream 7\"}},"
      "{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":9,\"tid\":9,\"ts\":0,\"dur\":100},"
      "{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"pid\":9,\"tid\":9,\"ts\":100,\"dur\":100},"
      "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":%.3f},"
      "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":101,"
      "\"dur\":%.3f}]}",
      k_us, k_us);
  return load_text(text);
}

static int stragglers_of(const double *k_us, uint32_t n, double *scores) {
  st_trace *t[8];
  for (uint32_t i = 0; i < n; i++) t[i] = rank_trace(k_us[i]);
  st_error err;
  st_analysis *an = st_analyze(NULL, (const st_trace *const *)t, n, NULL, &err);
  double med, scale;
  const st_an_rank *r = st_analysis_ranks(an, &med, &scale);
  int count = 0;
  for (uint32_t i = 0; i < n; i++) {
    scores[i] = r[i].score;
    count += r[i].straggler;
  }
  st_analysis_destroy(an);
  for (uint32_t i = 0; i < n; i++) st_trace_destroy(t[i]);
  return count;
}

static void test_stragglers(void) {
  double s[4];
  /* identical ranks: MAD 0, the floor keeps every score 0 */
  static const double same[4] = {50, 50, 50, 50};
  CHECK_EQ_INT(stragglers_of(same, 4, s), 0);
  CHECK(s[0] == 0 && s[3] == 0);
  /* one slow rank: median 50, MAD 0, scale = max(0, 2 % of 50 us, 1 us) =
   * 1 us: score (80 - 50) / 1 = 30 */
  static const double slow[4] = {50, 50, 80, 50};
  CHECK_EQ_INT(stragglers_of(slow, 4, s), 1);
  CHECK(fabs(s[2] - 30.0) < 1e-9);
  CHECK(s[0] == 0);
  /* noise only: median 50.25, MAD 0.5 -> scale max(0.741, 1.005, 1) us */
  static const double noise[4] = {50, 51, 49, 50.5};
  CHECK_EQ_INT(stragglers_of(noise, 4, s), 0);
  CHECK(fabs(s[1] - 0.75 / 1.005) < 1e-9);
  /* two ranks: not enough to tell */
  CHECK_EQ_INT(stragglers_of(slow + 1, 2, s), 0);
}

/* ---- percentiles, op statistics, histograms -------------------------------- */

static void test_percentiles(void) {
  CHECK_EQ_INT(st_stat_rank(50, 10), 4);
  CHECK_EQ_INT(st_stat_rank(90, 10), 8);
  CHECK_EQ_INT(st_stat_rank(99, 10), 9);
  CHECK_EQ_INT(st_stat_rank(50, 4), 1);
  CHECK_EQ_INT(st_stat_rank(99, 1), 0);
  CHECK_EQ_INT(st_stat_rank(0, 7), 0);
  CHECK_EQ_INT(st_stat_rank(100, 7), 6);
  CHECK_EQ_INT(st_stat_rank(50, 0), 0);
  int64_t v[10] = {7, 3, 9, 1, 10, 2, 8, 5, 6, 4};
  CHECK_EQ_INT(st_stat_select(v, 10, st_stat_rank(50, 10)), 5);
  CHECK_EQ_INT(st_stat_select(v, 10, st_stat_rank(90, 10)), 9);
  CHECK_EQ_INT(st_stat_select(v, 10, st_stat_rank(99, 10)), 10);
  /* quickselect against a sorted copy, many duplicates and sizes */
  uint64_t x = 42;
  for (int round = 0; round < 200; round++) {
    int64_t a[97], b[97];
    size_t n = 1 + (size_t)round % 97;
    for (size_t i = 0; i < n; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      a[i] = b[i] = (int64_t)(x >> 33) % (round % 3 ? 1000 : 5);
    }
    int64_t c[97];
    memcpy(c, b, n * sizeof *b);
    for (size_t i = 1; i < n; i++)
      for (size_t j = i; j > 0 && b[j - 1] > b[j]; j--) {
        int64_t tmp = b[j];
        b[j] = b[j - 1];
        b[j - 1] = tmp;
      }
    st_stat_sort_i64(c, n); /* the sort against the same reference */
    CHECK(memcmp(c, b, n * sizeof *b) == 0);
    size_t k = (size_t)(x >> 40) % n;
    CHECK_EQ_INT(st_stat_select(a, n, k), b[k]);
    for (size_t i = 0; i < k; i++) CHECK(a[i] <= a[k]);
    for (size_t i = k + 1; i < n; i++) CHECK(a[i] >= a[k]);
  }
  double m[5] = {3, 1, 2, 10, 4}, scratch[5];
  CHECK(st_stat_median(m, 5) == 3);
  double m2[4] = {4, 1, 3, 2};
  CHECK(st_stat_median(m2, 4) == 2.5);
  double m3[5] = {1, 2, 3, 4, 100}; /* deviations 2,1,0,1,97 -> MAD 1 */
  CHECK(st_stat_mad(m3, 5, scratch) == 1);
}

/* "op" of 1..100 us on one thread (op k contains a child of 0.5 us) */
static void test_opstats(void) {
  char *text = malloc(100 * 160 + 64);
  size_t n = (size_t)sprintf(text, "[");
  int64_t ts = 0;
  for (int k = 1; k <= 100; k++) {
    n += (size_t)sprintf(text + n,
                         "%s{\"ph\":\"X\",\"name\":\"op\",\"pid\":1,\"tid\":1,"
                         "\"ts\":%lld,\"dur\":%d},{\"ph\":\"X\",\"name\":\"child\","
                         "\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":0.5}",
                         k > 1 ? "," : "", (long long)ts, k, (long long)ts);
    ts += 200;
  }
  sprintf(text + n, "]");
  st_trace *t = load_text(text);
  free(text);
  if (!t) return;
  const st_trace *ts1[1] = {t};
  st_error err;
  st_opstats *s = st_opstats_build(NULL, ts1, 1, NULL, NULL, 0, &err);
  uint32_t nr;
  const st_opstat *r = st_opstats_rows(s, &nr);
  CHECK_EQ_INT(nr, 2);
  CHECK_EQ_INT(st_opstats_names(s), 2);
  CHECK(r[0].name_len == 2 && memcmp(r[0].name, "op", 2) == 0);
  CHECK_EQ_INT(r[0].count, 100);
  CHECK_EQ_INT(r[0].total_ns, 5050 * US);
  CHECK_EQ_INT(r[0].self_ns, 5050 * US - 100 * 500);
  CHECK_EQ_INT(r[0].p50_ns, 50 * US);
  CHECK_EQ_INT(r[0].p90_ns, 90 * US);
  CHECK_EQ_INT(r[0].p99_ns, 99 * US);
  CHECK_EQ_INT(r[0].max_ns, 100 * US);
  CHECK_EQ_INT(r[0].min_ns, 1 * US);
  CHECK(r[0].mean_ns == 50500.0);
  CHECK_EQ_INT(r[1].p99_ns, 500);
  st_opstats_destroy(s);
  /* a window: ops starting in [0, 2000) us are ops 1..10 */
  int64_t t0 = 0, t1 = 2000 * US;
  s = st_opstats_build(NULL, ts1, 1, &t0, &t1, 1, &err);
  r = st_opstats_rows(s, &nr);
  CHECK_EQ_INT(nr, 1);
  CHECK_EQ_INT(st_opstats_names(s), 2);
  CHECK_EQ_INT(r[0].count, 10);
  CHECK_EQ_INT(r[0].p50_ns, 5 * US);
  CHECK_EQ_INT(r[0].p90_ns, 9 * US);
  st_opstats_destroy(s);
  /* the histogram: 1..100 us, 5 bins per decade */
  st_hist_bin bins[ST_HIST_BINS_MAX];
  uint32_t first;
  uint32_t nb = st_opstats_histogram(ts1, 1, NULL, NULL, "op", 2, bins, &first);
  uint64_t total = 0;
  for (uint32_t i = 0; i < nb; i++) total += bins[i].count;
  CHECK_EQ_INT(total, 100);
  CHECK_EQ_INT(bins[0].lo_ns, 1000);
  CHECK_EQ_INT(bins[0].hi_ns, 1585);
  CHECK_EQ_INT(bins[0].count, 1); /* 1 us */
  CHECK_EQ_INT(bins[nb - 1].lo_ns, 100000);
  CHECK_EQ_INT(bins[nb - 1].count, 1); /* 100 us */
  CHECK_EQ_INT(nb, 11);
  CHECK_EQ_INT(st_opstats_histogram(ts1, 1, NULL, NULL, "nope", 4, bins, NULL), 0);
  st_trace_destroy(t);
  /* bin edges */
  CHECK_EQ_INT(st_hist_bin_of(0), 0);
  CHECK_EQ_INT(st_hist_bin_of(1), 1);
  CHECK_EQ_INT(st_hist_bin_of(2), 2);
  CHECK_EQ_INT(st_hist_bin_of(9), 5);
  CHECK_EQ_INT(st_hist_bin_of(10), 6);
  CHECK_EQ_INT(st_hist_bin_of(1000), 16);
  CHECK_EQ_INT(st_hist_bin_of(999), 15);
  /* the longest durations: the last bin, no endless climb (fuzz_pickle) */
  CHECK_EQ_INT(st_hist_bin_of(INT64_MAX), 95);
  CHECK_EQ_INT(st_hist_bin_of(INT64_MAX - 1), 94);
  int64_t lo, hi;
  st_hist_bin_bounds(6, &lo, &hi);
  CHECK(lo == 10 && hi == 16);
}

/* ---- Mann-Whitney U and the bootstrap --------------------------------------- */

static void test_mwu(void) {
  st_mwu r;
  /* R: wilcox.test(c(1,2,3), c(4,5,6), exact = FALSE) -> p-value = 0.08086 */
  static const int64_t a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  st_stat_mwu(a, 3, b, 3, &r);
  CHECK(r.u_b == 9 && r.mean == 4.5 && r.z > 0);
  CHECK(fabs(r.p - 0.0808555983700523) < 1e-12);
  st_stat_mwu(b, 3, a, 3, &r);
  CHECK(r.u_b == 0 && r.z < 0);
  CHECK(fabs(r.p - 0.0808555983700523) < 1e-12);
  /* ties: {1,2,2,3} vs {2,3,4,5}: ranks 1 | 3,3,3 | 5.5,5.5 | 7 | 8;
   * R_b = 3 + 5.5 + 7 + 8 = 23.5, U_b = 13.5, var = 16/12 (9 - 30/72) */
  static const int64_t c[4] = {1, 2, 2, 3}, d[4] = {2, 3, 4, 5};
  st_stat_mwu(c, 4, d, 4, &r);
  CHECK(r.u_b == 13.5);
  CHECK(fabs(r.p - 0.13665824773814753) < 1e-12);
  /* identical samples: p = 1; all tied: p = 1; an empty side: p = 1 */
  st_stat_mwu(a, 3, a, 3, &r);
  CHECK(r.p == 1);
  static const int64_t e[3] = {5, 5, 5};
  st_stat_mwu(e, 3, e, 3, &r);
  CHECK(r.p == 1);
  st_stat_mwu(a, 3, NULL, 0, &r);
  CHECK(r.p == 1);
  /* 10 vs 10, every B above every A: U_b = 100, z = 49.5 / sqrt(175) */
  int64_t x[10], y[10];
  for (int i = 0; i < 10; i++) x[i] = 100 + i, y[i] = 200 + 2 * i;
  st_stat_mwu(x, 10, y, 10, &r);
  CHECK(fabs(r.p - 0.0001826717911095504) < 1e-15);
}

static void test_bootstrap(void) {
  double a[6] = {10, 11, 12, 10, 11, 12}, b[6];
  for (int i = 0; i < 6; i++) b[i] = a[i] + 5;
  double lo, hi, lo2, hi2;
  CHECK_EQ_INT(st_stat_bootstrap_diff(NULL, a, 6, b, 6, 2000, 7, &lo, &hi), ST_OK);
  CHECK(lo > 3.5 && lo <= 5 && hi >= 5 && hi < 6.5);
  /* the same seed: the same interval */
  CHECK_EQ_INT(st_stat_bootstrap_diff(NULL, a, 6, b, 6, 2000, 7, &lo2, &hi2), ST_OK);
  CHECK(lo == lo2 && hi == hi2);
  /* constant samples: exactly the difference */
  double c[3] = {2, 2, 2}, d[3] = {3, 3, 3};
  CHECK_EQ_INT(st_stat_bootstrap_diff(NULL, c, 3, d, 3, 100, 1, &lo, &hi), ST_OK);
  CHECK(lo == 1 && hi == 1);
  CHECK_EQ_INT(st_stat_bootstrap_diff(NULL, c, 1, d, 3, 100, 1, &lo, &hi), ST_ERR_ARG);
}

/* ---- no devices, bad arguments, allocation failures ------------------------- */

static void test_edges(void) {
  st_error err;
  CHECK(st_analyze(NULL, NULL, 0, NULL, &err) == NULL);
  CHECK_EQ_INT(err.code, ST_ERR_ARG);
  const st_trace *none[1] = {NULL};
  CHECK(st_analyze(NULL, none, 1, NULL, &err) == NULL);
  /* a CPU-only trace: no devices, no steps, ops still there */
  st_trace *t = load_text("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5}]");
  const st_trace *ts[1] = {t};
  st_analysis *an = st_analyze(NULL, ts, 1, NULL, &err);
  uint32_t n;
  st_analysis_devices(an, &n);
  CHECK_EQ_INT(n, 0);
  st_analysis_steps(an, &n);
  CHECK_EQ_INT(n, 0);
  st_opstats_rows(st_analysis_ops(an), &n);
  CHECK_EQ_INT(n, 1);
  char buf[2048];
  st_analysis_json(an, NULL, buf, sizeof buf);
  CHECK(strstr(buf, "\"devices\":[],\"per_step\":[],\"idle_gaps\":[]") != NULL);
  st_analysis_destroy(an);
  st_trace_destroy(t);
  /* allocation failures anywhere: NULL with ST_ERR_NOMEM, never a crash */
  t = load_text(kineto);
  ts[0] = t;
  int ok = 0;
  for (int k = 0; k < 200 && !ok; k++) {
    tu_fail_alloc f = {k};
    st_alloc al = {tu_failing, &f};
    an = st_analyze(&al, ts, 1, NULL, &err);
    if (an) {
      ok = 1;
      st_analysis_devices(an, &n);
      CHECK_EQ_INT(n, 1);
      st_analysis_destroy(an);
    } else {
      CHECK_EQ_INT(err.code, ST_ERR_NOMEM);
    }
  }
  CHECK(ok);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_unions);
  RUN(test_shared_strings);
  RUN(test_steps_line);
  RUN(test_stragglers);
  RUN(test_percentiles);
  RUN(test_opstats);
  RUN(test_mwu);
  RUN(test_bootstrap);
  RUN(test_edges);
  return check_report();
}
