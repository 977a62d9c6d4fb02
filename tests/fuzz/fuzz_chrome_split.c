/* fuzz_chrome_split.c: libFuzzer target for the split import
 * (core/import/chrome/chrome_range.h): the input is imported by one worker
 * (pushed) and split into tasks (sizes drawn from the input: 1 byte up to
 * ~64 KiB, so cuts land everywhere, inside strings, escapes and numbers),
 * each task parsed into a result and the results applied in order. The two
 * must agree on the model (st_trace_digest), the stats JSON and the error
 * (code, offset, line, column, message); any difference aborts, as does a
 * crash or sanitizer report. Compressed inputs are inflated apart first
 * (as a front end's inflating thread does) and the decoded bytes split;
 * stats and gzip errors must still agree. A worker's result is also fed to the loader
 * with its bytes cut short and its body corrupted: refused or failed
 * cleanly, never read out of bounds. */
/* a decoded bomb split into 1-byte tasks: each cut scans up to 64 KiB */
#define SL_MAX_TASKS 1024u
#include "../unit/split_load.h"
#include "chrome_range.h"
#include "load.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct outcome {
  st_trace *t;
  st_error err;
  st_stats stats;
  char json[16384];
  uint8_t digest[32];
} outcome;

static void finish(outcome *o) {
  if (o->err.code != ST_OK) o->stats.bytes_in = o->stats.bytes_decoded = 0; /* chunking */
  st_stats_json(&o->stats, o->json, sizeof o->json);
  memset(o->digest, 0, 32);
  if (o->t) st_trace_digest(o->t, o->digest);
}

static void one_worker(const uint8_t *data, size_t size, outcome *o) {
  st_loader *l = st_loader_create(NULL);
  if (!l) abort();
  st_loader_push(l, data, size);
  o->t = st_loader_finish(l, &o->err);
  o->stats = *st_loader_stats(l);
  st_loader_destroy(l);
  finish(o);
}

/* a result damaged on its way: refused, or the load fails; nothing else */
static void damaged_result(const uint8_t *data, size_t size, uint32_t seed) {
  size_t rlen;
  uint8_t *r = st_chrome_range_parse(NULL, data, size, 0, size, size, &rlen);
  if (!r) return;
  if (rlen > 0) r[(seed >> 8) % rlen] ^= (uint8_t)(1u << (seed % 8));
  st_loader *l = st_loader_create(NULL);
  st_loader_apply(l, r, rlen - (seed % 3 == 0 && rlen ? 1 : 0), data, size / 2);
  st_error err;
  st_trace_destroy(st_loader_finish(l, &err));
  st_loader_destroy(l);
  free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t seed = size ? data[0] * 2654435761u + (uint32_t)size : 1;
  uint64_t tb = 1 + (seed >> 7) % (seed & 1 ? 97u : 65536u);
  outcome a, b;
  one_worker(data, size, &a);
  uint64_t split = 0;
  int splittable = 1;
  if (size >= 2 && ((data[0] == 0x1f && data[1] == 0x8b) || (data[0] & 0x0f) == 8))
    /* compressed (or might be): inflated apart, the decoded bytes split */
    b.t = sl_load_split_gz(data, size, tb, "fuzz.json", &b.err, &b.stats, &split, &splittable);
  else
    b.t = sl_load_split(data, size, tb, "fuzz.json", &b.err, &b.stats, &split);
  if (!splittable) { /* not JSON inside: a front end loads it on one worker */
    st_trace_destroy(a.t);
    return 0;
  }
  finish(&b);
  if ((a.t != NULL) != (b.t != NULL) || memcmp(a.digest, b.digest, 32) || strcmp(a.json, b.json) ||
      a.err.code != b.err.code || a.err.offset != b.err.offset || a.err.line != b.err.line ||
      a.err.column != b.err.column || strcmp(a.err.msg, b.err.msg)) {
    fprintf(stderr, "split (tasks of %llu bytes) differs from one worker:\n  %s\n  %s\n  %s | %s\n",
            (unsigned long long)tb, a.json, b.json, a.err.msg, b.err.msg);
    abort();
  }
  if (size >= 2 && ((data[0] == 0x1f && data[1] == 0x8b) || (data[0] & 0x0f) == 8)) {
    /* and through the cutter a front end's inflating thread uses */
    outcome c;
    int ok = 0;
    c.t = sl_load_split_cut(data, size, ST_RANGE_SLACK, "fuzz.json", &c.err, &c.stats, &split, &ok);
    if (ok) {
      finish(&c);
      if ((a.t != NULL) != (c.t != NULL) || memcmp(a.digest, c.digest, 32) ||
          strcmp(a.json, c.json) || a.err.code != c.err.code || a.err.offset != c.err.offset ||
          strcmp(a.err.msg, c.err.msg)) {
        fprintf(stderr, "cutter differs from one worker:\n  %s\n  %s\n  %s | %s\n", a.json, c.json,
                a.err.msg, c.err.msg);
        abort();
      }
      st_trace_destroy(c.t);
    }
  }
  st_trace_destroy(a.t);
  st_trace_destroy(b.t);
  damaged_result(data, size, seed);
  return 0;
}
