/* test_gzindex.c: random access into gzip / zlib data: every read of a
 * random range, started from the restart point the index picks, equals the
 * original bytes; single and multi-member gzip, zlib, chunked pushes of odd
 * sizes, points every span, reads across member boundaries and past the
 * end, corrupt and non-compressed input. */
#include "check.h"
#include "gzindex.h"

#include <stdlib.h>
#include <zlib.h>

/* Pseudo-JSON with repeats (so deflate uses back-references across blocks). */
static uint8_t *make_data(size_t n) {
  uint8_t *d = malloc(n);
  uint32_t x = 12345;
  for (size_t i = 0; i < n;) {
    x = x * 1103515245u + 12345u;
    int k =
        snprintf((char *)d + i, n - i, "{\"name\":\"fusion.%u\",\"ts\":%zu,\"args\":{\"v\":%u}},\n",
                 (x >> 16) % 500, i, x % 97);
    if (k <= 0 || (size_t)k >= n - i) {
      while (i < n) d[i++] = ' ';
      break;
    }
    i += (size_t)k;
  }
  return d;
}

static size_t compress_to(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, int gzip) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  deflateInit2(&zs, 6, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = (Bytef *)src;
  zs.avail_in = (uInt)n;
  zs.next_out = dst;
  zs.avail_out = (uInt)cap;
  deflate(&zs, Z_FINISH);
  size_t out = zs.total_out;
  deflateEnd(&zs);
  return out;
}

static int check_reads(const st_gzindex *ix, const uint8_t *comp, size_t clen, const uint8_t *orig,
                       size_t n, int reads) {
  int bad = 0;
  for (int k = 0; k < reads && !bad; k++) {
    uint64_t off = (uint64_t)rand() * 7919u % n;
    size_t len = 1 + (size_t)rand() % 70000;
    uint64_t from;
    st_gzread *r = st_gzread_begin(ix, off, len, &from);
    if (!r || from > clen) {
      bad = 1;
      break;
    }
    int done = 0;
    size_t pos = (size_t)from;
    while (!done && pos < clen) {
      size_t step = 1 + (size_t)rand() % 9000;
      if (step > clen - pos) step = clen - pos;
      if (st_gzread_push(r, comp + pos, step, &done) != ST_OK) bad = 2;
      pos += step;
    }
    size_t got;
    const uint8_t *d = st_gzread_data(r, &got);
    size_t want = off + len <= n ? len : n - (size_t)off;
    if (got != want || memcmp(d, orig + off, got)) bad = 3;
    st_gzread_end(r);
  }
  return bad;
}

static void test_roundtrip(void) {
  srand(1);
  size_t n = 6u << 20;
  uint8_t *orig = make_data(n);
  size_t cap = n + 1024;
  uint8_t *comp = malloc(2 * cap);
  for (int mode = 0; mode < 3; mode++) { /* gzip, zlib, two gzip members */
    size_t clen;
    if (mode == 2) {
      size_t half = n / 2 + 12345;
      clen = compress_to(orig, half, comp, cap, 1);
      clen += compress_to(orig + half, n - half, comp + clen, cap, 1);
    } else {
      clen = compress_to(orig, n, comp, cap, mode == 0);
    }
    st_gzindex *ix = st_gzindex_create(NULL, 256 * 1024);
    st_error err;
    for (size_t pos = 0; pos < clen;) {
      size_t step = 1 + (size_t)rand() % 100000;
      if (pos == 0) step = 1; /* the sniff straddles pushes */
      if (step > clen - pos) step = clen - pos;
      CHECK(st_gzindex_push(ix, comp + pos, step, &err) == ST_OK);
      pos += step;
    }
    CHECK(st_gzindex_finish(ix, &err) == ST_OK);
    CHECK_EQ_INT(st_gzindex_decoded(ix), n);
    CHECK(st_gzindex_points(ix) >= 10); /* every 256 KiB of 6 MiB, at block ends */
    CHECK_EQ_INT(check_reads(ix, comp, clen, orig, n, 60), 0);
    st_gzindex_destroy(ix);
  }
  /* truncated: points before the cut still work; finish says so */
  size_t clen = compress_to(orig, n, comp, cap, 1);
  st_gzindex *ix = st_gzindex_create(NULL, 256 * 1024);
  st_error err;
  CHECK(st_gzindex_push(ix, comp, clen / 2, &err) == ST_OK);
  CHECK(st_gzindex_finish(ix, &err) == ST_ERR_TRUNCATED);
  st_gzindex_destroy(ix);
  /* corrupt data and plain text */
  ix = st_gzindex_create(NULL, 0);
  memset(comp + 100, 0xff, 64);
  st_code c = st_gzindex_push(ix, comp, clen, &err);
  CHECK(c == ST_ERR_GZIP);
  CHECK(st_gzindex_push(ix, comp, 10, &err) == ST_ERR_GZIP); /* sticky */
  st_gzindex_destroy(ix);
  ix = st_gzindex_create(NULL, 0);
  CHECK(st_gzindex_push(ix, "{\"traceEvents\":[]}", 18, &err) == ST_ERR_FORMAT);
  CHECK(st_gzread_begin(ix, 0, 10, NULL) == NULL);
  st_gzindex_destroy(ix);
  free(comp);
  free(orig);
}

int main(void) {
  RUN(test_roundtrip);
  return check_report();
}
