/* fuzz_stx.c: libFuzzer target for streaming mode's index file
 * (core/import/stream/stream_stx.h): arbitrary bytes opened as an index.
 * Unless the input's last byte is odd, its checksum (the last 32 bytes) is
 * first made right, so the fuzzer explores the parser and not the hash.
 * If accepted: the index is checked against a fixed small trace (mostly a
 * mismatch), saved again, and windows (the whole trace and a slice) are
 * planned and loaded from that trace's bytes (ranges past them are not
 * read; a compressed index reads through its gzip restart points from the
 * trace's gzip'd bytes). Any crash, leak or sanitizer report is a bug.
 * Seeds: tests/fuzz/corpus/fuzz_stx: indexes written by `strata index`
 * (fixed*.stx: of this fixed trace, written out by Python, the gzip one
 * with `--gz-span 4096`; its deflate blocks are small: memLevel 1) and by
 * tests/unit/test_stream.c (STREAM_DUMP_STX). */
#include "sha256.h"
#include "stream_stx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fixed {
  char *json;
  size_t n;
  uint8_t *gz;
  size_t gzn;
} fixed;

/* A trace of ~96 KiB: nested B/E pairs across blocks, X, async, counters. */
static void make_fixed(fixed *f) {
  size_t cap = 1 << 17, n = 0;
  char *p = malloc(cap);
  n += (size_t)snprintf(p + n, cap - n, "{\"traceEvents\":[\n");
  for (int i = 0; i < 300 && n + 400 < cap; i++) {
    long long t = 1000 + i * 10;
    n += (size_t)snprintf(
        p + n, cap - n,
        "{\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"name\":\"b%d\"},\n"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":3,\"name\":\"x\"},\n"
        "{\"ph\":\"C\",\"pid\":1,\"ts\":%lld,\"name\":\"mem\",\"args\":{\"v\":%d}},\n"
        "{\"ph\":\"b\",\"pid\":2,\"ts\":%lld,\"name\":\"r\",\"cat\":\"a\",\"id\":%d},\n"
        "{\"ph\":\"e\",\"pid\":2,\"ts\":%lld,\"name\":\"r\",\"cat\":\"a\",\"id\":%d},\n"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":%lld},\n",
        i % 3, t, i, i % 3, t + 1, t, i, t, i % 7, t + 50, i % 7, i % 3, t + 5);
  }
  n += (size_t)snprintf(p + n, cap - n,
                        "{\"ph\":\"i\",\"pid\":1,\"tid\":0,\"ts\":9999,\"name\":\"end\"}]}\n");
  f->json = p;
  f->n = n;
  z_stream z;
  memset(&z, 0, sizeof z);
  deflateInit2(&z, 6, Z_DEFLATED, 31, 1, Z_DEFAULT_STRATEGY); /* small blocks */
  f->gzn = deflateBound(&z, (uLong)n) + 64;
  f->gz = malloc(f->gzn);
  z.next_in = (Bytef *)p;
  z.avail_in = (uInt)n;
  z.next_out = f->gz;
  z.avail_out = (uInt)f->gzn;
  deflate(&z, Z_FINISH);
  f->gzn -= z.avail_out;
  deflateEnd(&z);
}

static st_code discard(void *ud, const void *p, size_t n) {
  (void)p;
  *(size_t *)ud += n;
  return ST_OK;
}

/* Decoded [off, off + len) of the fixed trace, as the index says to read it. */
static uint8_t *read_range(const st_stream *s, const fixed *f, int compressed, uint64_t off,
                           uint64_t len) {
  const uint8_t *raw = compressed ? f->gz : (const uint8_t *)f->json;
  size_t rawn = compressed ? f->gzn : f->n;
  uint64_t from = 0;
  st_stream_read *r = st_stream_read_begin(s, off, len, &from);
  int done = 0;
  while (r && !done && from < rawn) {
    size_t k = rawn - from < 997 ? (size_t)(rawn - from) : 997;
    if (st_stream_read_push(r, raw + from, k, &done) != ST_OK) break;
    from += k;
  }
  size_t got = 0;
  const uint8_t *d = r ? st_stream_read_data(r, &got) : NULL;
  uint8_t *out = d && got == len ? malloc(got ? got : 1) : NULL;
  if (out && got) memcpy(out, d, got);
  st_stream_read_end(r);
  return out;
}

static void window(st_stream *s, const st_trace *sum, const fixed *f, int64_t t0, int64_t t1) {
  st_stream_info info;
  st_stream_info_get(s, &info);
  st_stream_range rg[64];
  uint64_t bytes;
  uint32_t n = st_stream_window_plan(s, t0, t1, rg, 64, &bytes);
  if (n > 64) n = 64;
  st_error err;
  st_stream_window *w = st_stream_window_begin(s, sum, rg, n, &err);
  if (!w) return;
  int ok = 1;
  for (uint32_t k = 0; k < n && ok; k++) {
    uint8_t *b = NULL;
    if (rg[k].length <= f->n * 2) b = read_range(s, f, info.compressed, rg[k].offset, rg[k].length);
    ok = b != NULL;
    if (ok) st_stream_window_push(w, k, b, rg[k].length);
    free(b);
  }
  if (ok) st_trace_destroy(st_stream_window_finish(w, &err));
  st_stream_window_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fixed f; /* the harness's own (not the core's): built once */
  if (!f.json) make_fixed(&f);
  uint8_t *p = malloc(size ? size : 1);
  if (size) memcpy(p, data, size);
  if (size >= 32 && !(data[size - 1] & 1)) st_sha256(p, size - 32, p + size - 32);
  st_error err;
  st_trace *sum = NULL;
  st_stream *s = st_stream_open_index(NULL, p, size, &sum, &err);
  if (s) {
    st_stream_info info;
    st_stream_info_get(s, &info);
    st_stream_range plan[ST_STX_SAMPLES];
    uint32_t ns = st_stream_identity_plan(s, plan);
    const uint8_t *smp[ST_STX_SAMPLES];
    const uint8_t *raw = info.compressed ? f.gz : (const uint8_t *)f.json;
    size_t rawn = info.compressed ? f.gzn : f.n;
    for (uint32_t k = 0; k < ns; k++)
      smp[k] = plan[k].offset + plan[k].length <= rawn ? raw + plan[k].offset : NULL;
    st_stream_verify(s, "fixed.json", rawn, smp, ns, &err);
    size_t written = 0;
    st_stream_save(s, sum, smp, ns, discard, &written, &err);
    char json[8192];
    st_stats_json(st_stream_stats(s), json, sizeof json);
    (void)st_stream_metadata_json(s);
    int64_t d = st_trace_duration_ns(sum);
    window(s, sum, &f, 0, d);
    window(s, sum, &f, d / 3, d / 2);
    st_argsrc_destroy(st_stream_take_args_source(s));
    st_trace_destroy(sum);
    st_stream_destroy(s);
  }
  free(p);
  return 0;
}
