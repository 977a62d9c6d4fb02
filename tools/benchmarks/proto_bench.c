/* proto_bench.c: protobuf import speed vs JSON import of the same events.
 *
 *   strata-proto-bench [N]     (default N = 1000000 events per format)
 *
 * Generates, in memory, (a) a Perfetto trace of N TrackEvents (BEGIN/END
 * pairs, nested two deep, on 16 thread tracks, names interned) and the same
 * events as Chrome JSON B/E, (b) an XSpace of N XEvents (16 lines, metadata
 * names) and the same events as Chrome JSON X events; loads each through the
 * loader in 1 MiB chunks (best of 3) and prints ms, Mevents/s and MB/s.
 * Build: see the CMake block in the issue note, or
 *   cc -O2 -std=c11 -Icore/base -Icore/model -Icore/import -Itests/unit
 * tools/benchmarks/proto_bench.c <libstrata_core.a> -lz -lm
 */
#define _POSIX_C_SOURCE 200809L

#include "load.h"
#include "pb_enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 16
#define NAMES 64

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void jputs(enc *j, const char *s) { enc_raw(j, s, strlen(s)); }

/* Loads buf (best of 3); returns ms and checks the event count. */
static double load_ms(const enc *b, const char *name, uint64_t *events) {
  double best = 1e30;
  for (int run = 0; run < 3; run++) {
    st_load_desc d;
    memset(&d, 0, sizeof d);
    d.file_name = name;
    double t0 = now_ms();
    st_loader *l = st_loader_create(&d);
    for (size_t i = 0; i < b->n; i += 1u << 20)
      st_loader_push(l, b->p + i, b->n - i < (1u << 20) ? b->n - i : (1u << 20));
    st_error err;
    st_trace *t = st_loader_finish(l, &err);
    double ms = now_ms() - t0;
    if (!t) fprintf(stderr, "%s: %s\n", name, err.msg);
    *events = st_loader_stats(l)->events;
    st_trace_destroy(t);
    st_loader_destroy(l);
    if (ms < best) best = ms;
  }
  return best;
}

static void report(const char *what, const enc *b, const char *name, uint64_t n_events) {
  uint64_t ev;
  double ms = load_ms(b, name, &ev);
  printf("  %-26s %9.1f ms  %6.2f Mevents/s  %7.1f MB/s  (%llu events read, %.1f MB)\n", what, ms,
         (double)n_events / ms / 1e3, (double)b->n / ms / 1e3, (unsigned long long)ev,
         (double)b->n / 1e6);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  if (n < 4) n = 4;
  long pairs = n / 4; /* each pair of nested slices = 4 B/E events */
  char line[256];
  /* ---- (a) Perfetto vs JSON B/E ------------------------------------------- */
  enc pf = {0}, js = {0}, pk = {0}, sub = {0}, sub2 = {0};
  enc_u(&pk, 10, 1);
  enc_u(&pk, 13, 1);
  for (int i = 0; i < NAMES; i++) {
    enc_reset(&sub2);
    enc_u(&sub2, 1, (uint64_t)i + 1);
    snprintf(line, sizeof line, "kernel_name_%02d", i);
    enc_str(&sub2, 2, line);
    enc_msg(&sub, 2, &sub2);
  }
  enc_msg(&pk, 12, &sub);
  enc_msg(&pf, 1, &pk);
  for (int t = 0; t < THREADS; t++) {
    enc_reset(&pk);
    enc_reset(&sub);
    enc_reset(&sub2);
    enc_u(&sub2, 1, 1);
    enc_u(&sub2, 2, (uint64_t)t + 100);
    enc_msg(&sub, 4, &sub2);
    enc_u(&sub, 1, (uint64_t)t + 1000);
    enc_u(&pk, 10, 1);
    enc_msg(&pk, 60, &sub);
    enc_msg(&pf, 1, &pk);
  }
  jputs(&js, "{\"traceEvents\":[\n");
  long written = 0;
  uint64_t ts = 1000000;
  for (long i = 0; i < pairs; i++) {
    int t = (int)(i % THREADS);
    int nm = (int)(i % NAMES);
    uint64_t times[4] = {ts, ts + 300, ts + 2500, ts + 4000};
    int types[4] = {1, 1, 2, 2};
    for (int k = 0; k < 4; k++) {
      enc_reset(&pk);
      enc_reset(&sub);
      enc_u(&pk, 8, times[k]);
      enc_u(&pk, 10, 1);
      enc_u(&pk, 13, 2);
      enc_u(&sub, 9, (uint64_t)types[k]);
      enc_u(&sub, 11, (uint64_t)t + 1000);
      if (types[k] == 1) enc_u(&sub, 10, (uint64_t)((nm + k) % NAMES) + 1);
      enc_msg(&pk, 11, &sub);
      enc_msg(&pf, 1, &pk);
      int len;
      if (types[k] == 1)
        len =
            snprintf(line, sizeof line,
                     "%s{\"name\":\"kernel_name_%02d\",\"ph\":\"B\",\"ts\":%llu.%03llu,"
                     "\"pid\":1,\"tid\":%d}",
                     written ? ",\n" : "", (nm + k) % NAMES, (unsigned long long)(times[k] / 1000),
                     (unsigned long long)(times[k] % 1000), t + 100);
      else
        len =
            snprintf(line, sizeof line, "%s{\"ph\":\"E\",\"ts\":%llu.%03llu,\"pid\":1,\"tid\":%d}",
                     written ? ",\n" : "", (unsigned long long)(times[k] / 1000),
                     (unsigned long long)(times[k] % 1000), t + 100);
      enc_raw(&js, line, (size_t)len);
      written++;
    }
    ts += 5000;
  }
  jputs(&js, "\n]}\n");
  printf("B/E slices, %ld events:\n", pairs * 4);
  report("perfetto-proto", &pf, "bench.perfetto-trace", (uint64_t)pairs * 4);
  report("chrome-json (same events)", &js, "bench.json", (uint64_t)pairs * 4);
  /* ---- (b) XSpace vs JSON X ----------------------------------------------- */
  enc xs = {0}, plane = {0}, lines[THREADS];
  memset(lines, 0, sizeof lines);
  enc_reset(&js);
  jputs(&js, "{\"traceEvents\":[\n");
  written = 0;
  for (long i = 0; i < n; i++) {
    int t = (int)(i % THREADS);
    int nm = (int)(i % NAMES);
    uint64_t off_ps = (uint64_t)(i / THREADS) * 5000000ull + (i % 2 ? 300000 : 0);
    uint64_t dur_ps = i % 2 ? 2000000 : 4000000;
    enc_reset(&sub);
    enc_u(&sub, 1, (uint64_t)nm + 1);
    enc_u(&sub, 2, off_ps);
    enc_u(&sub, 3, dur_ps);
    enc_msg(&lines[t], 4, &sub);
    int len =
        snprintf(line, sizeof line,
                 "%s{\"name\":\"kernel_name_%02d\",\"ph\":\"X\",\"ts\":%llu.%06llu,"
                 "\"dur\":%llu.%06llu,\"pid\":1,\"tid\":%d}",
                 written ? ",\n" : "", nm, (unsigned long long)(off_ps / 1000000),
                 (unsigned long long)(off_ps % 1000000), (unsigned long long)(dur_ps / 1000000),
                 (unsigned long long)(dur_ps % 1000000), t + 100);
    enc_raw(&js, line, (size_t)len);
    written++;
  }
  jputs(&js, "\n]}\n");
  enc_str(&plane, 2, "/host:CPU");
  for (int t = 0; t < THREADS; t++) {
    enc_reset(&sub);
    enc_u(&sub, 1, (uint64_t)t + 100);
    snprintf(line, sizeof line, "thread_%d", t);
    enc_str(&sub, 2, line);
    enc_raw(&sub, lines[t].p, lines[t].n);
    enc_msg(&plane, 3, &sub);
    enc_free(&lines[t]);
  }
  for (int i = 0; i < NAMES; i++) {
    enc_reset(&sub);
    enc_reset(&sub2);
    enc_u(&sub2, 1, (uint64_t)i + 1);
    snprintf(line, sizeof line, "kernel_name_%02d", i);
    enc_str(&sub2, 2, line);
    enc_u(&sub, 1, (uint64_t)i + 1);
    enc_msg(&sub, 2, &sub2);
    enc_msg(&plane, 4, &sub);
  }
  enc_msg(&xs, 1, &plane);
  printf("X events, %ld events:\n", n);
  report("xplane", &xs, "bench.xplane.pb", (uint64_t)n);
  report("chrome-json (same events)", &js, "bench.json", (uint64_t)n);
  enc_free(&pf);
  enc_free(&js);
  enc_free(&pk);
  enc_free(&sub);
  enc_free(&sub2);
  enc_free(&xs);
  enc_free(&plane);
  return 0;
}
