/* fuzz_stream.c: libFuzzer target for streaming mode (core/import/stream):
 * the pass over arbitrary input (small blocks and a tiny bucket budget, so
 * blocks are many and the summary coarsens), a snapshot while it runs,
 * then windows planned over the summary and loaded from the input's own
 * bytes: some filtered, some with a byte changed (a file edited after its
 * pass), some cut short; then the re-ordered copy (a second pass whose
 * records are kept in memory; sometimes a write fails or a limit is hit)
 * and windows read from it, some with a byte of the copy changed. Any
 * crash, leak or sanitizer report is a bug. */
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

typedef struct mem {
  uint8_t *p;
  size_t n;
  int writes, fail_at;
} mem;

static st_code mem_write(void *ud, uint64_t offset, const void *data, size_t len) {
  mem *m = ud;
  if (++m->writes == m->fail_at || offset != m->n) return ST_ERR_ARG;
  uint8_t *q = realloc(m->p, m->n + len);
  if (!q) return ST_ERR_NOMEM;
  memcpy(q + m->n, data, len);
  m->p = q;
  m->n += len;
  return ST_OK;
}

/* The copy of the input, then windows of it (data: the copy's bytes). */
static void copy_windows(st_stream *s, const st_trace *summary, const uint8_t *data, size_t size,
                         unsigned seed) {
  mem m = {0};
  m.fail_at = (seed & 8) ? 2 : 0;
  st_stream_spill_desc d = {mem_write, &m, 1 + (seed % 9), 768, (seed & 16) ? 4096 : 0};
  st_error err;
  st_stream_spill *p = st_stream_spill_begin(s, &d, &err);
  if (!p) return;
  size_t chunk = 1 + (seed % 3001);
  for (size_t at = 0; at < size; at += chunk)
    if (st_stream_spill_push(p, data + at, size - at < chunk ? size - at : chunk) != ST_OK) break;
  st_code c = st_stream_spill_finish(p, &err);
  st_stream_spill_destroy(p);
  if (c == ST_OK) {
    int64_t dur = st_trace_duration_ns(summary);
    for (unsigned k = 0; k < 3; k++) {
      int64_t t0 = dur / 3 * (int64_t)k, t1 = t0 + dur / 5 + 1;
      window(s, summary, m.p, m.n, t0, t1, (seed >> (3 * k)) ^ k);
      (void)st_stream_events_in(s, t0, t1);
    }
  }
  free(m.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned seed = fuzz_seed(data, size);
  st_stream *s = st_stream_create(
      &(st_stream_desc){.block_bytes = 4096, .max_buckets = 64, .staging = 1 + seed % 32});
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
    copy_windows(s, summary, data, size, seed);
  }
  st_trace_destroy(summary);
  st_stream_destroy(s);
  return 0;
}
