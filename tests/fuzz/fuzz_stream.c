/* fuzz_stream.c: libFuzzer target for streaming mode (core/import/stream):
 * the pass over arbitrary input (small blocks and a tiny bucket budget, so
 * blocks are many and the summary coarsens), a snapshot while it runs,
 * then windows planned over the summary and loaded from the input's own
 * bytes: some filtered, some with a byte changed (a file edited after its
 * pass), some cut short. Any crash, leak or sanitizer report is a bug. */
#include "fuzz_util.h"
#include "stream.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void window(st_stream *s, const st_trace *summary, const uint8_t *data, size_t size,
                   int64_t t0, int64_t t1, unsigned mode) {
  st_stream_range r[64];
  uint64_t bytes = 0;
  uint32_t n = st_stream_window_plan(s, t0, t1, r, 64, &bytes);
  if (n > 64) n = 64;
  st_error err;
  st_stream_window *w = st_stream_window_begin(s, summary, r, n, &err);
  if (!w) return;
  st_stream_window_set_span(w, t0, t1);
  st_stream_window_set_filter(w, (int)(mode & 1));
  for (uint32_t k = 0; k < n; k++) {
    if (r[k].offset >= size || r[k].length > size - r[k].offset) break; /* gzip: decoded offsets */
    size_t len = (size_t)r[k].length;
    if ((mode & 4) && k + 1 == n && len) len--; /* cut short: the finish refuses */
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) break;
    memcpy(copy, data + r[k].offset, len);
    if ((mode & 2) && len) copy[len / 2] ^= 0x5A; /* the file changed since its pass */
    size_t half = len / 2;
    st_stream_window_push(w, k, copy, half);
    st_stream_window_push(w, k, copy + half, len - half);
    free(copy);
  }
  st_trace *t = st_stream_window_finish(w, &err);
  st_trace_destroy(t);
  st_stream_window_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned seed = fuzz_seed(data, size);
  st_stream *s = st_stream_create(&(st_stream_desc){.block_bytes = 4096, .max_buckets = 64});
  if (!s) return 0;
  size_t chunk = 1 + (seed % 4096);
  for (size_t at = 0; at < size; at += chunk) {
    st_stream_push(s, data + at, size - at < chunk ? size - at : chunk);
    if (at == 0 || (at < size / 2 && at + chunk >= size / 2)) {
      st_error e;
      st_trace_destroy(st_stream_snapshot(s, &e));
    }
  }
  st_error err;
  st_trace *summary = st_stream_finish(s, &err);
  if (summary) {
    int64_t d = st_trace_duration_ns(summary);
    for (unsigned k = 0; k < 4; k++) {
      int64_t t0 = d / 4 * (int64_t)k, t1 = t0 + d / 3 + 1;
      window(s, summary, data, size, t0, t1, (seed >> (2 * k)) ^ k);
      (void)st_stream_events_in(s, t0, t1);
    }
    window(s, summary, data, size, INT64_MIN / 2, INT64_MAX / 2, seed);
  }
  st_trace_destroy(summary);
  st_stream_destroy(s);
  return 0;
}
