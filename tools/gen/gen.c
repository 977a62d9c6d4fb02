/* gen.c: `strata-gen`, the synthetic trace generator. Writes the demo-style
 * JAX/XLA GPU training trace (core/import/demo/demo.c) with about N events to a file or
 * stdout, optionally gzip-compressed.
 *
 *   strata-gen -n 1000000 -o big.trace.json.gz --gz --seed 3
 *   strata-gen -n 5000 > small.json
 *   strata-gen -n 1e6 --lean -o lean.json   (slices without args: ~90 bytes/event)
 *   strata-gen -n 1e7 --steps 100 -o t.json (100 steps of a bigger program)
 *   strata-gen -n 1e6 --lean --flows -o f.json (~0.18 launch arrows per event)
 *   strata-gen -n 1e5 --rank 3 --start-us 1250 -o rank-3.json   (a Kineto-like rank)
 *   strata-gen -n 1e5 --slow-op convolution --slow-factor 1.5 -o b.json   (a run B)
 *   strata-gen -n 1e5 --rank 2 --slow-factor 1.3 -o rank-2.json   (a slow rank: all compute)
 *   strata-gen -n 1e5 --noise-seed 7 -o b.json   (the same program, other durations)
 *   strata-gen -n 1e5 --idle-gap 5000 --idle-every 10 -o g.json   (planted idle gaps)
 *   strata-gen -n 1e5 --kinds -o k.json   (events of every kind, and their kinds)
 *   strata-gen -n 1e5 --spread 4 -o s.json   (op instances 1-4x their base duration, log-uniform)
 *   strata-gen -n 1e6 --perfetto --cpus 8 -o sys.pftrace  (a Perfetto system
 *     trace with 1e6 sched_switch events: tools/gen/gen_perfetto.c)
 *   strata-gen --perfetto-android -o battery.pftrace  (a small Android
 *     battery-like Perfetto trace with known values: tools/gen/gen_perfetto.c)
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "demo.h"
#include "gen_perfetto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct sink {
  FILE *f;
  gzFile gz;
} sink;

static int write_sink(void *ud, const void *data, size_t len) {
  sink *s = ud;
  if (s->gz) {
    while (len) {
      unsigned n = len > (1u << 30) ? (1u << 30) : (unsigned)len;
      if (gzwrite(s->gz, data, n) != (int)n) return 1;
      data = (const char *)data + n;
      len -= n;
    }
    return 0;
  }
  return fwrite(data, 1, len, s->f) == len ? 0 : 1;
}

static void usage(FILE *f) {
  fprintf(f, "usage: strata-gen -n EVENTS [-o FILE] [--gz] [--level 1-9] [--seed N] [--gpus N] "
             "[--lean] [--flows] [--steps N] [--perfetto [--cpus N]] [--perfetto-android]\n"
             "  writes a JAX-like GPU training trace (Chrome JSON) of about EVENTS events\n"
             "  --lean: slices without args (about 90 bytes per event instead of 300)\n"
             "  --flows: launch arrows (flow events s -> f, counted in EVENTS), ~0.18 per event\n"
             "  --steps N: exactly N training steps, ops per step grown to reach EVENTS\n"
             "    (default: ~50+ steps of at most 200 ops, more steps for more events)\n"
             "  --rank R: a Kineto-like rank trace: distributedInfo.rank = R,\n"
             "    baseTimeNanoseconds (--base-time-ns, default 1700000000000000000),\n"
             "    host steps named ProfilerStep#N\n"
             "  --start-us T: the first step starts at T us (default 1000)\n"
             "  --first-step N: number the steps from N (default 1)\n"
             "  --slow-op KIND|NAME [--slow-factor F]: those ops (an HLO kind such as\n"
             "    convolution, or one op's name) take F times as long (default 2): a run B\n"
             "  --slow-factor F alone: every compute op (not all-reduce, not copies) F times\n"
             "    as long: a slow rank\n"
             "  --noise-seed N: durations and gaps from seed N, the program from --seed:\n"
             "    two runs of one program that differ only by noise\n"
             "  --spread F: each op instance's duration times F^u, u uniform in [0, 1]\n"
             "  --kinds: CUDA runtime calls, a ## forward ## annotation, the profiler's span,\n"
             "    and \"strataGenKinds\": {name: kind} (strata analyze's kinds, the truth)\n"
             "  --idle-gap US [--idle-every K]: in every K-th step (default 1) each GPU is\n"
             "    idle exactly US microseconds before its middle op's kernel\n"
             "  --perfetto: a Perfetto system trace instead (protobuf): EVENTS sched_switch\n"
             "    events on --cpus CPUs (default 8), compact_sched, atrace, process tree\n"
             "  --perfetto-android: a small Android battery-like Perfetto trace (fixed;\n"
             "    no -n): atrace named tracks, suspend_resume, battery, power rails, entity\n"
             "    state residency, statsd atoms, network packets (tools/gen/gen_perfetto.c)\n");
}

static int parse_u64(const char *s, unsigned long long *out) {
  char *end;
  errno = 0;
  double d = strtod(s, &end); /* accepts 1e6 */
  if (errno || end == s || *end || d < 0 || d > 1e15) return 0;
  *out = (unsigned long long)d;
  return 1;
}

int main(int argc, char **argv) {
  unsigned long long n = 0, seed = 1, gpus = 2, level = 6, steps = 0, cpus = 8, rank = 0;
  unsigned long long first_step = 0, base_time = 1700000000000000000ull, start_us = 0;
  int kineto = 0;
  double slow_factor = 0, spread = 0;
  int kinds = 0;
  unsigned long long noise_seed = 0, idle_gap_us = 0, idle_every = 1;
  const char *slow_op = NULL;
  const char *out = NULL;
  int gz = 0, lean = 0, flows = 0, perfetto = 0, android = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_val = i + 1 < argc;
    if ((!strcmp(a, "-n") || !strcmp(a, "--events")) && has_val) {
      if (!parse_u64(argv[++i], &n) || n == 0) return usage(stderr), 2;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has_val) {
      out = argv[++i];
    } else if (!strcmp(a, "--gz")) {
      gz = 1;
    } else if (!strcmp(a, "--steps") && has_val) {
      if (!parse_u64(argv[++i], &steps) || steps < 1 || steps > 0xffffffffull)
        return usage(stderr), 2;
    } else if (!strcmp(a, "--rank") && has_val) {
      if (!parse_u64(argv[++i], &rank) || rank > 0xffffffffull) return usage(stderr), 2;
      kineto = 1;
    } else if (!strcmp(a, "--base-time-ns") && has_val) {
      char *end;
      errno = 0;
      base_time = strtoull(argv[++i], &end, 10);
      if (errno || *end || base_time > 0x7fffffffffffffffull) return usage(stderr), 2;
    } else if (!strcmp(a, "--start-us") && has_val) {
      if (!parse_u64(argv[++i], &start_us) || start_us > 1000000000000ull) return usage(stderr), 2;
    } else if (!strcmp(a, "--first-step") && has_val) {
      if (!parse_u64(argv[++i], &first_step) || first_step < 1 || first_step > 0x7fffffffull)
        return usage(stderr), 2;
    } else if (!strcmp(a, "--slow-op") && has_val) {
      slow_op = argv[++i];
    } else if (!strcmp(a, "--slow-factor") && has_val) {
      char *end;
      slow_factor = strtod(argv[++i], &end);
      if (*end || !(slow_factor > 0 && slow_factor <= 1000)) return usage(stderr), 2;
    } else if (!strcmp(a, "--noise-seed") && has_val) {
      if (!parse_u64(argv[++i], &noise_seed) || noise_seed > 0xffffffffull) return usage(stderr), 2;
    } else if (!strcmp(a, "--idle-gap") && has_val) {
      if (!parse_u64(argv[++i], &idle_gap_us) || idle_gap_us < 1 || idle_gap_us > 1000000000ull)
        return usage(stderr), 2;
    } else if (!strcmp(a, "--idle-every") && has_val) {
      if (!parse_u64(argv[++i], &idle_every) || idle_every < 1 || idle_every > 0xffffffffull)
        return usage(stderr), 2;
    } else if (!strcmp(a, "--spread") && has_val) {
      char *end;
      spread = strtod(argv[++i], &end);
      if (*end || !(spread >= 1 && spread <= 1000)) return usage(stderr), 2;
    } else if (!strcmp(a, "--kinds")) {
      kinds = 1;
    } else if (!strcmp(a, "--lean")) {
      lean = 1;
    } else if (!strcmp(a, "--flows")) {
      flows = 1;
    } else if (!strcmp(a, "--perfetto")) {
      perfetto = 1;
    } else if (!strcmp(a, "--perfetto-android")) {
      android = 1;
    } else if (!strcmp(a, "--cpus") && has_val) {
      if (!parse_u64(argv[++i], &cpus) || cpus < 1 || cpus > 256) return usage(stderr), 2;
    } else if (!strcmp(a, "--seed") && has_val) {
      if (!parse_u64(argv[++i], &seed) || seed > 0xffffffffull) return usage(stderr), 2;
    } else if (!strcmp(a, "--gpus") && has_val) {
      if (!parse_u64(argv[++i], &gpus) || gpus < 1 || gpus > 64) return usage(stderr), 2;
    } else if (!strcmp(a, "--level") && has_val) {
      if (!parse_u64(argv[++i], &level) || level < 1 || level > 9) return usage(stderr), 2;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "strata-gen: unknown or incomplete argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!n && !android) {
    usage(stderr);
    return 2;
  }
  sink s = {0};
  if (gz) {
    char mode[4] = {'w', 'b', (char)('0' + level), 0};
    s.gz = out ? gzopen(out, mode) : gzdopen(fileno(stdout), mode);
    if (!s.gz) {
      fprintf(stderr, "strata-gen: cannot open %s\n", out ? out : "stdout");
      return 1;
    }
    gzbuffer(s.gz, 256 * 1024);
  } else {
    s.f = out ? fopen(out, "wb") : stdout;
    if (!s.f) {
      fprintf(stderr, "strata-gen: cannot open %s: %s\n", out, strerror(errno));
      return 1;
    }
  }
  st_demo_desc d = {.seed = (uint32_t)seed,
                    .target_events = n,
                    .gpus = (uint32_t)gpus,
                    .lean = (uint32_t)lean,
                    .flows = (uint32_t)flows,
                    .steps = (uint32_t)steps,
                    .kineto = (uint32_t)kineto,
                    .rank = (uint32_t)rank,
                    .base_time_ns = (int64_t)base_time,
                    .start_ns = (int64_t)start_us * 1000,
                    .first_step = (uint32_t)first_step,
                    .slow_op = slow_op,
                    .slow_factor = slow_factor,
                    .slow_compute = !slow_op && slow_factor > 0,
                    .noise_seed = (uint32_t)noise_seed,
                    .idle_gap_ns = (int64_t)idle_gap_us * 1000,
                    .idle_every = (uint32_t)idle_every,
                    .spread = spread,
                    .kinds = (uint32_t)kinds};
  int bad;
  if (android) {
    bad = gen_perfetto_android_write(write_sink, &s) != 0;
  } else if (perfetto) {
    gen_perfetto_desc pd = {(uint32_t)seed, (uint32_t)cpus, n};
    bad = gen_perfetto_write(&pd, write_sink, &s) != 0;
  } else {
    bad = st_demo_write(&d, write_sink, &s) != ST_OK;
  }
  if (s.gz) bad |= gzclose(s.gz) != Z_OK;
  if (s.f && s.f != stdout) bad |= fclose(s.f) != 0;
  if (s.f == stdout) bad |= fflush(stdout) != 0;
  if (bad) {
    fprintf(stderr, "strata-gen: writing %s failed\n", out ? out : "stdout");
    return 1;
  }
  return 0;
}
