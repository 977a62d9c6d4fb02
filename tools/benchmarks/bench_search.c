/* bench_search.c: `strata-bench-search`, the whole-trace search benchmark.
 *
 * Builds a synthetic trace of N events directly with st_builder (no file,
 * no parsing: only the query is measured), shaped like an XLA GPU trace:
 * processes x threads, nested slices 4 deep, a few thousand distinct names.
 * Then, per query, runs st_find_set (the whole-trace search) `reps` times
 * and prints the median and worst time, the number of matches, and the
 * median time of stepping to the next match and of summarising the whole
 * trace by name. The target: st_find_set < 100 ms at 1e7 events.
 *
 *   strata-bench-search [-n 10000000] [--reps 7] [--json]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "query.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t rng_state = 88172645463325252ull;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}

/* ~N events: per thread, top-level steps each holding 3 levels of children. */
static st_trace *build(uint64_t n, double *build_ms) {
  double t0 = now_ms();
  st_builder *b = st_builder_create(NULL);
  st_strtab *s = st_builder_strings(b);
  enum { NAMES = 4000 };
  static const char *stems[] = {"fusion", "copy",      "all-reduce",  "convolution", "dot",
                                "reduce", "transpose", "custom-call", "broadcast",   "select"};
  uint32_t *ids = malloc(NAMES * sizeof *ids);
  char buf[64];
  for (int i = 0; i < NAMES; i++) {
    int len = snprintf(buf, sizeof buf, "%s.%d", stems[i % 10], i / 10);
    ids[i] = st_strtab_intern(s, buf, (size_t)len);
  }
  const int procs = 8, threads = 8;
  uint32_t tracks[64];
  for (int p = 0; p < procs; p++) {
    uint32_t pi = st_builder_process(b, p + 1);
    for (int t = 0; t < threads; t++)
      tracks[p * threads + t] = st_builder_track(b, pi, ST_TRACK_SLICES, t, 0);
  }
  uint64_t per_track = n / (uint64_t)(procs * threads), added = 0;
  for (int k = 0; k < procs * threads; k++) {
    int64_t t = (int64_t)(rnd() % 1000);
    uint64_t c = 0;
    while (c < per_track) {
      /* a parent of 4 children of 2 grandchildren each: 13 events */
      int64_t d = 4 * 1000;
      st_builder_slice(b, tracks[k], t, d, ids[rnd() % NAMES], 0, 0, 0);
      for (int i = 0; i < 4; i++) {
        int64_t cs = t + i * 1000 + 10;
        st_builder_slice(b, tracks[k], cs, 900, ids[rnd() % NAMES], 0, 0, 0);
        st_builder_slice(b, tracks[k], cs + 10, 300, ids[rnd() % NAMES], 0, 0, 0);
        st_builder_slice(b, tracks[k], cs + 400, 300, ids[rnd() % NAMES], 0, 0, 0);
      }
      c += 13;
      t += d + (int64_t)(rnd() % 200);
    }
    added += c;
  }
  free(ids);
  st_error err;
  st_trace *tr = st_builder_finish(b, &err);
  *build_ms = now_ms() - t0;
  (void)added;
  return tr;
}

int main(int argc, char **argv) {
  uint64_t n = 10000000;
  int reps = 7, json = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc)
      n = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json"))
      json = 1;
    else {
      fprintf(stderr, "usage: strata-bench-search [-n EVENTS] [--reps N] [--json]\n");
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  if (reps > 99) reps = 99;
  double build_ms;
  st_trace *t = build(n, &build_ms);
  if (!t) {
    fprintf(stderr, "strata-bench-search: out of memory building the trace\n");
    return 1;
  }
  uint32_t nr;
  st_trace_rows(t, &nr);
  uint64_t events = st_trace_event_count(t);
  st_find *f = st_find_create(NULL, t);
  /* broad, narrow, none, nearly everything, a long needle */
  const char *queries[] = {"fusion", "all-reduce.37", "no-such-op", "e", "CUSTOM-CALL.39"};
  const int nq = (int)(sizeof queries / sizeof queries[0]);
  if (!json)
    printf("events %llu, rows %u, strings %u (built in %.0f ms)\n", (unsigned long long)events, nr,
           st_strtab_count(st_trace_strings(t)), build_ms);
  else
    printf("{\"events\":%llu,\"rows\":%u,\"queries\":[", (unsigned long long)events, nr);
  double worst_median = 0;
  for (int q = 0; q < nq; q++) {
    double ts[99], steps[99];
    uint64_t matches = 0;
    for (int r = 0; r < reps; r++) {
      double a = now_ms();
      if (st_find_set(f, queries[q], strlen(queries[q])) != ST_OK) {
        fprintf(stderr, "strata-bench-search: out of memory\n");
        return 1;
      }
      ts[r] = now_ms() - a;
      matches = st_find_count(f);
      st_event_ref cur = ST_REF_NONE, next;
      a = now_ms();
      for (int k = 0; k < 10 && st_find_step(f, cur, 1, 1, &next); k++) cur = next;
      steps[r] = (now_ms() - a) / 10;
    }
    double worst = 0;
    for (int r = 0; r < reps; r++) worst = ts[r] > worst ? ts[r] : worst;
    double med = median(ts, reps), step = median(steps, reps);
    if (med > worst_median) worst_median = med;
    if (!json)
      printf("search %-16s matches %10llu  median %7.2f ms  max %7.2f ms  next %.3f ms\n",
             queries[q], (unsigned long long)matches, med, worst, step);
    else
      printf("%s{\"query\":\"%s\",\"matches\":%llu,\"median_ms\":%.3f,\"max_ms\":%.3f,"
             "\"next_ms\":%.4f}",
             q ? "," : "", queries[q], (unsigned long long)matches, med, worst, step);
  }
  /* the summary of everything (the "visible window" at full view) */
  st_agg *g = st_agg_create(NULL, t);
  double as[99];
  int areps = reps < 3 ? reps : 3;
  for (int r = 0; r < areps; r++) {
    double a = now_ms();
    st_agg_reset(g);
    st_agg_add_window(g, INT64_MIN / 2, INT64_MAX / 2);
    st_agg_sort(g, ST_AGG_TOTAL, 1);
    as[r] = now_ms() - a;
  }
  double agg = median(as, areps);
  if (!json)
    printf("summary of all %llu events by name: median %.1f ms\n",
           (unsigned long long)st_agg_events(g), agg);
  else
    printf("],\"summary_all_ms\":%.2f,\"search_median_ms_max\":%.3f}\n", agg, worst_median);
  st_agg_destroy(g);
  st_find_destroy(f);
  st_trace_destroy(t);
  return 0;
}
