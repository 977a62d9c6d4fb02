/* stream_read.c: reading a decoded range of a streamed trace whatever its
 * compression (stream.h "reading a decoded range"): the gzip restart
 * points the pass builds from the raw bytes it is given, and the read
 * dialogue over them (a copy for plain input).
 */
#include "source.h"
#include "stream_internal.h"

#include <string.h>

/* ==== 1. the restart points, during the pass ============================== */

static void gz_feed(st_stream *s, const void *data, size_t len) {
  if (s->gz_state != 1 || !len) return;
  st_error err;
  if (st_gzindex_push(s->gz, data, len, &err) != ST_OK) { /* the loader says why */
    st_gzindex_destroy(s->gz);
    s->gz = NULL;
    s->gz_state = 3;
  }
}

/* The loader's rule (source.h) on the first two raw bytes decides. */
static void gz_decide(st_stream *s, int b0, int b1) {
  st_compression c = st_source_sniff(b0, b1);
  s->gz_state = 2;
  if (c != ST_COMPRESSION_GZIP && c != ST_COMPRESSION_ZLIB) return;
  s->gz = st_gzindex_create(&s->alloc, s->gz_span);
  s->gz_state = s->gz ? 1 : 3;
  gz_feed(s, s->gz_sniff, s->gz_sniffed);
}

void st_stream_gz_push(st_stream *s, const void *data, size_t len) {
  const uint8_t *p = data;
  s->raw_bytes += len;
  if (s->gz_state == 0) {
    while (s->gz_sniffed < 2 && len) {
      s->gz_sniff[s->gz_sniffed++] = *p++;
      len--;
    }
    if (s->gz_sniffed < 2) return;
    gz_decide(s, s->gz_sniff[0], s->gz_sniff[1]);
  }
  gz_feed(s, p, len);
}

void st_stream_gz_finish(st_stream *s) {
  if (s->gz_state == 0) { /* fewer than 2 bytes: not compressed */
    s->gz_state = 2;
    return;
  }
  st_error err;
  if (s->gz && st_gzindex_finish(s->gz, &err) != ST_OK && st_gzindex_points(s->gz) == 0) {
    st_gzindex_destroy(s->gz);
    s->gz = NULL;
    s->gz_state = 3;
  } /* cut short: the points so far serve the data before the cut */
}

/* ==== 2. the read dialogue ================================================= */

struct st_stream_read {
  st_alloc alloc;
  st_gzread *gz; /* compressed input; else the bytes are copied */
  uint8_t *buf;
  size_t len, got;
};

st_stream_read *st_stream_read_begin(const st_stream *s, uint64_t offset, uint64_t len,
                                     uint64_t *raw_from) {
  if (!s || !len || len > SIZE_MAX) return NULL;
  const st_stats *st = st_stream_stats_of(s);
  int compressed = st && st->compressed;
  if (compressed && !s->gz) return NULL;
  st_stream_read *r = st_calloc(&s->alloc, 1, sizeof *r);
  if (!r) return NULL;
  r->alloc = s->alloc;
  r->len = (size_t)len;
  if (compressed) {
    r->gz = st_gzread_begin(s->gz, offset, (size_t)len, raw_from);
  } else {
    r->buf = st_malloc(&s->alloc, (size_t)len);
    if (raw_from) *raw_from = offset;
  }
  if (!r->gz && !r->buf) {
    st_stream_read_end(r);
    return NULL;
  }
  return r;
}

st_code st_stream_read_push(st_stream_read *r, const void *raw, size_t n, int *done) {
  if (done) *done = 0;
  if (!r || (n && !raw)) return ST_ERR_ARG;
  if (r->gz) return st_gzread_push(r->gz, raw, n, done);
  size_t k = n < r->len - r->got ? n : r->len - r->got;
  if (k) memcpy(r->buf + r->got, raw, k);
  r->got += k;
  if (done) *done = r->got == r->len;
  return ST_OK;
}

const uint8_t *st_stream_read_data(const st_stream_read *r, size_t *len) {
  if (r && r->gz) return st_gzread_data(r->gz, len);
  if (len) *len = r ? r->got : 0;
  return r ? r->buf : NULL;
}

void st_stream_read_end(st_stream_read *r) {
  if (!r) return;
  st_alloc a = r->alloc;
  st_gzread_end(r->gz);
  st_free(&a, r->buf);
  st_free(&a, r);
}
